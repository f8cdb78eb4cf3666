"""Live updates: what a write publishes, every open page hears at once (server-sent events).

One process, one hub: each subscriber has a queue per topic (``battle:ID``, ``tournament:SLUG``,
``table:SLUG:N``); a write publishes a small JSON note and the page fetches what changed. A
comment line every ``PING`` seconds keeps idle connections open through proxies. Writes made by
another process (``bxb`` on the same store) are not heard: the pages show them on reload."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator, Iterable

import msgspec
from litestar.response import ServerSentEvent
from litestar.response.sse import ServerSentEventMessage

PING = 15.0


class Note(msgspec.Struct, kw_only=True):
    """What happened, for the pages listening: they fetch the details."""

    kind: str  # started | contributed | played | voided | sealed | finished | imported
    battle: str
    version: int = 0
    tournament: str = ""
    table: int = 0


class Hub:
    def __init__(self) -> None:
        self._queues: dict[str, set[asyncio.Queue[Note | None]]] = defaultdict(set)
        self._closed = False

    def publish(self, topics: Iterable[str], note: Note) -> None:
        for topic in topics:
            for queue in list(self._queues.get(topic, ())):
                queue.put_nowait(note)

    def close(self) -> None:
        """End every stream (the server is stopping)."""
        self._closed = True
        for queues in self._queues.values():
            for queue in queues:
                queue.put_nowait(None)

    async def listen(self, topic: str) -> AsyncIterator[ServerSentEventMessage]:
        queue: asyncio.Queue[Note | None] = asyncio.Queue()
        self._queues[topic].add(queue)
        try:
            yield ServerSentEventMessage(data=None, comment="listening", retry=2000)
            while not self._closed:
                try:
                    note = await asyncio.wait_for(queue.get(), timeout=PING)
                except TimeoutError:
                    yield ServerSentEventMessage(data=None, comment="ping")
                    continue
                if note is None:
                    return
                yield ServerSentEventMessage(
                    event=note.kind, data=msgspec.json.encode(note).decode()
                )
        finally:
            self._queues[topic].discard(queue)

    def stream(self, topic: str) -> ServerSentEvent:
        return ServerSentEvent(self.listen(topic), headers={"Cache-Control": "no-cache"})

    def listeners(self, topic: str) -> int:
        return len(self._queues.get(topic, ()))


__all__ = ["Hub", "Note"]
