"""The battle index: one row per battle (id, label, game system and version, dice, events,
commands standing and voided, sealed, when recorded, and whether verify last found it good),
kept as events land, so listing a store's battles (``bxb battles``, the organiser's dashboard,
naming a battle by label or id prefix) reads one row per battle and never the log.

A row is a fold like any other: ``started_row`` opens it from a battle's first event and
``grown`` moves it on by the events of one transaction, so the store writes it in the same
transaction as the events (``replay/store/records.py``). ``void_of`` says which command a
``CommandVoided`` cancels, exactly as ``projections.battle.voided_commands`` reads the whole log,
from the few records the store looks up for it. ``IndexFold`` builds a row from a whole log,
record by record: what rebuilding the index from zero does."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any
from uuid import UUID

import msgspec

from blowbyblow.domain.core import BattleStarted, CommandIssued, CommandVoided, Event
from blowbyblow.projections.battle import VoidedCommand

SEALED = "BattleSealed"  # the engine's seal event (replay.evidence.seals), named here by its type


class BattleRow(msgspec.Struct, kw_only=True):
    """What the index knows of a battle."""

    battle: UUID
    label: str
    ruleset: str
    ruleset_version: str
    dice: str  # the dice mode: seeded, physical, fair
    version: int  # events recorded
    head: bytes  # the hash of its last event
    commands: int  # commands that stand (played, not voided)
    voided: int  # commands voided
    sealed: bool
    first_recorded: str
    last_recorded: str
    # The version verify last read the battle at: +N found good, -N found a problem, 0 never.
    verified: int = 0


def started_row(battle: UUID, started: BattleStarted[Any], recorded_at: str) -> BattleRow:
    """A battle's row before its first event is counted (``grown`` counts it)."""
    return BattleRow(
        battle=battle,
        label=started.label,
        ruleset=started.ruleset,
        ruleset_version=started.ruleset_version,
        dice=started.dice.mode,
        version=0,
        head=b"",
        commands=0,
        voided=0,
        sealed=False,
        first_recorded=recorded_at,
        last_recorded=recorded_at,
    )


class Growth(msgspec.Struct, frozen=True, kw_only=True):
    """What one transaction's events change in a battle's row."""

    version: int  # the battle's version after them
    head: bytes
    issued: int  # CommandIssued among them
    voids: int  # CommandVoided among them that void a command (``void_of``)
    sealed: bool
    last_recorded: str


def growth(
    version: int, head: bytes, events: Sequence[Event], voids: int, last_recorded: str
) -> Growth:
    kinds = [type(e) for e in events]  # every append asks: counted in C below
    return Growth(
        version=version,
        head=head,
        issued=kinds.count(CommandIssued),
        voids=voids,
        sealed=SEALED in {kind.__name__ for kind in set(kinds)},
        last_recorded=last_recorded,
    )


def grown(row: BattleRow, g: Growth) -> BattleRow:
    return msgspec.structs.replace(
        row,
        version=g.version,
        head=g.head,
        commands=row.commands + g.issued - g.voids,
        voided=row.voided + g.voids,
        sealed=row.sealed or g.sealed,
        last_recorded=g.last_recorded,
    )


def void_of(
    void: CommandVoided,
    voided_at: int,
    issued: int | None,
    next_boundary: int,
    already: Sequence[VoidedCommand],
) -> VoidedCommand | None:
    """The command ``void`` (at position ``voided_at``) cancels, or None when it names none that
    ``voided_commands`` would accept: ``issued`` is the number of the command issued at the
    position it names (None: no ``CommandIssued`` there),
    ``next_boundary`` the position of the first ``CommandIssued`` or ``CommandVoided`` after that
    one (so the command's events end just before it), ``already`` the voids before it."""
    if issued is None or issued != void.index:
        return None
    if void.position >= voided_at or any(v.first == void.position for v in already):
        return None
    return VoidedCommand(
        index=void.index,
        first=void.position,
        last=next_boundary - 1,
        voided_at=voided_at,
        by=void.by,
        reason=void.reason,
    )


class IndexFold:
    """A battle's row and voids folded from its log, record by record (rebuilding the index from
    zero streams each battle through one of these). Keeps the positions of the commands'
    boundaries, a few integers per command, to place each void as ``voided_commands`` does."""

    def __init__(self, battle: UUID) -> None:
        self.battle = battle
        self.row: BattleRow | None = None
        self.voided: list[VoidedCommand] = []
        self._issued: dict[int, int] = {}  # position of each CommandIssued -> its number
        self._bounds: list[int] = []  # positions of every CommandIssued and CommandVoided
        self._issued_count = 0
        self._events = 0

    def add(self, position: int, event: Event, hash_: bytes, recorded_at: str) -> None:
        if self.row is None:
            if position != 1 or not isinstance(event, BattleStarted):
                return  # not a battle (a seal record), or a log that does not start right
            self.row = started_row(self.battle, event, recorded_at)
        self._events = position
        if isinstance(event, CommandIssued):
            self._issued[position] = event.index
            self._bounds.append(position)
            self._issued_count += 1
        elif isinstance(event, CommandVoided):
            self._bounds.append(position)
            after = bisect.bisect_right(self._bounds, event.position)
            found = void_of(
                event,
                position,
                self._issued.get(event.position),
                self._bounds[after] if after < len(self._bounds) else position,
                self.voided,
            )
            if found is not None:
                self.voided.append(found)
        self.row.head = hash_
        self.row.last_recorded = recorded_at
        self.row.sealed = self.row.sealed or type(event).__name__ == SEALED

    def result(self) -> tuple[BattleRow, list[VoidedCommand]] | None:
        """The row and the voids, or None when the log does not start with ``BattleStarted``."""
        if self.row is None:
            return None
        self.row.version = self._events
        self.row.voided = len(self.voided)
        self.row.commands = self._issued_count - len(self.voided)
        return self.row, self.voided


__all__ = [
    "BattleRow",
    "Growth",
    "IndexFold",
    "grown",
    "growth",
    "started_row",
    "void_of",
]
