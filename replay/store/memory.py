"""The store's records in memory (tests, ``:memory:``): eventsourcing's in-memory recorder, with
the read models in dicts under the recorder's own lock."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from blowbyblow.projections.battle import VoidedCommand
from blowbyblow.projections.index import BattleRow, grown
from blowbyblow.projections.snapshots import EVERY, Snapshot
from blowbyblow.replay.store.records import (
    Record,
    Records,
    Write,
    latest_off_interval,
)


class MemoryRecords(Records):
    """eventsourcing's in-memory recorder (tests, ``:memory:``), with the read models in dicts
    under the recorder's own lock."""

    def __init__(self, recorder: Any) -> None:
        self.recorder = recorder
        self._lock = recorder._database_lock
        self._rows: dict[UUID, BattleRow] = {}
        self._order: list[UUID] = []
        self._voids: dict[UUID, list[VoidedCommand]] = {}
        self._snapshots: dict[UUID, dict[int, Snapshot]] = {}
        self._built = False

    def page(self, battle: UUID, gt: int, lte: int | None, limit: int) -> list[Record]:
        found = self.recorder.select_events(battle, gt=gt, lte=lte, limit=limit)
        return [(s.originator_version, s.topic, s.state) for s in found]

    def head(self, battle: UUID) -> Record | None:
        found = self.recorder.select_events(battle, desc=True, limit=1)
        return None if not found else (found[0].originator_version, found[0].topic, found[0].state)

    def topics(self, battle: UUID, gt: int, lt: int) -> list[tuple[int, str]]:
        found = self.recorder.select_events(battle, gt=gt, lte=lt - 1)
        return [(s.originator_version, s.topic) for s in found]

    def starts(self) -> list[UUID]:
        with self._lock:
            return [
                UUID(str(s.originator_id))
                for s in self.recorder._stored_events
                if s.originator_version == 1 and s.topic.endswith("/BattleStarted")
            ]

    def write(self, w: Write) -> bool:
        from eventsourcing.persistence import StoredEvent

        with self._lock:
            row = self._rows.get(w.battle)
            if w.indexed:
                if w.start is not None:
                    if row is not None:
                        return False
                    row = w.start
                elif row is None or (row.version, row.head, row.sealed) != (
                    w.expected,
                    w.prev,
                    False,
                ):
                    return False
            self.recorder.insert_events(
                [StoredEvent(b, p, t, s) for b, p, t, s in w.records]
            )  # IntegrityError, writing nothing, when a position is taken
            if row is not None:
                if w.battle not in self._rows:
                    self._order.append(w.battle)
                self._rows[w.battle] = grown(row, w.growth)
            self._voids.setdefault(w.battle, []).extend(w.voids)
            self._snapshots.setdefault(w.battle, {}).update({s.position: s for s in w.snapshots})
        return True

    def rows(self) -> list[tuple[BattleRow, int | None]]:
        with self._lock:
            out = []
            for battle in self._order:
                head = self.head(battle)
                out.append((self._rows[battle], None if head is None else head[0]))
            return out

    def row(self, battle: UUID) -> BattleRow | None:
        return self._rows.get(battle)

    def voids(self, battle: UUID) -> list[VoidedCommand]:
        return list(self._voids.get(battle, []))

    def snapshots(self, battle: UUID, upto: int, fingerprint: str) -> list[Snapshot]:
        with self._lock:
            found = [
                s
                for p, s in self._snapshots.get(battle, {}).items()
                if p <= upto and s.fingerprint == fingerprint
            ]
        return sorted(found, key=lambda s: -s.position)[:3]

    def put_snapshots(self, battle: UUID, snapshots: Sequence[Snapshot]) -> None:
        latest = latest_off_interval(snapshots)
        with self._lock:
            kept = self._snapshots.setdefault(battle, {})
            for p in [p for p in kept if latest and p % EVERY and p < latest]:
                del kept[p]
            kept.update({s.position: s for s in snapshots})

    def replace(self, row: BattleRow, voids: Sequence[VoidedCommand]) -> None:
        with self._lock:
            if row.battle not in self._rows:
                self._order.append(row.battle)
            self._rows[row.battle] = row
            self._voids[row.battle] = list(voids)
            self._snapshots.pop(row.battle, None)

    def drop(self, battle: UUID) -> None:
        with self._lock:
            if battle in self._rows:
                self._order.remove(battle)
                del self._rows[battle]
            self._voids.pop(battle, None)
            self._snapshots.pop(battle, None)

    def set_verified(self, battle: UUID, version: int, verdict: int) -> None:
        import msgspec

        with self._lock:
            row = self._rows.get(battle)
            if row is not None and row.version == version:
                self._rows[battle] = msgspec.structs.replace(row, verified=verdict)

    def built(self) -> bool:
        return self._built

    def mark_built(self, built: bool) -> None:
        self._built = built

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()
            self._order.clear()
            self._voids.clear()
            self._snapshots.clear()


__all__ = ["MemoryRecords"]
