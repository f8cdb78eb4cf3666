"""Exact odds as a graph (replay/odds/sharing.py): branches that reach the same continuation of
the procedure share what lies below it. The graph's answer must be the tree's, for every demo
command; what makes a continuation is checked on small generators; and the answers are checked
against icepool, an independent dice library, and against seeded dice."""

from __future__ import annotations

import threading
from collections.abc import Generator, Iterator
from fractions import Fraction
from typing import Any

import icepool  # type: ignore[import-untyped]
import pytest
from odds_helpers import GANGFIGHT, WH40K, asl, scenario, situation

from blowbyblow.domain.system import AnyScenario
from blowbyblow.replay.engine.registry import game_systems
from blowbyblow.replay.odds.chance import Explorer, TooBig, matcher
from blowbyblow.replay.odds.explore import (
    HowToExplore,
    Policy,
    command_odds,
    prepare,
    scenario_command,
    scenario_odds,
)
from blowbyblow.replay.odds.sharing import Sharer, Unshared, _Fingerprints
from blowbyblow.replay.odds.traced import Die

TREE_BUDGET = 2500
GRAPH_BUDGET = 5000


def demo_commands() -> Iterator[tuple[str, AnyScenario, int]]:
    for system in game_systems().values():
        demo = system.demo()
        for number in range(1, len(demo.commands) + 1):
            yield f"{system.id}#{number}", demo, number


DEMOS = list(demo_commands())
# The demo commands whose tree does not fit TREE_BUDGET runs: nothing to compare the graph with
# (the 40K one is checked against seeded samples below); the last test keeps this list true.
PAST_THE_TREE = {"necromunda-2023#1", "necromunda-legacy#1", "wh40k-2e#5", "wh40k-2e#6"}
COMPARED = [d for d in DEMOS if d[0] not in PAST_THE_TREE]


def _prepared(sc: AnyScenario, number: int) -> tuple[Any, Any, Any]:
    at, _ = scenario_command(sc, number)
    measure, cmd = prepare(at, Policy(name="scripted", answers=sc.choices))
    return measure, cmd, matcher(measure.rules.order_insensitive)


@pytest.mark.parametrize(("name", "sc", "number"), COMPARED, ids=[d[0] for d in COMPARED])
def test_the_graph_gives_the_trees_answer(name: str, sc: AnyScenario, number: int) -> None:
    measure, cmd, group = _prepared(sc, number)
    tree = Explorer(cmd, budget=TREE_BUDGET, group=group).explore().dist
    try:
        graph = Sharer(cmd, measure, budget=GRAPH_BUDGET, group=group).explore()
    except TooBig:
        pytest.fail(f"the graph needs more than {GRAPH_BUDGET} runs where the tree did not")
    assert graph == tree


@pytest.mark.parametrize("name", sorted(PAST_THE_TREE))
def test_the_commands_left_out_are_past_the_trees_budget(name: str) -> None:
    [(_, sc, number)] = [d for d in DEMOS if d[0] == name]
    _, cmd, group = _prepared(sc, number)
    with pytest.raises(TooBig):
        Explorer(cmd, budget=TREE_BUDGET, group=group).explore()


def test_a_40k_fight_past_the_trees_budget_is_exact_as_a_graph() -> None:
    """The 40K demo's first fight needs more than 2000 runs as a tree; as a graph it is exact,
    and its expected hits lie within the 95% interval of 4000 seeded samples."""
    demo = game_systems()["wh40k-2e"].demo()
    how = HowToExplore(policy=Policy(name="scripted", answers=demo.choices), budget=4000)
    exact = scenario_odds(demo, 5, how)
    assert exact.method == "exact" and "explored as a graph" in exact.note
    sampled = scenario_odds(demo, 5, HowToExplore(budget=1, samples=4000, policy=how.policy))
    for mine, theirs in zip(exact.tallies, sampled.tallies, strict=True):
        assert theirs.expected.contains(mine.expected.value), mine.name


def _walk(items: list[int]) -> Generator[int, None, None]:
    for item in items:
        yield item + 0  # the loop's iterator stays on the generator's stack


def test_a_continuation_holds_where_a_loop_stands() -> None:
    """Two generators with the same locals, one loop step apart: the iterator on the stack
    tells them apart (a key of the locals alone would merge them, wrongly)."""
    a, b = _walk([7, 7, 7]), _walk([7, 7, 7])
    next(a), next(b), next(b)
    fp = _Fingerprints()
    assert fp.generator(a) != fp.generator(b)
    next(a)
    assert fp.generator(a) == fp.generator(b)


def test_a_value_not_known_by_value_is_never_shared() -> None:
    with pytest.raises(Unshared):
        _Fingerprints().of({"lock": threading.Lock()})
    fp = _Fingerprints()
    fp.of((1, Die(4, ("d", 0, 0), [])))
    assert fp.dice  # a die of the roll being explored: its faces are not grouped blindly


def test_a_dice_pool_against_icepool() -> None:
    """The Veteran's 3 attack dice at 4+ (Gangfight): the hits' distribution as icepool counts
    it."""
    hits = next(t for t in scenario_odds(scenario(GANGFIGHT), 1).tallies if t.name == "hits")
    pool = 3 @ (icepool.d6 >= 4)
    expected = {str(k): Fraction(pool.quantity(k), pool.denominator()) for k in pool.outcomes()}
    assert {s.value: s.p.fraction for s in hits.distribution} == expected


def test_a_close_combat_dr_against_icepool() -> None:
    """ASL 1-1, Kill Number 5: eliminated on a Final DR below 5, a Partial Kill on 5."""
    odds = scenario_odds(asl("open"), 1)
    dr = 2 @ icepool.d6
    kills = next(t for t in odds.tallies if t.name == "kills")
    partial = next(t for t in odds.tallies if t.name == "Partial Kills")
    assert kills.expected.fraction == Fraction(dr.quantity("<", 5), dr.denominator())
    assert partial.expected.fraction == Fraction(dr.quantity(5), dr.denominator())


def test_a_combat_round_against_icepool() -> None:
    """The 40K round of test_exact_by_hand, its hits by side, computed by icepool's map over
    Gorg's two Attack dice and Varro's one."""

    def orks(g1: int, g2: int, v: int) -> int:
        d = max(g1, g2) + (v == 1) + (g1 == g2 == 6) - v - (g1 == 1) - (g2 == 1)
        return max(d, 0)

    def ultramarines(g1: int, g2: int, v: int) -> int:
        d = max(g1, g2) + (v == 1) + (g1 == g2 == 6) - v - (g1 == 1) - (g2 == 1)
        return max(-d, 0) + (d == 0)

    at = situation(scenario(WH40K))
    odds = command_odds(at, HowToExplore(until=frozenset({"HitsScored"})))
    hits = next(t for t in odds.tallies if t.name == "hits")
    for side, rule in (("Orks", orks), ("Ultramarines", ultramarines)):
        die = icepool.map(rule, icepool.d6, icepool.d6, icepool.d6)
        mean = Fraction(sum(k * die.quantity(k) for k in die.outcomes()), die.denominator())
        assert next(s for s in hits.by_side if s.side == side).expected.fraction == mean
