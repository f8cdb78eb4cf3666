"""``bxb log`` (and ``--json``) and ``bxb export`` stream a battle: read twice a page at a time
(once to check it and find its voids, once to print it), their memory does not grow with the
battle's length, and they print what reading the whole battle into memory printed. ``bxb
battles`` prints its table without Rich's rendering where Rich would print the line as it is."""

from __future__ import annotations

import contextlib
import os
import random
import tracemalloc
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from blowbyblow.cli.app import print_line
from blowbyblow.cli.main import app
from blowbyblow.domain.core import BattleStarted, CommandIssued, CommandVoided, Event
from blowbyblow.projections.battle import VoidedCommand, voided_commands
from blowbyblow.replay.engine.dice import ScriptedChoices, SeededDice
from blowbyblow.replay.engine.driver import Table
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play
from blowbyblow.replay.evidence.export import export_battle
from blowbyblow.replay.store.log import BattleStore, battle_id_for

runner = CliRunner()


def voids_of_the_whole_log(events: list[Event]) -> list[VoidedCommand]:
    """``voided_commands`` as it was before it was streamed: two passes over the whole log."""
    found: list[VoidedCommand] = []
    ends: dict[int, int] = {}
    current: int | None = None
    for position, event in enumerate(events, start=1):
        if isinstance(event, CommandIssued):
            current = position
        elif isinstance(event, CommandVoided):
            current = None
        if current is not None:
            ends[current] = position
    for position, event in enumerate(events, start=1):
        if not isinstance(event, CommandVoided) or event.position not in ends:
            continue
        issued = events[event.position - 1]
        if not isinstance(issued, CommandIssued) or issued.index != event.index:
            continue
        if event.position >= position or any(v.first == event.position for v in found):
            continue
        found.append(
            VoidedCommand(
                index=event.index,
                first=event.position,
                last=ends[event.position],
                voided_at=position,
                by=event.by,
                reason=event.reason,
            )
        )
    return found


def test_voids_found_streamed_are_the_voids_of_the_whole_log() -> None:
    """Random logs of commands, other events and voids, some naming a command, an event that
    is none, a position not yet reached, a wrong number or a command voided already."""
    started = play(get_game_system("gangfight").demo()).events
    issued = next(e for e in started if isinstance(e, CommandIssued))
    other = next(e for e in started if not isinstance(e, CommandIssued | BattleStarted))
    rng = random.Random(25)
    for _ in range(400):
        events: list[Event] = [started[0]]
        index = 0
        for _ in range(rng.randrange(1, 40)):
            kind = rng.random()
            if kind < 0.3:
                index += 1
                events.append(msgspec.structs.replace(issued, index=index))
            elif kind < 0.45:
                at = rng.randrange(1, len(events) + 3)
                number = index if rng.random() < 0.7 else rng.randrange(0, index + 2)
                events.append(CommandVoided(index=number, position=at, by="judge", reason=f"r{at}"))
            else:
                events.append(other)
        assert voided_commands(events) == voids_of_the_whole_log(events)


def long_battle(db: Path, events: int) -> str:
    """A Gangfight battle of about ``events`` events, each command the first the rules offer,
    seeded dice (as benchmarks/replay.py builds them)."""
    system = get_game_system("gangfight")
    scenario = msgspec.structs.replace(
        system.demo(), commands=[], seed="long", dice=None, label=f"long {events}"
    )
    started = play(scenario).events[0]
    assert isinstance(started, BattleStarted)
    battle = battle_id_for(started)
    store = BattleStore(db)
    store.append(battle, system.id, 0, [started])
    table = Table(
        system=system,
        rulings=started.rulings,
        dice=SeededDice("long"),
        choices=ScriptedChoices({}),
        quiet=True,
    )
    state = system.initial_state(started.setup)
    version, index, pending = 1, 0, list[Event]()
    while version + len(pending) < events:
        index += 1
        command = system.build_command(system.legal_commands(state, started.rulings)[0], {})
        result = table.adjudicate(state, command, index, first_position=version + len(pending) + 1)
        pending += result.events
        state = result.state
    store.append(battle, system.id, version, pending)
    return str(battle)


def peak_of(db: Path, *args: str) -> int:
    """The peak of the memory Python allocated while ``bxb ARGS`` ran in this process, its output
    to /dev/null (tracemalloc)."""
    with open(os.devnull, "w") as nowhere, contextlib.redirect_stdout(nowhere):
        tracemalloc.start()
        try:
            with pytest.raises(SystemExit) as done:
                app(["--db", str(db), "-q", *args], prog_name="bxb")
            assert done.value.code == 0
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()


@pytest.fixture(scope="module")
def battles(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Path, str]]:
    folder = tmp_path_factory.mktemp("long")
    return {
        n: (folder / f"{n}.sqlite", long_battle(folder / f"{n}.sqlite", n)) for n in (2000, 8000)
    }


@pytest.mark.parametrize("args", [["log"], ["log", "--json"], ["export"]])
def test_memory_does_not_grow_with_the_battle(
    battles: dict[int, tuple[Path, str]], args: list[str]
) -> None:
    """A battle four times longer: held in memory whole, four times the memory; streamed, the
    same (a page of 1000 records at a time)."""
    (small, a), (large, b) = battles[2000], battles[8000]
    peak_of(small, *args, a)  # the modules imported first
    assert peak_of(large, *args, b) < 1.5 * peak_of(small, *args, a)


def test_export_streamed_is_the_export_read_whole(battles: dict[int, tuple[Path, str]]) -> None:
    db, battle = battles[2000]
    store = BattleStore(db)
    done = runner.invoke(app, ["--db", str(db), "export", battle])
    assert done.exit_code == 0
    assert done.stdout_bytes == export_battle(store, store.find(battle))


WIDE = ["plain", "x" * 90, "Łódź Ærø", "漢字の戦い", "[bold]no markup[/bold] :smile:", "tab\tthere"]


@pytest.mark.parametrize("width", [40, 80, 200])
@pytest.mark.parametrize("soft_wrap", [True, False])
def test_a_line_is_printed_as_rich_prints_it(
    width: int, soft_wrap: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    from rich.console import Console
    from rich.text import Text

    for line in [*WIDE, "esc \x1b[31mred", "trailing   ", "é" * (width + 1)]:
        Console(width=width, highlight=False).print(Text(line), soft_wrap=soft_wrap)
        expected = capsys.readouterr().out
        print_line(Console(width=width, highlight=False), line, soft_wrap=soft_wrap)
        assert capsys.readouterr().out == expected, line
