"""Live notes between server processes, through PostgreSQL's own LISTEN/NOTIFY (issue 25).

Several ``bxb serve`` processes on one PostgreSQL database serve one tournament behind any
proxy: a note published in one process (a command written, a battle started, a token revoked)
reaches the pages listening to every other process, and each process drops what it kept in
memory that the note makes stale. The database is the broker: each process keeps one connection
that ``LISTEN``s on the channel ``bxb_live`` and sends ``pg_notify`` on it; nothing else runs
between the processes. A SQLite store has no such channel: there the server is one process
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

A note is sent after its write has committed, by the relay's thread, which sends every note
waiting in one statement: a process killed between the two loses that note (the pages show the
write at their next read). A process that knows of no other listening sends no note at all
(issue 25: most tournaments have one server process, and each command's note was a statement
and a wake-up of the relay's thread for nobody): each relay says ``hello`` once it listens, each
other answers ``here``, and a relay sends notes only while it knows another (one that stops says
``bye``; one killed is sent to until this process listens again). What it did not send while
alone it keeps ``RETAIN`` seconds and sends first when it learns of another: a process that
starts hears every note committed after its ``LISTEN``, those written before the others heard
its ``hello`` included (some from before it too: a note is a hint). While the listening
connection is down (the database restarting) a process cannot hear others: it retries every
second and, once back, forgets the tokens and tables it kept, as it may have missed their changes."""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import msgspec

from blowbyblow.replay.store.persistence import connect_postgres, persistence_env

CHANNEL = "bxb_live"
MAX_PAYLOAD = 7900  # PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more
RETRY = 1.0  # seconds between attempts to reach the database again
RETAIN = 10.0  # seconds a relay alone keeps the notes it did not send (for one that says hello)
MEETING = ("hello", "here", "bye")  # a relay's own payloads (``register``): never handed on


class Payload(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What one notification carries: its origin, and a live note (``note`` and ``topics``) or
    a change to the register (``register``: ``tokens``, or ``place`` of ``battle``), or a relay's
    greeting (``register``: one of ``MEETING``; an older process ignores it)."""

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
    """One process's connection to the channel and the thread that keeps it: ``send`` queues a
    payload; the thread sends every payload waiting in one statement and hands every payload of
    another origin it hears to ``heard``.

    One connection both listens and sends (issue 25): with a connection for each, every note
    this process sent woke its listening thread (PostgreSQL tells every listening session,
    its sender's own too) only to be dropped, and each side had a thread to wake. A session
    that listens hears its own notes in the answer to its own statement: they are dropped there,
    by the thread that sent them, no thread woken for them."""

    def __init__(self, db: str, origin: str, heard: Callable[[Payload], None]) -> None:
        self.db = db
        self.origin = origin
        self._heard = heard
        self._outbox: deque[Payload] = deque()
        self._closed = threading.Event()
        self._asleep = False  # the thread waits in ``select``: a send writes to ``_wake``
        # a socket pair, not a pipe: a send after the thread closed it raises, never writes
        # to another file given the same descriptor's number
        self._woken, self._wake = socket.socketpair()
        self._wake.setblocking(False)
        self.listening = threading.Event()  # set while the LISTEN connection is up
        self.lost = 0  # times the connection was lost (and made again)
        self.heard = 0  # payloads of other processes handled so far
        self._own = 0  # the database's process id of this process's connection
        self._sending: list[Payload] = []  # the notes of the statement on its way
        self._resent = False  # they were put back once already
        self.others: set[str] = set()  # the origins of the other processes known to listen
        self._unsent: deque[tuple[float, Payload]] = deque()  # kept while alone: (when, note)
        self.statements = 0  # statements of notes sent (the greetings' included)
        self._thread = threading.Thread(target=self._relay, daemon=True, name="bxb-relay")
        self._thread.start()

    def send(self, payload: Payload) -> None:
        self._outbox.append(payload)
        if self._asleep and self.others:  # alone: the thread keeps it when it next wakes
            self._asleep = False
            self._rouse()

    def _rouse(self) -> None:
        with contextlib.suppress(OSError):  # full (the thread is roused already), or closed
            self._wake.send(b"!")

    def close(self) -> None:
        self._closed.set()
        self._rouse()
        self._thread.join(timeout=5)

    def _connect(self) -> Any:
        # the password as the store finds it; StoreUnavailable when the server does not answer
        return connect_postgres(persistence_env(self.db), "the live notes' relay")

    def _relay(self) -> None:
        first = True
        while not self._closed.is_set():
            try:
                with self._connect() as conn:
                    self._own = conn.info.backend_pid
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.others.clear()  # who listens is learnt again, from their answers
                    hello = payload_text(Payload(origin=self.origin, register="hello"))
                    conn.execute("select pg_notify(%s, %s)", (CHANNEL, hello))
                    if not first:  # notes may have been missed meanwhile
                        self._heard(Payload(origin="", register="everything"))
                    first = False
                    self.listening.set()
                    self._serve(conn)
            except Exception:  # the database away: try again, saying nothing per try
                was_up = self.listening.is_set()
                self.listening.clear()
                self.lost += 1
                sending, self._sending = self._sending, []
                if was_up and sending and not self._resent:
                    # a connection found broken as it sent is made again at once, and the
                    # statement's notes sent once more
                    self._outbox.extendleft(reversed(sending))
                    self._resent = True
                    continue
                self._resent = False
                self._outbox.clear()  # the database away: these notes are lost
                self._closed.wait(RETRY)
        self.listening.clear()
        self._woken.close()
        self._wake.close()

    def _serve(self, conn: Any) -> None:
        """Send what waits, hear what came (the notes heard in a statement's answer included),
        and sleep until either a send or the connection has something."""
        with selectors.DefaultSelector() as waiting:  # epoll: any descriptor's number
            waiting.register(conn.fileno(), selectors.EVENT_READ)
            waiting.register(self._woken, selectors.EVENT_READ, data=True)
            self._serving(conn, waiting)

    def _serving(self, conn: Any, waiting: selectors.BaseSelector) -> None:
        while not self._closed.is_set():
            batch = self._taken()
            if batch and not self.others:  # nobody else listens: kept, for one that says hello
                now = time.monotonic()
                self._unsent.extend((now, p) for p in batch)
                while now - self._unsent[0][0] > RETAIN:
                    self._unsent.popleft()
                batch = []
            if batch:
                self._sending = batch  # put back if the connection breaks (``_relay``)
                texts = [t for t in map(payload_text, batch) if len(t.encode()) <= MAX_PAYLOAD]
                # the texts in the binary format (%b): psycopg's text format quotes a JSON
                # text's every '"' by a regular expression's substitution, in Python (a
                # quarter of a million instructions a note, issue 25); the binary one sends
                # each text's bytes as they are: PostgreSQL receives the same texts
                conn.execute(
                    "select pg_notify(%s, p) from unnest(%b::text[]) as p", (CHANNEL, texts)
                )
                self._sending, self._resent = [], False
                self.statements += 1
            for n in conn.notifies(timeout=0):  # what came with the answer, or since
                if n.pid != self._own:  # this process's own: delivered as it was published
                    self._hear(n.payload)
            self._asleep = True
            if self._outbox:  # sent meanwhile, before it saw the thread asleep
                self._asleep = False
                continue
            ready = waiting.select(0.5)
            self._asleep = False
            if any(key.data for key, _ in ready):
                self._woken.recv(4096)
        with contextlib.suppress(Exception):  # the others stop sending for this one
            bye = payload_text(Payload(origin=self.origin, register="bye"))
            conn.execute("select pg_notify(%s, %s)", (CHANNEL, bye))

    def _taken(self) -> list[Payload]:
        """Every payload waiting, in order: one statement sends them."""
        batch = []
        outbox = self._outbox
        while outbox:
            batch.append(outbox.popleft())
        return batch

    def _hear(self, text: str) -> None:
        try:
            payload = _decode(text)
        except msgspec.DecodeError:
            return  # not ours: someone else's NOTIFY on the channel
        if payload.origin == self.origin:
            return
        if payload.register in MEETING:
            self._met(payload)
            return
        self._heard(payload)
        self.heard += 1

    def _met(self, payload: Payload) -> None:
        """Another relay says ``hello`` (answered ``here``), ``here`` or ``bye``. Learning of a
        new one, the notes kept while alone go first, before any sent since: it may have
        listened before they were written (``RETAIN``)."""
        if payload.register == "bye":
            self.others.discard(payload.origin)
            return
        first: list[Payload] = []
        if payload.register == "hello":
            first.append(Payload(origin=self.origin, register="here"))
        if payload.origin not in self.others:
            now = time.monotonic()
            first += [p for at, p in self._unsent if now - at <= RETAIN]
            self._unsent.clear()
            self.others.add(payload.origin)
        self._outbox.extendleft(reversed(first))


def notify_in(cursor: Any, payload: Payload) -> None:
    """Send ``payload`` inside the transaction of ``cursor`` (a PostgreSQL cursor of the
    register's): delivered when, and only if, it commits."""
    cursor.execute("select pg_notify(%s, %s)", (CHANNEL, payload_text(payload)))


__all__ = ["CHANNEL", "Payload", "PostgresRelay", "notify_in", "payload_text"]
