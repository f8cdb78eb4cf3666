"""Folds over a battle's log: the state of a battle at any position.

A game system folds one event into its state (``GameSystem.evolve``, in the system's own
``projection.py``); these functions fold a whole log with it. Every read-back folds here: the
state after recording, a live session picking a battle up, ``bxb at``, what-if, the benchmark.

A voided command (``CommandVoided``) is not played: its events stay in the log as evidence, and
every fold here leaves them out, with the ``CommandVoided`` itself. ``voided_commands`` says which
commands a log voids and ``standing`` gives the events that are played.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from functools import reduce
from typing import Any

import msgspec

from blowbyblow.domain.core import BattleStarted, CommandIssued, CommandVoided, Event
from blowbyblow.domain.system import AnyGameSystem


def fold(system: AnyGameSystem, state: Any, events: Iterable[Event]) -> Any:
    """``state`` with ``events`` folded into it, one after another."""
    for event in events:
        state = system.evolve(state, event)
    return state


class VoidedCommand(msgspec.Struct, frozen=True):
    """A command a ``CommandVoided`` cancels: its number, where its events stand in the log
    (``first`` is its ``CommandIssued``, ``last`` its last event), and the void itself."""

    index: int
    first: int  # position of its CommandIssued (1 = the battle's start)
    last: int  # position of its last event
    voided_at: int  # position of the CommandVoided
    by: str
    reason: str

    def covers(self, position: int) -> bool:
        return self.first <= position <= self.last


def voided_commands(events: Sequence[Event]) -> list[VoidedCommand]:
    """The commands ``events`` (a battle from position 1) voids, in the order they were voided.
    A command's events run from its ``CommandIssued`` to the event before the next
    ``CommandIssued`` or ``CommandVoided``. A void naming no command that stands at that point is
    left out here (verification reports it)."""
    voids = VoidsFound()
    for position, event in enumerate(events, start=1):
        voids.add(position, event)
    return voids.found


class VoidsFound:
    """``voided_commands`` of a log read event by event (streamed, as ``bxb log`` reads it): a
    void names a command issued before it, which it ends, so each is placed as it is read. What
    it keeps of the log is three numbers a command (where it was issued, its number, its last
    position), in arrays."""

    def __init__(self) -> None:
        self.found: list[VoidedCommand] = []
        self._issued_at = array("q")  # in order of position
        self._index = array("q")
        self._ends = array("q")
        self._current: int | None = None  # the command the events now read belong to
        self._voided: set[int] = set()

    def add(self, position: int, event: Event) -> None:
        if isinstance(event, CommandIssued):
            self._issued_at.append(position)
            self._index.append(event.index)
            self._ends.append(position)
            self._current = len(self._ends) - 1
        elif isinstance(event, CommandVoided):
            self._current = None
            self._place(position, event)
        elif self._current is not None:
            self._ends[self._current] = position

    def _place(self, position: int, event: CommandVoided) -> None:
        at = bisect_left(self._issued_at, event.position)
        if at == len(self._issued_at) or self._issued_at[at] != event.position:
            return  # no command was issued there (before this void)
        if self._index[at] != event.index or event.position in self._voided:
            return
        self._voided.add(event.position)
        self.found.append(
            VoidedCommand(
                index=event.index,
                first=event.position,
                last=self._ends[at],
                voided_at=position,
                by=event.by,
                reason=event.reason,
            )
        )


def standing(events: Sequence[Event]) -> list[tuple[int, Event]]:
    """The events that are played, each with its position: every event but those of a voided
    command and the ``CommandVoided`` events themselves."""
    if not any(isinstance(event, CommandVoided) for event in events):
        return list(enumerate(events, start=1))
    skip = Skipped(voided_commands(events))
    return [
        (position, event)
        for position, event in enumerate(events, start=1)
        if not skip(position, event)
    ]


class Skipped:
    """Which events a fold leaves out, asked in order of position: every ``CommandVoided``, and
    the events of each command voided anywhere in the log (``voided``, from the whole log, since
    a void later in the log cancels a command played before any position asked about). Voided
    commands never overlap, so one pass over them in order of position answers every event."""

    def __init__(self, voided: Sequence[VoidedCommand]) -> None:
        self.spans = sorted((v.first, v.last) for v in voided)
        self._next = 0

    def __call__(self, position: int, event: Event) -> bool:
        if isinstance(event, CommandVoided):
            return True
        spans = self.spans
        while self._next < len(spans) and spans[self._next][1] < position:
            self._next += 1
        return self._next < len(spans) and spans[self._next][0] <= position


def fold_standing(
    system: AnyGameSystem,
    state: Any,
    batches: Iterable[tuple[int, Sequence[Event]]],
    voided: Sequence[VoidedCommand],
) -> Any:
    """``state`` with the events that stand folded into it, from ``batches`` of events in order
    of position, each batch given with the position of its first event; ``voided`` are the
    commands the whole log voids. The one fold behind ``fold_battle`` and the store's reads
    (``BattleStore.state_at``), which stream a battle in batches from a snapshot."""
    evolve = system.evolve
    if not voided:
        for _, events in batches:
            if CommandVoided in map(type, events):  # a void that voids nothing, still not played
                events = [event for event in events if not isinstance(event, CommandVoided)]
            state = reduce(evolve, events, state)  # the loop in C: a replay is mostly this
        return state
    skip = Skipped(voided)
    for first, events in batches:
        for position, event in enumerate(events, start=first):
            if not skip(position, event):
                state = evolve(state, event)
    return state


def commands_standing(events: Sequence[Event]) -> int:
    """How many commands are played (not voided): the next command's number less one."""
    return sum(1 for _, event in standing(events) if isinstance(event, CommandIssued))


def fold_battle(system: AnyGameSystem, events: Sequence[Event], position: int | None = None) -> Any:
    """The state of a battle right after the event at ``position`` (1 = its ``BattleStarted``),
    or after its last event when ``position`` is None. ``events`` is the battle from position 1;
    a command that any of them voids is left out wherever ``position`` stands."""
    if not events or not isinstance(events[0], BattleStarted):
        raise ValueError("a battle's log starts with BattleStarted")
    end = len(events) if position is None else position
    if not 1 <= end <= len(events):
        raise ValueError(f"the battle has events 1 to {len(events)}, not {end}")
    state = system.initial_state(events[0].setup)
    voided = (
        voided_commands(events) if any(isinstance(event, CommandVoided) for event in events) else []
    )
    return fold_standing(system, state, [(2, events[1:end])], voided)


__all__ = [
    "Skipped",
    "VoidedCommand",
    "VoidsFound",
    "commands_standing",
    "fold",
    "fold_battle",
    "fold_standing",
    "standing",
    "voided_commands",
]
