"""What version 1.3 of wh40k-2e adds: the ruling parry-dice (which die a second parry makes the
opponent re-roll). A battle recorded by 1.2 (``fixtures/make_1_2_records.py``) still verifies
byte for byte; a what-if under the other reading goes otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest
from wh40k_helpers import model, of, one, run, setup

from blowbyblow.domain.core import BattleStarted
from blowbyblow.domain.wh40k.commands import Fight
from blowbyblow.domain.wh40k.events import CombatScoreCalculated, ParryDeclined, ParryUsed
from blowbyblow.domain.wh40k.system import GAME_SYSTEM
from blowbyblow.replay.battles.whatif import what_if
from blowbyblow.replay.evidence.export import read_export

FIXTURES = Path(__file__).resolve().parent / "fixtures"

TWO_SWORDS = model("a", "red", weapons=["sword", "sword2"], t=7)


def test_a_second_parry_at_the_die_the_first_re_rolled_then_highest() -> None:
    """ "For every weapon a model has with the Parry rule, it can turn aside one attack ... the
    Parrying player may force their opponent to re-roll their highest scoring dice - the
    re-rolled result stands, even if it is better." a has two swords (two parries, 2 Attack
    dice: 3 3); b rolls 5 3. The 5 re-rolls to a 6, still b's highest: then-highest (1.2)
    parries that die again (to a 2), b's 2 3 against a's 3 3: 7 all, a stalemate."""
    s = setup(TWO_SWORDS, model("b", "blue", a=2), contacts=[("a", "b")])
    played = run(s, [Fight(model="a")], [3, 3, 5, 3, 6, 2])
    used = of(played, ParryUsed)
    assert [(u.highest, u.dice_after) for u in used] == [(5, (6, 3)), (6, (2, 3))]
    assert one(played, CombatScoreCalculated, model="b").score == 3 + 4


def test_a_second_parry_at_the_die_the_first_re_rolled_each_die_once() -> None:
    """The same dice under each-die-once: each parry turns aside an attack of its own, so the
    second is offered at b's 3 (the 6 was parried already); at a 3 it is declined by default,
    and b fights with its 6: 6 + 4 = 10 against 7, three hits (S3 against T7: no wound roll)."""
    s = setup(TWO_SWORDS, model("b", "blue", a=2), contacts=[("a", "b")])
    played = run(s, [Fight(model="a")], [3, 3, 5, 3, 6], rulings={"parry-dice": "each-die-once"})
    assert [u.highest for u in of(played, ParryUsed)] == [5]
    assert one(played, ParryDeclined).highest == 3
    assert one(played, CombatScoreCalculated, model="b").score == 6 + 4


@pytest.mark.parametrize(("ruling", "offered"), [("then-highest", 2), ("each-die-once", 1)])
def test_a_lone_die_parried_twice(ruling: str, offered: int) -> None:
    """b rolls a single die (A1): then-highest offers the second parry at the die re-rolled;
    each-die-once has no attack left to turn aside, so the second parry is not offered (b's 6:
    10 against 7, three S3 hits on a's T7, no wound roll). then-highest: the 6 re-rolls to a 3,
    7 all, a stalemate."""
    s = setup(TWO_SWORDS, model("b", "blue"), contacts=[("a", "b")])
    dice = [3, 3, 5, 6, 3] if offered == 2 else [3, 3, 5, 6]
    played = run(s, [Fight(model="a")], dice, rulings={"parry-dice": ruling})
    assert len(of(played, ParryUsed)) + len(of(played, ParryDeclined)) == offered


def test_a_battle_of_1_2_verifies_under_1_3_and_the_other_reading_changes_it() -> None:
    assert "1.2" in GAME_SYSTEM.reads_versions
    assert [r.name for r in GAME_SYSTEM.rulings if r.since == "1.3"] == ["parry-dice"]
    read = read_export((FIXTURES / "wh40k-2e-1.2-second-parry-same-die.jsonl").read_bytes())
    assert read.report.ok, read.report.problem and read.report.problem.describe()
    started = read.events[0].event
    assert isinstance(started, BattleStarted)
    assert started.ruleset_version == "1.2" and "parry-dice" not in started.rulings
    assert GAME_SYSTEM.rulings_in_force("1.2", started.rulings)["parry-dice"] == "then-highest"
    assert what_if(read.events, {"parry-dice": "then-highest"}).divergence is None
    changed = what_if(read.events, {"parry-dice": "each-die-once"})
    assert changed.divergence is not None or changed.stopped
