"""`flag N` at `bxb play`'s prompt checks N against the battle as the store holds it, not as
this terminal last read it: another terminal or a phone may have played or voided a command
since the prompt was shown. Before, a command played meanwhile was refused ("expected a command
that stands, 1 to 1"), and one voided meanwhile had its reason asked for, then was refused."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import msgspec
from play_helpers import live_at

from blowbyblow.cli.play import Live
from blowbyblow.domain.judging import CommandFlagged
from blowbyblow.replay.battles.battle import Battle
from blowbyblow.replay.engine.dice import ScriptedChoices
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.store.log import BattleStore


class Typist:
    """A screen that keeps what the session says and answers each question with a reason."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.asked: list[str] = []

    def say(self, text: str = "") -> None:
        self.lines.append(text)

    def ask(self, message: str, completer: object = None) -> str:
        self.asked.append(message)
        return "the die fell off the table"


def _table(tmp_path: Path) -> tuple[Battle, Live, Typist, UUID]:
    """The demo with its first command played, and a terminal that has read it so."""
    system = get_game_system("necromunda-2023")
    demo = system.demo()
    door = Battle(BattleStore(tmp_path / "b.sqlite"))
    battle = door.start(msgspec.structs.replace(demo, commands=[])).id
    door.play(battle, demo.commands[0], dice=None, choices=ScriptedChoices(demo.choices))
    screen = Typist()
    live = live_at(door, battle, screen)
    return door, live, screen, battle


def test_a_command_played_meanwhile_elsewhere_is_flagged(tmp_path: Path) -> None:
    door, live, screen, battle = _table(tmp_path)
    demo = get_game_system("necromunda-2023").demo()
    door.play(battle, demo.commands[1], dice=None, choices=ScriptedChoices(demo.choices))
    live.flag("2 the die fell off the table")
    flagged = [e.event for e in door.store.read(battle) if isinstance(e.event, CommandFlagged)]
    assert [f.index for f in flagged] == [2], screen.lines


def test_a_command_voided_meanwhile_elsewhere_is_refused_before_why_is_asked(
    tmp_path: Path,
) -> None:
    door, live, screen, battle = _table(tmp_path)
    version = door.store.version(battle)
    door.void(battle, 1, by="the other terminal", reason="typed wrong")
    live.flag("1")
    assert screen.asked == []
    assert screen.lines == ["  not flagged: command: the battle has no command yet"]
    assert door.store.version(battle) == version + 1  # the void, and nothing after it
