"""A battle's events as rows for the pages and the API: each event's narration, rule and
citation, its numbers and modifiers, and which void leaves it out."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any
from uuid import UUID

import msgspec

from blowbyblow.domain.core import CommandIssued, Event, RuleEvent
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.projections.battle import VoidedCommand, voided_commands
from blowbyblow.replay.engine.codec import to_builtins
from blowbyblow.replay.engine.narrate import narrate
from blowbyblow.replay.store.log import LoggedEvent
from blowbyblow.web.schemas import EventRow, ModifierRow

# Reviews kept at once in a process, the least recently reviewed put aside first: a review the
# players never write (they went back, the battle ended, the phone was put down) is not kept
# for ever. The biggest events have 400 tables, each with one review at a time.
REVIEWS_KEPT = 1024


def _modifiers(data: Any, system: AnyGameSystem, found: list[ModifierRow]) -> None:
    """Every Modifier anywhere in an event's plain data, in order. Only a dict or a list is
    looked into (issue 25: a call for each number and word of every event was a third of a
    row's making)."""
    if isinstance(data, dict):
        if (
            "value" in data
            and "cause" in data
            and "rule" in data
            and isinstance(data["value"], int)
        ):
            found.append(
                ModifierRow(
                    value=data["value"],
                    cause=str(data["cause"]),
                    rule=str(data["rule"]),
                    citation=system.rulebook.cite(str(data["rule"])),
                )
            )
            return
        values: Any = data.values()
    elif isinstance(data, list):
        values = data
    else:
        return
    for value in values:
        if isinstance(value, (dict, list)):
            _modifiers(value, system, found)


def event_row(system: AnyGameSystem, logged: LoggedEvent, command: int) -> EventRow:
    ev = logged.event
    data = to_builtins(ev)
    row = EventRow(
        position=logged.position,
        type=type(ev).__name__,
        text=narrate(system, ev).strip(),
        command=command,
        event=data if isinstance(data, dict) else {"value": data},
        hash=logged.hash.hex(),
    )
    if isinstance(ev, RuleEvent):
        row.rule = ev.rule
        row.citation = system.rulebook.cite(ev.rule)
        _modifiers(data, system, row.modifiers)
        row.numbers = {
            k: v
            for k, v in data.items()
            if isinstance(v, int) and not isinstance(v, bool) and k != "type"
        }
    return row


def event_rows(
    system: AnyGameSystem,
    events: Sequence[LoggedEvent],
    *,
    command: int = 0,
    voided: Sequence[VoidedCommand] | None = None,
) -> list[EventRow]:
    """Rows of a battle's events from position 1 (or of a stretch of them: ``command``, the
    command its first event falls in, and ``voided``, the battle's voided commands); the rows of
    a voided command say which void (position and reason) leaves them out."""
    rows: list[EventRow] = []
    if voided is None:
        voided = voided_commands([e.event for e in events])
    for logged in events:
        if isinstance(logged.event, CommandIssued):
            command = logged.event.index
        row = event_row(system, logged, command)
        for v in voided:
            if v.covers(logged.position):
                row.voided_at, row.void_reason = v.voided_at, v.reason
        rows.append(row)
    return rows


def plain_rows(system: AnyGameSystem, events: Sequence[Event], first: int = 1) -> list[EventRow]:
    """Rows of events not (yet) in the store (a what-if's, a command under review), numbered
    from ``first``."""
    rows: list[EventRow] = []
    command = 0
    for position, ev in enumerate(events, start=first):
        if isinstance(ev, CommandIssued):
            command = ev.index
        fake = LoggedEvent(
            originator_id=UUID(int=0),
            originator_version=position,
            ruleset=system.id,
            event=ev,
            data=b"",
            prev_hash=b"",
            hash=b"",
        )
        rows.append(event_row(system, fake, command))
    return rows


class ReviewedRows:
    """The rows of each battle's command under review (the players check what they typed before
    it is written), kept to be that command's rows once written, each with its hash, rather than
    narrated again (issue 25). Kept only while they are the very events written: any write of
    the battle takes them, and a command the review did not narrate is narrated as it is written.
    At most ``kept`` reviews are held, the least recently reviewed put aside first (its command
    is then narrated as it is written). Shared by the worker threads, behind one lock."""

    def __init__(self, kept: int = REVIEWS_KEPT) -> None:
        self._most = kept
        self._kept: OrderedDict[UUID, tuple[Sequence[Event], list[EventRow]]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """How many reviews are held now."""
        with self._lock:
            return len(self._kept)

    def review(
        self, battle: UUID, system: AnyGameSystem, events: Sequence[Event], first: int
    ) -> list[EventRow]:
        rows = plain_rows(system, events, first)
        with self._lock:
            self._kept[battle] = (events, rows)
            self._kept.move_to_end(battle)
            while len(self._kept) > self._most:
                self._kept.popitem(last=False)
        return rows

    def written(
        self, battle: UUID, system: AnyGameSystem, logged: Sequence[LoggedEvent], command: int
    ) -> list[EventRow]:
        """The rows of ``command``'s events as written (none voided yet)."""
        with self._lock:
            kept = self._kept.pop(battle, None)
        if kept is not None:
            events, rows = kept
            if len(events) == len(logged) and all(
                done.event is event and row.position == done.position and row.command == command
                for done, event, row in zip(logged, events, rows, strict=True)
            ):
                return [
                    msgspec.structs.replace(row, hash=done.hash.hex())
                    for row, done in zip(rows, logged, strict=True)
                ]
        return [event_row(system, done, command) for done in logged]


__all__ = ["REVIEWS_KEPT", "ReviewedRows", "event_row", "event_rows", "plain_rows"]
