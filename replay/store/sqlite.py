"""The store's records on SQLite: the hand-written SQL of the hot paths (``records.Records``) on
eventsourcing's events table and the read models' tables, through connections of its own to the
file eventsourcing configured (one writer at a time in a process; the file's own lock between
processes, WAL journal)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from uuid import UUID

from blowbyblow.projections.battle import VoidedCommand
from blowbyblow.projections.index import BattleRow, grown
from blowbyblow.projections.snapshots import EVERY, Snapshot
from blowbyblow.replay.store.persistence import BUSY_PATIENCE
from blowbyblow.replay.store.records import (
    INDEX_COLUMNS,
    NAMED,
    Record,
    Records,
    Write,
    growth_values,
    latest_off_interval,
    row_of,
    row_values,
    snapshot_of,
    void_of,
    void_values,
)
from blowbyblow.replay.store.schema import mark

if TYPE_CHECKING:
    from eventsourcing.persistence import PersistenceError

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
    # a battle named by its label (by id or id prefix: the unique index on battle); made on
    # opening a store written before it too, which changes nothing the hash chain covers
    "create index if not exists bxb_battles_label on bxb_battles (label)",
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


_SCHEMA_NAMES = ("bxb_battles", "bxb_voids", "bxb_snapshots", "bxb_read_models")


class SQLiteRecords(Records):
    """SQLite, through eventsourcing's connection pool (one writer at a time in a process; the
    file's own lock between processes, WAL journal)."""

    def __init__(self, db_name: str, table: str, lock_timeout: int | None) -> None:
        """The records of the SQLite file ``db_name`` (as eventsourcing's pool names it), its
        events in ``table``; a writer waits ``lock_timeout`` seconds for another's lock."""
        self.db_name = db_name
        self.table = table
        self.lock_timeout = lock_timeout or 5
        # Writes go through one connection of the store's own, one at a time (a process has one
        # writer at a time on SQLite anyway): appending is the hot path, and the pool's
        # bookkeeping costs as much as the statements.
        self._writer: sqlite3.Connection | None = None
        self._write_lock = threading.Lock()
        # Reads go through one connection per thread, kept: the pool's bookkeeping took two
        # thirds of a one-record read (10 us against 3).
        self._readers = threading.local()

    def make_schema(self) -> None:
        """The read models' tables and indexes, made where missing (a store written by an
        earlier release gets the indexes added since; nothing the hash chain covers changes)."""
        with self._writing() as cur:
            # a store made now (no read model, no event yet), not one of a release before them
            made = cur.execute("select 1 from sqlite_master where name = 'bxb_battles'")
            new = made.fetchone() is None
            new = new and cur.execute(f"select 1 from {self.table} limit 1").fetchone() is None
            for statement in _SQLITE_SCHEMA:
                cur.execute(statement)
            if new:  # marked (one made before the mark is left unmarked)
                mark(cur)

    def has_schema(self) -> bool:
        """Does the file hold every table and index of ``make_schema``, and the events table?
        (Read only: no write lock taken.)"""
        with self._reading() as cur:
            found = {r[0] for r in cur.execute("select name from sqlite_master")}
        return {self.table, "bxb_battles_label", *_SCHEMA_NAMES} <= found

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(
            self.db_name,
            uri=True,
            check_same_thread=False,
            isolation_level=None,
            timeout=self.lock_timeout,
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
                    self._patiently(self._writer.cursor(), "pragma journal_mode=WAL")
                cur = self._writer.cursor()
                if not durable:
                    cur.execute("pragma synchronous=NORMAL")
                self._patiently(cur, "begin immediate")
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

    def _patiently(self, cur: sqlite3.Cursor, statement: str) -> None:
        """``statement``, which takes the write lock: waiting the busy timeout for it as SQLite
        does, and again as long as other writers commit while we wait (a slow, busy machine
        whose writers all move, each turn longer than usual), up to ``BUSY_PATIENCE`` seconds
        in all; a lock held through a whole timeout with no commit (a stuck program) gives up
        after one timeout, as before (StoreBusy)."""
        timeout = self.lock_timeout
        give_up = time.monotonic() + max(timeout, BUSY_PATIENCE)
        seen = cur.execute("pragma data_version").fetchone()[0]
        while True:
            try:
                cur.execute(statement)
                return
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) or time.monotonic() >= give_up:
                    raise
                now = cur.execute("pragma data_version").fetchone()[0]
                if now == seen:  # nobody committed while we waited: stuck, not slow
                    raise
                seen = now

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

    def ruled(self, battle: UUID) -> list[int]:
        with self._reading() as cur:
            rows = cur.execute(
                f"select originator_version from {self.table} where originator_id=? "
                "and topic like '%/RulingGiven' order by originator_version",
                (battle.hex,),
            ).fetchall()
        return [r[0] for r in rows]

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
                    [(w.battle.hex, *void_values(v)) for v in w.voids],
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
        return [(row_of(UUID(r[0]), r[1:13]), r[13]) for r in found]

    def row(self, battle: UUID) -> BattleRow | None:
        with self._reading() as cur:
            r = cur.execute(
                f"select {INDEX_COLUMNS} from bxb_battles where battle=?", (battle.hex,)
            ).fetchone()
        return None if r is None else row_of(battle, r)

    def lookup(
        self, *, ids: tuple[str, str] | None = None, label: str | None = None
    ) -> tuple[list[BattleRow], int]:
        where, params = (
            ("battle between ? and ?", ids) if ids is not None else ("label=?", (label,))
        )
        with self._reading() as cur:
            found = cur.execute(
                f"select battle, {INDEX_COLUMNS}, count(*) over () from bxb_battles b "
                f"where {where} and exists (select 1 from {self.table} e "
                f"where e.originator_id = b.battle) order by seq limit {NAMED}",
                params,
            ).fetchall()
        return [row_of(UUID(r[0]), r[1:13]) for r in found], found[0][13] if found else 0

    def newest(self) -> BattleRow | None:
        with self._reading() as cur:
            r = cur.execute(
                f"select battle, {INDEX_COLUMNS} from bxb_battles b where exists (select 1 "
                f"from {self.table} e where e.originator_id = b.battle) order by seq desc limit 1"
            ).fetchone()
        return None if r is None else row_of(UUID(r[0]), r[1:])

    def row_and_version(self, battle: UUID) -> tuple[BattleRow | None, int]:
        with self._reading() as cur:
            r = cur.execute(
                f"select m.v, {', '.join('b.' + c for c in INDEX_COLUMNS.split(', '))} from "
                f"(select max(originator_version) as v from {self.table} where originator_id=?) m "
                "left join bxb_battles b on b.battle=?",
                (battle.hex, battle.hex),
            ).fetchone()
        return (None if r[1] is None else row_of(battle, r[1:])), r[0] or 0

    def voids(self, battle: UUID) -> list[VoidedCommand]:
        with self._reading() as cur:
            found = cur.execute(
                "select command, first_at, last_at, voided_at, voided_by, reason from bxb_voids "
                "where battle=? order by voided_at",
                (battle.hex,),
            ).fetchall()
        return [void_of(r) for r in found]

    def snapshots(self, battle: UUID, upto: int, fingerprint: str) -> list[Snapshot]:
        with self._reading() as cur:
            found = cur.execute(
                "select position, hash, voids, fingerprint, state from bxb_snapshots "
                "where battle=? and position<=? and fingerprint=? order by position desc limit 3",
                (battle.hex, upto, fingerprint),
            ).fetchall()
        return [snapshot_of(r) for r in found]

    def put_snapshots(self, battle: UUID, snapshots: Sequence[Snapshot]) -> None:
        with self._writing(durable=False) as cur:
            _sqlite_snapshots(cur, battle, snapshots)

    def replace(self, row: BattleRow, voids: Sequence[VoidedCommand]) -> None:
        with self._writing(durable=False) as cur:
            cur.execute(
                f"insert into bxb_battles (battle, {INDEX_COLUMNS}) values "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (battle) do update set "
                + ", ".join(f"{c} = excluded.{c}" for c in INDEX_COLUMNS.split(", ")),
                (row.battle.hex, *row_values(row)),
            )
            cur.execute("delete from bxb_voids where battle=?", (row.battle.hex,))
            cur.execute("delete from bxb_snapshots where battle=?", (row.battle.hex,))
            cur.executemany(
                "insert into bxb_voids (battle, command, first_at, last_at, voided_at, voided_by, reason) "
                "values (?, ?, ?, ?, ?, ?, ?)",
                [(row.battle.hex, *void_values(v)) for v in voids],
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
            (w.battle.hex, *row_values(grown(w.start, w.growth))),
        )
        return cur.rowcount == 1
    cur.execute(
        "update bxb_battles set version=?, head=?, commands=commands+?, voided=voided+?, "
        "sealed=(sealed or ?), last_recorded=? "
        "where battle=? and version=? and head=? and not sealed",
        (*growth_values(w.growth), w.battle.hex, w.expected, w.prev),
    )
    return cur.rowcount == 1


def _sqlite_snapshots(cur: sqlite3.Cursor, battle: UUID, snapshots: Sequence[Snapshot]) -> None:
    latest = latest_off_interval(snapshots)
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
    # eventsourcing's errors, as its own recorder raises them (imported on an error's path only:
    # a store is read without eventsourcing, replay/store/reading.py)
    from eventsourcing.persistence import IntegrityError, OperationalError, PersistenceError

    if isinstance(e, sqlite3.IntegrityError):
        return IntegrityError(e)
    if isinstance(e, sqlite3.OperationalError):
        return OperationalError(e)
    return PersistenceError(e)


__all__ = ["SQLiteRecords"]
