"""Odds of a recorded command (and of what its dice did), of a scenario's action, and of a live
battle's next command."""

from __future__ import annotations

from fractions import Fraction

import pytest
from odds_helpers import asl

from blowbyblow.domain.asl.commands import Attack, CloseCombat
from blowbyblow.domain.core import CommandIssued, DiceRolled
from blowbyblow.replay.battles.record import record
from blowbyblow.replay.odds.chance import OddsError
from blowbyblow.replay.odds.explore import (
    HowToExplore,
    next_odds,
    recorded_odds,
    scenario_odds,
)
from blowbyblow.replay.store.log import BattleStore


def test_the_percentile_of_a_recorded_partial_kill() -> None:
    """The recorded CC DR is 3 + 2 = 5, the Kill Number at 1-1: a Partial Kill, the 4-4-7
    Reduced (the Russian side's loss: 1, the Germans' none: net losses 1 and -1). At least as
    bad for the Russians: Reduced or eliminated, 4/36 + 6/36 = 5/18; at most as bad: anything
    but eliminated, 1 - 1/6 = 5/6. For the Germans the mirror image: 5/6 and 5/18."""
    store = BattleStore(":memory:")
    events = [e.event for e in record(store, asl("open"), quiet=True).events]
    dice = next(i for i, e in enumerate(events, start=1) if isinstance(e, DiceRolled))
    for position in (2, dice, len(events)):  # the CommandIssued, a roll, the last step
        odds = recorded_odds(events, position)
        assert odds.method == "exact" and odds.command == 1
        assert odds.happened is not None
        sides = {s.side: s for s in odds.happened.sides}
        assert sides["Russian"].net_loss == 1 and sides["German"].net_loss == -1
        assert sides["Russian"].at_least_as_bad.fraction == Fraction(5, 18)
        assert sides["Russian"].at_most_as_bad.fraction == Fraction(5, 6)
        assert sides["German"].at_least_as_bad.fraction == Fraction(5, 6)
        assert sides["German"].at_most_as_bad.fraction == Fraction(5, 18)
        assert odds.happened.tallies["Partial Kills"] == 1
        assert odds.happened.probability.fraction == Fraction(1, 9)


def test_a_scenario_action_with_its_own_dice_has_happened_too() -> None:
    odds = scenario_odds(asl("open"), 1)
    assert odds.happened is not None
    assert odds.happened.statuses == {"g": "Good Order", "r": "Good Order"}
    short = scenario_odds(asl("open", dice=[3]), 1)  # the dice stop short of the CC DR
    assert short.happened is None
    assert short.units == odds.units


def test_positions_and_actions_out_of_range_are_refused() -> None:
    events = [e.event for e in record(BattleStore(":memory:"), asl("open"), quiet=True).events]
    with pytest.raises(OddsError, match="battle's start"):
        recorded_odds(events, 1)
    with pytest.raises(OddsError, match="positions 1 to"):
        recorded_odds(events, len(events) + 1)
    with pytest.raises(OddsError, match="actions 1 to 1, not 2"):
        scenario_odds(asl("open"), 2)


def test_a_live_battles_next_command() -> None:
    """After the German attack, the Russian squad (Reduced to a 2-4-7 on the recorded DR 5, 2 FP)
    attacks the 4-6-7 (4 FP) in its own CCPh: 1-2, Kill Number 4. Eliminated on a Final DR below
    4: 2D6 of 2 or 3, 3/36 = 1/12."""
    events = [e.event for e in record(BattleStore(":memory:"), asl("open"), quiet=True).events]
    reply = CloseCombat(
        turn=2,
        attacker="Russian",
        location="X1",
        attacks=[Attack(by=["r"], targets=["g"])],
    )
    odds = next_odds(events, reply, HowToExplore())
    assert odds.command == 1 + sum(1 for e in events if isinstance(e, CommandIssued))
    kills = next(t for t in odds.tallies if t.name == "kills")
    assert kills.expected.fraction == Fraction(1, 12)
