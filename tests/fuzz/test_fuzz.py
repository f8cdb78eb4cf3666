"""Every shipped scenario and every demo's export, mutated (hypothesis) and run through `bxb`: each
run is accepted, or refused with one `error:` line and nothing written; none raises, none hangs.

In the suite: a few dozen mutations of each, the same ones every run (derandomized), a few
seconds. By hand: `python benchmarks/fuzz.py` runs the same tests with thousands of random
mutations (BXB_FUZZ_EXAMPLES, BXB_FUZZ_RANDOM) and prints what they gave (BXB_FUZZ_REPORT)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from api_fuzz import ApiCase, api_cases, run_api, server
from fuzz_helpers import (
    Case,
    Tally,
    TypedCase,
    demo_exports,
    export_cases,
    run_export,
    run_scenario,
    run_typed,
    scenario_cases,
    typed_cases,
    typed_setups,
)
from hypothesis import HealthCheck, given, settings

EXAMPLES = int(os.environ.get("BXB_FUZZ_EXAMPLES", "0"))
RANDOM = os.environ.get("BXB_FUZZ_RANDOM") == "1"  # the suite's runs are the same every time


def _settings(examples: int) -> settings:
    return settings(
        max_examples=EXAMPLES or examples,
        deadline=None,  # a hang is the alarm's to catch (fuzz_helpers.HANG_SECONDS)
        database=None,  # nothing written beside the tests
        derandomize=not RANDOM,
        suppress_health_check=list(HealthCheck),
    )


def _report(name: str, tally: Tally) -> None:
    target = os.environ.get("BXB_FUZZ_REPORT")
    if target:
        line = {"test": name, **tally.summary(), "findings": tally.findings()[:20]}
        with open(target, "a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")


def _check(name: str, tally: Tally) -> None:
    _report(name, tally)
    findings = tally.findings()
    assert not findings, f"{len(findings)} finding(s); the first:\n" + "\n---\n".join(findings[:3])
    # both sides reached: mutations that bxb accepts and mutations it refuses
    assert tally.accepted and tally.refused, tally.summary()


def test_mutated_scenarios_are_recorded_or_refused_cleanly(tmp_path: Path) -> None:
    tally = Tally()

    @_settings(40)
    @given(case=scenario_cases())
    def one(case: Case) -> None:
        run_scenario(case, tmp_path, tally)

    one()
    _check("scenarios", tally)


def test_mutated_exports_are_verified_or_refused_cleanly(tmp_path: Path) -> None:
    tally = Tally()
    exports = demo_exports()
    for n, exported in enumerate(exports):  # as exported: verified and imported
        run_export(Case(f"export {n} as it is", exported), tmp_path, tally)

    @_settings(20)
    @given(case=export_cases(exports))
    def one(case: Case) -> None:
        run_export(case, tmp_path, tally)

    one()
    _check("exports", tally)


def test_mutated_typed_commands_are_played_or_refused_cleanly(tmp_path: Path) -> None:
    tally = Tally()
    setups = typed_setups(tmp_path)

    @_settings(8)  # a gangfight prompt takes about half a second (its completions)
    @given(case=typed_cases(setups))
    def one(case: TypedCase) -> None:
        run_typed(case, tmp_path, tally)

    one()
    _report("typed", tally)
    findings = tally.findings()
    assert not findings, f"{len(findings)} finding(s); the first:\n" + "\n---\n".join(findings[:3])
    assert tally.accepted, tally.summary()


def test_mutated_api_requests_are_played_or_refused_cleanly(tmp_path: Path) -> None:
    """The tournament server's command API: a whole battle started, or one command played, from
    a mutated body; never a 5xx answer, never a write on a refusal."""
    tally = Tally()
    with server(tmp_path) as site:

        @_settings(12)
        @given(case=api_cases())
        def one(case: ApiCase) -> None:
            run_api(case, site, tally)

        one()
    _check("api", tally)
