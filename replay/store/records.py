"""The store's records, read and written straight through the database's own driver.

eventsourcing keeps the events table (its schema, its connection pools, the configuration by
environment); this module is the hand-written SQL of the store's hot paths on that table and
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

Nothing here decodes an event or knows a rule: ``replay/store/log.py`` and ``replay/reads.py`` do."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from eventsourcing.persistence import (
    IntegrityError,
    OperationalError,
    PersistenceError,
)

from blowbyblow.projections.battle import VoidedCommand
from blowbyblow.projections.index import BattleRow, Growth, grown
from blowbyblow.projections.snapshots import EVERY, Snapshot

Record = tuple[int, str, bytes]  # position, topic, stored bytes
Stored = tuple[UUID, int, str, bytes]  # battle (or seal record), position, topic, stored bytes

INDEX_COLUMNS = (
    "label, ruleset, ruleset_version, dice, version, head, commands, voided, sealed, "
    "first_recorded, last_recorded, verified"
)


@dataclass
class Write:
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
    voids: list[VoidedCommand] = field(default_factory=list)
    snapshots: list[Snapshot] = field(default_factory=list)


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


def _row(battle: UUID, r: Sequence[Any]) -> BattleRow:
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


def _row_values(row: BattleRow) -> tuple[Any, ...]:
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


def _void(r: Sequence[Any]) -> VoidedCommand:
    return VoidedCommand(index=r[0], first=r[1], last=r[2], voided_at=r[3], by=r[4], reason=r[5])


def _void_values(v: VoidedCommand) -> tuple[Any, ...]:
    return (v.index, v.first, v.last, v.voided_at, v.by, v.reason)


def _snapshot(r: Sequence[Any]) -> Snapshot:
    return Snapshot(
        position=r[0], hash=bytes(r[1]), voids=r[2], fingerprint=r[3], state=bytes(r[4])
    )


def _latest_off_interval(snapshots: Sequence[Snapshot]) -> int:
    return max((s.position for s in snapshots if s.position % EVERY), default=0)


def _growth_values(g: Growth) -> tuple[Any, ...]:
    return (g.version, g.head, g.issued - g.voids, g.voids, g.sealed, g.last_recorded)


# --- SQLite ----------------------------------------------------------------------------------

_SQLITE_SCHEMA = (
    # seq: the order battles were opened in (a rowid: max + 1, with no sqlite_sequence row to
    # write with every new battle, as AUTOINCREMENT would)
    """create table if not exists bxb_battles (
        seq integer primary key, battle text not null unique,
        label text not null, ruleset text not null, ruleset_version text not null,
        dice text not null, version integer not null, head blob not null,
        commands integer not null, voided integer not null, sealed integer not null,
        first_recorded text not null, last_recorded text not null,
        verified integer not null default 0)""",
    """create table if not exists bxb_voids (
        battle text not null, command integer not null, first_at integer not null,
        last_at integer not null, voided_at integer not null, voided_by text not null,
        reason text not null, primary key (battle, voided_at)) without rowid""",
    """create table if not exists bxb_snapshots (
        battle text not null, position integer not null, hash blob not null,
        voids integer not null, fingerprint text not null, state blob not null,
        primary key (battle, position)) without rowid""",
    """create table if not exists bxb_read_models (
        name text primary key, value text not null) without rowid""",
)


class SQLiteRecords(Records):
    """SQLite, through eventsourcing's connection pool (one writer at a time in a process; the
    file's own lock between processes, WAL journal)."""

    def __init__(self, datastore: Any, table: str) -> None:
        self.datastore = datastore
        self.table = table
        # Writes go through one connection of the store's own, one at a time (a process has one
        # writer at a time on SQLite anyway): appending is the hot path, and the pool's
        # bookkeeping costs as much as the statements.
        self._writer: sqlite3.Connection | None = None
        self._write_lock = threading.Lock()
        # Reads go through one connection per thread, kept: the pool's bookkeeping took two
        # thirds of a one-record read (10 us against 3).
        self._readers = threading.local()
        with self._writing() as cur:
            for statement in _SQLITE_SCHEMA:
                cur.execute(statement)

    def _connect(self) -> sqlite3.Connection:
        pool = self.datastore.pool
        return sqlite3.connect(
            pool.db_name,
            uri=True,
            check_same_thread=False,
            isolation_level=None,
            timeout=pool.lock_timeout or 5,
        )

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Cursor]:
        """A cursor of this thread's reading connection (autocommit: each statement reads the
        database as it stands when it starts)."""
        try:
            reader: sqlite3.Connection | None = getattr(self._readers, "connection", None)
            if reader is None:
                reader = self._readers.connection = self._connect()
            cur = reader.cursor()
            try:
                yield cur
            finally:
                cur.close()
        except sqlite3.Error as e:
            raise _persistence_error(e) from e

    @contextmanager
    def _writing(self, *, durable: bool = True) -> Iterator[sqlite3.Cursor]:
        """One write transaction, taken at once (BEGIN IMMEDIATE: no reader-turned-writer that
        another writer could overtake). Not ``durable``: a read model's write that a read makes
        (a snapshot, verify's verdict, a repaired row), derived and made again if lost, commits
        without waiting for the disk (synchronous=NORMAL, which in WAL mode never corrupts)."""
        with self._write_lock:
            try:
                if self._writer is None:
                    self._writer = self._connect()
                    self._writer.execute("pragma journal_mode=WAL")
                cur = self._writer.cursor()
                if not durable:
                    cur.execute("pragma synchronous=NORMAL")
                cur.execute("begin immediate")
                try:
                    yield cur
                except BaseException:
                    cur.execute("rollback")
                    raise
                else:
                    cur.execute("commit")
                finally:
                    if not durable:
                        cur.execute("pragma synchronous=FULL")
                    cur.close()
            except sqlite3.Error as e:
                raise _persistence_error(e) from e

    def page(self, battle: UUID, gt: int, lte: int | None, limit: int) -> list[Record]:
        sql = f"select originator_version, topic, state from {self.table} where originator_id=? and originator_version>?"
        params: list[Any] = [battle.hex, gt]
        if lte is not None:
            sql += " and originator_version<=?"
            params.append(lte)
        sql += " order by originator_version limit ?"
        params.append(limit)
        with self._reading() as cur:
            return cur.execute(sql, params).fetchall()

    def states(self, battle: UUID, gt: int, lte: int, limit: int) -> list[tuple[int, bytes]]:
        with self._reading() as cur:
            return cur.execute(
                f"select originator_version, state from {self.table} where originator_id=? "
                "and originator_version>? and originator_version<=? "
                "order by originator_version limit ?",
                (battle.hex, gt, lte, limit),
            ).fetchall()

    def head(self, battle: UUID) -> Record | None:
        with self._reading() as cur:
            found: Record | None = cur.execute(
                f"select originator_version, topic, state from {self.table} "
                "where originator_id=? order by originator_version desc limit 1",
                (battle.hex,),
            ).fetchone()
            return found

    def topics(self, battle: UUID, gt: int, lt: int) -> list[tuple[int, str]]:
        with self._reading() as cur:
            return cur.execute(
                f"select originator_version, topic from {self.table} where originator_id=? "
                "and originator_version>? and originator_version<? order by originator_version",
                (battle.hex, gt, lt),
            ).fetchall()

    def starts(self) -> list[UUID]:
        with self._reading() as cur:
            rows = cur.execute(
                f"select originator_id from {self.table} where originator_version=1 "
                "and topic like '%/BattleStarted' order by rowid"
            ).fetchall()
        return [UUID(r[0]) for r in rows]

    def write(self, w: Write) -> bool:
        with self._writing() as cur:
            if w.indexed and not _sqlite_guard(cur, w):
                return False
            cur.executemany(
                f"insert into {self.table} (originator_id, originator_version, topic, state) "
                "values (?, ?, ?, ?)",
                [
                    (hexed if b == w.battle else b.hex, p, t, s)
                    for hexed in (w.battle.hex,)
                    for b, p, t, s in w.records
                ],
            )
            if w.voids:
                cur.executemany(
                    "insert into bxb_voids (battle, command, first_at, last_at, voided_at, voided_by, reason) "
                    "values (?, ?, ?, ?, ?, ?, ?)",
                    [(w.battle.hex, *_void_values(v)) for v in w.voids],
                )
            if w.snapshots:
                _sqlite_snapshots(cur, w.battle, w.snapshots)
        return True

    def rows(self) -> list[tuple[BattleRow, int | None]]:
        with self._reading() as cur:
            found = cur.execute(
                f"select battle, {INDEX_COLUMNS}, (select max(originator_version) from "
                f"{self.table} e where e.originator_id = b.battle) from bxb_battles b order by seq"
            ).fetchall()
        return [(_row(UUID(r[0]), r[1:13]), r[13]) for r in found]

    def row(self, battle: UUID) -> BattleRow | None:
        with self._reading() as cur:
            r = cur.execute(
                f"select {INDEX_COLUMNS} from bxb_battles where battle=?", (battle.hex,)
            ).fetchone()
        return None if r is None else _row(battle, r)

    def row_and_version(self, battle: UUID) -> tuple[BattleRow | None, int]:
        with self._reading() as cur:
            r = cur.execute(
                f"select m.v, {', '.join('b.' + c for c in INDEX_COLUMNS.split(', '))} from "
                f"(select max(originator_version) as v from {self.table} where originator_id=?) m "
                "left join bxb_battles b on b.battle=?",
                (battle.hex, battle.hex),
            ).fetchone()
        return (None if r[1] is None else _row(battle, r[1:])), r[0] or 0

    def voids(self, battle: UUID) -> list[VoidedCommand]:
        with self._reading() as cur:
            found = cur.execute(
                "select command, first_at, last_at, voided_at, voided_by, reason from bxb_voids "
                "where battle=? order by voided_at",
                (battle.hex,),
            ).fetchall()
        return [_void(r) for r in found]

    def snapshots(self, battle: UUID, upto: int, fingerprint: str) -> list[Snapshot]:
        with self._reading() as cur:
            found = cur.execute(
                "select position, hash, voids, fingerprint, state from bxb_snapshots "
                "where battle=? and position<=? and fingerprint=? order by position desc limit 3",
                (battle.hex, upto, fingerprint),
            ).fetchall()
        return [_snapshot(r) for r in found]

    def put_snapshots(self, battle: UUID, snapshots: Sequence[Snapshot]) -> None:
        with self._writing(durable=False) as cur:
            _sqlite_snapshots(cur, battle, snapshots)

    def replace(self, row: BattleRow, voids: Sequence[VoidedCommand]) -> None:
        with self._writing(durable=False) as cur:
            cur.execute(
                f"insert into bxb_battles (battle, {INDEX_COLUMNS}) values "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (battle) do update set "
                + ", ".join(f"{c} = excluded.{c}" for c in INDEX_COLUMNS.split(", ")),
                (row.battle.hex, *_row_values(row)),
            )
            cur.execute("delete from bxb_voids where battle=?", (row.battle.hex,))
            cur.execute("delete from bxb_snapshots where battle=?", (row.battle.hex,))
            cur.executemany(
                "insert into bxb_voids (battle, command, first_at, last_at, voided_at, voided_by, reason) "
                "values (?, ?, ?, ?, ?, ?, ?)",
                [(row.battle.hex, *_void_values(v)) for v in voids],
            )

    def drop(self, battle: UUID) -> None:
        with self._writing(durable=False) as cur:
            for table in ("bxb_battles", "bxb_voids", "bxb_snapshots"):
                cur.execute(f"delete from {table} where battle=?", (battle.hex,))

    def set_verified(self, battle: UUID, version: int, verdict: int) -> None:
        with self._writing(durable=False) as cur:
            cur.execute(
                "update bxb_battles set verified=? where battle=? and version=?",
                (verdict, battle.hex, version),
            )

    def built(self) -> bool:
        with self._reading() as cur:
            r = cur.execute("select value from bxb_read_models where name='index'").fetchone()
        return r is not None and r[0] == "built"

    def mark_built(self, built: bool) -> None:
        with self._writing() as cur:
            cur.execute(
                "insert into bxb_read_models (name, value) values ('index', ?) "
                "on conflict (name) do update set value = excluded.value",
                ("built" if built else "stale",),
            )

    def clear(self) -> None:
        with self._writing() as cur:
            for table in ("bxb_battles", "bxb_voids", "bxb_snapshots"):
                cur.execute(f"delete from {table}")


def _sqlite_guard(cur: sqlite3.Cursor, w: Write) -> bool:
    if w.start is not None:
        cur.execute(
            f"insert into bxb_battles (battle, {INDEX_COLUMNS}) values "
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (battle) do nothing",
            (w.battle.hex, *_row_values(grown(w.start, w.growth))),
        )
        return cur.rowcount == 1
    cur.execute(
        "update bxb_battles set version=?, head=?, commands=commands+?, voided=voided+?, "
        "sealed=(sealed or ?), last_recorded=? "
        "where battle=? and version=? and head=? and not sealed",
        (*_growth_values(w.growth), w.battle.hex, w.expected, w.prev),
    )
    return cur.rowcount == 1


def _sqlite_snapshots(cur: sqlite3.Cursor, battle: UUID, snapshots: Sequence[Snapshot]) -> None:
    latest = _latest_off_interval(snapshots)
    if latest:  # one snapshot off the interval per battle: the latest
        cur.execute(
            f"delete from bxb_snapshots where battle=? and position % {EVERY} != 0 and position<?",
            (battle.hex, latest),
        )
    cur.executemany(
        "insert into bxb_snapshots (battle, position, hash, voids, fingerprint, state) "
        "values (?, ?, ?, ?, ?, ?) on conflict (battle, position) do update set "
        "hash=excluded.hash, voids=excluded.voids, fingerprint=excluded.fingerprint, "
        "state=excluded.state",
        [(battle.hex, s.position, s.hash, s.voids, s.fingerprint, s.state) for s in snapshots],
    )


def _persistence_error(e: sqlite3.Error) -> PersistenceError:
    if isinstance(e, sqlite3.IntegrityError):
        return IntegrityError(e)
    if isinstance(e, sqlite3.OperationalError):
        return OperationalError(e)
    return PersistenceError(e)


# --- PostgreSQL -------------------------------------------------------------------------------

_PG_SCHEMA = (
    """create table if not exists {schema}.bxb_battles (
        seq bigserial, battle uuid primary key,
        label text not null, ruleset text not null, ruleset_version text not null,
        dice text not null, version bigint not null, head bytea not null,
        commands bigint not null, voided bigint not null, sealed boolean not null,
        first_recorded text not null, last_recorded text not null,
        verified bigint not null default 0)""",
    "create index if not exists bxb_battles_seq on {schema}.bxb_battles (seq)",
    """create table if not exists {schema}.bxb_voids (
        battle uuid not null, command bigint not null, first_at bigint not null,
        last_at bigint not null, voided_at bigint not null, voided_by text not null,
        reason text not null, primary key (battle, voided_at))""",
    """create table if not exists {schema}.bxb_snapshots (
        battle uuid not null, position bigint not null, hash bytea not null,
        voids bigint not null, fingerprint text not null, state bytea not null,
        primary key (battle, position))""",
    """create table if not exists {schema}.bxb_read_models (
        name text primary key, value text not null)""",
)


class PostgresRecords(Records):
    """PostgreSQL, through eventsourcing's psycopg pool (autocommit connections)."""

    def __init__(self, datastore: Any, table: str) -> None:
        from psycopg import sql

        self.datastore = datastore
        schema = sql.Identifier(datastore.schema)
        self.events = sql.SQL("{}.{}").format(schema, sql.Identifier(table))
        self.s = schema
        self._sql = sql
        self._lock = threading.Lock()
        with self._cursor(transaction=True) as cur:
            # Two servers starting at once on a new database both create: one at a time (the
            # lock is the transaction's: on an autocommit connection it would end at once).
            cur.execute("select pg_advisory_xact_lock(7242001)")
            for statement in _PG_SCHEMA:
                cur.execute(sql.SQL(statement).format(schema=schema))
        self._append = self._q(
            "with moved as (update {s}.bxb_battles set version=%s, head=%s, "
            "commands=commands+%s, voided=voided+%s, sealed=(sealed or %s), last_recorded=%s "
            "where battle=%s and version=%s and head=%s and not sealed returning 1) "
            "insert into {events} (originator_id, originator_version, topic, state) "
            "select o, p, t, s from unnest(%b::uuid[], %b::bigint[], %b::text[], %b::bytea[]) "
            "as r(o, p, t, s) where exists (select 1 from moved)"
        )
        self._create = self._q(
            "with made as (insert into {s}.bxb_battles (battle, " + INDEX_COLUMNS + ") values "
            "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) on conflict (battle) do nothing "
            "returning 1) "
            "insert into {events} (originator_id, originator_version, topic, state) "
            "select o, p, t, s from unnest(%b::uuid[], %b::bigint[], %b::text[], %b::bytea[]) "
            "as r(o, p, t, s) where exists (select 1 from made)"
        )
        self._plain = self._q(
            "insert into {events} (originator_id, originator_version, topic, state) "
            "select o, p, t, s from unnest(%b::uuid[], %b::bigint[], %b::text[], %b::bytea[]) "
            "as r(o, p, t, s)"
        )

    def _q(self, text: str) -> Any:
        return self._sql.SQL(text).format(s=self.s, events=self.events)

    @contextmanager
    def _cursor(self, *, transaction: bool = False, durable: bool = True) -> Iterator[Any]:
        """A cursor, in a transaction of its own if asked. Not ``durable``: a read model's write
        that a read makes commits without waiting for the server's disk."""
        from psycopg.rows import tuple_row

        with self.datastore.get_connection() as conn:
            if transaction or not durable:
                with conn.transaction(), conn.cursor(row_factory=tuple_row) as cur:
                    if not durable:
                        cur.execute("set local synchronous_commit = off")
                    yield cur
            else:
                with conn.cursor(row_factory=tuple_row) as cur:
                    yield cur

    def page(self, battle: UUID, gt: int, lte: int | None, limit: int) -> list[Record]:
        with self._cursor() as cur:
            cur.execute(
                self._q(
                    "select originator_version, topic, state from {events} where originator_id=%s "
                    "and originator_version>%s and originator_version<=%s "
                    "order by originator_version limit %s"
                ),
                (battle, gt, lte if lte is not None else 2**62, limit),
                prepare=True,
            )
            return [(p, t, bytes(s)) for p, t, s in cur.fetchall()]

    def states(self, battle: UUID, gt: int, lte: int, limit: int) -> list[tuple[int, bytes]]:
        with self._cursor() as cur:
            cur.execute(
                self._q(
                    "select originator_version, state from {events} where originator_id=%s "
                    "and originator_version>%s and originator_version<=%s "
                    "order by originator_version limit %s"
                ),
                (battle, gt, lte, limit),
                prepare=True,
            )
            return [(p, bytes(s)) for p, s in cur.fetchall()]

    def head(self, battle: UUID) -> Record | None:
        with self._cursor() as cur:
            cur.execute(
                self._q(
                    "select originator_version, topic, state from {events} where originator_id=%s "
                    "order by originator_version desc limit 1"
                ),
                (battle,),
                prepare=True,
            )
            r = cur.fetchone()
        return None if r is None else (r[0], r[1], bytes(r[2]))

    def topics(self, battle: UUID, gt: int, lt: int) -> list[tuple[int, str]]:
        with self._cursor() as cur:
            cur.execute(
                self._q(
                    "select originator_version, topic from {events} where originator_id=%s "
                    "and originator_version>%s and originator_version<%s order by originator_version"
                ),
                (battle, gt, lt),
            )
            return list(cur.fetchall())

    def starts(self) -> list[UUID]:
        with self._cursor() as cur:
            cur.execute(
                self._q(
                    "select originator_id from {events} where originator_version=1 "
                    "and topic like '%%/BattleStarted' order by notification_id"
                )
            )
            return [r[0] for r in cur.fetchall()]

    def _arrays(self, records: Sequence[Stored]) -> tuple[list[Any], ...]:
        return (
            [r[0] for r in records],
            [r[1] for r in records],
            [r[2] for r in records],
            [r[3] for r in records],
        )

    def write(self, w: Write) -> bool:
        arrays = self._arrays(w.records)
        extra = bool(w.voids or w.snapshots)
        with self._cursor(transaction=extra) as cur:
            if not w.indexed:
                cur.execute(self._plain, arrays, prepare=True)
                done = True
            elif w.start is not None:
                started = grown(w.start, w.growth)
                cur.execute(self._create, (w.battle, *_row_values(started), *arrays), prepare=True)
                done = cur.rowcount == len(w.records)
            else:
                cur.execute(
                    self._append,
                    (*_growth_values(w.growth), w.battle, w.expected, w.prev, *arrays),
                    prepare=True,
                )
                done = cur.rowcount == len(w.records)
            if done and w.voids:
                cur.executemany(
                    self._q(
                        "insert into {s}.bxb_voids (battle, command, first_at, last_at, voided_at, "
                        "voided_by, reason) values (%s, %s, %s, %s, %s, %s, %s)"
                    ),
                    [(w.battle, *_void_values(v)) for v in w.voids],
                )
            if done and w.snapshots:
                self._put_snapshots(cur, w.battle, w.snapshots)
        return done

    def _put_snapshots(self, cur: Any, battle: UUID, snapshots: Sequence[Snapshot]) -> None:
        latest = _latest_off_interval(snapshots)
        if latest:  # one snapshot off the interval per battle: the latest
            cur.execute(
                self._q(
                    "delete from {s}.bxb_snapshots where battle=%s and position %% "
                    + str(EVERY)
                    + " != 0 and position<%s"
                ),
                (battle, latest),
            )
        cur.executemany(
            self._q(
                "insert into {s}.bxb_snapshots (battle, position, hash, voids, fingerprint, state) "
                "values (%s, %s, %s, %s, %s, %s) on conflict (battle, position) do update set "
                "hash=excluded.hash, voids=excluded.voids, fingerprint=excluded.fingerprint, "
                "state=excluded.state"
            ),
            [(battle, s.position, s.hash, s.voids, s.fingerprint, s.state) for s in snapshots],
        )

    def rows(self) -> list[tuple[BattleRow, int | None]]:
        with self._cursor() as cur:
            cur.execute(
                self._q(
                    "select battle, " + INDEX_COLUMNS + ", (select max(originator_version) from "
                    "{events} e where e.originator_id = b.battle) from {s}.bxb_battles b order by seq"
                )
            )
            found = cur.fetchall()
        return [(_row(r[0], r[1:13]), r[13]) for r in found]

    def row(self, battle: UUID) -> BattleRow | None:
        with self._cursor() as cur:
            cur.execute(
                self._q("select " + INDEX_COLUMNS + " from {s}.bxb_battles where battle=%s"),
                (battle,),
                prepare=True,
            )
            r = cur.fetchone()
        return None if r is None else _row(battle, r)

    def row_and_version(self, battle: UUID) -> tuple[BattleRow | None, int]:
        with self._cursor() as cur:
            cur.execute(
                self._q(
                    "select m.v, "
                    + ", ".join("b." + c for c in INDEX_COLUMNS.split(", "))
                    + " from (select max(originator_version) as v from {events} "
                    "where originator_id=%s) m left join {s}.bxb_battles b on b.battle=%s"
                ),
                (battle, battle),
                prepare=True,
            )
            r = cur.fetchone()
        assert r is not None
        return (None if r[1] is None else _row(battle, r[1:])), r[0] or 0

    def voids(self, battle: UUID) -> list[VoidedCommand]:
        with self._cursor() as cur:
            cur.execute(
                self._q(
                    "select command, first_at, last_at, voided_at, voided_by, reason from {s}.bxb_voids "
                    "where battle=%s order by voided_at"
                ),
                (battle,),
            )
            return [_void(r) for r in cur.fetchall()]

    def snapshots(self, battle: UUID, upto: int, fingerprint: str) -> list[Snapshot]:
        with self._cursor() as cur:
            cur.execute(
                self._q(
                    "select position, hash, voids, fingerprint, state from {s}.bxb_snapshots "
                    "where battle=%s and position<=%s and fingerprint=%s "
                    "order by position desc limit 3"
                ),
                (battle, upto, fingerprint),
                prepare=True,
            )
            return [_snapshot(r) for r in cur.fetchall()]

    def put_snapshots(self, battle: UUID, snapshots: Sequence[Snapshot]) -> None:
        with self._cursor(durable=False) as cur:
            self._put_snapshots(cur, battle, snapshots)

    def replace(self, row: BattleRow, voids: Sequence[VoidedCommand]) -> None:
        with self._cursor(durable=False) as cur:
            cur.execute(
                self._q(
                    "insert into {s}.bxb_battles (battle, " + INDEX_COLUMNS + ") values "
                    "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                    "on conflict (battle) do update set "
                    + ", ".join(f"{c} = excluded.{c}" for c in INDEX_COLUMNS.split(", "))
                ),
                (row.battle, *_row_values(row)),
            )
            for table in ("bxb_voids", "bxb_snapshots"):
                cur.execute(self._q("delete from {s}." + table + " where battle=%s"), (row.battle,))
            cur.executemany(
                self._q(
                    "insert into {s}.bxb_voids (battle, command, first_at, last_at, voided_at, "
                    "voided_by, reason) values (%s, %s, %s, %s, %s, %s, %s)"
                ),
                [(row.battle, *_void_values(v)) for v in voids],
            )

    def drop(self, battle: UUID) -> None:
        with self._cursor(durable=False) as cur:
            for table in ("bxb_battles", "bxb_voids", "bxb_snapshots"):
                cur.execute(self._q("delete from {s}." + table + " where battle=%s"), (battle,))

    def set_verified(self, battle: UUID, version: int, verdict: int) -> None:
        with self._cursor(durable=False) as cur:
            cur.execute(
                self._q("update {s}.bxb_battles set verified=%s where battle=%s and version=%s"),
                (verdict, battle, version),
            )

    def built(self) -> bool:
        with self._cursor() as cur:
            cur.execute(self._q("select value from {s}.bxb_read_models where name='index'"))
            r = cur.fetchone()
        return r is not None and r[0] == "built"

    def mark_built(self, built: bool) -> None:
        with self._cursor() as cur:
            cur.execute(
                self._q(
                    "insert into {s}.bxb_read_models (name, value) values ('index', %s) "
                    "on conflict (name) do update set value = excluded.value"
                ),
                ("built" if built else "stale",),
            )

    def clear(self) -> None:
        with self._cursor(transaction=True) as cur:
            for table in ("bxb_battles", "bxb_voids", "bxb_snapshots"):
                cur.execute(self._q("delete from {s}." + table))


# --- in memory ---------------------------------------------------------------------------------


class MemoryRecords(Records):
    """eventsourcing's in-memory recorder (tests, ``:memory:``), with the read models in dicts
    under the recorder's own lock."""

    def __init__(self, recorder: Any) -> None:
        self.recorder = recorder
        self._lock = recorder._database_lock
        self._rows: dict[UUID, BattleRow] = {}
        self._order: list[UUID] = []
        self._voids: dict[UUID, list[VoidedCommand]] = {}
        self._snapshots: dict[UUID, dict[int, Snapshot]] = {}
        self._built = False

    def page(self, battle: UUID, gt: int, lte: int | None, limit: int) -> list[Record]:
        found = self.recorder.select_events(battle, gt=gt, lte=lte, limit=limit)
        return [(s.originator_version, s.topic, s.state) for s in found]

    def head(self, battle: UUID) -> Record | None:
        found = self.recorder.select_events(battle, desc=True, limit=1)
        return None if not found else (found[0].originator_version, found[0].topic, found[0].state)

    def topics(self, battle: UUID, gt: int, lt: int) -> list[tuple[int, str]]:
        found = self.recorder.select_events(battle, gt=gt, lte=lt - 1)
        return [(s.originator_version, s.topic) for s in found]

    def starts(self) -> list[UUID]:
        with self._lock:
            return [
                UUID(str(s.originator_id))
                for s in self.recorder._stored_events
                if s.originator_version == 1 and s.topic.endswith("/BattleStarted")
            ]

    def write(self, w: Write) -> bool:
        from eventsourcing.persistence import StoredEvent

        with self._lock:
            row = self._rows.get(w.battle)
            if w.indexed:
                if w.start is not None:
                    if row is not None:
                        return False
                    row = w.start
                elif row is None or (row.version, row.head, row.sealed) != (
                    w.expected,
                    w.prev,
                    False,
                ):
                    return False
            self.recorder.insert_events(
                [StoredEvent(b, p, t, s) for b, p, t, s in w.records]
            )  # IntegrityError, writing nothing, when a position is taken
            if row is not None:
                if w.battle not in self._rows:
                    self._order.append(w.battle)
                self._rows[w.battle] = grown(row, w.growth)
            self._voids.setdefault(w.battle, []).extend(w.voids)
            self._snapshots.setdefault(w.battle, {}).update({s.position: s for s in w.snapshots})
        return True

    def rows(self) -> list[tuple[BattleRow, int | None]]:
        with self._lock:
            out = []
            for battle in self._order:
                head = self.head(battle)
                out.append((self._rows[battle], None if head is None else head[0]))
            return out

    def row(self, battle: UUID) -> BattleRow | None:
        return self._rows.get(battle)

    def voids(self, battle: UUID) -> list[VoidedCommand]:
        return list(self._voids.get(battle, []))

    def snapshots(self, battle: UUID, upto: int, fingerprint: str) -> list[Snapshot]:
        with self._lock:
            found = [
                s
                for p, s in self._snapshots.get(battle, {}).items()
                if p <= upto and s.fingerprint == fingerprint
            ]
        return sorted(found, key=lambda s: -s.position)[:3]

    def put_snapshots(self, battle: UUID, snapshots: Sequence[Snapshot]) -> None:
        latest = _latest_off_interval(snapshots)
        with self._lock:
            kept = self._snapshots.setdefault(battle, {})
            for p in [p for p in kept if latest and p % EVERY and p < latest]:
                del kept[p]
            kept.update({s.position: s for s in snapshots})

    def replace(self, row: BattleRow, voids: Sequence[VoidedCommand]) -> None:
        with self._lock:
            if row.battle not in self._rows:
                self._order.append(row.battle)
            self._rows[row.battle] = row
            self._voids[row.battle] = list(voids)
            self._snapshots.pop(row.battle, None)

    def drop(self, battle: UUID) -> None:
        with self._lock:
            if battle in self._rows:
                self._order.remove(battle)
                del self._rows[battle]
            self._voids.pop(battle, None)
            self._snapshots.pop(battle, None)

    def set_verified(self, battle: UUID, version: int, verdict: int) -> None:
        import msgspec

        with self._lock:
            row = self._rows.get(battle)
            if row is not None and row.version == version:
                self._rows[battle] = msgspec.structs.replace(row, verified=verdict)

    def built(self) -> bool:
        return self._built

    def mark_built(self, built: bool) -> None:
        self._built = built

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()
            self._order.clear()
            self._voids.clear()
            self._snapshots.clear()


def records_for(recorder: Any) -> Records:
    """The records of an eventsourcing application recorder."""
    module = type(recorder).__module__
    if module.startswith("eventsourcing.sqlite"):
        return SQLiteRecords(recorder.datastore, recorder.events_table_name)
    if module.startswith("eventsourcing.postgres"):
        return PostgresRecords(recorder.datastore, recorder.events_table_name)
    return MemoryRecords(recorder)


__all__ = [
    "MemoryRecords",
    "PostgresRecords",
    "Record",
    "Records",
    "SQLiteRecords",
    "Stored",
    "Write",
    "records_for",
]
