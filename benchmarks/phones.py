"""The load generator's connections to the server: a phone's or a judge's own, kept alive, as a
phone has one. Two HTTP/1.1 clients, the same requests and the same checks either way:

- ``aiohttp`` (the default since the seventh sitting of 2026-11-28): aiohttp's C HTTP parser on
  uvloop's event loop. The load generator is one process beside the server on the same cores:
  with httpx it used more of the processor than the server it measured (31-34% of a core at 512
  tables, ``benchmarks/probe.py``), most of it httpx's, httpcore's, anyio's and h11's own
  Python a request, and its event loop ran late by up to a second, which the latencies counted.
- ``httpx`` on asyncio's loop: what every figure before that sitting was taken with.

Only the measured load goes through these; setting up the tables is httpx's either way."""

from __future__ import annotations

import asyncio
import json as jsonlib
import ssl
from collections.abc import AsyncIterator, Coroutine
from types import TracebackType
from typing import Any, Protocol, TypeVar

import aiohttp
import httpx
import uvloop

CLIENTS = ("aiohttp", "httpx")
T = TypeVar("T")


class Reply:
    """What the load reads of an answer: its status and its body."""

    __slots__ = ("body", "status_code")

    def __init__(self, status_code: int, body: bytes) -> None:
        self.status_code = status_code
        self.body = body

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        return jsonlib.loads(self.body)


class Link(Protocol):
    async def __aenter__(self) -> Link: ...
    async def __aexit__(
        self, kind: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None: ...
    async def get(self, path: str) -> Reply: ...
    async def post(self, path: str, *, json: object, headers: dict[str, str]) -> Reply: ...
    def lines(self, path: str) -> AsyncIterator[str]: ...


class AioLink:
    """One kept-alive connection through aiohttp."""

    def __init__(self, base: str) -> None:
        self._base = base
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> AioLink:
        self._session = aiohttp.ClientSession(
            base_url=self._base,
            connector=aiohttp.TCPConnector(limit=1),
            timeout=aiohttp.ClientTimeout(total=120),
        )
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._session is not None
        await self._session.close()

    async def get(self, path: str) -> Reply:
        assert self._session is not None
        async with self._session.get(path) as r:
            return Reply(r.status, await r.read())

    async def post(self, path: str, *, json: object, headers: dict[str, str]) -> Reply:
        assert self._session is not None
        async with self._session.post(path, json=json, headers=headers) as r:
            return Reply(r.status, await r.read())

    async def lines(self, path: str) -> AsyncIterator[str]:
        assert self._session is not None
        endless = aiohttp.ClientTimeout(total=None)
        async with self._session.get(path, timeout=endless) as r:
            async for line in r.content:
                yield line.decode().rstrip("\r\n")


# One TLS context for every phone (the server is plain HTTP on loopback): httpx makes a new one
# for each client otherwise, about 19 ms of the client's event loop each, so that 512 phones
# stalled it for ten seconds and then sent the requests due meanwhile in one burst.
_TLS = ssl.create_default_context()


class HttpxLink:
    """One kept-alive connection through httpx: one pool shared by hundreds of phones costs the
    client more than the server (httpcore looks through every connection of a pool for each
    request)."""

    def __init__(self, base: str) -> None:
        limits = httpx.Limits(max_connections=1)
        self._client = httpx.AsyncClient(base_url=base, timeout=120, limits=limits, verify=_TLS)

    async def __aenter__(self) -> HttpxLink:
        await self._client.__aenter__()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._client.__aexit__(kind, e, tb)

    async def get(self, path: str) -> Reply:
        r = await self._client.get(path)
        return Reply(r.status_code, r.content)

    async def post(self, path: str, *, json: object, headers: dict[str, str]) -> Reply:
        r = await self._client.post(path, json=json, headers=headers)
        return Reply(r.status_code, r.content)

    async def lines(self, path: str) -> AsyncIterator[str]:
        async with self._client.stream("GET", path, timeout=None) as r:
            async for line in r.aiter_lines():
                yield line


def link(client: str, base: str) -> Link:
    """A new connection of the ``client`` kind (one of CLIENTS) to ``base``."""
    return AioLink(base) if client == "aiohttp" else HttpxLink(base)


def run(client: str, load: Coroutine[Any, Any, T]) -> T:
    """The load run to its end on the client's event loop (uvloop's for aiohttp)."""
    if client == "aiohttp":
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            return runner.run(load)
    return asyncio.run(load)
