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

The records and their hash chain are in ``chain.py``; where a store lives, its configuration and
its errors in ``persistence.py``; each persistence's SQL in ``sqlite.py``, ``postgres.py`` and
``memory.py``; the read models kept beside the log in ``readmodels.py``. The names other code
imports from here are re-exported from those modules.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from uuid import UUID

import msgspec
from eventsourcing.application import Application
from eventsourcing.persistence import (
    IntegrityError,
    Mapper,
    RecordConflictError,
    Recording,
    StoredEvent,
    Transcoder,
)

from blowbyblow.domain.core import Event
from blowbyblow.domain.judging import BattleSealed
from blowbyblow.replay.store.chain import (
    BATTLE_NAMESPACE,
    CHAIN_ALGORITHM,
    GENESIS,
    Envelope,
    Head,
    Link,
    LoggedEvent,
    battle_id_for,
    chain,
    chain_after,
    chain_hash,
    logged_from,
    seal_id,
    stored_of,
    topic_of,
)
from blowbyblow.replay.store.persistence import (
    BUSY_TIMEOUT,
    CONNECT_TIMEOUT,
    PASSWORD_FILE_VARIABLE,
    SCHEMA_LOCK,
    NewerRecord,
    PostgresUrl,
    StaleVersion,
    StoreBusy,
    StoreError,
    StoreUnavailable,
    UnreadableEvent,
    as_store_error,
    connect_postgres,
    default_db_path,
    is_postgres,
    parse_postgres_url,
    persistence_env,
    store_errors,
    store_label,
)
from blowbyblow.replay.store.reading import PAGE, BattleInfo, StoreReader
from blowbyblow.replay.store.records import records_for
from blowbyblow.replay.store.vault import SeedVault


class MsgspecMapper(Mapper[UUID]):
    """Maps LoggedEvent <-> eventsourcing StoredEvent with msgspec instead of a JSON transcoder."""

    def __init__(self, transcoder: Transcoder | None = None, **kwargs: Any) -> None:
        super().__init__(transcoder=transcoder or _Unused(), **kwargs)

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        assert isinstance(domain_event, LoggedEvent)
        battle, position, topic, state = stored_of(domain_event, self)
        return StoredEvent(
            originator_id=battle, originator_version=position, topic=topic, state=state
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


class _Unused(Transcoder):
    def encode(self, obj: Any) -> bytes:  # pragma: no cover
        raise NotImplementedError

    def decode(self, data: bytes) -> Any:  # pragma: no cover
        raise NotImplementedError


class BattleStore(StoreReader, Application[UUID]):
    """The battles of one store: eventsourcing's application, and its reads (``StoreReader``)."""

    name = "blowbyblow"

    def __init__(
        self, db: str | os.PathLike[str] | None = None, *, read_only: bool = False
    ) -> None:
        """The store of ``db``; ``read_only``: a PostgreSQL streaming replica, read and never
        written (no table made, no read model kept; ``replay/store/replica.py``)."""
        spec = str(db) if db is not None else os.environ.get("BXB_DB") or str(default_db_path())
        self.where = store_label(spec)  # as it may be printed: no password
        env = persistence_env(db)
        self.spec = str(db) if db is not None else None
        postgres = env["PERSISTENCE_MODULE"] == "eventsourcing.postgres"
        first = connect_postgres(env, self.where) if postgres else None
        if postgres:  # before the pool's connections are made: they copy psycopg's adapters
            from blowbyblow.replay.store.postgres import typed_arrays

            typed_arrays()
        try:
            with store_errors(self.where):
                super().__init__(env=env)
                if first is not None and not read_only:
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
        self._open_read_models(read_only=read_only and postgres)

    def _create_tables(self, connection: Any) -> None:
        """eventsourcing's tables, made once: stores opened at the same moment (a server's
        workers, two judges) would otherwise race in CREATE TABLE IF NOT EXISTS and fail with
        "tuple concurrently updated"; under one advisory lock, one makes them, the others find
        them made."""
        connection.execute("SELECT pg_advisory_lock(%s)", (SCHEMA_LOCK,))
        recorder: Any = self.recorder  # PostgresApplicationRecorder
        try:
            recorder.create_table()
        finally:
            connection.execute("SELECT pg_advisory_unlock(%s)", (SCHEMA_LOCK,))

    def construct_mapper(self) -> Mapper[UUID]:
        return MsgspecMapper(cipher=self.factory.cipher(), compressor=self.factory.compressor())

    def _open_read_models(self, *, read_only: bool = False) -> None:
        """The records' hot paths (``replay/store/records.py``) and the read models kept beside the
        log (``replay/store/readmodels.py``); a store written before them gets its index built now."""
        self._open_reading(records_for(self.recorder, read_only=read_only, where=self.where))
        self.after_write: Callable[[], None] | None = None  # told after each write commits
        if not read_only and not self.records.built():
            self.models.rebuild()

    # --- reading (StoreReader, replay/store/reading.py) ----------------------------------------

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
            return chain_after(battle, ruleset, (head.version, head.hash), events, times), []

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
                    head = msgspec.structs.replace(head, indexed=repaired is not None)
            if head.sealed:
                raise StoreError(f"battle {battle} is sealed; nothing more can be recorded in it")
            logged, beside = make(head)
            if not logged:
                return []
            try:
                with store_errors(self.where):
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
                if self.after_write is not None:
                    self.after_write()
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
            in_battle = chain_after(battle, ruleset, (head.version, head.hash), [sealed], [now])
            record = chain_after(seal_id(battle), ruleset, (0, GENESIS), [sealed], [now])
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
            with store_errors(self.where):
                self.save(*logged)
        except (IntegrityError, RecordConflictError) as e:
            raise StaleVersion(
                f"battle {battle} moved past version {expected_version} while writing; "
                "nothing was written"
            ) from e


class _Moved(Exception):
    """The battle's index row was not where a write expected it: nothing was written."""


__all__ = [
    "BATTLE_NAMESPACE",
    "BUSY_TIMEOUT",
    "CHAIN_ALGORITHM",
    "CONNECT_TIMEOUT",
    "GENESIS",
    "PAGE",
    "PASSWORD_FILE_VARIABLE",
    "BattleInfo",
    "BattleStore",
    "Envelope",
    "Head",
    "Link",
    "LoggedEvent",
    "MsgspecMapper",
    "NewerRecord",
    "PostgresUrl",
    "StaleVersion",
    "StoreBusy",
    "StoreError",
    "StoreUnavailable",
    "UnreadableEvent",
    "as_store_error",
    "battle_id_for",
    "chain",
    "chain_hash",
    "default_db_path",
    "is_postgres",
    "logged_from",
    "parse_postgres_url",
    "persistence_env",
    "seal_id",
    "store_label",
    "stored_of",
    "topic_of",
]
