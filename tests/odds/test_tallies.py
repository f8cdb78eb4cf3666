"""Each game system declares what its odds count (its tallies, typed against its own events), the
odds engine names no game, and a tally or a leaf that gives something other than a whole number
cannot give a wrong answer."""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Hashable
from fractions import Fraction
from pathlib import Path

import pytest
from odds_helpers import WH40K, explorer, scenario, situation

import blowbyblow.replay.odds as odds_room
from blowbyblow.domain.core import RuleEvent
from blowbyblow.domain.system import Count, OddsRules, Tally
from blowbyblow.domain.wh40k.events import HitsScored
from blowbyblow.replay.engine.driver import Adjudication
from blowbyblow.replay.engine.registry import game_systems, get_game_system
from blowbyblow.replay.odds.explore import HowToExplore, command_odds
from blowbyblow.replay.odds.outcomes import TallyError

SHIPPED = ("asl", "gangfight", "necromunda-2023", "necromunda-legacy", "wh40k-2e")


@pytest.mark.parametrize("ruleset", SHIPPED)
def test_each_system_counts_its_own_events(ruleset: str) -> None:
    system = get_game_system(ruleset)
    assert system.odds.tallies, f"{ruleset} declares no tallies"
    for tally in system.odds.tallies:
        for count in tally.counts:
            assert count.event in system.event_types, (tally.name, count.event)
            assert count.by is not None or count.against is not None, tally.name
    statuses = set(system.odds.severity)
    assert statuses and all(0 < v <= 3 for v in system.odds.severity.values())


def test_the_odds_engine_names_no_game() -> None:
    """No module of replay/odds names an event type of a game system: the tallies live with
    the systems, typed against their own classes."""
    names = {
        t.__name__
        for system in game_systems().values()
        for t in system.event_types
        if t.__module__.startswith("blowbyblow.domain.")
        and not t.__module__.startswith(("blowbyblow.domain.core", "blowbyblow.domain.judging"))
    }
    assert len(names) > 40
    for path in Path(odds_room.__file__).parent.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        named = {n for n in names if re.search(rf"\b{n}\b", text)}
        assert not named, f"{path.name} names {sorted(named)}"


def _attack_in_halves() -> OddsRules:
    return OddsRules(tallies=(Tally("half hits", (Count(HitsScored, lambda e: e.hits / 2),)),))


def test_a_tally_that_is_not_a_whole_number_is_refused_by_name() -> None:
    sc = scenario(WH40K)
    at = situation(sc)
    system = dataclasses.replace(at.system, odds=_attack_in_halves())
    at = dataclasses.replace(at, system=system)
    with pytest.raises(TallyError, match=r"tally 'half hits': HitsScored gave .*float"):
        command_odds(at, HowToExplore(budget=5000))


def _score_difference_as_rolled(adj: Adjudication) -> Hashable:
    """The leaf of test_exact_by_hand without its ``int()``: the difference of two scores made
    of dice, kept as the die values the exploration hands the rules."""
    scores = {
        e.model: e.score  # type: ignore[attr-defined]
        for e in adj.events
        if isinstance(e, RuleEvent) and type(e).__name__ == "CombatScoreCalculated"
    }
    return (scores["gorg"] - scores["varro"],)


def test_a_leaf_that_keeps_die_values_still_gets_the_exact_answer() -> None:
    """The die values are read as numbers on their own run (once, 25/18 came out instead of
    5/6: the outcome's dice were read only after the run, so faces were grouped that it tells
    apart)."""
    ex = explorer(
        situation(scenario(WH40K)), _score_difference_as_rolled, until=("RoundWon", "Stalemate")
    )
    dist = ex.explore().dist
    counted: dict[tuple[int], Fraction] = {}
    for g1, g2, v in itertools.product(range(1, 7), repeat=3):
        d = (max(g1, g2) + (v == 1) + (g1 == g2 == 6) - v - (g1 == 1) - (g2 == 1),)
        counted[d] = counted.get(d, Fraction(0)) + Fraction(1, 216)
    assert dist == counted
