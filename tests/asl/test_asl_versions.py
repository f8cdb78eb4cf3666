"""Version 1.1 of ``asl`` re-adjudicates battles recorded by 1.0 exactly: each fixture was
recorded and exported by the 1.0 engine (``fixtures/make_1_0_records.py``) on a rule 1.1 reads
otherwise. It still verifies (the rulings it lacks take their ``before`` value), and a what-if
under the 1.1 reading shows where that battle would have gone otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from blowbyblow.domain.core import BattleStarted
from blowbyblow.replay.battles.whatif import what_if
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.evidence.export import read_export

FIXTURES = Path(__file__).resolve().parent / "fixtures"
RULESET = get_game_system("asl")

CASES = [
    ("lone-vehicle", "ambush-vehicle-side", "takes-part"),
    ("passengers", "passengers-inside", "inside"),
    ("berserk-capture", "berserk-capture", "refused"),
    ("two-leaders", "leader-direction", "with-its-mmc"),
    ("unarmed-vehicle", "unarmed-vehicle-capture", "captured-when-alone"),
]


def test_every_ruling_added_in_1_1_has_a_1_0_record() -> None:
    added = {r.name for r in RULESET.rulings if r.since == "1.1"}
    assert added - {"infiltration-on-12"} == {ruling for _, ruling, _ in CASES}
    assert RULESET.version == "1.1" and RULESET.reads_versions == ("1.0",)


@pytest.mark.parametrize(("name", "ruling", "reading"), CASES)
def test_a_1_0_battle_verifies_under_1_1_and_the_new_reading_changes_it(
    name: str, ruling: str, reading: str
) -> None:
    read = read_export((FIXTURES / f"asl-1.0-{name}.jsonl").read_bytes())
    assert read.report.ok, read.report.problem and read.report.problem.describe()
    started = read.events[0].event
    assert isinstance(started, BattleStarted)
    assert started.ruleset_version == "1.0" and ruling not in started.rulings
    before = RULESET.ruling(ruling).before
    assert RULESET.rulings_in_force("1.0", started.rulings)[ruling] == before
    same = what_if(read.events, {ruling: before})
    assert same.divergence is None and not same.stopped
    changed = what_if(read.events, {ruling: reading})
    assert changed.divergence is not None or changed.stopped
