"""Live notes between server processes, through PostgreSQL's own LISTEN/NOTIFY (issue 25).

Several ``bxb serve`` processes on one PostgreSQL database serve one tournament behind any
proxy: a note published in one process (a command written, a battle started, a token revoked)
reaches the pages listening to every other process, and each process drops what it kept in
memory that the note makes stale. The database is the broker: each process keeps one connection
that ``LISTEN``s on the channel ``bxb_live`` and one that sends ``pg_notify``; nothing else
runs between the processes. A SQLite store has no such channel: there the server is one process
and its notes stay in it (``web/live.py``).

What travels is a small JSON payload (PostgreSQL allows 8,000 bytes): the sending process's
``origin`` (a process skips its own notes: it delivered them when it published them) and either
a live note with its topics, or a change to the tournament register (``web/tournament.py``
sends these inside the transaction that makes the change, so they are delivered only if it
commits, also from ``bxb tables revoke`` run beside the servers).

Why not eventsourcing's own subscription (``PostgresApplicationRecorder.subscribe``): it tails
the notification log by id, which is gap-free only when every append takes its table lock; the
store's appends take no table lock (``replay/store/postgres.py``), so that several tables write
at once. A note here says what happened; the page reads the battle itself, so a note is a hint,
never the record.

A note is sent after its write has committed, by a thread that sends every note waiting in one
statement: a process killed between the two loses that note (the pages show the write at their
next read). While the listening connection is down (the database restarting) a process cannot
hear others: it retries every second and, once back, forgets the tokens and tables it kept, as
it may have missed their changes."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

import msgspec

from blowbyblow.replay.store.persistence import connect_postgres, persistence_env

CHANNEL = "bxb_live"
MAX_PAYLOAD = 7900  # PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more
RETRY = 1.0  # seconds between attempts to reach the database again


class Payload(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What one notification carries: its origin, and a live note (``note`` and ``topics``) or
    a change to the register (``register``: ``tokens``, or ``place`` of ``battle``)."""

    origin: str
    topics: list[str] = []
    note: dict[str, Any] = {}
    register: str = ""
    battle: str = ""


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(Payload).decode


def payload_text(payload: Payload) -> str:
    return _encode(payload).decode()


class PostgresRelay:
    """One process's two connections to the channel: ``send`` queues a payload for the sending
    thread; the listening thread hands every payload of another origin to ``heard``."""

    def __init__(self, db: str, origin: str, heard: Callable[[Payload], None]) -> None:
        self.db = db
        self.origin = origin
        self._heard = heard
        self._outbox: queue.SimpleQueue[Payload | None] = queue.SimpleQueue()
        self._closed = threading.Event()
        self.listening = threading.Event()  # set while the LISTEN connection is up
        self.lost = 0  # times the listening connection was lost (and made again)
        self.heard = 0  # payloads of other processes handled so far
        self._sender = 0  # the database's process id of this process's sending connection
        self._threads = [
            threading.Thread(target=self._listen, daemon=True, name="bxb-relay-listen"),
            threading.Thread(target=self._send, daemon=True, name="bxb-relay-send"),
        ]
        for thread in self._threads:
            thread.start()

    def send(self, payload: Payload) -> None:
        self._outbox.put(payload)

    def close(self) -> None:
        self._closed.set()
        self._outbox.put(None)
        for thread in self._threads:
            thread.join(timeout=5)

    def _connect(self) -> Any:
        # the password as the store finds it; StoreUnavailable when the server does not answer
        return connect_postgres(persistence_env(self.db), "the live notes' relay")

    def _listen(self) -> None:
        first = True
        while not self._closed.is_set():
            try:
                with self._connect() as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    if not first:  # notes may have been missed meanwhile
                        self._heard(Payload(origin="", register="everything"))
                    first = False
                    self.listening.set()
                    while not self._closed.is_set():
                        for n in conn.notifies(timeout=0.5):
                            if n.pid != self._sender:  # this process's own: delivered already
                                self._hear(n.payload)
            except Exception:  # the database away: try again, saying nothing per try
                self.listening.clear()
                self.lost += 1
                self._closed.wait(RETRY)
        self.listening.clear()

    def _hear(self, text: str) -> None:
        try:
            payload = _decode(text)
        except msgspec.DecodeError:
            return  # not ours: someone else's NOTIFY on the channel
        if payload.origin != self.origin:
            self._heard(payload)
            self.heard += 1

    def _send(self) -> None:
        conn: Any = None
        while True:
            first = self._outbox.get()
            if first is None:
                break
            batch = [first]
            while True:  # everything waiting goes in one statement
                try:
                    more = self._outbox.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._outbox.put(None)
                    break
                batch.append(more)
            texts = [t for t in map(payload_text, batch) if len(t.encode()) <= MAX_PAYLOAD]
            for _attempt in (1, 2):  # a connection found broken is made again once
                try:
                    if conn is None or conn.closed:
                        conn = self._connect()
                        self._sender = conn.info.backend_pid
                    # the texts in the binary format (%b): psycopg's text format quotes a
                    # JSON text's every '"' by a regular expression's substitution, in Python
                    # (a quarter of a million instructions a note, issue 25); the binary one
                    # sends each text's bytes as they are: PostgreSQL receives the same texts
                    conn.execute(
                        "select pg_notify(%s, p) from unnest(%b::text[]) as p", (CHANNEL, texts)
                    )
                    break
                except Exception:  # the database away: these notes are lost
                    if conn is not None:
                        conn.close()
                    conn = None
        if conn is not None:
            conn.close()


def notify_in(cursor: Any, payload: Payload) -> None:
    """Send ``payload`` inside the transaction of ``cursor`` (a PostgreSQL cursor of the
    register's): delivered when, and only if, it commits."""
    cursor.execute("select pg_notify(%s, %s)", (CHANNEL, payload_text(payload)))


__all__ = ["CHANNEL", "Payload", "PostgresRelay", "notify_in", "payload_text"]
