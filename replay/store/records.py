"""The store's records, read and written straight through the database's own driver.

eventsourcing keeps the events table (its schema, its connection pools, the configuration by
environment); the store's records are the hand-written SQL of its hot paths on that table and
the tables of its read models, for each persistence eventsourcing offers here (SQLite, PostgreSQL,
in memory):

- reading a battle's records a page at a time (``page``), by position, as stored: nothing per
  record but a (position, topic, bytes) row, decoded by the caller straight to its events;
- appending one transaction's records with the battle index row moved on in the same transaction
  (``write``), guarded by the row (the battle at the expected version, with the expected head,
  not sealed), so a stale writer writes nothing; on PostgreSQL that is one statement, one round
  trip, with no table lock and no NOTIFY (nothing here tails the notification log: the read
  models are written with the events, so no reader can pass over a gap);
- the read models' tables: ``bxb_battles`` (the battle index), ``bxb_voids`` (the commands each
  battle voids), ``bxb_snapshots`` (states every ``projections.snapshots.EVERY`` events), and
  ``bxb_read_models`` (whether the index was built for this store).

One module per persistence: ``sqlite.py``, ``postgres.py``, ``memory.py``; this one holds what
they share: the records' shapes, one transaction's ``Write``, the ``Records`` every persistence
provides, and ``records_for``, which picks the persistence of an eventsourcing recorder.

Nothing here decodes an event or knows a rule: ``replay/store/log.py`` and
``replay/store/readmodels.py`` do."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

import msgspec

from blowbyblow.projections.battle import VoidedCommand
from blowbyblow.projections.index import BattleRow, Growth
from blowbyblow.projections.snapshots import EVERY, Snapshot

Record = tuple[int, str, bytes]  # position, topic, stored bytes
Stored = tuple[UUID, int, str, bytes]  # battle (or seal record), position, topic, stored bytes

NAMED = 5  # battles a lookup returns: enough to name them when a name is ambiguous

INDEX_COLUMNS = (
    "label, ruleset, ruleset_version, dice, version, head, commands, voided, sealed, "
    "first_recorded, last_recorded, verified"
)


class Write(msgspec.Struct):
    """One transaction: records of a battle (and of its seal record), and what they change in
    the read models. ``start`` opens the battle's index row (a new battle); ``growth`` moves it
    on, guarded by ``expected`` and ``prev``; ``indexed`` False writes records that are no
    battle (no row to move)."""

    battle: UUID
    expected: int
    prev: bytes
    records: list[Stored]
    growth: Growth
    start: BattleRow | None = None
    indexed: bool = True
    voids: list[VoidedCommand] = []
    snapshots: list[Snapshot] = []


class Records:
    """What every persistence provides (see the subclasses)."""

    # --- the log -------------------------------------------------------------------------

    def page(self, battle: UUID, gt: int, lte: int | None, limit: int) -> list[Record]:
        raise NotImplementedError

    def states(self, battle: UUID, gt: int, lte: int, limit: int) -> list[tuple[int, bytes]]:
        """``page`` without the topics: the reads to state, which take a battle's events from
        its ruleset, need only the records' positions and bytes."""
        return [(position, state) for position, _, state in self.page(battle, gt, lte, limit)]

    def head(self, battle: UUID) -> Record | None:
        raise NotImplementedError

    def topics(self, battle: UUID, gt: int, lt: int) -> list[tuple[int, str]]:
        raise NotImplementedError

    def ruled(self, battle: UUID) -> list[int]:
        """The positions of the battle's judges' rulings (``RulingGiven``), by the records'
        topics, oldest first: nothing decoded (a store's own query picks them out)."""
        topics = self.topics(battle, 0, 2**62)
        return [p for p, topic in topics if topic.endswith("/RulingGiven")]

    def starts(self) -> list[UUID]:
        """Every chain whose position 1 is a ``BattleStarted``, oldest first."""
        raise NotImplementedError

    def write(self, w: Write) -> bool:
        """Write ``w`` in one transaction; False, writing nothing, when the battle's index row
        is not at ``w.expected`` with head ``w.prev`` (or is sealed, or, for a new battle, exists);
        IntegrityError, writing nothing, when a record's position is taken."""
        raise NotImplementedError

    # --- the read models -------------------------------------------------------------------

    def rows(self) -> list[tuple[BattleRow, int | None]]:
        """Every index row, oldest battle first, with the version its log actually has (None: no
        record left): a row whose version differs is stale, kept by something that bypassed
        the store (an edit of the database)."""
        raise NotImplementedError

    def row(self, battle: UUID) -> BattleRow | None:
        raise NotImplementedError

    def lookup(
        self, *, ids: tuple[str, str] | None = None, label: str | None = None
    ) -> tuple[list[BattleRow], int]:
        """The battles with records whose id lies in ``ids`` (the lowest and the highest, 32
        lower-case hex digits each: an id prefix as a range) or whose label is ``label``: the
        first ``NAMED`` of them, oldest first, and how many there are. One indexed lookup (the
        index's unique id, its label index), not a read of the whole index."""
        found = [
            row
            for row, actual in self.rows()
            if actual is not None
            and (ids is None or ids[0] <= row.battle.hex <= ids[1])
            and (label is None or row.label == label)
        ]
        return found[:NAMED], len(found)

    def newest(self) -> BattleRow | None:
        """The battle with records opened last (None: the store holds none)."""
        found = [row for row, actual in self.rows() if actual is not None]
        return found[-1] if found else None

    def row_and_version(self, battle: UUID) -> tuple[BattleRow | None, int]:
        """The battle's index row and the version its log actually has (0: no record), in one
        query."""
        head = self.head(battle)
        return self.row(battle), 0 if head is None else head[0]

    def voids(self, battle: UUID) -> list[VoidedCommand]:
        raise NotImplementedError

    def snapshots(self, battle: UUID, upto: int, fingerprint: str) -> list[Snapshot]:
        """The battle's snapshots at or before ``upto`` made by this code, latest first (a few)."""
        raise NotImplementedError

    def put_snapshots(self, battle: UUID, snapshots: Sequence[Snapshot]) -> None:
        raise NotImplementedError

    def replace(self, row: BattleRow, voids: Sequence[VoidedCommand]) -> None:
        """The battle's row and voids as rebuilt from its log; its snapshots dropped."""
        raise NotImplementedError

    def drop(self, battle: UUID) -> None:
        """Forget the battle's row, voids and snapshots (its records are gone)."""
        raise NotImplementedError

    def set_verified(self, battle: UUID, version: int, verdict: int) -> None:
        raise NotImplementedError

    def built(self) -> bool:
        raise NotImplementedError

    def mark_built(self, built: bool) -> None:
        raise NotImplementedError

    def clear(self) -> None:
        """Every read model emptied (before rebuilding them from zero)."""
        raise NotImplementedError


def row_of(battle: UUID, r: Sequence[Any]) -> BattleRow:
    return BattleRow(
        battle=battle,
        label=r[0],
        ruleset=r[1],
        ruleset_version=r[2],
        dice=r[3],
        version=r[4],
        head=bytes(r[5]),
        commands=r[6],
        voided=r[7],
        sealed=bool(r[8]),
        first_recorded=r[9],
        last_recorded=r[10],
        verified=r[11],
    )


def row_values(row: BattleRow) -> tuple[Any, ...]:
    return (
        row.label,
        row.ruleset,
        row.ruleset_version,
        row.dice,
        row.version,
        row.head,
        row.commands,
        row.voided,
        row.sealed,
        row.first_recorded,
        row.last_recorded,
        row.verified,
    )


def void_of(r: Sequence[Any]) -> VoidedCommand:
    return VoidedCommand(index=r[0], first=r[1], last=r[2], voided_at=r[3], by=r[4], reason=r[5])


def void_values(v: VoidedCommand) -> tuple[Any, ...]:
    return (v.index, v.first, v.last, v.voided_at, v.by, v.reason)


def snapshot_of(r: Sequence[Any]) -> Snapshot:
    return Snapshot(
        position=r[0], hash=bytes(r[1]), voids=r[2], fingerprint=r[3], state=bytes(r[4])
    )


def latest_off_interval(snapshots: Sequence[Snapshot]) -> int:
    return max((s.position for s in snapshots if s.position % EVERY), default=0)


def growth_values(g: Growth) -> tuple[Any, ...]:
    return (g.version, g.head, g.issued - g.voids, g.voids, g.sealed, g.last_recorded)


def records_for(recorder: Any, *, read_only: bool = False, where: str = "on PostgreSQL") -> Records:
    """The records of an eventsourcing application recorder (each persistence's module imported
    when a store of it is opened); ``read_only``: a PostgreSQL streaming replica's; ``where``:
    the store as its errors name it."""
    module = type(recorder).__module__
    if module.startswith("eventsourcing.sqlite"):
        from blowbyblow.replay.store.sqlite import SQLiteRecords

        pool = recorder.datastore.pool
        found = SQLiteRecords(pool.db_name, recorder.events_table_name, pool.lock_timeout)
        found.make_schema()
        return found
    if module.startswith("eventsourcing.postgres"):
        from blowbyblow.replay.store.postgres import PostgresRecords

        return PostgresRecords(
            recorder.datastore, recorder.events_table_name, read_only=read_only, where=where
        )
    from blowbyblow.replay.store.memory import MemoryRecords

    return MemoryRecords(recorder)


__all__ = [
    "INDEX_COLUMNS",
    "NAMED",
    "Record",
    "Records",
    "Stored",
    "Write",
    "growth_values",
    "latest_off_interval",
    "records_for",
    "row_of",
    "row_values",
    "snapshot_of",
    "void_of",
    "void_values",
]
