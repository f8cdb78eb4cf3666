"""What the server refuses or adds before and after any handler (issue 26, hole 7):

- a request body the API reads is JSON: a POST with any other ``Content-Type`` is refused (415)
  before a handler runs, so a form on another site (which can send only form data or
  ``text/plain``) cannot write, whatever cookie its browser holds; and a JSON body that is not
  UTF-8, or is nested too deeply to read, is refused (400), never a 500;
- every answer says where a page may load from (``Content-Security-Policy``): this server's own
  scripts and style sheets only, no frames, no other site; one inline style and one inline
  script, each by its hash: the server's own style sheets and its after-paint loader
  (``static/after_paint.js``) as the viewer's page carries them;
- a connection that leaves a request half-sent (headers or body) for ``PATIENCE`` seconds is
  closed (uvicorn times out only idle kept-alive connections): ``PatientHttp`` for uvicorn,
  which also writes an answer's head from header lines it checked once (``web/heads.py``)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from litestar import Request, Response
from litestar.enums import ScopeType
from litestar.exceptions import ClientException
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from blowbyblow.web.answers import Answer
from blowbyblow.web.errors import ApiError
from blowbyblow.web.heads import CHUNKS, HeadedCycle
from blowbyblow.web.schemas import ErrorBody


def _styles() -> str:
    """The pages' style sheets, as the judge's viewer carries them in its page (so that its first
    paint waits for no other answer of the server): the one inline style the policy allows, by
    its hash."""
    static = Path(__file__).parent / "static"
    return "".join((static / name).read_text(encoding="utf-8") for name in STYLE_SHEETS)


STYLE_SHEETS = ("app.css", "disputes.css")
INLINE_STYLES = _styles()
# The one inline script: what asks for the judge's viewer's own scripts once it is on screen
# (static/after_paint.js), carried in its page so that a fresh page asks the server for nothing
# before its first paint (docs/web.md, the judge's viewer on long battles).
# Its comments stay in the file, not in every page.
AFTER_PAINT = "".join(
    line
    for line in (Path(__file__).parent / "static" / "after_paint.js")
    .read_text(encoding="utf-8")
    .splitlines(keepends=True)
    if not line.lstrip().startswith("//")
)


def _hash(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


_STYLES_HASH = _hash(INLINE_STYLES)
CSP = (
    f"default-src 'self'; script-src 'self' 'sha256-{_hash(AFTER_PAINT)}'; "
    f"style-src 'self' 'sha256-{_STYLES_HASH}'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
PATIENCE = 20.0  # seconds a half-sent request may idle


async def json_only(request: Request[Any, Any, Any]) -> Response[ErrorBody] | None:
    """None (go on) unless a POST carries a body of another type than JSON. A coroutine:
    Litestar runs a plain function given as a hook in a worker thread, a hand-over for every
    request (issue 25: the server's CPU a request); it reads the request's two headers from the
    scope as sent, without making Litestar's header map for them. A JSON body the handler could
    not read is ``BodyRequest``'s to refuse, when the handler reads it."""
    if request.scope["method"] not in ("POST", "PUT", "PATCH", "DELETE"):
        return None
    kind, length = content_headers(request.scope["headers"])
    if not kind and length in ("", "0"):
        return None  # no body at all (finish, seal): nothing for a form to smuggle
    if kind == "application/json" or request.scope["method"] != "POST":
        return None  # what a form can send is a POST: a PUT is sent by a script, never a form
    return Answer(
        ErrorBody(
            status=415,
            field="Content-Type",
            rule="a request body is JSON (application/json)",
            message=f"expected Content-Type: application/json, not {kind or 'none'}; "
            "nothing was written",
        ),
        status_code=415,
    )


def first_header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> str | None:
    """The first value a request sent for the header ``name`` (lower case, as ASGI gives names),
    as Litestar's header map gives it (latin-1 text), None when none was sent: read from the
    scope's list, without the map Litestar makes of every header for it (issue 25)."""
    for sent, value in headers:
        if sent == name:
            return value.decode("latin-1")
    return None


def content_headers(headers: Iterable[tuple[bytes, bytes]]) -> tuple[str, str]:
    """The media type a request's ``Content-Type`` names (lower case, no parameters), and its
    ``Content-Length`` as sent ("" for none); the first of each, as Litestar's header map."""
    kind: str | None = None
    length: str | None = None
    for name, value in headers:
        if kind is None and name == b"content-type":
            kind = value.decode("latin-1").split(";", 1)[0].strip().lower()
        elif length is None and name == b"content-length":
            length = value.decode("latin-1")
    return kind or "", "0" if length is None else length


class BodyRequest(Request[Any, Any, Any]):
    """Litestar's request, whose JSON body, when a handler reads it, is refused (400) as bytes
    that are not UTF-8 or as arrays and objects nested deeper than Python's recursion limit:
    msgspec before 0.23 raises neither as the malformed JSON Litestar refuses, and either would
    end the request in a 500 (0.23 refuses bad UTF-8 as malformed JSON, named here alike). Checked as the handler's ``data`` is read (a hook before every handler
    read each POST's body ahead of it, its route's signature and its headers again, issue 25)."""

    @property
    def content_length(self) -> int | None:
        """Litestar's, read from the scope's header list (``first_header``): reading the body
        asked for it, and Litestar made its header map of every header to answer."""
        sent = first_header(self.scope["headers"], b"content-length")
        try:
            return None if sent is None else int(sent)
        except ValueError:
            raise ClientException(f"Invalid content-length: {sent!r}") from None

    async def json(self) -> Any:
        try:
            return await super().json()
        except (UnicodeDecodeError, RecursionError) as e:
            what = "not UTF-8 text" if isinstance(e, UnicodeDecodeError) else "nested too deeply"
            raise _unread(what) from None
        except Exception:
            # msgspec 0.23 on says bytes that are not UTF-8 as malformed JSON (its DecodeError,
            # which Litestar answers in its own words): named as before, whichever msgspec
            if _utf8(await self.body()):
                raise
            raise _unread("not UTF-8 text") from None


def _utf8(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _unread(what: str) -> ApiError:
    return ApiError(
        400,
        "body",
        "a request body is JSON: UTF-8 text, arrays and objects a few levels deep",
        f"the body is {what}; nothing was written",
    )


async def static_name(request: Request[Any, Any, Any]) -> Response[ErrorBody] | None:
    """None (go on) unless a static file's name holds NUL or a part longer than any file's name
    may be: no such file here (404), where the file system's refusal (ValueError, OSError) would
    end the request in a 500."""
    parts = request.url.path.split("/")
    if "\x00" not in request.url.path and all(len(p.encode()) <= NAME_MAX for p in parts):
        return None
    return Response(
        ErrorBody(
            status=404,
            field="path",
            rule="a file this server ships",
            message="no such file",
        ),
        status_code=404,
    )


NAME_MAX = 255  # bytes in a file's name, on Linux and most file systems


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
        super().connection_made(OneWrite(transport, self.loop))
        self._arm()  # a connection is made to send a request: it has ``patience`` to start

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        cycle = self.cycle
        if type(cycle) is RequestResponseCycle:  # made, its task not yet run: heads joined
            cycle.__class__ = HeadedCycle  # from kept lines (web/heads.py)
            # for a live stream's notes (web/heads.py, chunk_writer): the protocol, not the
            # cycle, which holds the scope (no reference cycle made a request)
            self.scope[CHUNKS] = self  # type: ignore[literal-required]

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


class OneWrite(asyncio.Transport):
    """A connection's transport whose writes made in one turn of the event loop go out as one
    (issue 25): uvicorn writes an answer's head and its body apart, two ``send`` calls and,
    on loopback, two wake-ups of the reader, where one does. What is written goes at the end of
    the turn that wrote it (``call_soon``), in order, before the connection is closed."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._transport = transport
        self._loop = loop
        self._waiting: list[bytes] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._waiting:
            self._loop.call_soon(self._flush)
        self._waiting.append(bytes(data))

    def _flush(self) -> None:
        if self._waiting:
            data = b"".join(self._waiting) if len(self._waiting) > 1 else self._waiting[0]
            self._waiting = []
            if not self._transport.is_closing():
                self._transport.write(data)

    def write_now(self, data: bytes) -> None:
        """``data`` written at once, after anything this turn wrote before it: a live stream's
        chunk has no head to join (``HeadedCycle.write_chunk``)."""
        if self._waiting:
            self._waiting.append(data)
        elif not self._transport.is_closing():
            self._transport.write(data)

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def abort(self) -> None:
        self._waiting = []
        self._transport.abort()

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._transport.get_extra_info(name, default)

    def pause_reading(self) -> None:
        self._transport.pause_reading()

    def resume_reading(self) -> None:
        self._transport.resume_reading()

    def is_reading(self) -> bool:
        return self._transport.is_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._transport.get_protocol()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + sum(map(len, self._waiting))

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._transport.set_write_buffer_limits(high, low)

    def can_write_eof(self) -> bool:
        return False  # a write left waiting would follow the end: never asked by uvicorn

    def write_eof(self) -> None:
        raise NotImplementedError("OneWrite: no half-close")


__all__ = [
    "CSP",
    "PATIENCE",
    "BodyRequest",
    "OneWrite",
    "PatientHttp",
    "content_headers",
    "first_header",
    "json_only",
    "security_headers",
]
