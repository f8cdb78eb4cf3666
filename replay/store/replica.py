"""Reads from a PostgreSQL streaming replica, writes on the primary (issue 25, ``bxb serve
--read-db``), and no read older than the reader's own last write.

A streaming replica replays the primary's write-ahead log a little behind it. A phone that has
just written a command and reads the battle back must see that command, whichever replica and
server process its read reaches. So each write carries its place in the log: after a write
commits on the primary, the primary's WAL insert position (``pg_current_wal_insert_lsn()``, at
or past the write's commit record) is put in the request's ``Freshness``, which the front end
hands back to the writer (the server: a cookie); a later read that carries it is served by the
replica only once the replica has replayed that far (``pg_last_wal_replay_lsn()``), after
waiting up to ``WAIT`` seconds, and by the primary otherwise. A read that carries nothing (no
write of its own to see) is served by the replica as it is.

The replica's position is remembered once seen (it only moves forward), so most reads ask the
replica nothing more than their own query."""

from __future__ import annotations

import threading
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from blowbyblow.replay.store.log import BattleStore

WAIT = 0.1  # seconds a read waits for the replica to replay its reader's last write
POLL = 0.005  # seconds between two looks at how far the replica has replayed


def lsn_value(text: str) -> int:
    """A log sequence number as PostgreSQL prints it (``16/B374D848``), as a number."""
    high, _, low = text.partition("/")
    return (int(high, 16) << 32) | int(low, 16)


def lsn_text(value: int) -> str:
    return f"{value >> 32:X}/{value & 0xFFFFFFFF:X}"


@dataclass
class Freshness:
    """One request's: how far in the primary's log its reads must see (``after``: its reader's
    last write), and where this request's own writes reached (``written``, 0: none)."""

    after: int = 0
    written: int = 0


FRESHNESS: ContextVar[Freshness | None] = ContextVar("bxb_freshness", default=None)


class Replica:
    """The primary store, written to, and a streaming replica of it, read from."""

    def __init__(self, primary: BattleStore, replica: BattleStore, *, wait: float = WAIT) -> None:
        self.primary = primary
        self.replica = replica
        self.wait = wait
        self._replayed = 0  # how far the replica was last seen to have replayed
        self._lock = threading.Lock()
        self.served = 0  # reads served by the replica
        self.fell_back = 0  # reads served by the primary: the replica had not replayed enough
        primary.after_write = self._wrote

    def _records(self, store: BattleStore) -> Any:
        return store.records

    def _wrote(self) -> None:
        """After a write on the primary: the request's reads from now on see it."""
        fresh = FRESHNESS.get()
        if fresh is None:
            return
        found = self._records(self.primary).wal_position()
        if found is not None:
            fresh.written = max(fresh.written, lsn_value(found))
            fresh.after = max(fresh.after, fresh.written)

    def replayed(self) -> int:
        """How far the replica has replayed the primary's log (asked now)."""
        found = self._records(self.replica).wal_position(replayed=True)
        if found is None:  # not in recovery: a primary given as --read-db, always current
            return 1 << 63
        with self._lock:
            self._replayed = max(self._replayed, lsn_value(found))
            return self._replayed

    def reads(self) -> BattleStore:
        """The store this request's reads go to: the replica once it has replayed the request's
        reader's last write (waiting up to ``wait`` seconds for it), the primary otherwise."""
        fresh = FRESHNESS.get()
        after = fresh.after if fresh is not None else 0
        if after <= self._replayed:
            self.served += 1
            return self.replica
        deadline = time.monotonic() + self.wait
        while self.replayed() < after:
            if time.monotonic() >= deadline:
                self.fell_back += 1
                return self.primary
            time.sleep(POLL)
        self.served += 1
        return self.replica


__all__ = ["FRESHNESS", "WAIT", "Freshness", "Replica", "lsn_text", "lsn_value"]
