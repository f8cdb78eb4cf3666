"""A charge's events and its Fight, and a Fight's plan, are worked out once when the same command
is asked again from the same state (the odds run one command from one state hundreds of times):
the same events either way; a state changed in place is worked out again."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from blowbyblow.domain.core import Context, LastAnswer
from blowbyblow.domain.necromunda import fight, procedure
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.odds.explore import scenario_command


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    planned: list[int] = []
    plan_fight = fight.plan_fight

    def counted(*args: Any) -> Any:
        planned.append(1)
        return plan_fight(*args)

    monkeypatch.setattr(procedure, "plan_fight", counted)
    monkeypatch.setattr(procedure, "_planned", LastAnswer())
    monkeypatch.setattr(procedure, "_charged", LastAnswer())
    return planned


def _steps(situation: Any, state: Any = None) -> list[Any]:
    """The command's first steps, up to its first roll (a list: what it yields, as it yields)."""
    system = situation.system
    now = situation.state if state is None else state
    ctx = Context(rulings=dict(situation.rulings), command_index=situation.index)
    run = system.procedure(now, situation.command, ctx)
    steps = [next(run)]
    while type(steps[-1]).__name__ != "Roll":
        now = system.evolve(now, steps[-1])  # a rule step: told the state it leads to
        steps.append(run.send(now))
    return steps


@pytest.mark.parametrize(("ruleset", "number"), [("necromunda-2023", 1), ("necromunda-2023", 2)])
def test_a_command_asked_again_is_planned_once(
    monkeypatch: pytest.MonkeyPatch, ruleset: str, number: int
) -> None:
    situation, _ = scenario_command(get_game_system(ruleset).demo(), number)
    planned = _counted(monkeypatch)
    first = _steps(situation)
    again = [_steps(situation) for _ in range(2)]
    assert len(planned) == 1
    encode = msgspec.msgpack.encode
    assert all([encode(s) for s in steps] == [encode(s) for s in first] for steps in again)


def test_a_state_changed_in_place_is_planned_again(monkeypatch: pytest.MonkeyPatch) -> None:
    situation, _ = scenario_command(get_game_system("necromunda-2023").demo(), 1)
    planned = _counted(monkeypatch)
    _steps(situation)
    fighter = situation.command.attacker
    state = situation.state
    state.fighters[fighter] = msgspec.structs.replace(state.fighters[fighter], ws=2)
    _steps(situation, state)
    assert len(planned) == 2
