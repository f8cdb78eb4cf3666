"""Choices while exploring: the rules' defaults, a script, or every choice for the least (the
most) loss of one side."""

from __future__ import annotations

from fractions import Fraction

import pytest
from odds_helpers import GANGFIGHT, scenario

from blowbyblow.replay.odds.chance import OddsError
from blowbyblow.replay.odds.explore import HowToExplore, Odds, Policy, scenario_odds


def orc_loss(odds: Odds) -> Fraction:
    return next(s for s in odds.sides if s.side == "orcs").expected_loss.fraction


def test_best_for_a_side_is_the_best_script() -> None:
    """The Veteran may drop Attack dice to lower the TN (one point each, TN 2 at best), the
    Brave his Armour dice likewise. Best for the orcs: the Veteran rolls 1 die at 2+ (5/6 of a
    Wound), the Brave drops 2 of his 4 Armour dice to roll 2 at 2+, failing both 1/36 of the
    time: E[loss] = 5/6 * 1/36 = 5/216 (no other pair of choices does better: 4 dice at 4+ fail
    1/16, 3 at 3+ 1/27, 1 at 2+ 1/6)."""
    sc = scenario(GANGFIGHT)
    best = scenario_odds(sc, 1, HowToExplore(policy=Policy.parse("best-for:orcs")))
    assert best.method == "exact" and best.policy == "best-for:orcs"
    assert orc_loss(best) == Fraction(5, 216)
    scripted = Policy.parse("scripted", {"fight/hit/drop": "2", "fight/armour/drop": "2"})
    assert orc_loss(scenario_odds(sc, 1, HowToExplore(policy=scripted))) == Fraction(5, 216)
    default = orc_loss(scenario_odds(sc, 1, HowToExplore()))
    worst = orc_loss(scenario_odds(sc, 1, HowToExplore(policy=Policy.parse("worst-for:orcs"))))
    assert Fraction(5, 216) < default == Fraction(19, 64) < worst
    for drop in ("0", "1", "2"):
        for armour in ("0", "1", "2", "3"):
            script = Policy.parse("scripted", {"fight/hit/drop": drop, "fight/armour/drop": armour})
            loss = orc_loss(scenario_odds(sc, 1, HowToExplore(policy=script)))
            assert Fraction(5, 216) <= loss <= worst


def test_policies_that_cannot_be_followed_say_why() -> None:
    sc = scenario(GANGFIGHT)
    with pytest.raises(OddsError, match="no side 'elves'"):
        scenario_odds(sc, 1, HowToExplore(policy=Policy.parse("best-for:elves")))
    with pytest.raises(OddsError, match="raise the budget"):
        scenario_odds(sc, 1, HowToExplore(policy=Policy.parse("worst-for:orcs"), budget=50))
    for bad in ("bravest", "best-for", "default:orcs", "recorded"):
        with pytest.raises(OddsError, match="policy"):
            Policy.parse(bad)
