"""Exact odds from the adjudicating rules, against the same odds worked out by hand, for every
game system."""

from __future__ import annotations

import itertools
from collections.abc import Hashable
from fractions import Fraction

import pytest
from odds_helpers import GANGFIGHT, NECROMUNDA, WH40K, asl, explorer, scenario, situation

from blowbyblow.domain.core import RuleEvent
from blowbyblow.replay.engine.driver import Adjudication
from blowbyblow.replay.odds.explore import CountOdds, HowToExplore, Odds, UnitOdds, scenario_odds


def unit(odds: Odds, uid: str) -> UnitOdds:
    return next(u for u in odds.units if u.id == uid)


def tally(odds: Odds, name: str) -> CountOdds:
    return next(t for t in [*odds.tallies, *odds.events] if t.name == name)


def p_of(shares: list, value: str) -> Fraction:  # type: ignore[type-arg]
    return next((s.p.fraction for s in shares if s.value == value), Fraction(0))


@pytest.mark.parametrize("ruleset", ["necromunda-2023", "necromunda-legacy"])
def test_necromunda_a_single_hit_roll_with_an_assist(ruleset: str) -> None:
    """Krug hits on WS 4+, +1 for Brak's assist: a natural 3 or more (a natural 1 always
    misses, here it would miss anyway). P(hit) = 4/6 = 2/3, so E[hits] = 2/3 (the exploration
    stops once the hit roll is made). The same under the rules before 2023."""
    sc = scenario(NECROMUNDA, ruleset=ruleset)
    odds = scenario_odds(sc, 1, HowToExplore(until=frozenset({"HitRolled"})))
    assert odds.method == "exact"
    hits = tally(odds, "hits")
    assert hits.expected.fraction == Fraction(2, 3)
    assert p_of(hits.distribution, "1") == Fraction(2, 3)


def test_necromunda_the_hit_through_to_vex_out_of_action() -> None:
    """The whole Fight: hit 2/3; the knife (S 3) wounds T 3 on 4+: 1/2; no save; Damage 1 takes
    Vex's only wound: one Injury dice, faces F F S S S O. Out of Action on O (1/6); Seriously
    Injured on S (3/6), and then Krug, engaged with no one else standing, makes a Coup de Grace
    (the default step 8), Out of Action too. P(Vex Out of Action) = 2/3 * 1/2 * 4/6 = 2/9;
    E[coups de grace] = 2/3 * 1/2 * 3/6 = 1/6."""
    odds = scenario_odds(scenario(NECROMUNDA), 1, HowToExplore())
    assert odds.method == "exact"
    vex = unit(odds, "vex")
    assert p_of(vex.status, "Out of Action") == Fraction(2, 9)
    assert p_of(vex.status, "Standing & Engaged") == Fraction(7, 9)
    assert tally(odds, "coups de grace").expected.fraction == Fraction(1, 6)
    assert tally(odds, "wounds").expected.fraction >= Fraction(1, 3)  # Krug's, and Vex's reply


def test_asl_a_cc_dr_against_kill_number_5_on_2d6() -> None:
    """4 FP against 4 FP is 1-1: Kill Number 5. No DRM: Final DR = the 2D6 total.
    Eliminated below 5 (2, 3, 4: 1 + 2 + 3 = 6 ways of 36: 1/6); Partial Kill at 5 (4 ways: 1/9,
    the 4-4-7 is Reduced to a 2-4-7); nothing above (26/36). The Russian side's loss: 3 for the
    squad eliminated, 1 for it Reduced: E = 3/6 + 1/9 = 11/18."""
    odds = scenario_odds(asl("open"), 1, HowToExplore())
    assert odds.method == "exact"
    assert tally(odds, "kills").expected.fraction == Fraction(1, 6)
    assert tally(odds, "Partial Kills").expected.fraction == Fraction(1, 9)
    russian = unit(odds, "r")
    assert p_of(russian.status, "eliminated") == Fraction(1, 6)
    assert p_of(russian.renamed, "2-4-7") == Fraction(1, 9)
    side = next(s for s in odds.sides if s.side == "Russian")
    assert side.expected_loss.fraction == Fraction(11, 18)
    assert tally(odds, "ambushes").expected.fraction == 0


def test_asl_the_same_attack_after_the_ambush_drs() -> None:
    """In a building both sides first roll an Ambush dr; a side Ambushes when its dr is at least
    3 below the other's: P = 2 * P(d1 <= d2 - 3) = 2 * 6/36 = 1/3, each side 1/6. No Ambush
    (2/3): eliminated on 2D6 <= 4 (6/36). German Ambush (1/6): -1 to its attack, 2D6 <= 5
    (10/36). Russian Ambush (1/6): +1 to attacks on it, 2D6 <= 3 (3/36).
    P(eliminated) = 2/3 * 6/36 + 1/6 * 10/36 + 1/6 * 3/36 = (24 + 10 + 3) / 216 = 37/216."""
    odds = scenario_odds(asl("building"), 1, HowToExplore())
    assert tally(odds, "ambushes").expected.fraction == Fraction(1, 3)
    assert tally(odds, "kills").expected.fraction == Fraction(37, 216)
    # Partial Kill: 2/3 * 4/36 (a 5) + 1/6 * 5/36 (a 6, -1) + 1/6 * 3/36 (a 4, +1) = 24/216
    assert tally(odds, "Partial Kills").expected.fraction == Fraction(1, 9)


def _score_difference(adj: Adjudication) -> Hashable:
    scores = {
        e.model: e.score  # type: ignore[attr-defined]
        for e in adj.events
        if isinstance(e, RuleEvent) and type(e).__name__ == "CombatScoreCalculated"
    }
    return int(scores["gorg"] - scores["varro"])


def test_wh40k_a_combat_round_score_difference() -> None:
    """Gorg rolls 2 Attack dice, Varro 1; same WS, so the WS cancel. Gorg's score: his highest
    die, +1 per 1 Varro rolls (a fumble), +1 if both his dice are 6 (the second 6 is a Critical
    Hit). Varro's: his die, +1 per 1 among Gorg's dice.
    E[highest of 2D6] = (1*1 + 2*3 + 3*5 + 4*7 + 5*9 + 6*11) / 36 = 161/36;
    E[Gorg's bonus] = 1/6 + 1/36; E[Varro's die] = 7/2 = 126/36; E[Varro's bonus] = 2/6 = 12/36.
    E[difference] = (161 + 6 + 1 - 126 - 12) / 36 = 30/36 = 5/6.
    The whole distribution is checked against the 216 rolls counted one by one."""
    ex = explorer(situation(scenario(WH40K)), _score_difference, until=("RoundWon", "Stalemate"))
    dist = ex.explore().dist
    assert sum(p * int(str(d)) for d, p in dist.items()) == Fraction(5, 6)
    counted: dict[int, Fraction] = {}
    for g1, g2, v in itertools.product(range(1, 7), repeat=3):
        gorg = max(g1, g2) + (v == 1) + (g1 == g2 == 6)
        varro = v + (g1 == 1) + (g2 == 1)
        counted[gorg - varro] = counted.get(gorg - varro, Fraction(0)) + Fraction(1, 216)
    assert dist == counted
    # Gorg's dice only count as a multiset: 21 outcomes for his roll, and fewer runs still
    assert ex.runs < 6 * 21


def test_gangfight_a_dice_pool_and_its_armour_roll() -> None:
    """3 dice at TN 4+ (ATT 3 against DEF 4): successes ~ Binomial(3, 1/2): 1/8, 3/8, 3/8, 1/8,
    E = 3/2. Each is a Wound; the Brave rolls ARM 4 dice at TN 4+ (DAM 4, the sword +0), each
    success negating one. E[wounds taken] = sum over k, a of P(k) P(a) max(0, k - a):
    k=1: 3/8 * 1/16; k=2: 3/8 * (2*1 + 1*4)/16; k=3: 1/8 * (3*1 + 2*4 + 1*6)/16
    = (3 + 18 + 17) / 128 = 38/128 = 19/64."""
    odds = scenario_odds(scenario(GANGFIGHT), 1, HowToExplore())
    assert odds.method == "exact"
    hits = tally(odds, "hits")
    assert [(s.value, s.p.fraction) for s in hits.distribution] == [
        ("0", Fraction(1, 8)),
        ("1", Fraction(3, 8)),
        ("2", Fraction(3, 8)),
        ("3", Fraction(1, 8)),
    ]
    assert tally(odds, "wounds taken").expected.fraction == Fraction(19, 64)
    assert unit(odds, "brave").expected_wounds_lost.fraction == Fraction(19, 64)
    assert odds.grouped == ["fight/armour", "fight/hit"]
