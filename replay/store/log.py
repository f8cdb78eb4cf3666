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

import dataclasses
import datetime
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.persistence import (
    IntegrityError,
    Mapper,
    RecordConflictError,
    Recording,
    StoredEvent,
)

from blowbyblow.domain.core import BlowByBlowError, Event
from blowbyblow.domain.judging import BattleSealed
from blowbyblow.replay.engine.codec import codec_for
from blowbyblow.replay.engine.formats import CURRENT_FORMAT
from blowbyblow.replay.store.chain import (
    BATTLE_NAMESPACE,
    CHAIN_ALGORITHM,
    ENVELOPE_DECODER,
    GENESIS,
    Envelope,
    Head,
    Link,
    LoggedEvent,
    MsgspecMapper,
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
from blowbyblow.replay.store.records import Record, records_for
from blowbyblow.replay.store.vault import SeedVault

if TYPE_CHECKING:
    from blowbyblow.replay.store.readmodels import Reading


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


PAGE = 1000  # records read at a time: a read's memory is flat in the battle's length


class BattleStore(Application[UUID]):
    """The battles of one store."""

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
        from blowbyblow.replay.store.readmodels import ReadModels

        self.records = records_for(self.recorder, read_only=read_only)
        self.models = ReadModels(self)
        self._heads: dict[UUID, Head] = {}  # where this process last saw each battle end
        self._heads_lock = threading.Lock()
        self.after_write: Callable[[], None] | None = None  # told after each write commits
        if not read_only and not self.records.built():
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
        envelope = ENVELOPE_DECODER.decode(self._stored(last[2]))
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
                    head = dataclasses.replace(head, indexed=repaired is not None)
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
