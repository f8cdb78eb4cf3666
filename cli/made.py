"""The store a command makes (`bxb record`, `play`, `demo`, `import`, `serve` on a --db not there
yet), taken away again when the command is refused before it wrote an event: a refusal leaves
no empty store, no folder made for it, and an empty file it was given stays empty."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from blowbyblow.replay.store.log import (
    StoreUnavailable,
    default_db_path,
    is_postgres,
    store_label,
)


@dataclass(frozen=True)
class MadeStore:
    """A SQLite store a command makes: its file was not there (or was there, empty), and
    ``folder``, when set, is the outermost folder made on the way to it."""

    file: Path
    was_empty: bool
    folder: Path | None


MADE: list[MadeStore] = []  # the stores this run of bxb made (GuardedGroup.main empties it)


def store_to_make(spec: str | None) -> MadeStore | None:
    """The SQLite store ``spec`` names (None: the default path) when opening it will make it
    (None: it is there already, or is in memory or on PostgreSQL)."""
    path = str(spec) if spec is not None else str(default_db_path())
    if not path.strip() or path == ":memory:" or is_postgres(path):
        return None
    file = Path(path).expanduser().absolute()
    try:
        if file.exists() and not empty_file(str(file)):
            return None
        folder = None
        for parent in file.parents:
            if parent.exists():
                break
            folder = parent
    except (OSError, ValueError):  # a path the store itself refuses
        return None
    return MadeStore(file, file.exists(), folder)


def discard_made_stores() -> None:
    """A store this run made and wrote no event to (the command stopped on a refusal, or was
    abandoned) is taken away again, with the folders made for it, and an empty file it was
    made in is left empty: a refused command leaves nothing behind."""
    while MADE:
        made = MADE.pop()
        try:
            if not _stored_events(made.file):
                _discard(made)
        except (OSError, ValueError):  # the refusal said why; what cannot be taken away stays
            pass


def _discard(made: MadeStore) -> None:
    mode = made.file.stat().st_mode if made.was_empty else 0
    # unlinked, not emptied: the store's connections, still open, write to what they have
    for extra in ("", "-wal", "-shm", "-journal"):
        made.file.with_name(made.file.name + extra).unlink(missing_ok=True)
    if made.was_empty:
        made.file.touch()
        os.chmod(made.file, mode & 0o7777)
    elif made.folder is not None:
        for folder in made.file.parents:
            folder.rmdir()  # only when empty: else OSError, and it stays
            if folder == made.folder:
                break


def _stored_events(file: Path) -> int:
    """How many events the SQLite file holds (0 when it is not there or has no events table; a
    file that cannot be read counts as holding some: it is kept)."""
    if not file.exists():
        return 0
    try:
        con = sqlite3.connect(f"{file.as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return 1
    try:
        (count,) = con.execute("select count(*) from stored_events").fetchone()
        return int(count)
    except sqlite3.OperationalError as e:
        return 0 if "no such table" in str(e) else 1
    except sqlite3.Error:
        return 1
    finally:
        con.close()


def register_to_read(spec: str | None, table: str) -> str | None:
    """The store a command that only reads opens a register (the tournaments', the rosters') on:
    ``spec``, or an empty one in memory when the SQLite file has no ``table`` yet. Opening the
    register makes its tables, a write where none was asked (`bxb roster list` changed the
    store's bytes). PostgreSQL's and anything not read here: ``spec``, as before."""
    from blowbyblow.replay.store.schema import check_sqlite_store

    path = str(spec) if spec is not None else str(default_db_path())
    if is_postgres(path):  # the register opens it its own way: its mark is read here
        _refuse_newer_postgres(path)
    if not path.strip() or path == ":memory:" or is_postgres(path):
        return spec
    try:  # no store of this release (another program's file, a newer layout): the register says so
        check_sqlite_store(Path(path).expanduser(), path)
        con = sqlite3.connect(f"{Path(path).expanduser().absolute().as_uri()}?mode=ro", uri=True)
    except (sqlite3.Error, ValueError, StoreUnavailable):
        return spec  # the register says what is wrong with it
    try:
        sql = "select 1 from sqlite_master where type = 'table' and name = ?"
        found = con.execute(sql, (table,)).fetchone()
    except sqlite3.Error:
        return spec
    finally:
        con.close()
    return spec if found is not None else ":memory:"


def _refuse_newer_postgres(spec: str) -> None:
    """Refuse (``NewerStore``, one line) a PostgreSQL store a newer blowbyblow laid out, as
    opening its battles would (``replay/store/schema.py``)."""
    from psycopg import sql

    from blowbyblow.replay.store.persistence import connect_postgres, persistence_env
    from blowbyblow.replay.store.schema import refuse_newer_postgres

    where = store_label(spec)
    con = connect_postgres(persistence_env(spec), where)
    try:
        schema = sql.Identifier(os.environ.get("POSTGRES_SCHEMA") or "public")
        index = f"{schema.as_string(con)}.bxb_battles"
        with con.cursor() as cur:
            refuse_newer_postgres(cur, index, where)
    finally:
        con.close()


def empty_file(path: str) -> bool:
    """Whether ``path`` is a file of no bytes (SQLite would make a store in it)."""
    try:
        return Path(path).expanduser().stat().st_size == 0
    except (OSError, ValueError):  # not a file path (a URL, :memory:) or not readable
        return False
