"""Where a store lives and what goes wrong there: the store's errors, the persistence
configuration eventsourcing reads (a SQLite file, ``:memory:`` or a ``postgresql://`` URL), the
URL read as PostgreSQL reads it and printed without its password, and a database's own errors
said as the store's (``StoreBusy``, ``StoreUnavailable``)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit
from uuid import UUID

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.engine.numbers import whole_number


class StoreError(BlowByBlowError):
    pass


class StaleVersion(StoreError):
    pass


class UnreadableEvent(StoreError):
    def __init__(self, battle: UUID | str, position: int, reason: str) -> None:
        super().__init__(f"battle {battle}, position {position}: cannot be read: {reason}")
        self.position = position
        self.reason = reason


class NewerRecord(UnreadableEvent):
    """A record this release cannot read because a newer blowbyblow wrote it (a format above
    ``CURRENT_FORMAT``, an event type this release lacks): no fault in the log, so nothing to
    verify; the remedy is an upgrade."""

    def __init__(self, battle: UUID | str, position: int, what: str) -> None:
        super().__init__(battle, position, f"written by a newer blowbyblow ({what})")
        self.what = what
        self.args = (
            f"battle {battle}, position {position} was written by a newer blowbyblow ({what}); "
            "upgrade blowbyblow to read this store",
        )


def default_db_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "blowbyblow" / "battles.sqlite"


BUSY_TIMEOUT = 5
"""Seconds a SQLite store waits for another program's write lock, with no other writer committing
meanwhile, before giving up (``StoreBusy``); the environment variable ``BXB_BUSY_TIMEOUT`` sets
another."""
BUSY_PATIENCE = 60
"""Seconds a SQLite writer waits in all (or the busy timeout, if longer) while other writers keep
committing: the machine is slow, not stuck, and every writer's turn comes."""
CONNECT_TIMEOUT = 5
"""Seconds to reach a PostgreSQL server before giving up with the cause; a URL's
``?connect_timeout=N`` sets another."""
CONNECTIONS = 40
"""The most connections a PostgreSQL store opens at once: one for each of the server's store
workers (``web/api.py``'s ``WORKERS``), so that a worker never waits for a connection while the
others' appends wait for the database's disk to flush its log (issue 25's tail: eventsourcing's
5 and 10 more kept the sixteenth waiting a whole flush behind them). ``POSTGRES_POOL_SIZE`` and
``POSTGRES_MAX_OVERFLOW`` in the environment set others (eventsourcing's own)."""
PASSWORD_FILE_VARIABLE = "BXB_DB_PASSWORD_FILE"
SCHEMA_LOCK = 0x62786273746F7265  # "bxbstore": the advisory lock held while creating tables


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
    seconds = whole_number(given)
    if seconds is None or not 0 < seconds <= 3600:
        raise StoreUnavailable(
            f"BXB_BUSY_TIMEOUT={given!r}: expected a whole number of seconds, 1 to 3600"
        )
    return str(seconds)


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
    from blowbyblow.replay.store.schema import check_sqlite_store  # imports this module

    check_sqlite_store(path, spec)
    return path


def _overflow() -> str:
    """The connections opened past the pool's size, up to ``CONNECTIONS`` in all: none past a
    size the environment sets above it (a pool smaller than its size is refused), and
    eventsourcing's 10 beside a size that is no number, which it refuses by name."""
    try:
        size = int(os.environ.get("POSTGRES_POOL_SIZE") or 5)
    except ValueError:
        return "10"
    return str(max(0, CONNECTIONS - size))


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
            # eventsourcing keeps 5 and opens up to 10 more; up to CONNECTIONS here
            "POSTGRES_MAX_OVERFLOW": os.environ.get("POSTGRES_MAX_OVERFLOW") or _overflow(),
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
    from eventsourcing.persistence import PersistenceError  # an error's path: imported late

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
def store_errors(where: str) -> Iterator[None]:
    """Database errors raised as StoreError (a version conflict is left to the caller)."""
    try:
        yield
    except Exception as e:
        # eventsourcing's errors imported on an error's path only: a store is read without it
        from eventsourcing.persistence import PersistenceError, RecordConflictError

        if isinstance(e, RecordConflictError) or not isinstance(
            e, PersistenceError | sqlite3.Error
        ):
            raise
        mapped = as_store_error(e, where)
        assert mapped is not None
        raise mapped from e


def connect_postgres(env: dict[str, str], label: str) -> Any:
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


__all__ = [
    "BUSY_PATIENCE",
    "BUSY_TIMEOUT",
    "CONNECT_TIMEOUT",
    "PASSWORD_FILE_VARIABLE",
    "SCHEMA_LOCK",
    "NewerRecord",
    "PostgresUrl",
    "StaleVersion",
    "StoreBusy",
    "StoreError",
    "StoreUnavailable",
    "UnreadableEvent",
    "as_store_error",
    "connect_postgres",
    "default_db_path",
    "is_postgres",
    "parse_postgres_url",
    "persistence_env",
    "store_errors",
    "store_label",
]
