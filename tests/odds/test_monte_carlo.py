"""Past the budget, Monte Carlo: seeded, with intervals that hold the exact answer."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any, cast

import msgspec
from odds_helpers import WH40K, scenario

from blowbyblow.replay.engine.dice import SeededDice
from blowbyblow.replay.odds.answers import Margins, Weights
from blowbyblow.replay.odds.explore import (
    Estimate,
    HowToExplore,
    Odds,
    Policy,
    prepare,
    scenario_command,
    scenario_odds,
    wilson,
)
from blowbyblow.replay.odds.outcomes import Measure, Outcome
from blowbyblow.replay.odds.paths import adjudicate
from blowbyblow.replay.odds.samples import sample


def _probabilities(odds: Odds) -> list[tuple[str, Estimate]]:
    found = []
    for u in odds.units:
        found += [(f"{u.id} {s.value}", s.p) for s in u.status]
    for s in odds.sides:
        found += [(f"{s.side} loss {x.value}", x.p) for x in s.loss]
    for t in odds.tallies:
        found += [(f"{t.name} = {x.value}", x.p) for x in t.distribution]
    return found


def test_monte_carlo_intervals_hold_the_exact_odds() -> None:
    """Gorg against Varro, the whole command: attack dice, hits, wound rolls and saves, exact in
    93 runs. With a budget of 30 runs it is sampled instead (2000 samples); each
    exact probability must fall in its 95% interval, bar the few a 95% interval is allowed to
    miss."""
    sc = scenario(WH40K)
    exact = scenario_odds(sc, 1, HowToExplore())
    sampled = scenario_odds(sc, 1, HowToExplore(budget=30, samples=2000, seed="mc-test"))
    assert exact.method == "exact" and sampled.method == "monte-carlo"
    assert sampled.samples == 2000 and sampled.seed == "mc-test" and "30 runs" in sampled.note
    truth = dict(_probabilities(exact))
    found = dict(_probabilities(sampled))
    checked = [k for k in truth if k in found]
    assert len(checked) >= 15
    misses = [k for k in checked if not found[k].contains(float(truth[k].fraction))]
    assert len(misses) <= len(checked) // 10, misses
    kills = next(t for t in sampled.tallies if t.name == "kills")
    true_kills = next(t for t in exact.tallies if t.name == "kills").expected.fraction
    assert kills.expected.contains(float(true_kills))
    assert kills.expected.high - kills.expected.low < 0.05


def test_the_same_seed_gives_the_same_estimates() -> None:
    sc = scenario(WH40K)
    how = HowToExplore(budget=10, samples=300, seed="same")
    assert scenario_odds(sc, 1, how) == scenario_odds(sc, 1, how)
    other = scenario_odds(sc, 1, HowToExplore(budget=10, samples=300, seed="other"))
    assert other != scenario_odds(sc, 1, how)


def test_wilson_intervals() -> None:
    """Wilson score interval for 30 of 100: centre (0.3 + z²/200) / (1 + z²/100)."""
    e = wilson(30, 100)
    assert e.value == 0.3 and e.exact is None
    assert abs(e.low - 0.2189) < 1e-3 and abs(e.high - 0.3958) < 1e-3
    none = wilson(0, 50)
    assert none.low == 0.0 and 0.05 < none.high < 0.08
    assert wilson(50, 50).high == 1.0


def test_a_state_met_again_is_viewed_once() -> None:
    """Samples and runs of a command often end in equal states (each a new object): the units'
    outcome is read from one view per state met, and is what a view of each would give."""
    sc = scenario(WH40K)
    at, _ = scenario_command(sc, 1)
    viewed: list[Any] = []

    def view(state: Any) -> Any:
        viewed.append(state)
        return at.system.view(state)

    before = at.system.view(at.state)
    counted = Measure(system=dataclasses.replace(at.system, view=view), before=before)
    plain = Measure(system=at.system, before=before)
    _, cmd = prepare(at, Policy(name="scripted", answers=sc.choices))
    ends = [adjudicate(cmd, SeededDice(f"view-once/{i}"), cmd.choices).state for i in range(40)]
    assert [counted.final(s) for s in ends] == [plain.final(s) for s in ends]
    distinct = {msgspec.msgpack.encode(s) for s in ends}
    assert len(viewed) == len(distinct) < len(ends)


def test_samples_are_summed_up_as_their_shares_are() -> None:
    """Monte Carlo's counts, summed as whole numbers, give each unit outcome and each count the
    same share as the same outcomes weighed by their shares (Fractions) do."""
    sc = scenario(WH40K)
    at, _ = scenario_command(sc, 1)
    measure, cmd = prepare(at, Policy(name="scripted", answers=sc.choices))
    counted = sample(cmd, 300, "summed")
    outcomes = cast(list[Outcome], list(counted))
    total = sum(counted.values())
    by_count = Margins.of_joint(
        measure, Weights(outcomes, [Fraction(counted[o]) for o in outcomes], exact=False)
    )
    by_share = Margins.of_joint(
        measure, Weights(outcomes, [Fraction(counted[o], total) for o in outcomes], exact=False)
    )
    assert len(outcomes) > 10 and len(by_count.units.outcomes) >= 3
    assert [w / total for w in by_count.units.weights] == by_share.units.weights
    assert by_count.units.outcomes == by_share.units.outcomes
    assert by_count.counts.keys() == by_share.counts.keys()
    for place, (values, weights) in by_count.counts.items():
        assert values == by_share.counts[place][0]
        assert [w / total for w in weights] == by_share.counts[place][1]
        assert all(type(w) is Fraction for w in weights)
