"""A fight's combat is found once when the same command is asked again from the same state (the
odds run one command from one state hundreds of times): the same steps either way."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from blowbyblow.domain.core import Context, LastAnswer
from blowbyblow.domain.wh40k import procedure, who_fights
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.odds.explore import scenario_command


def _steps(situation: Any) -> list[bytes]:
    """The command's steps up to its first roll, as bytes."""
    system, now = situation.system, situation.state
    ctx = Context(rulings=dict(situation.rulings), command_index=situation.index)
    run = system.procedure(now, situation.command, ctx)
    steps = [next(run)]
    while type(steps[-1]).__name__ != "Roll":
        now = system.evolve(now, steps[-1])  # a rule step: told the state it leads to
        steps.append(run.send(now))
    return [msgspec.msgpack.encode(s) for s in steps]


def test_a_fight_asked_again_finds_its_combat_once(monkeypatch: pytest.MonkeyPatch) -> None:
    situation, _ = scenario_command(get_game_system("wh40k-2e").demo(), 6)
    found: list[int] = []
    find_combat = who_fights.find_combat

    def counted(*args: Any) -> Any:
        found.append(1)
        return find_combat(*args)

    monkeypatch.setattr(procedure, "find_combat", counted)
    monkeypatch.setattr(procedure, "_found", LastAnswer())  # not what playing it found
    first = _steps(situation)
    assert all(_steps(situation) == first for _ in range(2))
    assert len(found) == 1
