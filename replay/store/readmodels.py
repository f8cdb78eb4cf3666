"""The store's read models, kept beside the log: the battle index (``projections.index``), the
commands each battle voids, and snapshots of each battle's state every ``EVERY`` events
(``projections.snapshots``).

Why materialised read models written with the events, rather than eventsourcing's own
machinery: its snapshots are of aggregates reconstructed by the repository, and a battle's state
is no aggregate but a game system's fold, with voids that reach back into the log; its
``ProjectionRunner`` follows the notification log from another thread and catches up later,
which SQLite's recorder cannot feed (no subscriptions) and which would let ``bxb battles`` list
a battle without its last command. Here each read model moves in the same transaction as the
events that move it (``write_for``), so it is never behind the log; what it holds is derived, so
it can be thrown away and rebuilt from the log at any time (``rebuild``, ``repair``), and a read
checks it against the log's own head before trusting it.

- ``state_at``: the state at any position, from the nearest snapshot at or before it (made by
  this code, standing for the same records, not undone by a later void) and at most ``EVERY``
  events read and folded after it; snapshots a read passes without finding are made then.
- ``write_for``: what a transaction's events change: the index row's growth, the commands they
  void, the snapshots they reach.
- ``rows``: the index, each row checked against the end of its battle's log (a stale row, left
  by an edit of the database behind the store, is rebuilt from the log; a battle whose records
  are gone is dropped).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from uuid import UUID

import msgspec

from blowbyblow.domain.core import BattleStarted, CommandIssued, CommandVoided, Event
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.projections.battle import VoidedCommand, fold_standing
from blowbyblow.projections.index import (
    BattleRow,
    IndexFold,
    growth,
    started_row,
    void_of,
)
from blowbyblow.projections.snapshots import (
    EVERY,
    Snapshot,
    decode_state,
    due,
    fingerprint,
    snapshot_of,
    usable,
)
from blowbyblow.replay.store.chain import ENVELOPE_DECODER, Head, LoggedEvent, stored_of
from blowbyblow.replay.store.persistence import NewerRecord, UnreadableEvent
from blowbyblow.replay.store.records import Write

if TYPE_CHECKING:
    from blowbyblow.replay.store.reading import StoreReader


class Reading(msgspec.Struct, frozen=True):
    """A battle's state right after the event at ``position``."""

    battle: UUID
    system: AnyGameSystem
    position: int
    of: int  # events in the battle
    state: Any
    event: Event  # the event at ``position``
    voided: VoidedCommand | None  # the voided command ``position`` falls in, if any


# A read that folds this many events or more past the nearest snapshot keeps its state as a
# snapshot too (one such per battle, the latest): the state at a battle's end, which the server
# reads on every request and a replay of the store reads for every battle, is then a snapshot
# and the few events recorded since.
HEAD_SNAPSHOT_AFTER = 64


class ReadModels:
    def __init__(self, store: StoreReader) -> None:
        self.store = store
        self.records = store.records

    # --- reading ---------------------------------------------------------------------------

    def head(self, battle: UUID) -> Head | None:
        """Where the index says the battle ends (no read of the log)."""
        row = self.records.row(battle)
        return None if row is None else Head(row.version, row.head, row.sealed)

    def current_row(self, battle: UUID) -> tuple[BattleRow, int]:
        """The battle's index row, checked against the end of its log (rebuilt when it does not
        match), and the battle's version; ValueError when there is no such battle."""
        row, version = self.records.row_and_version(battle)
        if row is None or row.version != version:
            head = self.store.head(battle)
            if head is None:
                raise ValueError(f"no battle {battle} in this store")
            row, version = self.repair(battle, head), head.version
        if row is None:
            raise ValueError(f"{battle} is no battle: its log does not start with BattleStarted")
        return row, version

    def state_at(self, battle: UUID, position: int | None) -> Reading:
        row, version = self.current_row(battle)
        end = version if position is None else position
        if not 1 <= end <= version:
            raise ValueError(f"the battle has events 1 to {version}, not {end}")
        system = self.store.system(row.ruleset)
        voided = self.records.voids(battle) if row.voided else []
        state, event = self.fold_to(battle, system, end, voided)
        void = next((v for v in voided if v.covers(end)), None)
        return Reading(battle, system, end, version, state, event, void)

    def fold_to(
        self,
        battle: UUID,
        system: AnyGameSystem,
        end: int,
        voided: Sequence[VoidedCommand],
        *,
        keep: bool = True,
    ) -> tuple[Any, Event]:
        """The state right after ``end`` and the event there: from the latest usable snapshot,
        then the records after it a snapshot interval at a time. With ``keep``, the snapshots
        passed on the way that were missing are made (best effort: a store that cannot be
        written is only read)."""
        mark = fingerprint(system)
        snapshot = None
        if mark and end >= HEAD_SNAPSHOT_AFTER:
            found = self.records.snapshots(battle, end, mark)
            snapshot = next((s for s in found if usable(s, voided)), None)
        target = _Target(battle, system, end, voided, keep and bool(mark))
        try:
            return self._fold(target, snapshot)
        except _StaleSnapshot:
            return self._fold(target, None)

    def replay(self, row: BattleRow) -> Any:
        """The state of ``row``'s battle at ``row.version`` folded from its log, position 1 on,
        with no snapshot read or made: a replay of the store battle by battle, given its index
        (read once), asks only the log and, for a battle that has any, its voids."""
        system = self.store.system(row.ruleset)
        voided = self.records.voids(row.battle) if row.voided else []
        return self._fold(_Target(row.battle, system, row.version, voided, False), None)[0]

    def _fold(self, target: _Target, snapshot: Snapshot | None) -> tuple[Any, Event]:
        battle, system, end, voided = target.battle, target.system, target.end, target.voided
        made: list[Snapshot] = []
        rows: list[tuple[int, bytes]] = []
        state: Any = None
        event: Event | None = None
        at = 0  # from position 1: the battle's start is read with the first page
        if snapshot is not None:
            at = snapshot.position
            rows = self._rows(battle, at - 1, at)
            if self._hash(rows[0][1]) != snapshot.hash:
                raise _StaleSnapshot
            state = decode_state(system, snapshot.state)
            event = self.store.decode_states(battle, system.id, rows)[0]
        while at < end:
            stop = min(end, (at // EVERY + 1) * EVERY)
            rows = self._rows(battle, at, stop)
            events = self.store.decode_states(battle, system.id, rows)
            if at == 0:
                started = events[0]
                if not isinstance(started, BattleStarted):
                    raise ValueError(
                        f"{battle} is no battle: its log does not start with BattleStarted"
                    )
                state = fold_standing(
                    system, system.initial_state(started.setup), [(2, events[1:])], voided
                )
            else:
                state = fold_standing(system, state, [(at + 1, events)], voided)
            event = events[-1]
            if target.keep and stop % EVERY == 0:
                found = snapshot_of(system, state, stop, self._hash(rows[-1][1]), len(voided))
                if found is not None:
                    made.append(found)
            at = stop
        assert event is not None  # end >= 1: the loop or the snapshot read one
        base = snapshot.position if snapshot is not None else 0
        if target.keep and end % EVERY and end - base >= HEAD_SNAPSHOT_AFTER:
            found = snapshot_of(system, state, end, self._hash(rows[-1][1]), len(voided))
            made.extend([found] if found is not None else [])
        if made:
            self._best_effort(lambda: self.records.put_snapshots(battle, made))
        return state, event

    def _rows(self, battle: UUID, gt: int, lte: int) -> list[tuple[int, bytes]]:
        """Every record after ``gt`` up to ``lte``, positions and bytes; UnreadableEvent naming
        the first missing one (positions are unique: as many rows as positions is all of them)."""
        rows = self.records.states(battle, gt, lte, lte - gt)
        if len(rows) != lte - gt:
            missing = next(
                (p for p, r in zip(range(gt + 1, lte + 1), rows, strict=False) if r[0] != p),
                gt + len(rows) + 1,
            )
            raise UnreadableEvent(battle, missing, "the log has no record there")
        return rows

    def _hash(self, state: bytes) -> bytes:
        return bytes(ENVELOPE_DECODER.decode(self.store._stored(state)).hash)

    # --- writing ---------------------------------------------------------------------------

    def write_for(
        self,
        battle: UUID,
        head: Head,
        logged: Sequence[LoggedEvent],
        beside: Sequence[LoggedEvent],
    ) -> Write:
        """One transaction: ``logged`` chained after ``head`` (and ``beside``, records of
        another chain such as the seal record), with what they change in the read models."""
        mapper = self.store.mapper
        records = [stored_of(e, mapper) for e in (*logged, *beside)]
        first, last = logged[0], logged[-1]
        start = None
        indexed = head.indexed
        if head.version == 0:
            indexed = isinstance(first.event, BattleStarted)
            if isinstance(first.event, BattleStarted):
                start = started_row(battle, first.event, first.recorded_at)
        voids = self._voids(battle, head, logged) if indexed else []
        events = [e.event for e in logged]
        return Write(
            battle=battle,
            expected=head.version,
            prev=head.hash,
            records=records,
            growth=growth(last.position, last.hash, events, len(voids), last.recorded_at),
            start=start,
            indexed=indexed,
            voids=voids,
            snapshots=self._snapshots(battle, head, logged, voids) if indexed else [],
        )

    def _voids(
        self, battle: UUID, head: Head, logged: Sequence[LoggedEvent]
    ) -> list[VoidedCommand]:
        """The commands the ``CommandVoided`` among ``logged`` void, placed as
        ``voided_commands`` places them over the whole log, from the few records they name."""
        if CommandVoided not in {type(e.event) for e in logged}:
            return []
        already = self.records.voids(battle) if head.version else []
        batch = {e.position: e.event for e in logged}
        found: list[VoidedCommand] = []
        for e in logged:
            void = e.event
            if not isinstance(void, CommandVoided):
                continue
            issued = self._event_at(battle, void.position, batch)
            placed = void_of(
                void,
                e.position,
                issued.index if isinstance(issued, CommandIssued) else None,
                self._boundary_after(battle, void.position, head.version, batch) or e.position,
                [*already, *found],
            )
            if placed is not None:
                found.append(placed)
        return found

    def _event_at(self, battle: UUID, position: int, batch: dict[int, Event]) -> Event | None:
        if position in batch:
            return batch[position]
        if position < 1:
            return None
        page = self.records.page(battle, position - 1, position, 1)
        return self.store.decode(battle, page)[0] if page else None

    def _boundary_after(
        self, battle: UUID, position: int, stored: int, batch: dict[int, Event]
    ) -> int | None:
        """The first CommandIssued or CommandVoided after ``position``."""
        if 0 < position < stored:
            for at, topic in self.records.topics(battle, position, stored + 1):
                if topic.endswith(("/CommandIssued", "/CommandVoided")):
                    return at
        for at in sorted(p for p in batch if p > position):
            if isinstance(batch[at], CommandIssued | CommandVoided):
                return at
        return None

    def _snapshots(
        self,
        battle: UUID,
        head: Head,
        logged: Sequence[LoggedEvent],
        voids: Sequence[VoidedCommand],
    ) -> list[Snapshot]:
        """The snapshots ``logged`` reaches: the state at each multiple of ``EVERY`` among them."""
        if head.version // EVERY == logged[-1].position // EVERY:
            return []  # most appends: no multiple of EVERY among them
        wanted = set(due(head.version, logged[-1].position))
        if not wanted:
            return []
        system = self.store.system(logged[0].ruleset)
        if not fingerprint(system):
            return []
        voided = [*(self.records.voids(battle) if head.version else []), *voids]
        if head.version:
            state, _ = self.fold_to(battle, system, head.version, voided, keep=False)
            rest = list(logged)
        else:
            started = logged[0].event
            assert isinstance(started, BattleStarted)
            state, rest = system.initial_state(started.setup), list(logged[1:])
        made: list[Snapshot] = []
        at = rest[0].position if rest else 0
        while rest:
            cut = next((i + 1 for i, e in enumerate(rest) if e.position in wanted), len(rest))
            part, rest = rest[:cut], rest[cut:]
            state = fold_standing(system, state, [(at, [e.event for e in part])], voided)
            at = part[-1].position + 1
            if part[-1].position in wanted:
                found = snapshot_of(system, state, part[-1].position, part[-1].hash, len(voided))
                if found is not None:
                    made.append(found)
        return made

    # --- keeping the models true to the log -------------------------------------------------

    def repair(self, battle: UUID, head: Head | None) -> BattleRow | None:
        """The battle's index row and voids rebuilt from its whole log (streamed), its
        snapshots dropped; None (and no row) when it is no battle or has no record left."""
        fold = IndexFold(battle)
        if head is not None:
            for logged in self.store.logged(battle, lte=head.version):
                fold.add(logged.position, logged.event, logged.hash, logged.recorded_at)
        result = fold.result()
        if result is None:
            self._best_effort(lambda: self.records.drop(battle))
            return None
        row, voids = result
        self._best_effort(lambda: self.records.replace(row, voids))
        return row

    def rows(self) -> list[BattleRow]:
        """The index, oldest battle first, each row checked against the end of its log."""
        out: list[BattleRow] = []
        for row, actual in self.records.rows():
            if actual is None:
                self._best_effort(lambda b=row.battle: self.records.drop(b))
                continue
            if actual != row.version:
                try:
                    fixed = self.repair(row.battle, self.store.head(row.battle))
                except NewerRecord:  # listed as it was; its reader says what is newer
                    fixed = row
                if fixed is None:
                    continue
                row = fixed
            out.append(row)
        return out

    def note_verified(self, battle: UUID, version: int, ok: bool) -> None:
        verdict = version if ok else -version
        row = self.records.row(battle)
        if row is not None and row.version == version and row.verified != verdict:
            self._best_effort(lambda: self.records.set_verified(battle, version, verdict))

    def rebuild(self) -> int:
        """Every read model rebuilt from the log, from zero: the index row and voids of every
        battle, and the snapshots of every battle long enough to have any."""
        self.records.clear()
        count = 0
        for battle in self.records.starts():
            head = self.store.head(battle)
            row = self.repair(battle, head)
            if row is None or head is None:
                continue
            count += 1
            if head.version >= EVERY:
                system = self.store.system(row.ruleset)
                voided = self.records.voids(battle) if row.voided else []
                self.fold_to(battle, system, head.version, voided)
        self.records.mark_built(True)
        return count

    def _best_effort(self, write: Any) -> None:
        """A read model's write from a read: skipped when the store cannot be written now (read
        only, locked): the model is derived, and the next read makes it again."""
        try:
            write()
        except Exception as e:
            # imported on this path only: a store is read without eventsourcing (reading.py)
            from eventsourcing.persistence import PersistenceError

            if not isinstance(e, PersistenceError):
                raise


class _Target(msgspec.Struct, frozen=True):
    """What a fold reads to: the battle, its system, the position, the battle's voids, and
    whether the snapshots it passes without finding are made."""

    battle: UUID
    system: AnyGameSystem
    end: int
    voided: Sequence[VoidedCommand]
    keep: bool


class _StaleSnapshot(Exception):
    """A snapshot's record no longer has the hash it was made after: fold from the start."""


__all__ = ["ReadModels", "Reading"]
