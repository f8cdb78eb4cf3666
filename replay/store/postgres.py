"""The store's records on PostgreSQL: the hand-written SQL of the hot paths (``records.Records``)
through eventsourcing's psycopg pool; an append is one statement, one round trip, guarded by the
battle's index row, with no table lock and no NOTIFY."""

from __future__ import annotations

import struct
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from uuid import UUID

from blowbyblow.projections.battle import VoidedCommand
from blowbyblow.projections.index import BattleRow, grown
from blowbyblow.projections.snapshots import EVERY, Snapshot
from blowbyblow.replay.store.persistence import StoreError
from blowbyblow.replay.store.records import (
    INDEX_COLUMNS,
    NAMED,
    Record,
    Records,
    Stored,
    Write,
    growth_values,
    latest_off_interval,
    row_of,
    row_values,
    snapshot_of,
    void_of,
    void_values,
)
from blowbyblow.replay.store.schema import check_postgres_store, mark_postgres

_PG_SCHEMA = (
    """create table if not exists {schema}.bxb_battles (
        seq bigserial, battle uuid primary key,
        label text not null, ruleset text not null, ruleset_version text not null,
        dice text not null, version bigint not null, head bytea not null,
        commands bigint not null, voided bigint not null, sealed boolean not null,
        first_recorded text not null, last_recorded text not null,
        verified bigint not null default 0)""",
    "create index if not exists bxb_battles_seq on {schema}.bxb_battles (seq)",
    # a battle named by its label (by id or id prefix: the primary key); made on opening a store
    # written before it too, which changes nothing the hash chain covers
    "create index if not exists bxb_battles_label on {schema}.bxb_battles (label)",
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


_ARRAYS: list[type[list[Any]]] = []
_KEPT = "_bxb_cursor"  # the attribute a pooled connection keeps the store's cursor in
# PostgreSQL's binary array (array_send): dimensions, has-null flag, element type; then each
# dimension's length and lower bound; then each element's length and bytes
_FLAT_HEAD = struct.Struct("!IIIII").pack  # one dimension, from 1
_ELEMENT_LENGTH = struct.Struct("!i").pack


def _dump_flat(self: Any, obj: list[Any]) -> Any:
    """A flat list without nulls (every array an append sends) as psycopg's ``ListBinaryDumper``
    dumps it, byte for byte, in one pass: psycopg's own works out the list's dimensions and
    nesting element by element, in Python (a third of an append's statement; issue 25). A null,
    or an empty list, goes psycopg's own way."""
    sub = self.sub_dumper
    if not obj or sub is None:
        return super(type(self), self).dump(obj)
    dump, raw = sub.dump, self.raw_bytes
    parts = [_FLAT_HEAD(1, 0, sub.oid, len(obj), 1)]
    for item in obj:
        if item is None:
            return super(type(self), self).dump(obj)
        data = item if raw and type(item) is bytes else dump(item)  # bytea's dumper returns it
        parts += (_ELEMENT_LENGTH(len(data)), data)
    return b"".join(parts)


def typed_arrays() -> list[type[list[Any]]]:
    """Lists that psycopg sends as arrays of uuid, bigint, text and bytea, their types said once:
    for a plain list psycopg works out the elements' type at every execute (each element's type,
    the largest number to pick the smallest integer type) and makes a dumper for it, in Python
    (issue 25: an append's four arrays). The same values reach the same columns (the statements
    cast each array to its column's type as before). Registered with psycopg's default adapters,
    which a connection copies as it is made: ``BattleStore`` registers them before its pool's
    connections are made (a connection made before would send them as plain lists)."""
    if not _ARRAYS:
        from psycopg import adapters, postgres
        from psycopg.types.array import ListBinaryDumper

        made = []
        for name in ("uuid", "int8", "text", "bytea"):
            info = postgres.types[name]
            array: type[list[Any]] = type(f"_{name.title()}Array", (list,), {})
            dumper = type(
                f"_{name.title()}ArrayDumper",
                (ListBinaryDumper,),
                {
                    "oid": info.array_oid,
                    "element_oid": info.oid,
                    "dump": _dump_flat,
                    "raw_bytes": name == "bytea",
                },
            )
            adapters.register_dumper(array, dumper)
            made.append(array)
        _ARRAYS[:] = made
    return _ARRAYS


class PostgresRecords(Records):
    """PostgreSQL, through eventsourcing's psycopg pool (autocommit connections)."""

    def __init__(
        self, datastore: Any, table: str, *, read_only: bool = False, where: str = "on PostgreSQL"
    ) -> None:
        from psycopg import sql

        typed_arrays()
        self.datastore = datastore
        schema = sql.Identifier(datastore.schema)
        events = sql.SQL("{}.{}").format(schema, sql.Identifier(table))
        # The names quoted once (a text statement: psycopg encodes it as the connection asks),
        # and each statement's text made once (``_q``): a ``Composed`` statement is quoted
        # again at every execute, through libpq, 8% of the server's CPU for a command written
        # from the table page (issue 25).
        self._names = {"s": schema.as_string(), "events": events.as_string()}
        self._texts: dict[str, str] = {}
        self._lock = threading.Lock()
        self.read_only = read_only  # a streaming replica: nothing is written (replica.py)
        index = f"{self._names['s']}.bxb_battles"
        if read_only:
            with self._cursor() as cur:
                check_postgres_store(cur, index, self._names["events"], where)
            self._append = self._create = self._plain = None
            return
        with self._cursor(transaction=True) as cur:
            # Two servers starting at once on a new database both create: one at a time (the
            # lock is the transaction's: on an autocommit connection it would end at once).
            cur.execute("select pg_advisory_xact_lock(7242001)")
            new = check_postgres_store(cur, index, self._names["events"], where)
            for statement in _PG_SCHEMA:
                cur.execute(sql.SQL(statement).format(schema=schema))
            if new:
                mark_postgres(cur, index)
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
        """The statement ``text`` with ``{s}`` (the schema) and ``{events}`` (the events' table)
        in place, quoted; made once for each text (a dict read is atomic: threads may race to
        make one, and make the same)."""
        found = self._texts.get(text)
        if found is None:
            found = self._texts[text] = text.format(**self._names)
        return found

    @contextmanager
    def _cursor(self, *, transaction: bool = False, durable: bool = True) -> Iterator[Any]:
        """A cursor, in a transaction of its own if asked. Not ``durable``: a read model's write
        that a read makes commits without waiting for the server's disk.

        Each pooled connection keeps one cursor for the store's statements, used by one thread
        at a time (the thread that holds the connection): a new cursor starts with no dumper
        made, so every execute on one made each of its parameters' dumpers again, in Python (an
        append's four arrays each a dumper with a dumper of its elements and a transformer of
        its own; issue 25). The cursor is kept on the connection itself, so both go together
        when the pool drops the connection; it holds its last result until its next statement."""
        with self.datastore.get_connection() as conn:
            cur = getattr(conn, _KEPT, None)
            if cur is None or cur.closed:
                from psycopg.rows import tuple_row

                cur = conn.cursor(row_factory=tuple_row)
                setattr(conn, _KEPT, cur)
            if transaction or not durable:
                with conn.transaction():
                    if not durable:
                        cur.execute("set local synchronous_commit = off")
                    yield cur
            else:
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

    def ruled(self, battle: UUID) -> list[int]:
        with self._cursor() as cur:
            cur.execute(
                self._q(
                    "select originator_version from {events} where originator_id=%s "
                    "and topic like '%%/RulingGiven' order by originator_version"
                ),
                (battle,),
            )
            return [r[0] for r in cur.fetchall()]

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
        uuids, bigints, texts, byteas = typed_arrays()
        return (
            uuids([r[0] for r in records]),
            bigints([r[1] for r in records]),
            texts([r[2] for r in records]),
            byteas([r[3] for r in records]),
        )

    def write(self, w: Write) -> bool:
        if self.read_only:
            raise StoreError("a streaming replica is read only: writes go to the primary")
        arrays = self._arrays(w.records)
        extra = bool(w.voids or w.snapshots)
        with self._cursor(transaction=extra) as cur:
            if not w.indexed:
                cur.execute(self._plain, arrays, prepare=True)
                done = True
            elif w.start is not None:
                started = grown(w.start, w.growth)
                cur.execute(self._create, (w.battle, *row_values(started), *arrays), prepare=True)
                done = cur.rowcount == len(w.records)
            else:
                cur.execute(
                    self._append,
                    (*growth_values(w.growth), w.battle, w.expected, w.prev, *arrays),
                    prepare=True,
                )
                done = cur.rowcount == len(w.records)
            if done and w.voids:
                cur.executemany(
                    self._q(
                        "insert into {s}.bxb_voids (battle, command, first_at, last_at, voided_at, "
                        "voided_by, reason) values (%s, %s, %s, %s, %s, %s, %s)"
                    ),
                    [(w.battle, *void_values(v)) for v in w.voids],
                )
            if done and w.snapshots:
                self._put_snapshots(cur, w.battle, w.snapshots)
        return done

    def _put_snapshots(self, cur: Any, battle: UUID, snapshots: Sequence[Snapshot]) -> None:
        latest = latest_off_interval(snapshots)
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
        return [(row_of(r[0], r[1:13]), r[13]) for r in found]

    def row(self, battle: UUID) -> BattleRow | None:
        with self._cursor() as cur:
            cur.execute(
                self._q("select " + INDEX_COLUMNS + " from {s}.bxb_battles where battle=%s"),
                (battle,),
                prepare=True,
            )
            r = cur.fetchone()
        return None if r is None else row_of(battle, r)

    def lookup(
        self, *, ids: tuple[str, str] | None = None, label: str | None = None
    ) -> tuple[list[BattleRow], int]:
        where = "battle between %s::uuid and %s::uuid" if ids is not None else "label=%s"
        with self._cursor() as cur:
            cur.execute(
                self._q(
                    "select battle, " + INDEX_COLUMNS + ", count(*) over () from {s}.bxb_battles b "
                    "where " + where + " and exists (select 1 from {events} e "
                    f"where e.originator_id = b.battle) order by seq limit {NAMED}"
                ),
                ids if ids is not None else (label,),
            )
            found = cur.fetchall()
        return [row_of(r[0], r[1:13]) for r in found], found[0][13] if found else 0

    def newest(self) -> BattleRow | None:
        with self._cursor() as cur:
            cur.execute(
                self._q(
                    "select battle, " + INDEX_COLUMNS + " from {s}.bxb_battles b where exists "
                    "(select 1 from {events} e where e.originator_id = b.battle) "
                    "order by seq desc limit 1"
                )
            )
            r = cur.fetchone()
        return None if r is None else row_of(r[0], r[1:])

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
        return (None if r[1] is None else row_of(battle, r[1:])), r[0] or 0

    def voids(self, battle: UUID) -> list[VoidedCommand]:
        with self._cursor() as cur:
            cur.execute(
                self._q(
                    "select command, first_at, last_at, voided_at, voided_by, reason from {s}.bxb_voids "
                    "where battle=%s order by voided_at"
                ),
                (battle,),
            )
            return [void_of(r) for r in cur.fetchall()]

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
            return [snapshot_of(r) for r in cur.fetchall()]

    def put_snapshots(self, battle: UUID, snapshots: Sequence[Snapshot]) -> None:
        if self.read_only:  # a read model's write from a read: the primary makes it
            return
        with self._cursor(durable=False) as cur:
            self._put_snapshots(cur, battle, snapshots)

    def replace(self, row: BattleRow, voids: Sequence[VoidedCommand]) -> None:
        if self.read_only:  # a read model's write from a read: the primary makes it
            return
        with self._cursor(durable=False) as cur:
            cur.execute(
                self._q(
                    "insert into {s}.bxb_battles (battle, " + INDEX_COLUMNS + ") values "
                    "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                    "on conflict (battle) do update set "
                    + ", ".join(f"{c} = excluded.{c}" for c in INDEX_COLUMNS.split(", "))
                ),
                (row.battle, *row_values(row)),
            )
            for table in ("bxb_voids", "bxb_snapshots"):
                cur.execute(self._q("delete from {s}." + table + " where battle=%s"), (row.battle,))
            cur.executemany(
                self._q(
                    "insert into {s}.bxb_voids (battle, command, first_at, last_at, voided_at, "
                    "voided_by, reason) values (%s, %s, %s, %s, %s, %s, %s)"
                ),
                [(row.battle, *void_values(v)) for v in voids],
            )

    def drop(self, battle: UUID) -> None:
        if self.read_only:  # a read model's write from a read: the primary makes it
            return
        with self._cursor(durable=False) as cur:
            for table in ("bxb_battles", "bxb_voids", "bxb_snapshots"):
                cur.execute(self._q("delete from {s}." + table + " where battle=%s"), (battle,))

    def set_verified(self, battle: UUID, version: int, verdict: int) -> None:
        if self.read_only:  # a read model's write from a read: the primary makes it
            return
        with self._cursor(durable=False) as cur:
            cur.execute(
                self._q("update {s}.bxb_battles set verified=%s where battle=%s and version=%s"),
                (verdict, battle, version),
            )

    def wal_position(self, *, replayed: bool = False) -> str | None:
        """The server's write-ahead log position: where inserts have reached (a primary), or
        how far a streaming replica has replayed (``replayed``; None: not a replica)."""
        with self._cursor() as cur:
            cur.execute(
                "select pg_last_wal_replay_lsn()::text"
                if replayed
                else "select pg_current_wal_insert_lsn()::text"
            )
            r = cur.fetchone()
        return None if r is None or r[0] is None else str(r[0])

    def built(self) -> bool:
        with self._cursor() as cur:
            cur.execute(self._q("select value from {s}.bxb_read_models where name='index'"))
            r = cur.fetchone()
        return r is not None and r[0] == "built"

    def mark_built(self, built: bool) -> None:
        if self.read_only:  # a read model's write from a read: the primary makes it
            return
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


__all__ = ["PostgresRecords", "typed_arrays"]
