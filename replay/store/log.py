"""The event store: an ``eventsourcing`` application whose aggregates are battles.

- Persistence is chosen by configuration, as eventsourcing does it: a SQLite file by default, an
  in-memory store (``:memory:``) for tests, PostgreSQL (``postgresql://user:pass@host:port/db``)
  for a tournament server with many tables writing at once.
- Events are encoded with msgspec (MessagePack) by ``MsgspecMapper``, not eventsourcing's JSON
  transcoder. A stored record is an ``Envelope``: the format version, the canonical event bytes,
  the hash chain (previous hash and this event's hash) and the wall-clock time it was recorded
  (covered by the hash chain, so it is evidence too, but never compared by replay).
- One command's events are appended in one ``insert_events`` call, i.e. one transaction, with
  optimistic concurrency on the battle's version: a writer holding a stale version gets
  ``StaleVersion`` and writes nothing.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit
from uuid import UUID, uuid5

import msgspec
from eventsourcing.application import Application
from eventsourcing.persistence import (
    IntegrityError,
    Mapper,
    PersistenceError,
    RecordConflictError,
    Recording,
    StoredEvent,
    Transcoder,
)

from blowbyblow.domain.core import BattleStarted, BlowByBlowError, Event
from blowbyblow.domain.judging import BattleSealed
from blowbyblow.replay.engine.codec import codec_for, encode
from blowbyblow.replay.engine.formats import CURRENT_FORMAT, upcast
from blowbyblow.replay.evidence.seals import SeedVault
from blowbyblow.replay.store.records import Record, Stored, records_for

if TYPE_CHECKING:
    from blowbyblow.replay.store.readmodels import Reading

CHAIN_ALGORITHM = "bxb-chain-v1"
GENESIS = bytes(32)
BATTLE_NAMESPACE = UUID("6f1f3c1e-6b8e-5d2a-9a49-0b1b0b1b0b1b")


class StoreError(BlowByBlowError):
    pass


class StaleVersion(StoreError):
    pass


class UnreadableEvent(StoreError):
    def __init__(self, battle: UUID | str, position: int, reason: str) -> None:
        super().__init__(f"battle {battle}, position {position}: cannot be read: {reason}")
        self.position = position
        self.reason = reason


class Envelope(msgspec.Struct, frozen=True, kw_only=True):
    """One stored record. ``event`` is the canonical msgpack of the event."""

    v: int
    event: msgspec.Raw
    prev: bytes
    hash: bytes
    at: str = ""  # wall-clock time recorded: in the hash chain, never compared by replay


_ENVELOPE = msgspec.msgpack.Decoder(Envelope)


class Link(msgspec.Struct, frozen=True, kw_only=True):
    """One link of a battle's hash chain: everything a record holds but its own hash."""

    battle: UUID
    position: int  # from 1
    prev: bytes  # the hash of the record before (GENESIS before the first)
    format: int  # the record format the event's bytes are in
    at: str  # wall-clock time recorded
    data: bytes  # the event's canonical bytes


_CHAIN_PREFIX = CHAIN_ALGORITHM.encode() + b"\x00"


def chain_hash(link: Link) -> bytes:
    """SHA-256 over everything a record holds: the algorithm name, battle id, position, previous
    hash, format version, recording time and the event's canonical bytes (hashed in one call
    over their concatenation: the same digest as feeding them one by one)."""
    stamp = link.at.encode()
    return hashlib.sha256(
        b"".join(
            (
                _CHAIN_PREFIX,
                link.battle.bytes,
                link.position.to_bytes(8, "big"),
                link.prev,
                link.format.to_bytes(4, "big"),
                len(stamp).to_bytes(4, "big"),
                stamp,
                link.data,
            )
        )
    ).digest()


class LoggedEvent(msgspec.Struct, frozen=True, kw_only=True):
    """A battle's event as the store holds it (eventsourcing's domain event protocol). A
    msgspec Struct: a battle's reads make one per record, at a fraction of a dataclass's cost."""

    originator_id: UUID
    originator_version: int  # the event's position in its battle, from 1
    ruleset: str
    event: Event
    data: bytes  # canonical encoding of ``event``
    prev_hash: bytes
    hash: bytes
    recorded_at: str = ""
    format: int = CURRENT_FORMAT  # the record format the event's bytes were stored in

    @property
    def position(self) -> int:
        return self.originator_version

    @property
    def link(self) -> Link:
        """What this record's hash covers; ``chain_hash(logged.link)`` must be ``logged.hash``."""
        return Link(
            battle=self.originator_id,
            position=self.originator_version,
            prev=self.prev_hash,
            format=self.format,
            at=self.recorded_at,
            data=self.data,
        )


def topic_of(ruleset: str, event: Event) -> str:
    return f"{ruleset}/{type(event).__name__}"


class MsgspecMapper(Mapper[UUID]):
    """Maps LoggedEvent <-> eventsourcing StoredEvent with msgspec instead of a JSON transcoder."""

    def __init__(self, transcoder: Transcoder | None = None, **kwargs: Any) -> None:
        super().__init__(transcoder=transcoder or _Unused(), **kwargs)

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        assert isinstance(domain_event, LoggedEvent)
        state = encode(
            Envelope(
                v=domain_event.format,
                event=msgspec.Raw(domain_event.data),
                prev=domain_event.prev_hash,
                hash=domain_event.hash,
                at=domain_event.recorded_at,
            )
        )
        if self.compressor:
            state = self.compressor.compress(state)
        if self.cipher:
            state = self.cipher.encrypt(state)
        return StoredEvent(
            originator_id=domain_event.originator_id,
            originator_version=domain_event.originator_version,
            topic=topic_of(domain_event.ruleset, domain_event.event),
            state=state,
        )

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        state = stored_event.state
        if self.cipher:
            state = self.cipher.decrypt(state)
        if self.compressor:
            state = self.compressor.decompress(state)
        return logged_from(
            stored_event.originator_id,
            stored_event.originator_version,
            stored_event.topic,
            state,
        )


def logged_from(battle: UUID | str, position: int, topic: str, state: bytes) -> LoggedEvent:
    """A stored record read exactly as stored (its event's bytes kept for the hash chain), its
    event upcast from an older format; UnreadableEvent naming what is wrong with it."""
    ruleset, _, type_name = topic.partition("/")
    try:
        envelope = _ENVELOPE.decode(state)
        data = bytes(envelope.event)
        codec = codec_for(ruleset)
        if envelope.v == CURRENT_FORMAT:
            event = codec.decode(data)
        else:
            event = codec.from_builtins(upcast(msgspec.msgpack.decode(data), envelope.v))
    except BlowByBlowError as e:
        raise UnreadableEvent(battle, position, str(e)) from e
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError) as e:
        raise UnreadableEvent(battle, position, str(e)) from e
    if type(event).__name__ != type_name:
        raise UnreadableEvent(
            battle,
            position,
            f"topic says {type_name} but the record holds {type(event).__name__}",
        )
    return LoggedEvent(
        originator_id=battle if isinstance(battle, UUID) else UUID(battle),
        originator_version=position,
        ruleset=ruleset,
        event=event,
        data=data,
        prev_hash=envelope.prev,
        hash=envelope.hash,
        recorded_at=envelope.at,
        format=envelope.v,
    )


class _Unused(Transcoder):
    def encode(self, obj: Any) -> bytes:  # pragma: no cover
        raise NotImplementedError

    def decode(self, data: bytes) -> Any:  # pragma: no cover
        raise NotImplementedError


def default_db_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "blowbyblow" / "battles.sqlite"


BUSY_TIMEOUT = 5
"""Seconds a SQLite store waits for another program's write lock before giving up (``StoreBusy``);
the environment variable ``BXB_BUSY_TIMEOUT`` sets another."""
CONNECT_TIMEOUT = 5
"""Seconds to reach a PostgreSQL server before giving up with the cause; a URL's
``?connect_timeout=N`` sets another."""
PASSWORD_FILE_VARIABLE = "BXB_DB_PASSWORD_FILE"
_SCHEMA_LOCK = 0x62786273746F7265  # "bxbstore": the advisory lock held while creating tables


class StoreUnavailable(StoreError):
    """The store cannot be opened: a folder or another kind of file, a server that does not
    answer or refuses the login."""


class StoreBusy(StoreError):
    """Another program held the store's write lock for longer than the busy timeout."""


@dataclass(frozen=True)
class PostgresUrl:
    """A ``postgresql://`` URL, read as PostgreSQL reads it, except that the password ends at the
    LAST ``@``: a password with a raw ``@`` (not written ``%40``) is read whole."""

    user: str
    password: str
    host: str
    port: int
    dbname: str
    connect_timeout: int


def is_postgres(spec: str) -> bool:
    return spec.startswith(("postgres://", "postgresql://"))


def _split_url(spec: str) -> tuple[str, str, str]:
    """(scheme and ``://``, user info, the rest) of a URL; the user info ends at the last ``@``."""
    scheme, _, rest = spec.partition("://")
    userinfo, at, where = rest.rpartition("@")
    return scheme + "://", userinfo if at else "", where


def store_label(spec: str | os.PathLike[str]) -> str:
    """The store as it may be printed or logged: a PostgreSQL URL without its password."""
    text = str(spec)
    if not is_postgres(text):
        return text
    head, userinfo, where = _split_url(text)
    if ":" not in userinfo:
        return text
    return f"{head}{userinfo.split(':', 1)[0]}:***@{where}"


def parse_postgres_url(spec: str) -> PostgresUrl:
    _, userinfo, where = _split_url(spec)
    user, colon, password = userinfo.partition(":")
    try:
        url = urlsplit("//" + where)
        port = url.port or 5432
        query = parse_qs(url.query)
        timeout = int(query.get("connect_timeout", [str(CONNECT_TIMEOUT)])[-1])
    except ValueError as e:
        raise StoreUnavailable(
            f"{store_label(spec)}: not a PostgreSQL URL ({e}); expected "
            "postgresql://USER@HOST:PORT/DATABASE"
        ) from None
    return PostgresUrl(
        user=unquote(user) or "blowbyblow",
        password=unquote(password) if colon else "",
        host=url.hostname or "127.0.0.1",
        port=port,
        dbname=unquote(url.path.lstrip("/")) or "blowbyblow",
        connect_timeout=max(1, timeout),
    )


def _password_from_file() -> str:
    """The password in the file ``BXB_DB_PASSWORD_FILE`` names (its first line), if it names one."""
    name = os.environ.get(PASSWORD_FILE_VARIABLE)
    if not name:
        return ""
    try:
        lines = Path(name).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise StoreUnavailable(
            f"{PASSWORD_FILE_VARIABLE}={name}: cannot read the password from it ({e}); "
            "expected a UTF-8 text file whose first line is the password"
        ) from None
    return lines[0] if lines else ""


def _busy_timeout() -> str:
    given = os.environ.get("BXB_BUSY_TIMEOUT", "")
    if not given:
        return str(BUSY_TIMEOUT)
    if not given.isdigit() or not 0 < int(given) <= 3600:
        raise StoreUnavailable(
            f"BXB_BUSY_TIMEOUT={given!r}: expected a whole number of seconds, 1 to 3600"
        )
    return given


def _sqlite_path(spec: str) -> Path:
    """The SQLite file of ``spec``, its folder made if missing; a folder or an unmakeable path is
    refused."""
    if not spec.strip():
        raise StoreUnavailable(
            "--db is empty; expected a SQLite file path, ':memory:' or a postgresql:// URL"
        )
    path = Path(spec).expanduser()
    if path.is_dir():
        raise StoreUnavailable(
            f"--db {spec!r} is a folder; expected a SQLite file such as "
            f"{(path / 'battles.sqlite')}, ':memory:' or a postgresql:// URL"
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StoreUnavailable(
            f"--db {spec}: cannot make its folder {path.parent} ({e.strerror or e})"
        ) from None
    return path


def persistence_env(db: str | os.PathLike[str] | None) -> dict[str, str]:
    """eventsourcing configuration for a store spec: a file path, ``:memory:`` or a PostgreSQL URL.
    A PostgreSQL password comes from the URL, else the file ``BXB_DB_PASSWORD_FILE`` names, else
    ``PGPASSWORD``; with none, libpq looks in ``PGPASSFILE`` (default ``~/.pgpass``)."""
    spec = str(db) if db is not None else os.environ.get("BXB_DB") or str(default_db_path())
    if spec == ":memory:":
        return {"PERSISTENCE_MODULE": "eventsourcing.popo"}
    if is_postgres(spec):
        url = parse_postgres_url(spec)
        password = url.password or _password_from_file() or os.environ.get("PGPASSWORD", "")
        return {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": url.dbname,
            "POSTGRES_HOST": url.host,
            "POSTGRES_PORT": str(url.port),
            "POSTGRES_USER": url.user,
            "POSTGRES_PASSWORD": password,
            # how long to wait for a connection from the pool: a server that went away fails
            # in seconds, not eventsourcing's 30
            "POSTGRES_CONNECT_TIMEOUT": str(url.connect_timeout),
            # the tables are made once, under an advisory lock (BattleStore._create_tables)
            "CREATE_TABLE": "no",
        }
    return {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(_sqlite_path(spec)),
        "SQLITE_LOCK_TIMEOUT": _busy_timeout(),
    }


def _is_busy(error: BaseException) -> bool:
    text = str(error).lower()
    return "database is locked" in text or "database table is locked" in text


def as_store_error(error: BaseException, where: str) -> StoreError | None:
    """What the database said, as a StoreError naming the store (None if it is no database
    error): another program holding the write lock, or a store that cannot be used."""
    if isinstance(error, StoreError):
        return error
    # psycopg's own errors too (the tournament register talks to PostgreSQL directly)
    from_psycopg = type(error).__module__.startswith("psycopg")
    if not isinstance(error, (PersistenceError, sqlite3.Error)) and not from_psycopg:
        return None
    if _is_busy(error):
        return StoreBusy(
            f"the store {where} is in use by another program: it held the write lock for "
            f"longer than {os.environ.get('BXB_BUSY_TIMEOUT') or BUSY_TIMEOUT} s, and nothing "
            "was written; try again when it is done (BXB_BUSY_TIMEOUT sets how long to wait)"
        )
    cause = " ".join(str(error).split()) or type(error).__name__
    return StoreUnavailable(
        f"the store {where} cannot be used: {cause}; expected a SQLite file made by bxb, "
        "':memory:' or a postgresql:// URL of a server that answers"
    )


@contextmanager
def _store_errors(where: str) -> Iterator[None]:
    """Database errors raised as StoreError (a version conflict is left to the caller)."""
    try:
        yield
    except RecordConflictError:
        raise
    except (PersistenceError, sqlite3.Error) as e:
        mapped = as_store_error(e, where)
        assert mapped is not None
        raise mapped from e


def _connect_postgres(env: dict[str, str], label: str) -> Any:
    """One connection to the server, made at once so that an unreachable server or a refused
    login fails in seconds with the server's own reason (eventsourcing's pool would retry for
    its timeout and then say only that it got no connection)."""
    try:
        import psycopg  # the postgres extra
    except ImportError:
        raise StoreUnavailable(
            f"{label}: PostgreSQL needs the postgres extra: pip install 'blowbyblow[postgres]'"
        ) from None

    try:
        return psycopg.connect(
            dbname=env["POSTGRES_DBNAME"],
            host=env["POSTGRES_HOST"],
            port=env["POSTGRES_PORT"],
            user=env["POSTGRES_USER"],
            password=env["POSTGRES_PASSWORD"],
            connect_timeout=int(env["POSTGRES_CONNECT_TIMEOUT"]),
            autocommit=True,
        )
    except psycopg.Error as e:
        cause = " ".join(str(e).split()) or type(e).__name__
        raise StoreUnavailable(
            f"the PostgreSQL store {label} cannot be reached: {cause}; expected a server "
            "that answers within "
            f"{env['POSTGRES_CONNECT_TIMEOUT']} s and accepts this user and password"
        ) from None


@dataclass(frozen=True)
class BattleInfo:
    """A battle as the battle index lists it (``projections.index.BattleRow``)."""

    battle: UUID
    ruleset: str
    label: str
    notification_id: int  # its place in the index: battles are listed oldest first
    version: int = 0  # events recorded
    commands: int = 0  # commands that stand
    voided: int = 0  # commands voided
    sealed: bool = False
    dice: str = ""
    ruleset_version: str = ""
    first_recorded: str = ""
    last_recorded: str = ""
    verified: bool | None = None  # verify's verdict at this version; None: not verified at it


@dataclass(frozen=True)
class Head:
    """Where a battle's chain ends: what the next record chains to."""

    version: int
    hash: bytes
    sealed: bool
    indexed: bool = True  # the battle has an index row to move (a seal record has none)


PAGE = 1000  # records read at a time: a read's memory is flat in the battle's length


class BattleStore(Application[UUID]):
    """The battles of one store."""

    name = "blowbyblow"

    def __init__(self, db: str | os.PathLike[str] | None = None) -> None:
        spec = str(db) if db is not None else os.environ.get("BXB_DB") or str(default_db_path())
        self.where = store_label(spec)  # as it may be printed: no password
        env = persistence_env(db)
        self.spec = str(db) if db is not None else None
        postgres = env["PERSISTENCE_MODULE"] == "eventsourcing.postgres"
        first = _connect_postgres(env, self.where) if postgres else None
        try:
            with _store_errors(self.where):
                super().__init__(env=env)
                if first is not None:
                    self._create_tables(first)
        finally:
            if first is not None:
                first.close()
        if env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
            self.vault = SeedVault(Path(env["SQLITE_DBNAME"]).with_suffix(".seeds"))
        elif postgres:
            self.vault = SeedVault(default_db_path().parent / "seeds")
        else:
            self.vault = SeedVault(None)
        self._open_read_models()

    def _create_tables(self, connection: Any) -> None:
        """eventsourcing's tables, made once: stores opened at the same moment (a server's
        workers, two judges) would otherwise race in CREATE TABLE IF NOT EXISTS and fail with
        "tuple concurrently updated"; under one advisory lock, one makes them, the others find
        them made."""
        connection.execute("SELECT pg_advisory_lock(%s)", (_SCHEMA_LOCK,))
        recorder: Any = self.recorder  # PostgresApplicationRecorder
        try:
            recorder.create_table()
        finally:
            connection.execute("SELECT pg_advisory_unlock(%s)", (_SCHEMA_LOCK,))

    def construct_mapper(self) -> Mapper[UUID]:
        return MsgspecMapper(cipher=self.factory.cipher(), compressor=self.factory.compressor())

    def _open_read_models(self) -> None:
        """The records' hot paths (``replay/store/records.py``) and the read models kept beside the
        log (``replay/store/readmodels.py``); a store written before them gets its index built now."""
        from blowbyblow.replay.store.readmodels import ReadModels

        self.records = records_for(self.recorder)
        self.models = ReadModels(self)
        self._heads: dict[UUID, Head] = {}  # where this process last saw each battle end
        self._heads_lock = threading.Lock()
        if not self.records.built():
            self.models.rebuild()

    # --- reading ---------------------------------------------------------------------------

    def _stored(self, state: bytes) -> bytes:
        """A record's bytes as the mapper encoded them (decrypted, decompressed if configured)."""
        if self.mapper.cipher:
            state = self.mapper.cipher.decrypt(state)
        if self.mapper.compressor:
            state = self.mapper.compressor.decompress(state)
        return state

    def pages(
        self, battle: UUID, *, gt: int = 0, lte: int | None = None, size: int = PAGE
    ) -> Iterator[list[Record]]:
        """The battle's records after position ``gt`` up to ``lte``, ``size`` at a time."""
        while lte is None or gt < lte:
            page = self.records.page(battle, gt, lte, size)
            if not page:
                return
            yield page
            if len(page) < size:
                return
            gt = page[-1][0]

    def decode(self, battle: UUID, page: Sequence[Record]) -> list[Event]:
        """The events of a page of records, decoded straight from their bytes to the game
        system's events (upcast from older formats; UnreadableEvent naming a bad record)."""
        if not page:
            return []
        ruleset = page[0][1].partition("/")[0]
        found = self._decoded(battle, ruleset, page[0][0], [r[2] for r in page])
        return found if found is not None else self._one_by_one(battle, page)

    def _one_by_one(self, battle: UUID, page: Sequence[Record]) -> list[Event]:
        """The slow path: each record read with its topic, upcast from an older format,
        UnreadableEvent naming the first bad one."""
        return [logged_from(battle, p, t, self._stored(s)).event for p, t, s in page]

    def decode_states(
        self, battle: UUID, ruleset: str, rows: Sequence[tuple[int, bytes]]
    ) -> list[Event]:
        """The events of ``rows`` (records' positions and bytes) of a battle of ``ruleset``, each
        decoded in one call straight from its bytes to the system's events. A record in an older
        format, or one that does not decode, sends the rows to the slow path: read again with
        their topics, upcast one by one, UnreadableEvent naming the bad one. The reads to state
        do not read the topics: they lie outside the hash chain, and verification checks them
        against the events (``logged``)."""
        if not rows:
            return []
        found = self._decoded(battle, ruleset, rows[0][0], map(itemgetter(1), rows))
        if found is not None:
            return found
        return self._one_by_one(
            battle, self.records.page(battle, rows[0][0] - 1, rows[-1][0], len(rows))
        )

    def _decoded(
        self, battle: UUID, ruleset: str, first: int, states: Iterable[bytes]
    ) -> list[Event] | None:
        if self.mapper.cipher or self.mapper.compressor:
            states = map(self._stored, states)
        try:
            codec = codec_for(ruleset)
        except BlowByBlowError as e:
            raise UnreadableEvent(battle, first, str(e)) from e
        return codec.decode_stored(states, CURRENT_FORMAT)

    def logged(self, battle: UUID, *, gt: int = 0, lte: int | None = None) -> Iterator[LoggedEvent]:
        """The battle's records after ``gt`` up to ``lte``, one by one, exactly as stored (the
        event's bytes and the hash chain's fields): what verification reads."""
        for page in self.pages(battle, gt=gt, lte=lte):
            for position, topic, state in page:
                yield logged_from(battle, position, topic, self._stored(state))

    def read(self, battle: UUID, *, lte: int | None = None) -> list[LoggedEvent]:
        """Every event of ``battle`` up to position ``lte``; UnreadableEvent at the first bad one."""
        return list(self.logged(battle, lte=lte))

    def read_stored(self, battle: UUID) -> Sequence[StoredEvent]:
        return self.recorder.select_events(battle)

    def version(self, battle: UUID) -> int:
        last = self.records.head(battle)
        return last[0] if last else 0

    def last(self, battle: UUID) -> LoggedEvent | None:
        last = self.records.head(battle)
        return (
            None if last is None else logged_from(battle, last[0], last[1], self._stored(last[2]))
        )

    def head(self, battle: UUID) -> Head | None:
        """Where the battle's log ends, read from the log itself."""
        last = self.records.head(battle)
        if last is None:
            return None
        envelope = _ENVELOPE.decode(self._stored(last[2]))
        head = Head(last[0], envelope.hash, last[1].endswith("/BattleSealed"))
        self._saw(battle, head)
        return head

    def _saw(self, battle: UUID, head: Head) -> None:
        with self._heads_lock:
            if len(self._heads) > 4096:
                self._heads.pop(next(iter(self._heads)))
            self._heads[battle] = head

    def battles(self) -> list[BattleInfo]:
        """Every battle in the store, oldest first (by when its first event was recorded), from
        the battle index: one row per battle, each checked against the end of its log."""
        return [
            BattleInfo(
                battle=row.battle,
                ruleset=row.ruleset,
                label=row.label,
                notification_id=n,
                version=row.version,
                commands=row.commands,
                voided=row.voided,
                sealed=row.sealed,
                dice=row.dice,
                ruleset_version=row.ruleset_version,
                first_recorded=row.first_recorded,
                last_recorded=row.last_recorded,
                verified=None if abs(row.verified) != row.version else row.verified > 0,
            )
            for n, row in enumerate(self.models.rows(), start=1)
        ]

    def state_at(self, battle: UUID, position: int | None = None) -> Reading:
        """The battle's state right after the event at ``position`` (its last when None), from
        the nearest snapshot and the events after it: ``fold_battle`` over the whole log, in
        time bounded by the snapshot interval. Voided commands are left out wherever they are
        voided. ``ValueError`` when the battle has no such position."""
        return self.models.state_at(battle, position)

    def note_verified(self, battle: UUID, version: int, ok: bool) -> None:
        """Verify's verdict on the battle as it read it at ``version`` (kept in the index)."""
        self.models.note_verified(battle, version, ok)

    def rebuild_read_models(self) -> int:
        """Every read model rebuilt from the log, from zero; the number of battles."""
        return self.models.rebuild()

    # --- writing ---------------------------------------------------------------------------

    def append(
        self,
        battle: UUID,
        ruleset: str,
        expected_version: int,
        events: Sequence[Event],
        *,
        recorded_at: Sequence[str] | None = None,
    ) -> list[LoggedEvent]:
        """Append one command's events at ``expected_version + 1`` onward, in one transaction,
        with the battle index (and the battle's voids and snapshots) kept in the same one.

        Raises StaleVersion, writing nothing, when the battle is no longer at
        ``expected_version``; StoreError when the battle is sealed."""
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")
        times = list(recorded_at or [now] * len(events))

        def make(head: Head) -> tuple[list[LoggedEvent], list[LoggedEvent]]:
            return _chain(battle, ruleset, (head.version, head.hash), events, times), []

        return self._write(battle, expected_version, make)

    def _write(
        self,
        battle: UUID,
        expected: int,
        make: Callable[[Head], tuple[list[LoggedEvent], list[LoggedEvent]]],
    ) -> list[LoggedEvent]:
        """Write what ``make`` chains after the battle's head (and the records it adds beside
        the battle), in one transaction guarded by the battle index row. The head comes from
        this process's last sight of the battle, or its index row, so appending reads nothing
        from the log; when the row does not match (someone wrote since, or edited the database
        behind the store), the log's own head decides: stale, or the row is repaired first."""
        head = self._heads.get(battle)
        if head is None:  # a new battle needs no look: its index row's creation is the guard
            head = Head(0, GENESIS, False) if expected == 0 else self.models.head(battle)
        for attempt in (1, 2):
            if head is None or head.version != expected or attempt == 2:
                head = self.head(battle) or Head(0, GENESIS, False)
                if head.version != expected:
                    raise StaleVersion(
                        f"battle {battle} is at version {head.version}, not {expected}: "
                        "someone else has recorded since you read it; nothing was written"
                    )
                if attempt == 2:
                    repaired = self.models.repair(battle, head)
                    head = dataclasses.replace(head, indexed=repaired is not None)
            if head.sealed:
                raise StoreError(f"battle {battle} is sealed; nothing more can be recorded in it")
            logged, beside = make(head)
            if not logged:
                return []
            try:
                with _store_errors(self.where):
                    self.save(
                        *logged, *beside, write=self.models.write_for(battle, head, logged, beside)
                    )
                done = True
            except _Moved:
                done = False
            except (IntegrityError, RecordConflictError) as e:
                self._heads.pop(battle, None)
                raise StaleVersion(
                    f"battle {battle} moved past version {expected} while writing; "
                    "nothing was written"
                ) from e
            if done:
                last = logged[-1]
                self._saw(
                    battle, Head(last.position, last.hash, isinstance(last.event, BattleSealed))
                )
                return logged
            self._heads.pop(battle, None)
        raise StaleVersion(
            f"battle {battle} moved past version {expected} while writing; nothing was written"
        )

    def save(self, *objs: Any, **kwargs: Any) -> list[Recording[UUID]]:
        """Write one transaction. The store's own writes (``write``, from ``_write``) go in with
        the read models they move, guarded by the battle's index row (``_Moved`` when it no
        longer matches); anything else as eventsourcing saves it."""
        write = kwargs.pop("write", None)
        if write is None:
            return super().save(*objs, **kwargs)
        if not self.records.write(write):
            raise _Moved
        return []

    def seal(self, battle: UUID, ruleset: str, sealed: BattleSealed) -> LoggedEvent:
        """Append the seal to the battle and to its seal record, in one transaction."""
        version = sealed.checkpoint.length
        last = self.head(battle)
        if (
            last is None
            or last.version != version
            or last.hash.hex() != sealed.checkpoint.last_hash
        ):
            raise StaleVersion(f"battle {battle} is not at the checkpoint's version {version}")
        if last.sealed:
            raise StoreError(f"battle {battle} is sealed already")
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")

        def make(head: Head) -> tuple[list[LoggedEvent], list[LoggedEvent]]:
            if head.hash != last.hash:
                raise StaleVersion(f"battle {battle} is not at the checkpoint's version {version}")
            in_battle = _chain(battle, ruleset, (head.version, head.hash), [sealed], [now])
            record = _chain(seal_id(battle), ruleset, (0, GENESIS), [sealed], [now])
            return in_battle, record

        [in_battle] = self._write(battle, version, make)
        return in_battle

    def import_events(self, battle: UUID, logged: Sequence[LoggedEvent]) -> None:
        """Write a verified battle read from an export, hashes and times as they were,
        with its seal record if sealed, in one transaction."""
        extra: list[LoggedEvent] = []
        if logged and isinstance(logged[-1].event, BattleSealed):
            last = logged[-1]
            [record] = chain(seal_id(battle), last.ruleset, None, [last.event], [last.recorded_at])
            extra.append(record)
        self._write(battle, 0, lambda head: (list(logged), extra))

    def _save(self, battle: UUID, expected_version: int, logged: Sequence[Any]) -> None:
        """Records written as they are, in one transaction, as eventsourcing writes them (no
        read model moves): what a test of the database's own guard needs."""
        try:
            with _store_errors(self.where):
                self.save(*logged)
        except (IntegrityError, RecordConflictError) as e:
            raise StaleVersion(
                f"battle {battle} moved past version {expected_version} while writing; "
                "nothing was written"
            ) from e


class _Moved(Exception):
    """The battle's index row was not where a write expected it: nothing was written."""


def seal_id(battle: UUID) -> UUID:
    return uuid5(battle, "seal")


def chain(
    battle: UUID,
    ruleset: str,
    after: LoggedEvent | None,
    events: Sequence[Event],
    recorded_at: Sequence[str],
) -> list[LoggedEvent]:
    """LoggedEvents for ``events``, recorded at the times ``recorded_at``, each hash-chained to
    the one before: the first after ``after`` (None: at the start of a new chain)."""
    if after is None:
        return _chain(battle, ruleset, (0, GENESIS), events, recorded_at)
    return _chain(battle, ruleset, (after.position, after.hash), events, recorded_at)


def _chain(
    battle: UUID,
    ruleset: str,
    after: tuple[int, bytes],
    events: Sequence[Event],
    recorded_at: Sequence[str],
) -> list[LoggedEvent]:
    """``chain`` after the record at position ``after[0]`` whose hash is ``after[1]``."""
    position, prev = after
    logged: list[LoggedEvent] = []
    head = _CHAIN_PREFIX + battle.bytes
    current = CURRENT_FORMAT.to_bytes(4, "big")
    for event, at in zip(events, recorded_at, strict=True):
        position += 1
        data = encode(event)
        stamp = at.encode()
        # chain_hash of this record's Link, written out: appending is the hot path
        digest = hashlib.sha256(
            b"".join(
                (
                    head,
                    position.to_bytes(8, "big"),
                    prev,
                    current,
                    len(stamp).to_bytes(4, "big"),
                    stamp,
                    data,
                )
            )
        ).digest()
        logged.append(
            LoggedEvent(
                originator_id=battle,
                originator_version=position,
                ruleset=ruleset,
                event=event,
                data=data,
                prev_hash=prev,
                hash=digest,
                recorded_at=at,
            )
        )
        prev = digest
    return logged


def stored_of(logged: LoggedEvent, mapper: Mapper[UUID]) -> Stored:
    """A record as the events table keeps it: its envelope's bytes under its topic."""
    state = encode(
        Envelope(
            v=logged.format,
            event=msgspec.Raw(logged.data),
            prev=logged.prev_hash,
            hash=logged.hash,
            at=logged.recorded_at,
        )
    )
    if mapper.compressor:
        state = mapper.compressor.compress(state)
    if mapper.cipher:
        state = mapper.cipher.encrypt(state)
    return (logged.originator_id, logged.position, topic_of(logged.ruleset, logged.event), state)


def battle_id_for(started: BattleStarted[Any]) -> UUID:
    """Deterministic: the same first event always names the same battle."""
    return uuid5(BATTLE_NAMESPACE, hashlib.sha256(encode(started)).hexdigest())
