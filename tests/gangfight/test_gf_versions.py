"""Battles recorded under version 1.0 re-adjudicate exactly under 1.1: every ruling added since
says so with the value that gives 1.0's rules, and records 1.0 made verify."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blowbyblow.domain.core import BattleStarted
from blowbyblow.domain.gangfight.rulings import RULINGS
from blowbyblow.domain.gangfight.system import GAME_SYSTEM
from blowbyblow.replay.battles.whatif import what_if
from blowbyblow.replay.evidence.export import read_export

# Exports recorded by version 1.0 of this system: the example scenario as it stood (a Trample, a
# Slam!, a fall, standing up) and two random battles with seeded dice (Trample and a Slam! on a
# smaller model, a Slam!, moves and Free Strikes, falls; a Finesse Attack, an Incapacitation and a
# death). The demo's own 1.0 record is tests/fixtures/gangfight-format2.jsonl.
FIXTURES = sorted((Path(__file__).resolve().parent / "fixtures").glob("gangfight-1.0-*.jsonl"))


def test_battles_of_1_0_are_read_with_the_rules_of_1_0() -> None:
    """Every ruling added since 1.0 says so, and its value for a 1.0 battle is one of its
    choices; a 1.0 battle's rulings are completed with them."""
    old = {r.name: r.default for r in RULINGS if not r.since}
    added = [r for r in RULINGS if r.since == "1.1"]
    assert {r.name for r in added} == {
        "spare-weapons",
        "ranged-range",
        "shooting-into-combat",
        "shooter-threat-range",
        "dodge-tn",
        "dodge-reduces",
        "charge-action",
    }
    assert (GAME_SYSTEM.version, GAME_SYSTEM.reads_versions) == (
        "1.4",
        ("1.0", "1.1", "1.2", "1.3"),
    )
    in_force = GAME_SYSTEM.rulings_in_force("1.0", old)
    for r in added:
        assert r.since == "1.1" and in_force[r.name] == r.before
    assert in_force["spare-weapons"] == "allowed"  # 1.0 let a spare weapon be carried
    assert in_force["area-point-blank"] == "applies"


def test_a_record_of_1_1_verifies_under_1_2_and_the_other_reading_changes_it() -> None:
    """An Area of Effect attack recorded by 1.1 (``make_1_1_records.py`` in tests/asl/fixtures):
    the ruling area-point-blank, added in 1.2, takes 1.1's reading for it, so it re-adjudicates
    byte for byte; a what-if without the Point Blank die goes otherwise."""
    data = Path(__file__).resolve().parent / "fixtures/gangfight-1.1-area-point-blank.jsonl"
    read = read_export(data.read_bytes())
    assert read.report.ok, read.report.problem and read.report.problem.describe()
    started = read.events[0].event
    assert isinstance(started, BattleStarted)
    assert started.ruleset_version == "1.1" and "area-point-blank" not in started.rulings
    assert [r.name for r in RULINGS if r.since == "1.2"] == ["area-point-blank"]
    assert GAME_SYSTEM.rulings_in_force("1.1", started.rulings)["area-point-blank"] == "applies"
    assert what_if(read.events, {"area-point-blank": "applies"}).divergence is None
    changed = what_if(read.events, {"area-point-blank": "not-applied"})
    assert changed.divergence is not None or changed.stopped


@pytest.mark.parametrize(
    ("name", "ruling", "other"),
    [
        ("power-no-success", "power-no-success", "knocked-down"),
        ("shot-damage", "shot-damage", "attribute"),
    ],
)
def test_a_record_of_1_2_verifies_under_1_3_and_the_other_reading_changes_it(
    name: str, ruling: str, other: str
) -> None:
    """Battles recorded by 1.2 (``fixtures/make_1_2_records.py``), each on a reading 1.3 made a
    ruling: the ruling takes 1.2's reading for them, so they re-adjudicate byte for byte; a
    what-if under the other reading goes otherwise."""
    data = Path(__file__).resolve().parent / f"fixtures/gangfight-1.2-{name}.jsonl"
    read = read_export(data.read_bytes())
    assert read.report.ok, read.report.problem and read.report.problem.describe()
    started = read.events[0].event
    assert isinstance(started, BattleStarted)
    assert started.ruleset_version == "1.2" and ruling not in started.rulings
    assert {r.name for r in RULINGS if r.since == "1.3"} == {"power-no-success", "shot-damage"}
    before = next(r.before for r in RULINGS if r.name == ruling)
    assert GAME_SYSTEM.rulings_in_force("1.2", started.rulings)[ruling] == before
    assert what_if(read.events, {ruling: before}).divergence is None
    changed = what_if(read.events, {ruling: other})
    assert changed.divergence is not None or changed.stopped


def test_there_are_records_of_1_0() -> None:
    assert len(FIXTURES) == 3


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_a_record_of_1_0_still_verifies_exactly(path: Path) -> None:
    """Every command re-adjudicated from its recorded dice and choices gives the recorded events,
    byte for byte (whole inches still integers, no new field changing an old command)."""
    data = path.read_bytes()
    header = json.loads(data.splitlines()[1])["event"]
    assert (header["ruleset"], header["ruleset_version"]) == ("gangfight", "1.0")
    read = read_export(data)
    assert read.report.ok, read.report.problem and read.report.problem.describe()
    assert read.report.commands >= 3
