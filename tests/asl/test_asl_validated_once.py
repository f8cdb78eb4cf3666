"""A close combat found legal is not checked again when it is asked again in the same state (the
odds run one command from one state hundreds of times); a state changed since is checked."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from blowbyblow.domain.asl import legal, procedure
from blowbyblow.domain.core import Context, LastAnswer, RuleViolation, exploring
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.odds.explore import scenario_command


def _asked(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, Context, list[int]]:
    situation, _ = scenario_command(get_game_system("asl").demo(), 2)
    checked: list[int] = []
    validate = legal.validate

    def counted(state: Any, command: Any, ctx: Any) -> None:
        checked.append(1)
        validate(state, command, ctx)

    monkeypatch.setattr(procedure, "validate", counted)
    monkeypatch.setattr(procedure, "_legal", LastAnswer())  # not what playing it found
    ctx = Context(rulings=dict(situation.rulings), command_index=situation.index)
    return situation.state, situation.command, ctx, checked


def test_a_command_found_legal_is_not_checked_again_in_the_same_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state, command, ctx, checked = _asked(monkeypatch)
    with exploring():  # as the odds run it
        for _ in range(3):
            next(procedure.close_combat(state, command, ctx))  # checked before its first step
        # an equal state, command and context (new objects): the same bytes, no check
        again = msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=type(state))
        next(procedure.close_combat(again, command, Context(**msgspec.structs.asdict(ctx))))
    assert len(checked) == 1
    # played live, it is checked every time
    for _ in range(2):
        next(procedure.close_combat(state, command, ctx))
    assert len(checked) == 3


def test_a_state_changed_in_place_is_checked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    state, command, ctx, checked = _asked(monkeypatch)
    with exploring():
        next(procedure.close_combat(state, command, ctx))
        attacker = command.attacks[0].by[0]
        state.units[attacker] = msgspec.structs.replace(state.units[attacker], location="elsewhere")
        with pytest.raises(RuleViolation):
            next(procedure.close_combat(state, command, ctx))
    assert len(checked) == 2
