"""A fight's combat is found once when the same command is asked again from the same state (the
odds run one command from one state hundreds of times): the same steps either way."""

from __future__ import annotations

import pytest

from blowbyblow.domain.core import LastAnswer, exploring
from blowbyblow.domain.wh40k import procedure, who_fights
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.odds.explore import scenario_command

from bxbtest import count_calls, steps_to_first_roll


def test_a_fight_asked_again_finds_its_combat_once(monkeypatch: pytest.MonkeyPatch) -> None:
    situation, _ = scenario_command(get_game_system("wh40k-2e").demo(), 6)
    found = count_calls(monkeypatch, procedure, "find_combat", who_fights.find_combat)
    monkeypatch.setattr(procedure, "_found", LastAnswer())  # not what playing it found
    with exploring():  # as the odds run it
        first = steps_to_first_roll(situation)
        assert all(steps_to_first_roll(situation) == first for _ in range(2))
    assert len(found) == 1
    # played live, it is found every time, and the same steps
    assert all(steps_to_first_roll(situation) == first for _ in range(2))
    assert len(found) == 3
