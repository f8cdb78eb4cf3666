"""What the conformance suite needs besides the engine's public API: the template installed as
its own distribution, a recorded demo, the states between its commands, a store file edited by
hand, more battles of a system than its demo, a made-up instance of an event type, and a small
offline driver that adjudicates one command without recording it."""

from __future__ import annotations

import random
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any
from uuid import UUID

import msgspec
import msgspec.inspect as mi

from blowbyblow.domain.core import (
    Ask,
    BattleStarted,
    BlowByBlowError,
    ChoiceMade,
    CommandIssued,
    Context,
    DiceRolled,
    Event,
    Roll,
)
from blowbyblow.domain.system import AnyGameSystem, AnyScenario
from blowbyblow.replay.engine.registry import game_system_ids
from blowbyblow.replay.engine.script import play
from blowbyblow.replay.store.log import BattleStore, LoggedEvent

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "docs" / "game-system-template"
TEMPLATE_ID = "duel"

# Every game system installed now, and the template, which the suite installs itself.
SYSTEM_IDS = sorted({*game_system_ids(), TEMPLATE_ID})


def install_template(where: Path) -> Path:
    """Install the template as any distribution is installed (from a copy of its folder, so the
    build leaves nothing in the repository); returns the folder to put on the path."""
    source = where / "source"
    shutil.copytree(
        TEMPLATE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    )
    target = where / "site"
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"]
    done = subprocess.run(
        [*pip, "--target", str(target), str(source)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"pip could not install the template:\n{done.stderr}")
    return target


@dataclass(frozen=True)
class Demo:
    """A system's demo recorded in a SQLite store file."""

    system: AnyGameSystem
    scenario: AnyScenario
    db: Path
    store: BattleStore
    battle: UUID
    events: list[LoggedEvent]
    state: Any  # the state recording left: adjudicated live, command by command
    path: tuple[str, ...]  # what another process needs on sys.path to find the system

    @property
    def started(self) -> BattleStarted[Any]:
        first = self.events[0].event
        assert isinstance(first, BattleStarted)
        return first


def states_between_commands(system: AnyGameSystem, events: Sequence[Event]) -> list[Any]:
    """The state before each command of a battle, and the state after its last command."""
    first = events[0]
    assert isinstance(first, BattleStarted)
    state = system.initial_state(first.setup)
    states = []
    for event in events[1:]:
        if isinstance(event, CommandIssued):
            states.append(state)
        state = system.evolve(state, event)
    states.append(state)
    return states


def fold(system: AnyGameSystem, events: Sequence[Event]) -> Any:
    """The state after ``events`` (position 1 first), folded from the setup."""
    return states_between_commands(system, events)[-1]


_SORTED = msgspec.msgpack.Encoder(order="sorted")


def tamper_stored_event(
    db: Path, battle: UUID, position: int, edit: Callable[[dict[str, Any]], None]
) -> None:
    """Edit one event in a SQLite store file, as anyone holding the file could: decode its
    envelope, change the event's plain data, write it back with its hash unchanged."""
    con = sqlite3.connect(db)
    try:
        where = (battle.hex, position)  # eventsourcing's SQLite recorder keeps UUIDs as hex
        (state,) = con.execute(
            "select state from stored_events where originator_id=? and originator_version=?",
            where,
        ).fetchone()
        envelope = msgspec.msgpack.decode(state)
        edit(envelope["event"])
        con.execute(
            "update stored_events set state=? where originator_id=? and originator_version=?",
            (_SORTED.encode(envelope), *where),
        )
        con.commit()
    finally:
        con.close()


def other_face(values: list[int], sides: int) -> None:
    """Change the first die of a roll to another face of the same die."""
    values[0] = values[0] % sides + 1


# --- more battles than the demo ------------------------------------------------------------


def longest_playable(scenario: AnyScenario) -> list[Event]:
    """The events of the longest run of the scenario's first commands that the rules allow (a
    command that is legal with the demo's dice may not be with others)."""

    def first(n: int) -> AnyScenario:
        return msgspec.structs.replace(scenario, commands=scenario.commands[:n])

    good, bad = 0, len(scenario.commands) + 1  # the first `good` commands play; `bad` do not
    while bad - good > 1:
        mid = (good + bad) // 2
        try:
            play(first(mid))
        except BlowByBlowError:
            bad = mid
        else:
            good = mid
    return play(first(good)).events


def generated_battles(system: AnyGameSystem, seeds: int = 8) -> Iterator[list[Event]]:
    """The demo's commands with seeded dice, under the default rulings and under every other
    value of every ruling: the events of as many commands as the rules allow each time."""
    demo = system.demo()
    variants: list[dict[str, str]] = [dict(demo.rulings)] * seeds
    for ruling in system.rulings:
        variants += [
            {**demo.rulings, ruling.name: c} for c in ruling.choices if c != ruling.default
        ]
    for n, rulings in enumerate(variants):
        seeded = msgspec.structs.replace(
            demo, rulings=rulings, seed=f"conformance-{n}", dice=None, label=f"generated {n}"
        )
        yield longest_playable(seeded)


# --- a made-up instance of a type ----------------------------------------------------------

_PLAIN: dict[type[mi.Type], Callable[[Any, str], Any]] = {
    mi.LiteralType: lambda t, name: t.values[0],
    mi.EnumType: lambda t, name: next(iter(t.cls)),
    mi.BoolType: lambda t, name: True,
    mi.IntType: lambda t, name: t.ge if t.ge is not None else (t.le if t.le is not None else 2),
    mi.FloatType: lambda t, name: 1.5,
    mi.DecimalType: lambda t, name: Decimal(2),
    mi.StrType: lambda t, name: name,
    mi.NoneType: lambda t, name: None,
    mi.AnyType: lambda t, name: name,
}


def example(t: mi.Type, name: str = "x") -> Any:
    """A value of type ``t`` (from ``msgspec.inspect``): each string is its field's name, each
    collection holds two items, each Literal its first value, each number its least allowed."""
    if type(t) in _PLAIN:
        return _PLAIN[type(t)](t, name)
    if isinstance(t, mi.StructType):
        return t.cls(**{f.name: example(f.type, f.name) for f in t.fields})
    if isinstance(t, mi.UnionType):
        return example(next(x for x in t.types if not isinstance(x, mi.NoneType)), name)
    if isinstance(t, mi.TupleType):
        return tuple(example(x, name) for x in t.item_types)
    if isinstance(t, mi.VarTupleType | mi.ListType | mi.SetType | mi.FrozenSetType):
        items = [example(t.item_type, f"{name}-{i}") for i in (1, 2)]
        kind = {mi.VarTupleType: tuple, mi.ListType: list, mi.SetType: set}
        return kind.get(type(t), frozenset)(items)
    if isinstance(t, mi.DictType):
        return {example(t.key_type, f"{name}-key"): example(t.value_type, name)}
    raise TypeError(f"no example value for {t!r}")


def example_event(event_type: type[Event]) -> Event:
    """A made-up but well-typed instance of ``event_type`` (it survives msgspec's checks)."""
    event = example(mi.type_info(event_type))
    assert isinstance(event, event_type)
    return msgspec.convert(msgspec.to_builtins(event), event_type)


# --- adjudicating one command offline ------------------------------------------------------


@dataclass(frozen=True)
class Offline:
    """What the offline driver needs besides the state and the command."""

    rulings: dict[str, str]
    index: int  # the command's number in its battle
    rng: random.Random  # the dice


@dataclass(frozen=True)
class Adjudicated:
    state: Any
    events: list[Event]  # the rule steps and inputs, CommandIssued first


def adjudicate_offline(
    system: AnyGameSystem, state: Any, command: Any, how: Offline
) -> Adjudicated:
    """Run ``command`` against ``state`` as the engine's driver does (random dice, every
    question answered with its default), recording nothing. Raises what the rules raise:
    RuleViolation for a command they do not allow."""
    events: list[Event] = [CommandIssued(index=how.index, command=command)]
    state = system.evolve(state, events[0])
    steps = system.procedure(state, command, Context(rulings=how.rulings, command_index=how.index))
    answer: Any = None
    key = f"c{how.index}/"
    while True:
        try:
            step = steps.send(answer)
        except StopIteration:
            return Adjudicated(state=state, events=events)
        if isinstance(step, Roll):
            answer = tuple(how.rng.randint(1, step.sides) for _ in range(step.n))
            event: Event = DiceRolled(
                key=key + step.key, sides=step.sides, values=answer, source="seeded"
            )
        elif isinstance(step, Ask):
            answer = step.default
            event = ChoiceMade(
                key=key + step.key, options=step.options, answer=answer, source="default"
            )
        else:
            event = step
        state = system.evolve(state, event)
        events.append(event)
        if not isinstance(step, Roll | Ask):
            answer = state


def command_tag(command_type: type[Any]) -> str:
    """The ``type`` tag of a command struct, as scenario files and CommandOption write it."""
    tag = command_type.__struct_config__.tag
    assert isinstance(tag, str), f"{command_type.__name__} has no string tag"
    return tag
