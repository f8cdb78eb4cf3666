"""The long fuzz run, by hand (never in CI):

    python benchmarks/fuzz.py [--scenarios 10000] [--exports 5000] [--typed 2000] [--api 2000]
                              [--cli N]
                              [--hang-seconds 5]

Runs tests/fuzz/ with thousands of random mutations of every shipped scenario, of every demo's
export, of the commands typed at `bxb play`'s prompt and of the tournament server's command API
requests, and every bad command-line argument of
tests/fuzz/cli_args.py (the suite runs a few dozen of each, the same each time, and each
argument and option of every command once; 0 skips one), and prints what they gave:
mutations tried, accepted, refused, and the findings, each of which must be 0: tracebacks
(an exception, or bxb's own "this is a bug", exit 70), hangs (a run that spends more than
--hang-seconds of CPU time, or six times as long by the clock),
writes on refusal (a refused input that changed the store), and refusals without one `error:`
line. The first findings are printed with the mutation that made each, to reproduce it."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTS = {
    "scenarios": "test_fuzz.py::test_mutated_scenarios_are_recorded_or_refused_cleanly",
    "exports": "test_fuzz.py::test_mutated_exports_are_verified_or_refused_cleanly",
    "typed": "test_fuzz.py::test_mutated_typed_commands_are_played_or_refused_cleanly",
    "api": "test_fuzz.py::test_mutated_api_requests_are_played_or_refused_cleanly",
    "cli": "test_fuzz_cli.py::test_bad_arguments_to_every_command_are_refused_cleanly",
}


def run(test: str, examples: int, hang_seconds: float, report: Path) -> float:
    env = dict(
        os.environ,
        BXB_FUZZ_EXAMPLES=str(examples),
        BXB_FUZZ_RANDOM="1",
        BXB_FUZZ_HANG_SECONDS=str(hang_seconds),
        BXB_FUZZ_REPORT=str(report),
    )
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"tests/fuzz/{TESTS[test]}",
        ],
        cwd=REPO,
        env=env,
        check=False,
    )
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", type=int, default=10_000, help="scenario mutations")
    parser.add_argument("--exports", type=int, default=5_000, help="export mutations")
    parser.add_argument(
        "--typed", type=int, default=2_000, help="typed commands at `bxb play`'s prompt"
    )
    parser.add_argument(
        "--api", type=int, default=2_000, help="requests to the tournament server's command API"
    )
    parser.add_argument(
        "--cli",
        type=int,
        default=100_000,
        help="bad command-line arguments (at most every case of tests/fuzz/cli_args.py)",
    )
    parser.add_argument(
        "--hang-seconds", type=float, default=5.0, help="CPU seconds: a longer run is a hang"
    )
    args = parser.parse_args()
    report = Path(tempfile.mkdtemp(prefix="bxb-fuzz-")) / "report.jsonl"
    found = 0
    runs = (
        ("scenarios", args.scenarios),
        ("exports", args.exports),
        ("typed", args.typed),
        ("api", args.api),
        ("cli", args.cli),
    )
    for test, examples in runs:
        if not examples:
            continue
        seconds = run(test, examples, args.hang_seconds, report)
        print(f"\n{test}: {examples} examples in {seconds:.0f} s")
    for line in report.read_text().splitlines() if report.exists() else []:
        result = json.loads(line)
        findings = result.pop("findings")
        print(f"{result.pop('test')}: " + ", ".join(f"{k} {v}" for k, v in result.items()))
        for finding in findings[:5]:
            print("  finding:", finding[:2000])
        found += len(findings)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
