"""What version 1.2 of wh40k-2e adds: the ruling dice-counted (which Attack dice Fumbles and
Critical Hits are counted on). A battle recorded by 1.1 (``fixtures/make_1_1_records.py``)
still verifies byte for byte; a what-if under the other reading goes otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest
from wh40k_helpers import model, of, one, run, setup

from blowbyblow.domain.core import BattleStarted
from blowbyblow.domain.wh40k.commands import Fight
from blowbyblow.domain.wh40k.events import (
    CombatScoreCalculated,
    CriticalHitsCounted,
    FumblesCounted,
)
from blowbyblow.domain.wh40k.system import GAME_SYSTEM
from blowbyblow.replay.battles.whatif import what_if
from blowbyblow.replay.evidence.export import read_export

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.mark.parametrize(
    ("ruling", "fumbles", "a_score", "dice"),
    [("after-parries", 1, 8, [3, 5, 3, 1, 1]), ("as-rolled", 0, 7, [3, 5, 3, 1])],
)
def test_a_parried_die_re_rolled_to_a_1(
    ruling: str, fumbles: int, a_score: int, dice: list[int]
) -> None:
    """ "When Rolling Attack Dice, each score of 1 represents a Fumble"; Parrying: "Once both
    players have rolled their Attack Dice, the Parrying player may force their opponent to
    re-roll their highest scoring dice - the re-rolled result stands". b rolls 5 3; a parries
    the 5, re-rolled to a 1. after-parries (1.1): the 1 is a Fumble, +1 to a (3 + 4 + 1);
    as-rolled: b rolled no 1, no Fumble (3 + 4 against b's 3 + 4: equal Initiative, a stalemate,
    no hit to roll for)."""
    s = setup(model("a", "red", weapons=["sword"]), model("b", "blue", a=2), contacts=[("a", "b")])
    played = run(s, [Fight(model="a")], dice, rulings={"dice-counted": ruling})
    assert len(of(played, FumblesCounted)) == fumbles
    assert one(played, CombatScoreCalculated, model="a").score == a_score


@pytest.mark.parametrize(("ruling", "crits"), [("after-parries", 0), ("as-rolled", 1)])
def test_a_parried_six_of_two(ruling: str, crits: int) -> None:
    """ "the first score of 6 has no special effect. Each additional 6 represents a Critical
    Hit": b rolls 6 6, a parries one 6, re-rolled to a 2. after-parries: one 6 left, no
    Critical Hit; as-rolled: two 6s were rolled, one Critical Hit. b wins; its S3 hits cannot
    wound a's T7 (no roll)."""
    s = setup(
        model("a", "red", weapons=["sword"], t=7),
        model("b", "blue", a=2, t=7),
        contacts=[("a", "b")],
    )
    played = run(s, [Fight(model="a")], [3, 6, 6, 2], rulings={"dice-counted": ruling})
    assert len(of(played, CriticalHitsCounted)) == crits
    b = one(played, CombatScoreCalculated, model="b")
    assert (b.highest, b.score) == (6, 6 + 4 + crits)


def test_a_battle_of_1_1_verifies_under_1_2_and_the_other_reading_changes_it() -> None:
    assert "1.1" in GAME_SYSTEM.reads_versions
    assert [r.name for r in GAME_SYSTEM.rulings if r.since == "1.2"] == ["dice-counted"]
    read = read_export((FIXTURES / "wh40k-2e-1.1-parried-fumble.jsonl").read_bytes())
    assert read.report.ok, read.report.problem and read.report.problem.describe()
    started = read.events[0].event
    assert isinstance(started, BattleStarted)
    assert started.ruleset_version == "1.1" and "dice-counted" not in started.rulings
    assert GAME_SYSTEM.rulings_in_force("1.1", started.rulings)["dice-counted"] == "after-parries"
    assert what_if(read.events, {"dice-counted": "after-parries"}).divergence is None
    changed = what_if(read.events, {"dice-counted": "as-rolled"})
    assert changed.divergence is not None or changed.stopped
