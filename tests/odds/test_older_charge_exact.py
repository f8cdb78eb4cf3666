"""The older Necromunda rules' charge (the demo's first command: Attack dice, wounds, saves,
Injury dice, pinning and Reaction attacks) is exact as a graph within the default budget (it
once needed two minutes, then more runs than the default budget, so it was sampled): that exact
path is pinned here. Its answer is a whole distribution (each tally's probabilities sum to
exactly 1) and agrees with seeded dice: every tally's expectation and each unit's statuses near
those of 2000 seeded samples (4 standard errors)."""

from __future__ import annotations

from fractions import Fraction

from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.odds.answers import Estimate
from blowbyblow.replay.odds.explore import DEFAULT_BUDGET, HowToExplore, Policy, scenario_odds


def _near(estimate: Estimate, x: float) -> bool:
    """``x`` within 4 standard errors of a Monte Carlo estimate (its 95% interval is 1.96 on
    either side)."""
    half = (estimate.high - estimate.low) / 2
    return abs(estimate.value - x) <= max(half / 1.96 * 4, 1e-9)


def test_the_older_rules_charge_is_exact_within_the_default_budget_against_seeded_dice() -> None:
    """Exact in about 1,100 runs: 5,800 with the whole state written, 4,100 with the
    ammunition of a fighter out of the fight written alike, past the default budget; with the
    ammunition of one who has chosen weapons in this command too, within it. A change that
    needs more than the default budget fails here."""
    demo = get_game_system("necromunda-legacy").demo()
    policy = Policy(name="scripted", answers=demo.choices)
    exact = scenario_odds(demo, 1, HowToExplore(policy=policy, budget=DEFAULT_BUDGET))
    assert exact.method == "exact", exact.note
    assert exact.runs <= DEFAULT_BUDGET
    assert exact.tallies and exact.units
    for tally in exact.tallies:
        assert sum(s.p.fraction for s in tally.distribution) == Fraction(1), tally.name
    sampled = scenario_odds(demo, 1, HowToExplore(budget=1, samples=2000, policy=policy))
    assert sampled.method == "monte-carlo"
    for mine, theirs in zip(exact.tallies, sampled.tallies, strict=True):
        assert mine.name == theirs.name
        assert _near(theirs.expected, mine.expected.value), mine.name
    for mine_unit, their_unit in zip(exact.units, sampled.units, strict=True):
        assert _near(their_unit.removed, mine_unit.removed.value), mine_unit.id
        for share in mine_unit.status:
            found = next((s for s in their_unit.status if s.value == share.value), None)
            if found is not None:
                assert _near(found.p, share.p.value), (mine_unit.id, share.value)
