"""A charge's events and its Fight, and a Fight's plan, are worked out once when the same command
is asked again from the same state (the odds run one command from one state hundreds of times):
the same events either way; a state changed in place is worked out again."""

from __future__ import annotations

import msgspec
import pytest

from blowbyblow.domain.core import LastAnswer, exploring
from blowbyblow.domain.necromunda import fight, procedure
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.odds.explore import scenario_command

from bxbtest import count_calls, steps_to_first_roll


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    planned = count_calls(monkeypatch, procedure, "plan_fight", fight.plan_fight)
    monkeypatch.setattr(procedure, "_planned", LastAnswer())
    monkeypatch.setattr(procedure, "_charged", LastAnswer())
    return planned


@pytest.mark.parametrize(("ruleset", "number"), [("necromunda-2023", 1), ("necromunda-2023", 2)])
def test_a_command_asked_again_is_planned_once(
    monkeypatch: pytest.MonkeyPatch, ruleset: str, number: int
) -> None:
    situation, _ = scenario_command(get_game_system(ruleset).demo(), number)
    planned = _counted(monkeypatch)
    with exploring():  # as the odds run it
        first = steps_to_first_roll(situation)
        assert all(steps_to_first_roll(situation) == first for _ in range(2))
    assert len(planned) == 1
    # played live, it is planned every time, and the same steps
    assert all(steps_to_first_roll(situation) == first for _ in range(2))
    assert len(planned) == 3


def test_a_state_changed_in_place_is_planned_again(monkeypatch: pytest.MonkeyPatch) -> None:
    situation, _ = scenario_command(get_game_system("necromunda-2023").demo(), 1)
    planned = _counted(monkeypatch)
    with exploring():
        steps_to_first_roll(situation)
        fighter = situation.command.attacker
        state = situation.state
        state.fighters[fighter] = msgspec.structs.replace(state.fighters[fighter], ws=2)
        steps_to_first_roll(situation, state)
    assert len(planned) == 2
