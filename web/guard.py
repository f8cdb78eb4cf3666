"""What the server refuses or adds before and after any handler (issue 26, hole 7):

- a request body the API reads is JSON: a POST with any other ``Content-Type`` is refused (415)
  before a handler runs, so a form on another site (which can send only form data or
  ``text/plain``) cannot write, whatever cookie its browser holds;
- every answer says where a page may load from (``Content-Security-Policy``): this server's own
  scripts and style sheets only, no inline script, no frames, no other site;
- a connection that leaves a request half-sent (headers or body) for ``PATIENCE`` seconds is
  closed (uvicorn times out only idle kept-alive connections): ``PatientHttp`` for uvicorn."""

from __future__ import annotations

import asyncio
from typing import Any

from litestar import Request, Response
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from blowbyblow.web.schemas import ErrorBody

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
PATIENCE = 20.0  # seconds a half-sent request may idle


async def json_only(request: Request[Any, Any, Any]) -> Response[ErrorBody] | None:
    """None (go on) unless a POST carries a body of another type than JSON. A coroutine: Litestar
    runs a plain function given as a hook in a worker thread, a hand-over for every request
    (issue 25: the server's CPU a request)."""
    if request.method != "POST":
        return None
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if not kind and request.headers.get("content-length", "0") in ("", "0"):
        return None  # no body at all (finish, seal): nothing for a form to smuggle
    if kind == "application/json":
        return None
    return Response(
        ErrorBody(
            status=415,
            field="Content-Type",
            rule="a request body is JSON (application/json)",
            message=f"expected Content-Type: application/json, not {kind or 'none'}; "
            "nothing was written",
        ),
        status_code=415,
    )


def security_headers(app: ASGIApp) -> ASGIApp:
    """Middleware: every answer (pages, API, static files, refusals) with the page policy."""
    added = [
        (b"content-security-policy", CSP.encode()),
        (b"x-content-type-options", b"nosniff"),
    ]

    async def headed(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *added]}
            await send(message)

        await app(scope, receive, sending)

    return headed


class PatientHttp(HttpToolsProtocol):
    """uvicorn's HTTP protocol, closing a connection whose request stays half-sent (its headers
    or its body) ``patience`` seconds without a byte; a request being answered (a long read, a
    live stream) and an idle kept-alive connection are left alone (the latter is uvicorn's)."""

    patience = PATIENCE
    _half_sent: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()  # a connection is made to send a request: it has ``patience`` to start

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._incomplete():
            self._arm()
        else:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _incomplete(self) -> bool:
        cycle = self.cycle
        if cycle is None or cycle.response_complete:
            return True  # no request yet, or the next one's headers not all in
        return bool(cycle.more_body)  # the body still coming

    def _arm(self) -> None:
        self._disarm()
        self._half_sent = self.loop.call_later(self.patience, self._too_slow)

    def _disarm(self) -> None:
        if self._half_sent is not None:
            self._half_sent.cancel()
            self._half_sent = None

    def _too_slow(self) -> None:
        self._half_sent = None
        if self._incomplete() and not self.transport.is_closing():
            self.transport.close()


__all__ = ["CSP", "PATIENCE", "PatientHttp", "json_only", "security_headers"]
