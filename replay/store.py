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

import datetime
import hashlib
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit
from uuid import UUID, uuid5

import msgspec
from eventsourcing.application import Application
from eventsourcing.persistence import (
    IntegrityError,
    Mapper,
    PersistenceError,
    RecordConflictError,
    StoredEvent,
    Transcoder,
)

from blowbyblow.domain.core import BattleStarted, BlowByBlowError, Event
from blowbyblow.replay.codec import codec_for, encode
from blowbyblow.replay.formats import CURRENT_FORMAT, upcast
from blowbyblow.replay.judging import BattleSealed, SeedVault
from blowbyblow.replay.registry import game_systems

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


def chain_hash(link: Link) -> bytes:
    """SHA-256 over everything a record holds: the algorithm name, battle id, position, previous
    hash, format version, recording time and the event's canonical bytes."""
    h = hashlib.sha256()
    h.update(CHAIN_ALGORITHM.encode() + b"\x00")
    h.update(link.battle.bytes)
    h.update(link.position.to_bytes(8, "big"))
    h.update(link.prev)
    h.update(link.format.to_bytes(4, "big"))
    stamp = link.at.encode()
    h.update(len(stamp).to_bytes(4, "big") + stamp)
    h.update(link.data)
    return h.digest()


@dataclass(frozen=True)
class LoggedEvent:
    """A battle's event as the store holds it (eventsourcing's domain event protocol)."""

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
        battle = stored_event.originator_id
        position = stored_event.originator_version
        ruleset, _, type_name = stored_event.topic.partition("/")
        try:
            state = stored_event.state
            if self.cipher:
                state = self.cipher.decrypt(state)
            if self.compressor:
                state = self.compressor.decompress(state)
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
    battle: UUID
    ruleset: str
    label: str
    notification_id: int


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

    # --- reading ---------------------------------------------------------------------------

    def read(self, battle: UUID, *, lte: int | None = None) -> list[LoggedEvent]:
        """Every event of ``battle`` up to position ``lte``; UnreadableEvent at the first bad one."""
        return [e for e in self.events.get(battle, lte=lte) if isinstance(e, LoggedEvent)]

    def read_stored(self, battle: UUID) -> Sequence[StoredEvent]:
        return self.recorder.select_events(battle)

    def version(self, battle: UUID) -> int:
        last = self.recorder.select_events(battle, desc=True, limit=1)
        return last[0].originator_version if last else 0

    def last(self, battle: UUID) -> LoggedEvent | None:
        found = list(self.events.get(battle, desc=True, limit=1))
        return found[0] if found and isinstance(found[0], LoggedEvent) else None

    def battles(self) -> list[BattleInfo]:
        """Every battle in the store, oldest first (by when its first event was recorded)."""
        topics = [f"{r}/BattleStarted" for r in sorted(game_systems())]
        found: list[BattleInfo] = []
        start = 1
        while True:
            page = self.recorder.select_notifications(start=start, limit=500, topics=topics)
            for n in page:
                ruleset = n.topic.partition("/")[0]
                label = ""
                try:
                    event = self.mapper.to_domain_event(n)
                    if isinstance(event, LoggedEvent) and isinstance(event.event, BattleStarted):
                        label = event.event.label
                except UnreadableEvent:
                    label = "(unreadable)"
                found.append(
                    BattleInfo(
                        battle=UUID(str(n.originator_id)),
                        ruleset=ruleset,
                        label=label,
                        notification_id=n.id,
                    )
                )
            if len(page) < 500:
                return found
            start = page[-1].id + 1

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
        """Append one command's events at ``expected_version + 1`` onward, in one transaction.

        Raises StaleVersion, writing nothing, when the battle is no longer at
        ``expected_version``; StoreError when the battle is sealed."""
        last = self.last(battle)
        current = last.position if last else 0
        if current != expected_version:
            raise StaleVersion(
                f"battle {battle} is at version {current}, not {expected_version}: "
                "someone else has recorded since you read it; nothing was written"
            )
        if last is not None and isinstance(last.event, BattleSealed):
            raise StoreError(f"battle {battle} is sealed; nothing more can be recorded in it")
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")
        logged = chain(battle, ruleset, last, events, recorded_at or [now] * len(events))
        self._save(battle, expected_version, logged)
        return logged

    def _save(self, battle: UUID, expected_version: int, logged: Sequence[Any]) -> None:
        try:
            with _store_errors(self.where):
                self.save(*logged)
        except (IntegrityError, RecordConflictError) as e:
            raise StaleVersion(
                f"battle {battle} moved past version {expected_version} while writing; "
                "nothing was written"
            ) from e

    def seal(self, battle: UUID, ruleset: str, sealed: BattleSealed) -> LoggedEvent:
        """Append the seal to the battle and to its seal record, in one transaction."""
        version = sealed.checkpoint.length
        last = self.last(battle)
        if (
            last is None
            or last.position != version
            or last.hash.hex() != sealed.checkpoint.last_hash
        ):
            raise StaleVersion(f"battle {battle} is not at the checkpoint's version {version}")
        if isinstance(last.event, BattleSealed):
            raise StoreError(f"battle {battle} is sealed already")
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")
        [in_battle] = chain(battle, ruleset, last, [sealed], [now])
        sid = seal_id(battle)
        [record] = chain(sid, ruleset, None, [sealed], [now])
        self._save(battle, version, [in_battle, record])
        return in_battle

    def import_events(self, battle: UUID, logged: Sequence[LoggedEvent]) -> None:
        """Write a verified battle read from an export, hashes and times as they were,
        with its seal record if sealed, in one transaction."""
        extra: list[LoggedEvent] = []
        if logged and isinstance(logged[-1].event, BattleSealed):
            last = logged[-1]
            [record] = chain(seal_id(battle), last.ruleset, None, [last.event], [last.recorded_at])
            extra.append(record)
        self._save(battle, 0, [*logged, *extra])


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
    prev = after.hash if after is not None else GENESIS
    position = after.position if after is not None else 0
    logged: list[LoggedEvent] = []
    for event, at in zip(events, recorded_at, strict=True):
        position += 1
        data = encode(event)
        link = Link(
            battle=battle, position=position, prev=prev, format=CURRENT_FORMAT, at=at, data=data
        )
        digest = chain_hash(link)
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


def battle_id_for(started: BattleStarted[Any]) -> UUID:
    """Deterministic: the same first event always names the same battle."""
    return uuid5(BATTLE_NAMESPACE, hashlib.sha256(encode(started)).hexdigest())
