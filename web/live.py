"""Live updates: what a write publishes, every open page hears at once (server-sent events).

Each subscriber has a mailbox per topic (``battle:ID``, ``tournament:SLUG``, ``table:SLUG:N``); a
write publishes a small JSON note and the page fetches what changed. A comment line every
``PING`` seconds keeps idle connections open through proxies.

The public interface, for any route that writes something a page shows:

- ``Hub.publish(topics, note)``: deliver ``note`` (a ``Note``; small, the page fetches the
  details) to every page listening to any of ``topics``, in this process and, on PostgreSQL,
  in every other server process on the same database (``web/relay.py``). Callable from the
  event loop or from a worker thread.
- ``Hub.stream(topic)``: the server-sent events response a route returns for a page to listen.

On SQLite (or in memory) the hub has no relay: the server is one process, and a write made by
another process (``bxb`` on the same store) is not heard: the pages show it on reload."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

import msgspec
from litestar.response import Stream
from litestar.response.sse import ServerSentEventMessage

from blowbyblow.web.heads import chunk_writer
from blowbyblow.web.relay import Payload, PostgresRelay

PING = 15.0
# A stream's notes written within this long of the hub's last write wait for the next one: at a
# tournament's pace (40 commands a second, each judge hearing every one) a judge's connection
# takes a few notes a write instead of a write (a system call and a wake-up of the reader) each
# (issue 25). The first note after a quiet spell is written at once.
GATHER = 0.05
# A tournament's stream (its judges' and the organiser's dashboard) hears every command of every
# table: gathered longer, its notes take a few writes a second a judge, not one each ``GATHER``
# (issue 25: a judge's note is to be heard within a second; a page of one battle or table, whose
# phone may be about to play, keeps ``GATHER``).
GATHER_TOURNAMENT = 0.2


def encoded(note: Note) -> bytes:
    """A note as its event's bytes, made once for every page listening (issue 25: a note was
    encoded again for each of them, and a tournament's judges hear every command)."""
    return ServerSentEventMessage(event=note.kind, data=msgspec.json.encode(note).decode()).encode()


LISTENING = ServerSentEventMessage(data=None, comment="listening", retry=2000).encode()
PINGED = ServerSentEventMessage(data=None, comment="ping").encode()
# What Litestar's ServerSentEvent answers with; the events are sent as bytes made once
# (``encoded``), through Litestar's Stream: ServerSentEvent wraps each stream in two more
# async generators and encodes each event again for each listener (issue 25).
STREAM_HEADERS = {
    "Cache-Control": "no-cache",
    "Connection": "keep-alive",
    "X-Accel-Buffering": "no",
}


class Note(msgspec.Struct, kw_only=True):
    """What happened, for the pages listening: they fetch the details."""

    kind: str  # started | contributed | played | voided | sealed | finished | imported | ...
    battle: str
    version: int = 0
    tournament: str = ""
    table: int = 0


class _Pace:
    """How long notes wait to go with others, and what waits, for one kind of stream: the
    hub's last write by the loop's clock, and the mailboxes due at its next flush."""

    __slots__ = ("due", "flushed", "gather")

    def __init__(self, gather: float) -> None:
        self.gather = gather
        self.flushed = float("-inf")
        self.due: list[_Mailbox] = []


class _Mailbox:
    """A stream's events not yet sent (``None``: the server stops), on the event loop: a list and
    the stream's wait, where an ``asyncio.Queue`` took a dozen Python calls an event for every
    listener (issue 25: each judge hears every command). While ``write`` is set (the stream's
    connection, ``web/heads.py``'s ``write_chunk``), the hub writes what waits itself
    (``Hub._flush``) and the stream's task sleeps; ``put`` wakes the task, which then sends
    what waits its own way."""

    __slots__ = ("pace", "waiter", "waiting", "write")

    def __init__(self, pace: _Pace) -> None:
        self.waiting: list[bytes | None] = []
        self.waiter: asyncio.Future[None] | None = None
        self.write: Callable[[bytes], bool] | None = None
        self.pace = pace

    def put(self, message: bytes | None) -> None:
        self.waiting.append(message)
        self.wake()

    def wake(self) -> None:
        self.write = None  # what waits is the task's to send now, in order
        waiter = self.waiter
        if waiter is not None:
            self.waiter = None
            if not waiter.done():
                waiter.set_result(None)


class Hub:
    """The pages listening in this process; with a PostgreSQL ``relay`` (``attach``), every
    server process's notes too."""

    def __init__(self, gather: float | None = None, tournament: float | None = None) -> None:
        """``gather``: how long a stream's notes wait to go with others (``GATHER``);
        ``tournament``: a tournament's stream's (``GATHER_TOURNAMENT``, or ``gather`` when
        only that is given)."""
        self._mailboxes: dict[str, set[_Mailbox]] = defaultdict(set)
        wide = GATHER_TOURNAMENT if gather is None else gather
        self._page = _Pace(GATHER if gather is None else gather)
        self._tournament = _Pace(wide if tournament is None else tournament)
        self._closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pinger: asyncio.TimerHandle | None = None
        self.relay: PostgresRelay | None = None

    def attach(
        self,
        db: str,
        origin: str,
        on_remote: Callable[[Note], None],
        on_register: Callable[[Payload], None],
    ) -> None:
        """Relay notes through the PostgreSQL database ``db`` (a ``postgresql://`` URL):
        ``on_remote`` is told each note another process published (what this one keeps of
        that battle may be stale), ``on_register`` each change another process made to the
        tournament register."""

        def heard(payload: Payload) -> None:
            if payload.register:
                on_register(payload)
                return
            note = msgspec.convert(payload.note, Note)
            on_remote(note)
            self._deliver_threadsafe(payload.topics, note)

        self.relay = PostgresRelay(db, origin, heard)

    def publish(self, topics: Iterable[str], note: Note) -> None:
        topics = list(topics)
        self._deliver_threadsafe(topics, note)
        if self.relay is not None:
            self.relay.send(
                Payload(origin=self.relay.origin, topics=topics, note=msgspec.to_builtins(note))
            )

    def _deliver_threadsafe(self, topics: list[str], note: Note) -> None:
        loop = self._loop
        if loop is None:
            return  # nobody has listened yet
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._deliver(topics, note)
        elif not loop.is_closed():
            loop.call_soon_threadsafe(self._deliver, topics, note)

    def _deliver(self, topics: list[str], note: Note) -> None:
        message: bytes | None = None
        for topic in topics:
            for mailbox in list(self._mailboxes.get(topic, ())):
                message = message or encoded(note)
                self._put(mailbox, message)

    def _put(self, mailbox: _Mailbox, message: bytes) -> None:
        """``message`` for ``mailbox``'s stream: written by the hub's next flush when the
        stream lets it (``write``), else by the stream's own task, woken."""
        if mailbox.write is None:
            mailbox.put(message)
            return
        mailbox.waiting.append(message)
        if len(mailbox.waiting) == 1:
            loop, pace = self._loop, mailbox.pace
            if not pace.due and loop is not None:
                at = pace.flushed + pace.gather
                if at <= loop.time():
                    loop.call_soon(self._flush, pace)
                else:  # written moments ago: what comes meanwhile goes with this
                    loop.call_at(at, self._flush, pace)
            pace.due.append(mailbox)

    def _flush(self, pace: _Pace) -> None:
        """What waits for each stream the hub writes, as one chunk a stream: every note that
        came since the last flush (a turn of the event loop), where each note woke each stream's
        task to send it through Litestar's stream, the page policy's ``send`` and uvicorn's:
        some 26 K instructions a judge a note (issue 25); the app's middleware acts on an
        answer's head only, so a chunk is the bytes ``send`` writes. A stream whose connection
        cannot take it now (a paused write) has its task woken to send it, and waits for it.
        A note due within ``GATHER`` of the last flush waits for the next, with those after it
        (``GATHER_TOURNAMENT`` for a tournament's stream: each kind of stream its own ``pace``)."""
        due, pace.due = pace.due, []
        if self._loop is not None:
            pace.flushed = self._loop.time()
        for mailbox in due:
            write, waiting = mailbox.write, mailbox.waiting
            if write is None or not waiting:
                continue  # its task took what waited (woken since, or ended)
            data = waiting[0] if len(waiting) == 1 else b"".join(waiting)  # type: ignore[arg-type]
            assert data is not None  # an end is put, never due
            mailbox.waiting = []
            if not write(data):
                mailbox.waiting = [data]
                mailbox.wake()

    def _ping(self, loop: asyncio.AbstractEventLoop) -> None:
        """Every ``PING`` seconds, a comment on every stream: one timer for them all, not one
        for each wait of each stream (issue 25: a judge waits for every command)."""
        if loop is not self._loop or self._closed:
            return  # the streams listen on another loop now (a test's next client)
        self._pinger = loop.call_later(PING, self._ping, loop)
        for mailboxes in self._mailboxes.values():
            for mailbox in mailboxes:
                self._put(mailbox, PINGED)

    def close(self) -> None:
        """End every stream (the server is stopping), and the relay."""
        self._closed = True
        if self._pinger is not None:
            self._pinger.cancel()
        for mailboxes in self._mailboxes.values():
            for mailbox in mailboxes:
                mailbox.put(None)
        if self.relay is not None:
            self.relay.close()

    async def listen(
        self, topic: str, write: Callable[[bytes], bool] | None = None
    ) -> AsyncIterator[bytes]:
        """The events of ``topic`` as sent (``text/event-stream``): a comment first, then each
        note published and a ping every ``PING`` seconds, until the server stops. ``write``:
        the stream's connection (``web/heads.py``'s ``chunk_writer``), which the hub writes the
        notes to itself once the comment is sent; without it each goes through the stream."""
        loop = asyncio.get_running_loop()
        if self._pinger is None or loop is not self._loop:
            self._pinger = loop.call_later(PING, self._ping, loop)
            for pace in (self._page, self._tournament):
                pace.flushed = float("-inf")  # another loop's clock
        self._loop = loop
        mailbox = _Mailbox(self._tournament if topic.startswith("tournament:") else self._page)
        self._mailboxes[topic].add(mailbox)
        try:
            yield LISTENING
            while not self._closed:
                if not mailbox.waiting:  # what this stream sent is written: the hub's turn
                    mailbox.write = write
                    mailbox.waiter = loop.create_future()
                    await mailbox.waiter
                # the events waiting go as one write: the same bytes, in the same order
                waiting, mailbox.waiting = mailbox.waiting, []
                events: list[bytes] = []
                for message in waiting:
                    if message is None:
                        if events:
                            yield b"".join(events)
                        return
                    events.append(message)
                yield events[0] if len(events) == 1 else b"".join(events)
        finally:
            mailbox.write = None
            self._mailboxes[topic].discard(mailbox)

    def stream(self, topic: str, scope: Any = None) -> Stream:
        """The server-sent events response a route returns for a page to listen; ``scope``:
        its request's, for the hub to write the notes to its connection (``listen``)."""
        write = None if scope is None else chunk_writer(scope)
        return Stream(
            self.listen(topic, write), media_type="text/event-stream", headers=STREAM_HEADERS
        )

    def listeners(self, topic: str) -> int:
        return len(self._mailboxes.get(topic, ()))


__all__ = [
    "GATHER",
    "GATHER_TOURNAMENT",
    "LISTENING",
    "PINGED",
    "STREAM_HEADERS",
    "Hub",
    "Note",
    "encoded",
]
