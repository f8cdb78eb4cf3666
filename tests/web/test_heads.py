"""An answer's head joined from kept lines (``web/heads.py``) is byte for byte uvicorn's own:
every kind of answer (its headers a list, or an iterator) sent through ``bxb serve``'s HTTP protocol and through uvicorn's stock one,
the bytes on the wire compared; and a plain answer's headers are not checked again."""

from __future__ import annotations

import re
import socket
from typing import Any

import pytest
from uvicorn.protocols.http import httptools_impl
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from web_helpers import live_server

from blowbyblow.web import heads
from blowbyblow.web.guard import CSP, PatientHttp

JSON = (b"content-type", b"application/json")
POLICY = (b"content-security-policy", CSP.encode())
ANSWERS: dict[str, tuple[int, list[Any], list[bytes]]] = {
    # path: status, headers, body parts
    "/json": (200, [JSON, (b"content-length", b"2"), POLICY], [b"{}"]),
    "/chunked": (200, [JSON, POLICY], [b"[1,", b"2]"]),
    "/empty": (204, [POLICY], [b""]),
    "/unchanged": (304, [(b"etag", b'"a"')], [b""]),
    "/created": (201, [(b"Location", b"/x"), (b"content-length", b"0")], [b""]),
    "/close": (200, [(b"connection", b"close"), (b"content-length", b"1")], [b"x"]),
    "/encoded": (200, [(b"transfer-encoding", b"chunked")], [b"ab", b""]),
    "/twice": (200, [(b"content-length", b"1"), (b"content-length", b"1")], [b"x"]),
    "/listed": (200, [[b"x-listed", b"yes"], (b"content-length", b"1")], [b"x"]),
    "/tab": (200, [(b"x-tab", b"a\tb"), (b"content-length", b"01")], [b"x"]),
    "/bad-value": (200, [(b"x-bad", b"a\nb"), (b"content-length", b"1")], [b"x"]),
    "/bad-name": (200, [(b"x bad", b"a"), (b"content-length", b"1")], [b"x"]),
    "/bad-length": (200, [(b"content-length", b"1x")], [b"x"]),
    "/odd-status": (299, [(b"content-length", b"1")], [b"x"]),
}


async def _app(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    status, headers, parts = ANSWERS.get(scope["path"], ANSWERS["/json"])
    if scope["query_string"] == b"once":  # an iterator, as ASGI allows: read once
        headers = iter(headers)  # type: ignore[assignment]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    for i, part in enumerate(parts):
        await send({"type": "http.response.body", "body": part, "more_body": i < len(parts) - 1})


def _wire(base: str, request: bytes) -> bytes:
    """What the server sends for ``request`` followed by a last request that closes: every byte
    until the close, its date made constant."""
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request + b"GET /json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        got = b""
        try:
            while chunk := sock.recv(65536):
                got += chunk
        except ConnectionResetError:
            pass
    return re.sub(rb"date: [^\r]*\r\n", b"date: D\r\n", got)


REQUESTS = [
    *(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode() for path in ANSWERS),
    b"HEAD /json HTTP/1.1\r\nHost: x\r\n\r\n",
    b"HEAD /chunked HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    b"GET /chunked HTTP/1.0\r\nHost: x\r\n\r\n",
    b"POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
    b"GET /json?once HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /close?once HTTP/1.1\r\nHost: x\r\n\r\n",
]


def test_every_head_is_uvicorns_own() -> None:
    with live_server(_app, http=HttpToolsProtocol, access_log=False) as stock:  # type: ignore[arg-type]
        expected = [_wire(stock, r) for r in REQUESTS]
    with live_server(_app, http=PatientHttp, access_log=False) as ours:  # type: ignore[arg-type]
        for _ in range(2):  # the lines checked, then kept
            for request, wire in zip(REQUESTS, expected, strict=True):
                assert _wire(ours, request) == wire, request
    refused = [r for r, w in zip(REQUESTS, expected, strict=True) if not w.startswith(b"HTTP/1.1")]
    assert [r.split()[1] for r in refused] == [b"/bad-value", b"/bad-name", b"/bad-length"]
    assert b"content-security-policy: " + CSP.encode() + b"\r\n" in expected[0]


class _Counted:
    def __init__(self, pattern: re.Pattern[bytes], seen: list[bytes]) -> None:
        self.pattern = pattern
        self.seen = seen

    def search(self, text: bytes) -> Any:
        self.seen.append(text)
        return self.pattern.search(text)


def test_a_plain_answers_headers_are_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """uvicorn's own checks of each header (two regular expressions a header, the page policy's
    long value among them) are not run again for headers already sent: not at all once the
    server has sent them. Fails where every answer goes uvicorn's own way, and where the lines
    are checked again each answer (``web/heads.py``'s own use of the expressions is counted
    too)."""
    seen: list[bytes] = []
    name = _Counted(httptools_impl.HEADER_RE, seen)
    value = _Counted(httptools_impl.HEADER_VALUE_RE, seen)
    for module in (httptools_impl, heads):
        monkeypatch.setattr(module, "HEADER_RE", name)
        monkeypatch.setattr(module, "HEADER_VALUE_RE", value)
    with live_server(_app, http=PatientHttp, access_log=False) as ours:  # type: ignore[arg-type]
        first = _wire(ours, b"GET /json HTTP/1.1\r\nHost: x\r\n\r\n")
        seen.clear()
        again = _wire(ours, b"GET /json HTTP/1.1\r\nHost: x\r\n\r\n")
    assert first == again
    # but the date's line, new each second (uvicorn's default headers), checked once for it
    assert [text for text in seen if text != b"date" and not text.endswith(b" GMT")] == []
    with live_server(_app, http=HttpToolsProtocol, access_log=False) as stock:  # type: ignore[arg-type]
        seen.clear()
        assert _wire(stock, b"GET /json HTTP/1.1\r\nHost: x\r\n\r\n") == again
    assert CSP.encode() in seen  # the stock protocol: checked each time
