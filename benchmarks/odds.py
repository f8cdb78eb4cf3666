"""How fast the odds are, measured by hand (never by a test):

    python benchmarks/odds.py [--samples 100000] [--budget 3000]
    python benchmarks/odds.py --every 5     # only: p50/p95 of every demo command, 5 times each
    python benchmarks/odds.py --graph 5000  # only: each dice command as a tree and as a graph

Prints, for the demo of every game system:
  - exact: the odds of its first command, and of its first command that rolls dice when that is
    another one, with the default budget of runs (past it, Monte Carlo with --mc samples): the
    method reached, runs of the rules, distinct outcomes, seconds;
  - Monte Carlo: --samples samples of the first command that rolls dice (samples per second);
then the two ways to walk the exact tree (each run goes on to a leaf with the first face of every
later roll, or stops at its first new roll); then one simple case, an ASL CC attack at 1-1 (Kill Number 5 on 2D6), three ways: the exact odds
from the rules, --samples Monte Carlo samples, and a direct hand-written computation of the
same distribution (a loop over the 36 faces). The direct loop is the speed limit: it knows the
rules' arithmetic, where the odds engine runs the rules themselves."""

from __future__ import annotations

import argparse
import itertools
import math
import time
from fractions import Fraction
from typing import Any

from blowbyblow.domain.system import AnyScenario
from blowbyblow.replay.engine.registry import game_systems
from blowbyblow.replay.engine.scenario import scenario_from_dict
from blowbyblow.replay.odds.chance import Explorer, TooBig, matcher
from blowbyblow.replay.odds.explore import (
    DEFAULT_BUDGET,
    HowToExplore,
    Odds,
    Policy,
    prepare,
    scenario_command,
    scenario_odds,
)
from blowbyblow.replay.odds.sharing import Sharer

ONE_ATTACK: dict[str, Any] = {
    "ruleset": "asl",
    "label": "a 4-6-7 against a 4-4-7",
    "sides": ["German", "Russian"],
    "locations": [{"id": "X1", "terrain": "open"}],
    "units": [
        {"id": "g", "side": "German", "kind": "squad", "name": "4-6-7", "fp": 4, "morale": 7,
         "hs_fp": 2, "hs_name": "2-4-7", "location": "X1"},
        {"id": "r", "side": "Russian", "kind": "squad", "name": "4-4-7", "fp": 4, "morale": 7,
         "hs_fp": 2, "hs_name": "2-4-7", "location": "X1"},
    ],
    "actions": [
        {"type": "closecombat", "turn": 1, "attacker": "German", "location": "X1",
         "attacks": [{"by": ["g"], "targets": ["r"]}]},
    ],
}  # fmt: skip


def timed(how: HowToExplore, scenario: AnyScenario, number: int) -> tuple[Odds, float]:
    t = time.perf_counter()
    odds = scenario_odds(scenario, number, how)
    return odds, time.perf_counter() - t


def first_with_dice(scenario: AnyScenario) -> int:
    """The number of the scenario's first action whose adjudication rolls dice."""
    for number in range(1, len(scenario.commands) + 1):
        _, happened = scenario_command(scenario, number)
        if happened and any(type(e).__name__ == "DiceRolled" for e in happened):
            return number
    return 1


def direct(kill_number: int) -> dict[str, Fraction]:
    """The hand-written computation: A11.11 on 36 faces, nothing else."""
    out = {"eliminated": Fraction(0), "Reduced": Fraction(0), "unharmed": Fraction(0)}
    for a, b in itertools.product(range(1, 7), repeat=2):
        dr = a + b
        key = "eliminated" if dr < kill_number else "Reduced" if dr == kill_number else "unharmed"
        out[key] += Fraction(1, 36)
    return out


def row(name: str, odds: Odds, seconds: float) -> str:
    method = odds.method if odds.method == "exact" else f"MC ({odds.note})"
    return f"| {name} | {method} | {odds.runs} | {odds.outcomes} | {seconds:.3f} |"


def percentile(xs: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of ``xs``."""
    ordered = sorted(xs)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def every_demo_command(repeat: int) -> None:
    """Every demo command of every system, ``repeat`` times each, in this process, as the
    viewer's odds button asks (the scenario's choices, the default budget): p50 and p95 of
    each command, and over all of them."""
    print(f"| every demo command ({repeat} times each) | method | runs | p50 s | p95 s |")
    print("|---|---|---:|---:|---:|")
    every: list[float] = []
    for system in game_systems().values():
        demo = system.demo()
        how = HowToExplore(policy=Policy(name="scripted", answers=demo.choices))
        for number in range(1, len(demo.commands) + 1):
            times = []
            for _ in range(repeat):
                odds, seconds = timed(how, demo, number)
                times.append(seconds)
            every += times
            method = odds.method if odds.method == "exact" else "MC"
            print(
                f"| {system.id} #{number} {odds.action} | {method} | {odds.runs} | "
                f"{percentile(times, 50):.3f} | {percentile(times, 95):.3f} |",
                flush=True,
            )
    print(f"| all {len(every)} | | | {percentile(every, 50):.3f} | {percentile(every, 95):.3f} |")


def tree_against_graph(budget: int) -> None:
    """Each demo command that rolls dice, explored exactly as a tree and as a graph (branches
    that reach the same continuation share what lies below), within ``budget`` runs each."""
    print(f"| tree against graph ({budget} runs each) | tree runs | s | graph runs | shared | s |")
    print("|---|---:|---:|---:|---:|---:|")
    for system in game_systems().values():
        demo = system.demo()
        for number in range(1, len(demo.commands) + 1):
            at, happened = scenario_command(demo, number)
            if not happened or not any(type(e).__name__ == "DiceRolled" for e in happened):
                continue
            measure, cmd = prepare(at, Policy(name="scripted", answers=demo.choices))
            group = matcher(measure.rules.order_insensitive)
            cells = []
            t = time.perf_counter()
            tree = Explorer(cmd, budget=budget, group=group)
            try:
                tree.explore()
                cells.append(str(tree.runs))
            except TooBig:
                cells.append(f"> {budget}")
            cells.append(f"{time.perf_counter() - t:.2f}")
            t = time.perf_counter()
            graph = Sharer(cmd, measure, budget=budget, group=group)
            try:
                graph.explore()
                cells.append(str(graph.runs))
            except TooBig:
                cells.append(f"> {budget}")
            cells += [str(graph.shared), f"{time.perf_counter() - t:.2f}"]
            print(f"| {system.id} #{number} {type(at.command).__name__} | {' | '.join(cells)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=0, help="only: every demo command N times")
    parser.add_argument("--graph", type=int, default=0, help="only: tree against graph, N runs")
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--mc", type=int, default=2000, help="samples past the budget")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    args = parser.parse_args()
    if args.every:
        every_demo_command(args.every)
        return
    if args.graph:
        tree_against_graph(args.graph)
        return
    how = HowToExplore(budget=args.budget, samples=args.mc)
    print("| demo command | method | runs | outcomes | seconds |")
    print("|---|---|---:|---:|---:|")
    dice_commands: list[tuple[str, AnyScenario, int]] = []
    for system in game_systems().values():
        scenario = system.demo()
        script = HowToExplore(
            policy=Policy(name="scripted", answers=scenario.choices),
            budget=args.budget,
            samples=args.mc,
        )
        numbers = sorted({1, first_with_dice(scenario)})
        for number in numbers:
            odds, seconds = timed(script, scenario, number)
            name = f"{system.id} #{number} {odds.action}"
            print(row(name, odds, seconds), flush=True)
        dice_commands.append((system.id, scenario, numbers[-1]))

    print(f"\n| Monte Carlo, {args.samples} samples | seconds | samples/s |")
    print("|---|---:|---:|")
    simple = scenario_from_dict(ONE_ATTACK)
    cases = [(f"{sid} #{n}", sc, n) for sid, sc, n in dice_commands]
    for name, scenario, number in [("ASL one CC attack", simple, 1), *cases]:
        samples = args.samples if name == "ASL one CC attack" else max(1, args.samples // 50)
        sampled = HowToExplore(budget=1, samples=samples)
        _, seconds = timed(sampled, scenario, number)
        label = f"{name} ({samples} samples)"
        print(f"| {label} | {seconds:.2f} | {samples / seconds:,.0f} |", flush=True)

    print(
        "\n| walking the tree (exact) | runs to a leaf | seconds | runs stopping early | seconds |"
    )
    print("|---|---:|---:|---:|---:|")
    for name, scenario, number in cases:
        at, _ = scenario_command(scenario, number)
        measure, cmd = prepare(at, Policy(name="scripted", answers=scenario.choices))
        cells = []
        for to_leaf in (True, False):
            explorer = Explorer(
                cmd, budget=args.budget, group=matcher(measure.rules.order_insensitive)
            )
            explorer.to_leaf = to_leaf
            t = time.perf_counter()
            try:
                explorer.explore()
                cells += [str(explorer.runs), f"{time.perf_counter() - t:.2f}"]
            except TooBig:
                cells += [f"> {args.budget}", f"{time.perf_counter() - t:.2f}"]
        print(f"| {name} | {' | '.join(cells)} |", flush=True)

    print("\n| ASL CC attack at 1-1 (KN 5) | seconds | P(eliminated) |")
    print("|---|---:|---:|")
    odds, seconds = timed(how, simple, 1)
    russian = next(u for u in odds.units if u.id == "r")
    eliminated = next(s.p.exact for s in russian.status if s.value == "eliminated")
    print(f"| exact odds from the rules ({odds.runs} runs) | {seconds:.4f} | {eliminated} |")
    _, seconds = timed(HowToExplore(budget=1, samples=args.samples), simple, 1)
    print(f"| {args.samples} Monte Carlo samples | {seconds:.2f} | (estimate) |")
    repeat = 1000
    t = time.perf_counter()
    for _ in range(repeat):
        by_hand = direct(5)
    seconds = (time.perf_counter() - t) / repeat
    print(f"| direct loop over the 36 faces | {seconds:.6f} | {by_hand['eliminated']} |")


if __name__ == "__main__":
    main()
