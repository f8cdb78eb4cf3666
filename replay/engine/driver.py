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
from blowbyblow.replay.engine.dice import ChoiceSource, DiceError, DiceSource, ExploringDice

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
        return Adjudicating(self, state, command, index, first_position=first_position).go_on()


class Adjudicating:
    """One command being adjudicated, that can stop at a question its sources cannot answer yet
    and go on from there later: a front end that answers over several requests (the server's
    table page, one request a roll) runs the command's procedure once, suspended in between,
    rather than again from its start at every answer.

    A procedure is a generator: between two requests it simply waits at its ``yield`` (no
    thread). ``go_on`` runs it until it ends (the ``Adjudication``) or until a source raises
    instead of answering; the step asked then stays open, and the next ``go_on`` asks the
    sources again, from that step (give them the new answers first). What the rules raise (a
    refused command) ends it: every later ``go_on`` raises that again."""

    def __init__(
        self, table: Table, state: Any, command: Any, index: int, *, first_position: int = 0
    ) -> None:
        self.table = table
        self.index = index
        self._run = _Run(table, index)
        self._first_position = first_position
        issued: Event = CommandIssued(index=index, command=command)
        self._events: list[Event] = [issued]
        self._state = table.system.evolve(state, issued)
        self._procedure = table.system.procedure(
            self._state, command, Context(rulings=dict(table.rulings), command_index=index)
        )
        self._bound = None if table.quiet else logs.steps(LOGGER)
        if self._bound is not None:
            self._bound = self._bound.bind(
                battle=table.battle, ruleset=table.system.id, command=index
            )
        self._told(issued)
        self._answer: Any = None  # what the procedure is told next
        self._open: Any = None  # the step asked and not answered yet
        self._ended: Adjudication | BaseException | None = None

    @classmethod
    def resumed(  # noqa: PLR0913 - where a command stood, every part of it
        cls,
        table: Table,
        index: int,
        events: list[Event],
        state: Any,
        keys: set[str],
        procedure: Any,
        step: Step,
    ) -> Adjudicating:
        """A command taken up where another stood, asking ``step``: its events so far, the
        state they lead to, the keys asked, and its procedure suspended at that step (a copy,
        ``replay/odds/resume.py``). Nothing is logged or told of what came before."""
        self = cls.__new__(cls)
        self.table = table
        self.index = index
        self._run = _Run(table, index)
        self._run.keys = keys
        self._first_position = 0
        self._events = events
        self._state = state
        self._procedure = procedure
        self._bound = None if table.quiet else logs.steps(LOGGER)
        if self._bound is not None:
            self._bound = self._bound.bind(
                battle=table.battle, ruleset=table.system.id, command=index
            )
        self._answer = None
        self._open = step
        self._ended = None
        return self

    def asked(self) -> set[str]:
        """The keys of the rolls and choices answered so far (a copy)."""
        return set(self._run.keys)

    def _told(self, event: Event) -> None:
        if self._bound is not None:
            _log_step(self._bound, event, self._first_position + len(self._events) - 1)
        if self.table.observe is not None:
            self.table.observe(event)

    def go_on(self) -> Adjudication:
        """Run on to the procedure's end: its events and the state after them. Raises what a
        source raises (the step stays open: call again once it can answer) or what the rules
        raise (the command ends there)."""
        if isinstance(self._ended, Adjudication):
            return self._ended
        if self._ended is not None:
            raise self._ended
        # the loop runs on locals (it is every command's, in verification and odds too), kept
        # in the object whenever a source or the rules raise
        evolve, send, step = self.table.system.evolve, self._procedure.send, self._run.answer
        events, state, told = self._events, self._state, self._told
        quiet = self._bound is None and self.table.observe is None
        open_, answer = self._open, self._answer
        try:
            while True:
                if open_ is None:
                    try:
                        open_ = send(answer)
                    except StopIteration:
                        break
                if isinstance(open_, Event):  # a rule step, as it is (most steps are)
                    event, answer = open_, None
                else:
                    event, answer = step(open_)  # a source may raise: the step stays open
                open_ = None
                state = evolve(state, event)
                events.append(event)
                if answer is None:  # a rule step: the procedure gets the state it leads to
                    answer = state
                if not quiet:
                    told(event)
        except BaseException as e:
            self._open, self._answer, self._state = open_, answer, state
            if open_ is None:  # the rules (or the fold) raised: the command ends here
                self._ended = e
            raise
        self._state = state
        self._ended = Adjudication(events=events, state=state, index=self.index)
        return self._ended


class _Run:
    """One command's requests for dice and choices, answered from its table's sources."""

    def __init__(self, table: Table, index: int) -> None:
        self.table = table
        self.prefix = f"c{index}/"
        self.keys: set[str] = set()
        # A source that explores a roll's faces (the odds) is told what the rules read of
        # them; every other source just rolls.
        dice = table.dice
        self.counted = dice.roll_counted if isinstance(dice, ExploringDice) else None

    def _key(self, key: str, what: str) -> str:
        full = self.prefix + key
        if full in self.keys:
            raise DiceError(
                f"{self.table.system.id} asked twice for the {what} {full!r} in one command"
            )
        return full

    def answer(self, step: Step) -> tuple[Event, Any]:
        """The event a step records, and what the procedure is told (None for a rule step). A
        key counts as asked once its source has answered: a step a source could not answer yet
        is asked again (``Adjudicating``)."""
        if isinstance(step, Roll):
            key = self._key(step.key, "roll")
            counted = self.counted
            if counted is not None:
                values, source = counted(
                    key, step.n, step.sides, step.purpose, step.counts, step.highest
                )
            else:
                values, source = self.table.dice.roll(key, step.n, step.sides, step.purpose)
            self.keys.add(key)
            rolled = DiceRolled(
                key=key, sides=step.sides, values=values, source=source, purpose=step.purpose
            )
            return rolled, values
        if isinstance(step, Ask):
            key = self._key(step.key, "choice")
            choice, source = self.table.choices.choose(key, step.options, step.default, step.prompt)
            self.keys.add(key)
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


__all__ = ["Adjudicating", "Adjudication", "Table", "Turn", "adjudicate_commands"]
