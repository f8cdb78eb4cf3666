"""Odds worth reading: each side's share of a tally, P(at least k), mean and spread, choices side
by side, and luck over time, each against figures worked out by hand."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import msgspec
import pytest
from odds_helpers import GANGFIGHT, WH40K, recorded, scenario, situation

from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.odds.answers import CountOdds, Odds
from blowbyblow.replay.odds.compare import compare_odds
from blowbyblow.replay.odds.explore import HowToExplore, OddsError, scenario_odds
from blowbyblow.replay.odds.luck import HowToJudge, battle_luck, luck_over_time


def tally(odds: Odds, name: str) -> CountOdds:
    return next(t for t in odds.tallies if t.name == name)


def share(count: CountOdds, side: str) -> CountOdds:
    return next(s for s in count.by_side if s.side == side)


def test_a_40k_round_says_who_scores_the_hits() -> None:
    """Gorg (I 3) rolls 2 Attack dice, Varro (I 4) 1. Gorg's score: his highest die, +1 per 1
    Varro rolls, +1 if both his are 6; Varro's: his die, +1 per 1 of Gorg's. The higher score
    scores the difference in hits; equal scores: the higher Initiative, Varro, scores one."""
    orks = ultramarines = Fraction(0)
    for g1, g2, v in itertools.product(range(1, 7), repeat=3):
        d = max(g1, g2) + (v == 1) + (g1 == g2 == 6) - v - (g1 == 1) - (g2 == 1)
        orks += Fraction(max(d, 0), 216)
        ultramarines += Fraction(max(-d, 0) + (d == 0), 216)
    odds = scenario_odds(scenario(WH40K), 1, HowToExplore(until=frozenset({"HitsScored"})))
    hits = tally(odds, "hits")
    assert share(hits, "Orks").expected.fraction == orks
    assert share(hits, "Ultramarines").expected.fraction == ultramarines
    assert hits.expected.fraction == orks + ultramarines


def test_a_dice_pool_at_least_k_mean_and_spread() -> None:
    """3 dice at 4+: successes ~ Binomial(3, 1/2): P(>= 1, 2, 3) = 7/8, 1/2, 1/8; mean 3/2,
    variance 3/4. All of them the Veteran's (humans'); none the Brave's."""
    hits = tally(scenario_odds(scenario(GANGFIGHT), 1, HowToExplore()), "hits")
    assert [(s.value, s.p.fraction) for s in hits.at_least] == [
        ("1", Fraction(7, 8)),
        ("2", Fraction(1, 2)),
        ("3", Fraction(1, 8)),
    ]
    assert hits.expected.fraction == Fraction(3, 2)
    assert hits.variance.fraction == Fraction(3, 4)
    assert hits.spread == pytest.approx(math.sqrt(3) / 2)
    assert share(hits, "humans").expected.fraction == Fraction(3, 2)
    assert share(hits, "orcs").at_least == []


# The Veteran also carries an axe (DAM +1).
WITH_AXE = GANGFIGHT.replace(
    'weapons = ["sword"]\nprofile', 'weapons = ["sword", "axe"]\nprofile'
).replace("[[fighters]]", '[[weapons]]\nid = "axe"\nkind = "hand"\ndam = 1\n\n[[fighters]]', 1)


def test_two_choices_side_by_side() -> None:
    """The Veteran's sword (the Brave loses 19/64 wounds, worked out by hand in
    test_exact_by_hand) beside his axe; the axe's column as the odds of that command alone."""
    sc = scenario(WITH_AXE)
    at = situation(sc)
    axe = msgspec.structs.replace(at.command, weapons=["axe"])
    both = compare_odds(at, [("sword", at.command), ("axe", axe)])
    assert both.labels == ["sword", "axe"]
    wounds = next(r for r in both.rows if r.what == "brave [brave] wounds lost (expected)")
    alone = scenario_odds(msgspec.structs.replace(sc, commands=[axe]), 1, HowToExplore())
    brave = next(u for u in alone.units if u.id == "brave")
    assert [v.exact for v in wounds.values] == ["19/64", brave.expected_wounds_lost.exact]
    assert wounds.values[1].fraction > wounds.values[0].fraction  # the axe wounds more
    with pytest.raises(OddsError, match="two choices"):
        compare_odds(at, [("sword", at.command)])


def test_luck_over_time_ends_where_the_battle_does() -> None:
    """Each side's running percentile: after its first roll that mattered, Φ((u - ½)/√var) of
    that roll alone; after its last, the battle's percentile."""
    events = recorded(get_game_system("gangfight").demo())
    luck = battle_luck(events, HowToJudge(budget=300, samples=20))
    over = luck_over_time(luck)
    assert set(over) == {s.side for s in luck.sides}
    for side in luck.sides:
        points = over[side.side]
        assert [n for n, _ in points] == list(range(1, side.rolls + 1))
        assert points[-1][1] == pytest.approx(side.percentile)
        first = next(x for r in luck.rolls for x in r.luck if x.side == side.side)
        z = (first.u - 0.5) / math.sqrt(first.variance)
        assert points[0][1] == pytest.approx(0.5 * (1 + math.erf(z / math.sqrt(2))))
