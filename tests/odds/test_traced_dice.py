"""A traced die must never change what the rules do: every demo command of every game system,
along random paths, gives the same events and the same outcome with traced dice as with plain
ones (the grouping of faces is sound only if it does)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Hashable

import msgspec
import pytest

from blowbyblow.replay.engine.driver import Adjudication
from blowbyblow.replay.engine.registry import game_systems
from blowbyblow.replay.odds.chance import Die, Node, RollNode, run_path
from blowbyblow.replay.odds.explore import Policy, prepare, scenario_command
from blowbyblow.replay.odds.outcomes import Measure

from bxbtest import RULESET_IDS


def plain(obj: object) -> bytes:
    return msgspec.json.encode(
        obj, enc_hook=lambda x: x.value if isinstance(x, Die) else x, order="sorted"
    )


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_traced_and_plain_dice_make_the_same_battle(ruleset_id: str) -> None:
    scenario = game_systems()[ruleset_id].demo()
    for number in range(1, len(scenario.commands) + 1):
        at, _ = scenario_command(scenario, number)
        measure, cmd = prepare(at, Policy(name="scripted", answers=scenario.choices))
        for seed in range(8):
            seen = []
            for traced in (False, True):
                rng = random.Random(f"{ruleset_id}/{number}/{seed}")
                events: list[bytes] = []

                def face(node: Node, rng: random.Random = rng) -> tuple[int, ...]:
                    assert isinstance(node, RollNode)
                    return tuple(rng.randint(1, node.sides) for _ in range(node.n))

                def leaf(
                    adj: Adjudication, events: list[bytes] = events, measure: Measure = measure
                ) -> Hashable:
                    events.append(plain(adj.events))
                    return measure(adj.events, adj.state)

                run = run_path(
                    dataclasses.replace(cmd, leaf=leaf),
                    (),
                    traced=traced,
                    decisions=False,
                    beyond=face,
                )
                seen.append((events[0], run.outcome, plain(run.answers)))
            assert seen[0] == seen[1], (ruleset_id, number, seed)
