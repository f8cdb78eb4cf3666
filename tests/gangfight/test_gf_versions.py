"""Battles recorded under version 1.0 re-adjudicate exactly under 1.1: every ruling added since
says so with the value that gives 1.0's rules, and records 1.0 made verify."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blowbyblow.domain.gangfight.rulings import RULINGS
from blowbyblow.domain.gangfight.system import GAME_SYSTEM
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
    added = [r for r in RULINGS if r.since]
    assert {r.name for r in added} == {
        "spare-weapons",
        "ranged-range",
        "shooting-into-combat",
        "shooter-threat-range",
        "dodge-tn",
        "dodge-reduces",
        "charge-action",
    }
    assert (GAME_SYSTEM.version, GAME_SYSTEM.reads_versions) == ("1.1", ("1.0",))
    in_force = GAME_SYSTEM.rulings_in_force("1.0", old)
    for r in added:
        assert r.since == "1.1" and in_force[r.name] == r.before
    assert in_force["spare-weapons"] == "allowed"  # 1.0 let a spare weapon be carried


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
