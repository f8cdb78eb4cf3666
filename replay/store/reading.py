"""Reading a store: a battle's records a page at a time, decoded straight to its events; its
head; the battle index; the state at any position through the read models; a battle found by
the name a user gives it.

``StoreReader`` is the reading half of ``BattleStore`` (``log.py``), and imports nothing of
eventsourcing: ``BattleStore`` is eventsourcing's application and reads through it, while
``bxb at`` opens a SQLite store with a reader alone (``open_sqlite``), so that it starts in about
the time Python takes to start with msgspec and sqlite3 (docs/store.md, "Reading")."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

import msgspec

from blowbyblow.domain.core import BlowByBlowError, Event
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.replay.engine.codec import codec_of
from blowbyblow.replay.engine.formats import CURRENT_FORMAT
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.store.chain import (
    ENVELOPE_DECODER,
    Head,
    LoggedEvent,
    logged_from,
    newer_format,
)
from blowbyblow.replay.store.find import resolve_battle
from blowbyblow.replay.store.persistence import NewerRecord, UnreadableEvent, store_label
from blowbyblow.replay.store.records import Record, Records

if TYPE_CHECKING:
    from blowbyblow.replay.store.readmodels import Reading, ReadModels


class BattleInfo(msgspec.Struct, frozen=True):
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


class _Plain:
    """Records stored as the mapper encoded them, with neither cipher nor compressor."""

    cipher = None
    compressor = None


class StoreReader:
    """The reads of a store, over its ``Records``. ``BattleStore`` is one; ``open_sqlite`` makes
    one of a SQLite file alone."""

    where: str  # the store, as it may be printed
    records: Records
    models: ReadModels
    # eventsourcing's mapper on a BattleStore (its cipher and compressor, if configured)
    mapper: Any = _Plain()
    # the game system of an id: the registry's (every installed system), unless told otherwise
    system: Callable[[str], AnyGameSystem] = staticmethod(get_game_system)

    def _open_reading(self, records: Records) -> None:
        """The records' hot paths (``replay/store/records.py``) and the read models kept beside the
        log (``replay/store/readmodels.py``)."""
        from blowbyblow.replay.store.readmodels import ReadModels

        self.records = records
        self.models = ReadModels(self)
        self._heads: dict[UUID, Head] = {}  # where this process last saw each battle end
        self._heads_lock = threading.Lock()

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
            codec = codec_of(self.system(ruleset))
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

    def version(self, battle: UUID) -> int:
        last = self.records.head(battle)
        return last[0] if last else 0

    def last(self, battle: UUID) -> LoggedEvent | None:
        last = self.records.head(battle)
        return (
            None if last is None else logged_from(battle, last[0], last[1], self._stored(last[2]))
        )

    def superseded_by(self, battle: UUID, rulings: Sequence[int] | None = None) -> UUID | None:
        """The child a judge's ruling made ``battle`` give way to (``superseding``), or None:
        of its rulings (their positions: ``rulings``, else found by the records' topics), read
        one by one, newest first, only as far as that rule looks. Not its log."""
        from blowbyblow.domain.judging import RulingGiven
        from blowbyblow.projections.disputes import superseding

        given = (
            event
            for position in reversed(self.records.ruled(battle) if rulings is None else rulings)
            for event in (e.event for e in self.logged(battle, gt=position - 1, lte=position))
            if isinstance(event, RulingGiven)
        )
        child = superseding(given)
        return None if child is None else UUID(child)

    def newer_record(self, battle: UUID, *, event_type: bool) -> str | None:
        """What of the battle's last record a newer blowbyblow wrote (its format; its event
        type too when ``event_type``, which loads the battle's game system), or None. A release
        cannot append after a record it cannot read, so a newer one's records end the log."""
        last = self.records.head(battle)
        if last is None:
            return None
        try:
            if event_type:
                logged_from(battle, last[0], last[1], self._stored(last[2]))
            elif (v := ENVELOPE_DECODER.decode(self._stored(last[2])).v) > CURRENT_FORMAT:
                return newer_format(v)
        except NewerRecord as e:
            return e.what
        except (BlowByBlowError, msgspec.MsgspecError):  # damaged: bxb verify says how
            return None
        return None

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

    def find(self, ref: str | None) -> UUID:
        """The battle ``ref`` names: its id, a unique id prefix or its label, in one indexed
        lookup (the latest battle when None); BattleNotFound otherwise."""
        return resolve_battle(self, ref)

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


# eventsourcing's settings that change how records are stored: a store opened with one of them
# (here or under the application's name) is read through eventsourcing's application
TRANSCODING = ("CIPHER_TOPIC", "COMPRESSOR_TOPIC", "APPLICATION_RECORDER_TOPIC")


def open_sqlite(
    path: str, system: Callable[[str], AnyGameSystem] | None = None
) -> StoreReader | None:
    """A reader of the SQLite store at ``path`` (a file that exists) as ``BattleStore`` left it,
    opened without eventsourcing and without taking the write lock; None when the store must
    be opened as a ``BattleStore`` first: it lacks a table or an index of this release, its
    index was never built, or records are stored ciphered or compressed. ``system`` names the
    game systems (default: the registry)."""
    from blowbyblow.replay.store.schema import check_sqlite_store
    from blowbyblow.replay.store.sqlite import SQLiteRecords

    check_sqlite_store(Path(path), path)
    if any(os.environ.get(k) or os.environ.get(f"BLOWBYBLOW_{k}") for k in TRANSCODING):
        return None
    records = SQLiteRecords(path, "stored_events", None)
    if not records.has_schema() or not records.built():
        return None
    reader = StoreReader()
    reader.where = store_label(path)
    if system is not None:
        reader.system = system
    reader._open_reading(records)
    return reader


__all__ = ["PAGE", "BattleInfo", "StoreReader", "open_sqlite"]
