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


# Records made by the 1.1 engine (fixtures/make_1_1_records.py) on a reading 1.2 made a ruling
# whose default differs from 1.1's; the rulings added in 1.2 with 1.1's reading as default
# (reinforcing-attack, disrupted-in-melee) change nothing a 1.1 battle recorded.
CASES_1_1 = [
    ("leader-directs", "leader-choice", "asked"),
    ("street-one-side", "street-fighting-road", "both-sides"),
]


def test_every_ruling_added_in_1_1_has_a_1_0_record() -> None:
    added = {r.name for r in RULESET.rulings if r.since == "1.1"}
    assert added - {"infiltration-on-12"} == {ruling for _, ruling, _ in CASES}
    assert "1.2" in RULESET.reads_versions
    added_1_3 = [r for r in RULESET.rulings if r.since == "1.3"]
    # its default is 1.2's reading: no battle of 1.2 reads otherwise
    assert [(r.name, r.default, r.before) for r in added_1_3] == [
        ("pinned-leader-directs", "no", "no")
    ]


def test_every_ruling_added_in_1_2_whose_default_moved_has_a_1_1_record() -> None:
    added = [r for r in RULESET.rulings if r.since == "1.2"]
    assert {r.name for r in added if r.default != r.before} == {
        ruling for _, ruling, _ in CASES_1_1
    }
    assert {r.name for r in added if r.default == r.before} == {
        "reinforcing-attack",
        "disrupted-in-melee",
    }


@pytest.mark.parametrize(("name", "ruling", "reading"), CASES_1_1)
def test_a_1_1_battle_verifies_under_1_2_and_the_new_reading_changes_it(
    name: str, ruling: str, reading: str
) -> None:
    """Byte for byte: every command re-adjudicated under 1.2 with the 1.2 rulings at their
    ``before`` values gives the events 1.1 recorded."""
    read = read_export((FIXTURES / f"asl-1.1-{name}.jsonl").read_bytes())
    assert read.report.ok, read.report.problem and read.report.problem.describe()
    started = read.events[0].event
    assert isinstance(started, BattleStarted)
    assert started.ruleset_version == "1.1" and ruling not in started.rulings
    in_force = RULESET.rulings_in_force("1.1", started.rulings)
    assert in_force[ruling] == RULESET.ruling(ruling).before
    same = what_if(read.events, {ruling: RULESET.ruling(ruling).before})
    assert same.divergence is None and not same.stopped
    changed = what_if(read.events, {ruling: reading})
    assert changed.divergence is not None or changed.stopped


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
