"""Which SQLite files are blowbyblow stores, and of which layout. A store this release makes is
marked in the file's header: SQLite's ``application_id`` (``APPLICATION_ID``, the bytes "bxb!")
says the file is a blowbyblow store, its ``user_version`` the layout of its tables
(``SCHEMA``). A release that changes the layout raises ``SCHEMA``; a store marked above this
release's is refused, in one line, before anything is read or written. A store made before the
mark (both 0) is known by its tables: eventsourcing's events table and the ``bxb_`` ones only,
its events' topics ours (``ruleset/EventType``); it opens as it always has, and is not marked
(a read leaves the file as it was). Anything else (another program's tables or application
id) is no store of ours, and is left as it was.

A PostgreSQL store is marked by its battle index's comment (``PG_MARK``: "blowbyblow store
schema 1"), refused and known alike. eventsourcing keeps no version of its tables' layout (its
``class_version`` upcasts events, not tables; its tracking tables' migration row is for those
alone), so the mark is the database's own, written by hand here (docs/store.md)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

from blowbyblow.replay.store.persistence import StoreUnavailable

APPLICATION_ID = int.from_bytes(b"bxb!", "big")
SCHEMA = 1  # the tables' layout this release reads and writes


class NewerStore(StoreUnavailable):
    """A store whose layout a newer blowbyblow made: an upgrade reads it."""


def check_sqlite_store(path: Path, where: str) -> None:
    """Refuse (``StoreUnavailable``) a SQLite file that is no blowbyblow store, or one of a
    layout newer than this release's. Read only; a file that is not there, is empty or is not
    a database is left to the opening, which says so."""
    try:
        if not path.is_file() or path.stat().st_size == 0:
            return
        con = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    except (OSError, ValueError, sqlite3.Error):
        return
    try:
        (app,) = con.execute("pragma application_id").fetchone()
        (version,) = con.execute("pragma user_version").fetchone()
        tables = {
            r[0]
            for r in con.execute(
                "select name from sqlite_master where type = 'table' and name not like 'sqlite%'"
            )
        }
        first = _first_topic(con) if app == 0 and "stored_events" in tables else None
    except sqlite3.Error:
        return
    finally:
        con.close()
    if app == APPLICATION_ID:
        if version > SCHEMA:
            raise _newer(version, where)
        return
    why = None
    others = sorted(t for t in tables if t != "stored_events" and not t.startswith("bxb_"))
    if app != 0:
        why = f"its SQLite application id is {app:#x}, another program's"
    elif others:
        why = f"it holds another program's tables ({', '.join(others[:3])}{', …' * (len(others) > 3)})"
    elif first is not None and ("/" not in first[0] or ":" in first[0]):
        why = f"its events are another program's (topic {first[0]!r})"
    if why is not None:
        raise StoreUnavailable(
            f"{where} is not a blowbyblow store: {why}; expected a store that bxb made (check "
            "--db or BXB_DB); it is left as it was"
        )


def _first_topic(con: sqlite3.Connection) -> tuple[str] | None:
    """The topic of the events table's first row (None: no row, or no topic column)."""
    try:
        found: tuple[str] | None = con.execute("select topic from stored_events limit 1").fetchone()
    except sqlite3.OperationalError:  # another program's table of that name
        return ("",)
    return found


def _newer(version: int, where: str) -> NewerStore:
    return NewerStore(
        f"the store {where} was written by a newer blowbyblow (store schema {version}; "
        f"this release reads 1 to {SCHEMA}); upgrade blowbyblow to read this store"
    )


# PostgreSQL has no header to mark: the battle index's table carries the mark as its comment
# (COMMENT ON TABLE: kept by pg_dump and a restore, no row nor table of its own to keep).
PG_MARK = "blowbyblow store schema "
_PG_MARKED = re.compile(re.escape(PG_MARK) + r"([0-9]{1,9})")


def check_postgres_store(cur: Any, index: str, events: str, where: str) -> bool:
    """Whether the PostgreSQL store is new (no battle index nor event yet: its tables are to be
    made and marked); refuse (``NewerStore``) one whose mark names a layout newer than this
    release's. ``index``, ``events``: the battle index's and the events' tables, qualified and
    quoted. A store made before the mark (its index without the comment, or with another, or no
    index but events: a release before the read models) opens as it always has, unmarked."""
    if not refuse_newer_postgres(cur, index, where):
        return False
    cur.execute(f"select 1 from {events} limit 1")  # made by eventsourcing's recorder just now
    return cur.fetchone() is None


def refuse_newer_postgres(cur: Any, index: str, where: str) -> bool:
    """Refuse (``NewerStore``) a PostgreSQL store marked above this release's layout; whether
    it has no battle index yet. What a register read alone asks too (``cli/made.py``)."""
    cur.execute(
        "select to_regclass(%s) is null, obj_description(to_regclass(%s), 'pg_class')",
        (index, index),
    )
    missing, comment = cur.fetchone()
    found = _PG_MARKED.fullmatch(comment or "")
    if found is not None and int(found.group(1)) > SCHEMA:
        raise _newer(int(found.group(1)), where)
    return bool(missing)


def mark_postgres(cur: Any, index: str) -> None:
    """Mark a PostgreSQL store of this release's layout (its tables just made)."""
    cur.execute(f"comment on table {index} is '{PG_MARK}{SCHEMA}'")


def mark(cur: sqlite3.Cursor) -> None:
    """Mark the file a blowbyblow store of this release's layout (its tables just made)."""
    cur.execute(f"pragma application_id = {APPLICATION_ID}")
    cur.execute(f"pragma user_version = {SCHEMA}")


__all__ = [
    "APPLICATION_ID",
    "PG_MARK",
    "SCHEMA",
    "NewerStore",
    "check_postgres_store",
    "check_sqlite_store",
    "mark",
    "mark_postgres",
    "refuse_newer_postgres",
]
