"""The tournament beside the battles: its tables, who may write (tokens, stored hashed) and
which battle is played at which table in which round.

The battles themselves live in the event store (``replay.store.log.BattleStore``); this is the
little that is not a battle's event: a register kept in the same database, in tables of its own
(``bxb_*``), through the database's own driver (sqlite3, or psycopg for PostgreSQL). Nothing here
decides a rule.

A token is 32 random bytes (``secrets.token_urlsafe``), shown once when it is made; the store
keeps only its SHA-256, and a presented token is compared with the stored hash in constant time.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal
from uuid import UUID, uuid4

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.store.log import StoreUnavailable, persistence_env
from blowbyblow.replay.store.persistence import CONNECT_TIMEOUT
from blowbyblow.web.relay import Payload, notify_in

Role = Literal["table", "judge"]

_SCHEMA = (
    """create table if not exists bxb_tournaments (
        slug text primary key, name text not null, created text not null)""",
    """create table if not exists bxb_tables (
        tournament text not null, number integer not null, created text not null,
        primary key (tournament, number))""",
    """create table if not exists bxb_tokens (
        hash text primary key, tournament text not null, role text not null,
        table_number integer, created text not null)""",
    """create table if not exists bxb_table_battles (
        battle text primary key, tournament text not null, table_number integer not null,
        round integer not null, started text not null, finished integer not null default 0)""",
    # a table's setup while its players enter and confirm it (web/tablesetup.py)
    """create table if not exists bxb_pending_setups (
        tournament text not null, table_number integer not null, body text not null,
        revision integer not null, confirmed text not null, updated text not null,
        primary key (tournament, table_number))""",
    # which phone enters which side of a pending setup: the hash of the key it was given
    """create table if not exists bxb_setup_claims (
        tournament text not null, table_number integer not null, side text not null,
        hash text not null, primary key (tournament, table_number, side))""",
)

TOKEN_MEMORY = 5.0  # seconds a process trusts a token it has read before reading it again
# ... while the relay listens (PostgreSQL: every revoke is heard at once, web/relay.py)
TOKEN_MEMORY_RELAYED = 300.0
SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
MAX_NAME = 200  # characters of a tournament's name in full


class TournamentError(BlowByBlowError):
    pass


def new_token() -> str:
    """A fresh secret token: 32 random bytes, URL-safe (it goes in a QR code's URL)."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Principal:
    """Who a valid token speaks for: a table of a tournament, or its judges."""

    tournament: str
    role: Role
    table: int | None = None

    @property
    def is_judge(self) -> bool:
        return self.role == "judge"


@dataclass(frozen=True)
class TableBattle:
    battle: UUID
    tournament: str
    table: int
    round: int
    started: str
    finished: bool


@dataclass(frozen=True)
class Tournament:
    slug: str
    name: str
    tables: tuple[int, ...]


@dataclass(frozen=True)
class NewTables:
    """Tables just added: each with its token, and a judge token; the tokens are shown once."""

    tournament: str
    tables: tuple[tuple[int, str], ...]
    judge_token: str


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


class _Database:
    """One connection's worth of SQL with ``?`` placeholders, on SQLite or PostgreSQL."""

    def __init__(self, spec: str | None) -> None:
        env = persistence_env(spec)
        module = env["PERSISTENCE_MODULE"]
        self._lock = threading.Lock()
        self._sqlite: sqlite3.Connection | None = None
        self._pg_url = ""
        self._pg: Any = None
        if module == "eventsourcing.postgres":
            assert spec is not None
            self._pg_url = spec
            return
        path = ":memory:" if module == "eventsourcing.popo" else env["SQLITE_DBNAME"]
        # One connection shared by the server's threads, serialised by the lock; the battles'
        # writers use their own connections to the same file (WAL), so wait for them a while.
        self._sqlite = sqlite3.connect(
            path, timeout=30, check_same_thread=False, isolation_level=None
        )

    @contextmanager
    def cursor(self) -> Iterator[Any]:
        if self._sqlite is not None:
            with self._lock:
                cur = self._sqlite.cursor()
                cur.execute("begin")
                try:
                    yield _Cursor(cur, "?")
                    cur.execute("commit")
                except BaseException:
                    cur.execute("rollback")
                    raise
            return
        import psycopg  # the postgres extra

        # One connection kept for the process, serialised by the lock (the register is read
        # once per token and battle, then from memory): a connection made for each query costs
        # the server several milliseconds. A broken one is made again at the next query.
        with self._lock:
            try:
                if self._pg is None or self._pg.closed or self._pg.broken:
                    self._pg = psycopg.connect(
                        self._pg_url, autocommit=True, connect_timeout=CONNECT_TIMEOUT
                    )
                with self._pg.transaction(), self._pg.cursor() as pg:
                    yield _Cursor(pg, "%s")
            except psycopg.OperationalError as e:
                # The database away: the server says 503, nothing written (web/errors.py), as
                # for the battles' store; the connection is made again at the next query.
                if self._pg is not None:
                    self._pg.close()
                self._pg = None
                raise StoreUnavailable(f"the tournament register: {e}") from None


class _Cursor:
    def __init__(self, cur: Any, mark: str) -> None:
        self._cur = cur
        self._mark = mark

    def notify(self, payload: Payload) -> None:
        """Tell every server process of a change, when this transaction commits (PostgreSQL;
        on SQLite the server is one process, which forgets for itself)."""
        if self._mark == "%s":
            notify_in(self._cur, payload)

    def run(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self._cur.execute(sql.replace("?", self._mark), tuple(params))
        return list(self._cur.fetchall()) if self._cur.description else []


def check_new(slug: str, name: str = "") -> None:
    """Refuse (``TournamentError``) a tournament's id or name that ``new_tournament`` would:
    ``bxb tournament new`` asks before it opens the store, so a refusal leaves it untouched."""
    if not SLUG.match(slug):
        raise TournamentError(
            f"tournament id {slug!r}: expected 1 to 40 lower-case letters, digits or "
            "hyphens, starting with a letter or digit (e.g. 'spring-open')"
        )
    if len(name) > MAX_NAME:
        raise TournamentError(
            f"tournament name: {len(name)} characters; expected at most {MAX_NAME}"
        )


class TournamentStore:
    """Tournaments, their tables and tokens, and the battles played at each table."""

    def __init__(self, db: str | None = None) -> None:
        self._db = _Database(db)
        with self._db.cursor() as cur:
            for statement in _SCHEMA:
                cur.run(statement)
        self.database = self._db  # the register's database, for the pending setups beside it
        self.spec = db  # as --db gives it: the rosters' register is in the same database
        # by token hash, with when it was read: kept a few seconds (TOKEN_MEMORY), so a token
        # revoked by another process (`bxb tables revoke`) stops working soon after
        self._principals: dict[str, tuple[Principal, float]] = {}
        # each valid token's hash, made once: SHA-256 through OpenSSL costs some 10 us, and
        # every request of a table or a judge presents its token (issue 25); only tokens found
        # in the register are kept, so what others send cannot fill it
        self._digests: dict[str, str] = {}
        self._places: dict[UUID, TableBattle] = {}
        # This process's name on the relay (web/relay.py), and whether the relay listens now:
        # then every other process's change is heard, and what is kept is kept longer.
        self.origin = uuid4().hex
        self.listening: threading.Event | None = None

    # --- tournaments and tables -------------------------------------------------------------

    def new_tournament(self, slug: str, name: str = "") -> Tournament:
        check_new(slug, name)
        with self._db.cursor() as cur:
            if cur.run("select 1 from bxb_tournaments where slug = ?", (slug,)):
                raise TournamentError(f"tournament {slug!r} exists already")
            cur.run(
                "insert into bxb_tournaments (slug, name, created) values (?, ?, ?)",
                (slug, name or slug, _now()),
            )
        return Tournament(slug=slug, name=name or slug, tables=())

    def tournaments(self) -> list[Tournament]:
        with self._db.cursor() as cur:
            rows = cur.run("select slug, name from bxb_tournaments order by created, slug")
            tables = cur.run("select tournament, number from bxb_tables order by number")
        return [
            Tournament(slug=s, name=n, tables=tuple(t for (tt, t) in tables if tt == s))
            for s, n in rows
        ]

    def tournament(self, slug: str) -> Tournament:
        for t in self.tournaments():
            if t.slug == slug:
                return t
        raise TournamentError(f"no tournament {slug!r} (see `bxb tournament list`)")

    def add_tables(self, slug: str, count: int) -> NewTables:
        """``count`` new tables, numbered after the last, each with a token; and a judge token."""
        if not 1 <= count <= 500:
            raise TournamentError(f"count: expected 1 to 500 tables, not {count}")
        self.tournament(slug)
        now = _now()
        made: list[tuple[int, str]] = []
        judge = new_token()
        with self._db.cursor() as cur:
            [(last,)] = cur.run(
                "select coalesce(max(number), 0) from bxb_tables where tournament = ?", (slug,)
            )
            for number in range(int(last) + 1, int(last) + 1 + count):
                token = new_token()
                cur.run(
                    "insert into bxb_tables (tournament, number, created) values (?, ?, ?)",
                    (slug, number, now),
                )
                cur.run(
                    "insert into bxb_tokens (hash, tournament, role, table_number, created) "
                    "values (?, ?, 'table', ?, ?)",
                    (token_hash(token), slug, number, now),
                )
                made.append((number, token))
            cur.run(
                "insert into bxb_tokens (hash, tournament, role, table_number, created) "
                "values (?, ?, 'judge', null, ?)",
                (token_hash(judge), slug, now),
            )
        return NewTables(tournament=slug, tables=tuple(made), judge_token=judge)

    # --- tokens -----------------------------------------------------------------------------

    def principal(self, token: str | None) -> Principal | None:
        """Whom ``token`` speaks for, or None for no token or one this store never made."""
        if not token:
            return None
        digest = self._digests.get(token) or token_hash(token)
        known = self._remembered(digest)
        if known is not None:
            return known
        with self._db.cursor() as cur:
            rows = cur.run(
                "select hash, tournament, role, table_number from bxb_tokens where hash = ?",
                (digest,),
            )
        if not rows:
            return None
        stored, tournament, role, table = rows[0]
        if not hmac.compare_digest(str(stored), digest):  # pragma: no cover - found by it
            return None
        found = Principal(
            tournament=str(tournament),
            role="judge" if role == "judge" else "table",
            table=None if table is None else int(table),
        )
        self._principals[digest] = (found, time.monotonic())
        self._digests[token] = digest
        return found

    def remembered(self, token: str | None) -> Principal | None:
        """Whom ``token`` speaks for as this process remembers it, nothing read (None: not
        remembered, ``principal`` reads it)."""
        if not token:
            return None
        return self._remembered(self._digests.get(token) or token_hash(token))

    def _remembered(self, digest: str) -> Principal | None:
        known = self._principals.get(digest)
        relayed = self.listening is not None and self.listening.is_set()
        memory = TOKEN_MEMORY_RELAYED if relayed else TOKEN_MEMORY
        if known is not None and time.monotonic() - known[1] < memory:
            return known[0]
        return None

    def forget_tokens(self) -> None:
        """Read every token again at its next use (this process revoked or re-issued one)."""
        self._principals.clear()

    def tokens_changed(self, cur: Any) -> None:
        """In the transaction that revokes or re-issues tokens: every server forgets its own."""
        cur.notify(Payload(origin=self.origin, register="tokens"))

    def heard(self, payload: Payload) -> None:
        """Another process changed the register (``web/relay.py``): forget what it makes stale."""
        if payload.register in ("tokens", "everything"):
            self.forget_tokens()
        if payload.register == "place":
            self._places.pop(UUID(payload.battle), None)
        if payload.register == "everything":
            self._places.clear()

    # --- battles at tables ------------------------------------------------------------------

    def assign(self, battle: UUID, tournament: str, table: int, round_: int) -> TableBattle:
        placed = TableBattle(
            battle=battle,
            tournament=tournament,
            table=table,
            round=round_,
            started=_now(),
            finished=False,
        )
        with self._db.cursor() as cur:
            cur.run(
                "insert into bxb_table_battles "
                "(battle, tournament, table_number, round, started, finished) "
                "values (?, ?, ?, ?, ?, 0)",
                (str(battle), tournament, table, round_, placed.started),
            )
        self._places[battle] = placed
        return placed

    def place_child(self, parent: UUID, child: UUID) -> TableBattle | None:
        """The table of ``parent`` goes on in ``child`` (a judge forked it): the child is placed
        at the parent's table and round, just after the parent in the table's order, so it is
        the table's battle wherever the parent was (the parent keeps its row: its history).
        One transaction, and idempotent: a second placing of the same child (a race, a retry)
        changes nothing. None when the parent is at no table."""
        with self._db.cursor() as cur:
            found = cur.run(
                "select tournament, table_number, round, started "
                "from bxb_table_battles where battle = ?",
                (str(parent),),
            )
            if not found:
                return None
            [(tournament, table, round_, started)] = found
            after = datetime.datetime.fromisoformat(str(started)) + datetime.timedelta(
                microseconds=1
            )
            cur.run(
                "insert into bxb_table_battles "
                "(battle, tournament, table_number, round, started, finished) "
                "values (?, ?, ?, ?, ?, 0) on conflict (battle) do nothing",
                (str(child), tournament, table, round_, after.isoformat(timespec="microseconds")),
            )
        self._places.pop(child, None)
        return self.place_of(child)

    def mark_finished(self, battle: UUID) -> None:
        with self._db.cursor() as cur:
            cur.run("update bxb_table_battles set finished = 1 where battle = ?", (str(battle),))
            cur.notify(Payload(origin=self.origin, register="place", battle=str(battle)))
        self._places.pop(battle, None)

    def place_of(self, battle: UUID, *, fresh: bool = False) -> TableBattle | None:
        """The table and round a battle is played at (None: not played at any table); kept in
        memory, unless ``fresh``: read now (whether the table has ended it decides who may
        void, and another process may have just ended it)."""
        if battle in self._places and not fresh:
            return self._places[battle]
        found = self._battles("where battle = ?", (str(battle),))
        if not found:
            return None
        self._places[battle] = found[0]
        return found[0]

    def kept_place(self, battle: UUID) -> TableBattle | None:
        """``place_of`` as kept in memory, nothing read (None: not kept)."""
        return self._places.get(battle)

    def battles(self, tournament: str, table: int | None = None) -> list[TableBattle]:
        """The battles of a tournament (of one of its tables), oldest first."""
        if table is None:
            return self._battles("where tournament = ?", (tournament,))
        return self._battles("where tournament = ? and table_number = ?", (tournament, table))

    def _battles(self, where: str, params: Sequence[Any]) -> list[TableBattle]:
        with self._db.cursor() as cur:
            rows = cur.run(
                "select battle, tournament, table_number, round, started, finished "
                f"from bxb_table_battles {where} order by started, round, table_number",
                params,
            )
        found = [
            TableBattle(
                battle=UUID(str(b)),
                tournament=str(t),
                table=int(n),
                round=int(r),
                started=str(s),
                finished=bool(f),
            )
            for b, t, n, r, s, f in rows
        ]
        # in time order whatever the database's collation makes of the text (a fork's child is
        # started a microsecond after its parent: place_child)
        return sorted(found, key=lambda p: datetime.datetime.fromisoformat(p.started))


__all__ = [
    "NewTables",
    "Principal",
    "TableBattle",
    "Tournament",
    "TournamentError",
    "TournamentStore",
    "new_token",
    "token_hash",
]
