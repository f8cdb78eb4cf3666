"""Reads that see the reader's own writes, with a streaming replica (``bxb serve --read-db``).

A write's request learns where the primary's log reached once it committed
(``replay/store/replica.py``); this middleware hands that back to the writer in the cookie
``bxb_lsn`` (HttpOnly, SameSite=Strict, a number, no secret), and gives every later request
that carries it to the reads, which the replica serves only once it has replayed that far (the
primary otherwise). A phone's page and the table's API client (any that keeps cookies) thus
never read a battle older than their own last command, whichever server process and replica
answer them."""

from __future__ import annotations

from http.cookies import SimpleCookie

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from blowbyblow.replay.store.replica import FRESHNESS, Freshness

COOKIE = "bxb_lsn"


def _after(scope: Scope) -> int:
    """The position the request's cookie says its reads must see (0: none, or not a number)."""
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except Exception:
                return 0
            found = jar.get(COOKIE)
            if found is not None and len(found.value) <= 16:
                try:
                    return int(found.value, 16)
                except ValueError:
                    return 0
    return 0


def fresh_reads(app: ASGIApp) -> ASGIApp:
    """Middleware: each request's ``Freshness`` (from its cookie), and the cookie renewed after
    a write."""

    async def fresh(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        box = Freshness(after=_after(scope))
        token = FRESHNESS.set(box)

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start" and box.written:
                cookie = f"{COOKIE}={box.written:x}; Path=/; HttpOnly; SameSite=Strict"
                message = {
                    **message,
                    "headers": [*message.get("headers", ()), (b"set-cookie", cookie.encode())],
                }
            await send(message)

        try:
            await app(scope, receive, sending)
        finally:
            FRESHNESS.reset(token)

    return fresh


__all__ = ["COOKIE", "fresh_reads"]
