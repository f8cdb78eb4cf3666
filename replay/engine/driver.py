"""The one driver that runs rule procedures: live, in verification and in what-if re-runs.

A ``Table`` is a battle being adjudicated: its game system, the rulings in force, where its dice
and choices come from, and how its steps are logged. ``Table.adjudicate`` runs one command: it
answers the procedure's requests from the dice and choice sources, folds every event into the
state as soon as it is yielded, and returns the command's events. ``adjudicate_commands`` runs a
battle's commands one after another, each with its own dice and choices if it has them, and
yields each command's events and the state after it: recording batches them, verification
compares them with the log, what-if stops where a re-run cannot go on.

Nothing is written here: the caller appends the events in one transaction, or not at all."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from blowbyblow.domain.core import (
    Ask,
    ChoiceMade,
    CommandIssued,
    Context,
    DiceRolled,
    Event,
    Roll,
    RuleEvent,
    Step,
)
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.replay.engine import logs
from blowbyblow.replay.engine.dice import ChoiceSource, DiceError, DiceSource

LOGGER = "blowbyblow.rules"  # its log lines' logger (structlog is imported when one is written)


@dataclass(frozen=True)
class Adjudication:
    """One command adjudicated: its events (``CommandIssued`` first) and the state after them."""

    events: list[Event]
    state: Any
    index: int  # the command's number in its battle


@dataclass(frozen=True, kw_only=True)
class Table:
    """A battle being adjudicated: what stays the same from one of its commands to the next."""

    system: AnyGameSystem
    rulings: Mapping[str, str]  # every ruling of the system with its value in this battle
    dice: DiceSource
    choices: ChoiceSource
    battle: str = ""  # the battle's id, for the log lines
    quiet: bool = False  # True: do not log the rule steps
    # Told each event as soon as it is adjudicated (a live table narrates it); it must not
    # write anything: the command's events are written together, or not at all.
    observe: Callable[[Event], None] | None = None

    def adjudicate(
        self, state: Any, command: Any, index: int, *, first_position: int = 0
    ) -> Adjudication:
        """Run ``command``, the ``index``-th of its battle, against ``state``; ``first_position``
        is where its ``CommandIssued`` will stand in the log (for the log lines).

        Raises RuleViolation (the command is not allowed), DiceError (the dice source cannot
        answer) or any error of the rules; then nothing of this command may be written."""
        run = _Run(self, index)
        issued: Event = CommandIssued(index=index, command=command)
        events: list[Event] = [issued]
        state = self.system.evolve(state, issued)
        procedure = self.system.procedure(
            state, command, Context(rulings=dict(self.rulings), command_index=index)
        )
        bound = (
            None
            if self.quiet
            else logs.logger(LOGGER).bind(battle=self.battle, ruleset=self.system.id, command=index)
        )
        if bound is not None:
            _log_step(bound, issued, first_position)
        if self.observe is not None:
            self.observe(issued)
        answer: Any = None
        while True:
            try:
                step = procedure.send(answer)
            except StopIteration:
                break
            event, answer = run.answer(step)
            state = self.system.evolve(state, event)
            events.append(event)
            if answer is None:  # a rule step: the procedure gets the state it leads to
                answer = state
            if bound is not None:
                _log_step(bound, event, first_position + len(events) - 1)
            if self.observe is not None:
                self.observe(event)
        return Adjudication(events=events, state=state, index=index)


class _Run:
    """One command's requests for dice and choices, answered from its table's sources."""

    def __init__(self, table: Table, index: int) -> None:
        self.table = table
        self.prefix = f"c{index}/"
        self.keys: set[str] = set()

    def _key(self, key: str, what: str) -> str:
        full = self.prefix + key
        if full in self.keys:
            raise DiceError(
                f"{self.table.system.id} asked twice for the {what} {full!r} in one command"
            )
        self.keys.add(full)
        return full

    def answer(self, step: Step) -> tuple[Event, Any]:
        """The event a step records, and what the procedure is told (None for a rule step)."""
        if isinstance(step, Roll):
            key = self._key(step.key, "roll")
            values, source = self.table.dice.roll(key, step.n, step.sides, step.purpose)
            rolled = DiceRolled(
                key=key, sides=step.sides, values=values, source=source, purpose=step.purpose
            )
            return rolled, values
        if isinstance(step, Ask):
            key = self._key(step.key, "choice")
            choice, source = self.table.choices.choose(key, step.options, step.default, step.prompt)
            return ChoiceMade(key=key, options=step.options, answer=choice, source=source), choice
        if isinstance(step, Event):
            return step, None
        # A rules module yielding something else is a programming error.
        raise TypeError(f"{self.table.system.id} procedure yielded {step!r}")  # pragma: no cover


@dataclass(frozen=True)
class Turn:
    """A command to adjudicate, with the dice and choices it answers from when they are its own
    (verification reads each command's from the log); the table's otherwise."""

    command: Any
    dice: DiceSource | None = None
    choices: ChoiceSource | None = None


def adjudicate_commands(
    table: Table, state: Any, turns: Iterable[Turn], *, first_position: int = 2
) -> Iterator[Adjudication]:
    """Adjudicate a battle's commands in order from ``state`` (the state before the first one,
    whose ``CommandIssued`` stands at ``first_position``); numbered from 1, each yields its events
    and the state after it. An error stops the run at the command that raised it."""
    position = first_position
    for index, turn in enumerate(turns, start=1):
        own = table
        if turn.dice is not None:
            own = dataclasses.replace(own, dice=turn.dice)
        if turn.choices is not None:
            own = dataclasses.replace(own, choices=turn.choices)
        result = own.adjudicate(state, turn.command, index, first_position=position)
        yield result
        state = result.state
        position += len(result.events)


def _log_step(bound: Any, event: Event, position: int) -> None:
    fields: dict[str, Any] = {"position": position}
    if isinstance(event, RuleEvent):
        fields["rule"] = event.rule
    for name in event.__struct_fields__:
        if name == "rule":
            continue
        value = getattr(event, name)
        if isinstance(value, str | int | bool | tuple) or value is None:
            fields[name] = value
    bound.info(type(event).__name__, **fields)


__all__ = ["Adjudication", "Table", "Turn", "adjudicate_commands"]
