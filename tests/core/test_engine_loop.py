"""The one engine loop and the one fold: a table adjudicates a battle's commands one after
another, each answering from the table's dice and choices or from its own; a battle folds to
the same state at every position whichever way it is read back."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
import structlog

from blowbyblow.domain.core import BattleStarted, CommandIssued, DiceRolled, Event, Roll
from blowbyblow.projections.battle import fold, fold_battle
from blowbyblow.replay.engine.codec import encode
from blowbyblow.replay.engine.dice import (
    DiceError,
    ExploringDice,
    RecordedChoices,
    RecordedDice,
    ScriptedChoices,
    SeededDice,
    recorded_inputs,
)
from blowbyblow.replay.engine.driver import Table, Turn, adjudicate_commands
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import dice_for, play, split_by_command

from bxbtest import RULESET_IDS


def _started(events: list[Event]) -> BattleStarted[object]:
    first = events[0]
    assert isinstance(first, BattleStarted)
    return first


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_the_battle_folds_to_the_same_state_at_every_position(ruleset_id: str) -> None:
    system = get_game_system(ruleset_id)
    played = play(system.demo())
    state = system.initial_state(_started(played.events).setup)
    assert encode(fold_battle(system, played.events, 1)) == encode(state)
    for position in range(2, len(played.events) + 1):
        state = system.evolve(state, played.events[position - 1])
        assert encode(fold_battle(system, played.events, position)) == encode(state)
    assert encode(fold_battle(system, played.events)) == encode(played.state)
    assert encode(fold(system, fold_battle(system, played.events, 3), played.events[3:])) == (
        encode(played.state)
    )


def test_a_fold_needs_a_battle_and_a_position_in_it() -> None:
    system = get_game_system(RULESET_IDS[0])
    played = play(system.demo())
    with pytest.raises(ValueError, match="starts with BattleStarted"):
        fold_battle(system, played.events[1:])
    with pytest.raises(ValueError, match="starts with BattleStarted"):
        fold_battle(system, [])
    for position in (0, len(played.events) + 1):
        with pytest.raises(ValueError, match=f"not {position}"):
            fold_battle(system, played.events, position)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_one_table_adjudicates_every_command_as_recording_does(ruleset_id: str) -> None:
    system = get_game_system(ruleset_id)
    demo = system.demo()
    played = play(demo)
    started = _started(played.events)
    table = Table(
        system=system,
        rulings=started.rulings,
        dice=dice_for(demo)[0],
        choices=ScriptedChoices(demo.choices),
        quiet=True,
    )
    turns = [Turn(command) for command in demo.commands]
    results = list(adjudicate_commands(table, fold_battle(system, [started]), turns))
    assert [r.index for r in results] == list(range(1, len(demo.commands) + 1))
    assert [[encode(e) for e in r.events] for r in results] == [
        [encode(e) for e in batch] for batch in split_by_command(played.events)[1:]
    ]
    assert encode(results[-1].state) == encode(played.state)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_each_command_answers_from_its_own_recorded_inputs(ruleset_id: str) -> None:
    """As verification does it: the table's own dice would fail every roll; each command's
    recorded dice and choices give back exactly the log, and a command whose dice are gone
    stops the run there, after the commands before it."""
    system = get_game_system(ruleset_id)
    played = play(system.demo())
    started = _started(played.events)
    batches = split_by_command(played.events)[1:]
    table = Table(
        system=system,
        rulings=started.rulings,
        dice=RecordedDice({}),
        choices=RecordedChoices({}),
        quiet=True,
    )

    def turns(drop_dice_of: int | None) -> list[Turn]:
        out = []
        for n, batch in enumerate(batches, start=1):
            issued = batch[0]
            assert isinstance(issued, CommandIssued)
            dice, choices = recorded_inputs(batch)
            if n == drop_dice_of:
                dice = {}
            out.append(Turn(issued.command, RecordedDice(dice), RecordedChoices(choices)))
        return out

    start = fold_battle(system, [started])
    replayed = [r.events for r in adjudicate_commands(table, start, turns(None))]
    assert [[encode(e) for e in b] for b in replayed] == [[encode(e) for e in b] for b in batches]

    rolling = [
        n for n, b in enumerate(batches, start=1) if any(isinstance(e, DiceRolled) for e in b)
    ]
    stop = rolling[-1]
    done: list[int] = []
    with pytest.raises(DiceError, match="not in the record"):
        for result in adjudicate_commands(table, start, turns(stop)):
            done.append(result.index)
    assert done == list(range(1, stop))


@pytest.fixture
def info_logs() -> Iterator[None]:
    """structlog as it is unconfigured (other tests set the level to warning)."""
    saved = structlog.get_config()
    structlog.reset_defaults()
    yield
    structlog.configure(**saved)


@pytest.mark.usefixtures("info_logs")
def test_every_step_is_logged_at_its_position_in_the_battle() -> None:
    system = get_game_system(RULESET_IDS[0])
    demo = system.demo()
    played = play(demo)
    started = _started(played.events)
    table = Table(
        system=system,
        rulings=started.rulings,
        dice=dice_for(demo)[0],
        choices=ScriptedChoices(demo.choices),
        battle="b-1",
    )
    with structlog.testing.capture_logs() as logged:
        list(adjudicate_commands(table, fold_battle(system, [started]), map(Turn, demo.commands)))
    assert [line["position"] for line in logged] == list(range(2, len(played.events) + 1))
    assert [line["event"] for line in logged] == [type(e).__name__ for e in played.events[1:]]
    assert {line["battle"] for line in logged} == {"b-1"}
    with structlog.testing.capture_logs() as quiet:
        quiet_table = dataclasses.replace(table, quiet=True, dice=dice_for(demo)[0])
        list(
            adjudicate_commands(
                quiet_table, fold_battle(system, [started]), map(Turn, demo.commands)
            )
        )
    assert quiet == []


class _Told(ExploringDice):
    """Seeded dice that explore: each roll's key and what the rules read of it, as told."""

    def __init__(self, seed: str) -> None:
        self.dice = SeededDice(seed)
        self.told: list[tuple[str, tuple[int, ...], int]] = []

    def roll_counted(  # noqa: PLR0913 - the driver's roll, and what the rules read of it
        self,
        key: str,
        n: int,
        sides: int,
        purpose: str,
        counts: tuple[int, ...],
        highest: int,
    ) -> tuple[tuple[int, ...], str]:
        self.told.append((key, counts, highest))
        return self.dice.roll(key, n, sides, purpose)[0], self.source


class _Duck(SeededDice):
    """A source that has a ``roll_counted`` without being an exploring source: never asked."""

    def roll_counted(self, *args: object) -> tuple[tuple[int, ...], str]:
        raise AssertionError("a source that does not explore was asked roll_counted")


def _asking(procedure: Any, asked: list[tuple[str, tuple[int, ...], int]]) -> Any:
    """``procedure`` with every roll it asks for noted: its key, counts and highest."""

    def watched(state: Any, command: Any, ctx: Any) -> Any:
        steps = procedure(state, command, ctx)
        answer = None
        while True:
            try:
                step = steps.send(answer)
            except StopIteration as stop:
                return stop.value
            if isinstance(step, Roll):
                asked.append((f"c{ctx.command_index}/{step.key}", step.counts, step.highest))
            answer = yield step

    return watched


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_an_exploring_source_is_told_what_the_rules_read_of_every_roll(ruleset_id: str) -> None:
    """An exploring source (the odds') is asked ``roll_counted`` for every roll, told each
    roll's counts and highest as the rules claimed them (plain rolls: nothing claimed), and
    gives the same events as the dice it answers from; any other source only rolls, whatever
    methods it has."""
    system = get_game_system(ruleset_id)
    demo = system.demo()
    events = play(demo).events
    started = _started(events)
    # the first command that rolls, and the state before it
    at = next(
        i
        for i, e in enumerate(events)
        if isinstance(e, DiceRolled) and not isinstance(events[i - 1], DiceRolled)
    )
    position = max(i for i in range(at) if isinstance(events[i], CommandIssued))
    issued = events[position]
    assert isinstance(issued, CommandIssued)
    state = fold_battle(system, events, position)
    asked: list[tuple[str, tuple[int, ...], int]] = []
    watched = dataclasses.replace(system, procedure=_asking(system.procedure, asked))
    told = _Told("s")
    logs = []
    for dice in (told, _Duck("s"), SeededDice("s")):
        table = Table(
            system=watched,
            rulings=started.rulings,
            dice=dice,
            choices=ScriptedChoices(demo.choices),
            quiet=True,
        )
        result = table.adjudicate(state, issued.command, issued.index)
        logs.append(
            [
                encode(msgspec.structs.replace(e, source="") if isinstance(e, DiceRolled) else e)
                for e in result.events
            ]
        )
    assert logs[0] == logs[1] == logs[2]
    assert asked
    assert told.told == asked[: len(asked) // 3]
