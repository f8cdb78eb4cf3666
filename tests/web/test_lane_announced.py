"""A command's body announced over the route's limit is refused 413 at once, before a byte of it
is asked for, as Litestar's own reading refuses it: the lane (``web/lane.py``) asked uvicorn for
the body's first message first, so a client that waits to be told to send (``Expect:
100-continue``, as curl does for a large body) was told "100 Continue" and then left waiting for
an answer, and one that sent nothing yet had no answer at all."""

from __future__ import annotations

import json
import socket

import pytest
from web_helpers import Site, live_server

from blowbyblow.web.guard import PatientHttp
from blowbyblow.web.lane import _announced

OVER = 100_000_000  # bytes announced: over the route's limit (Litestar's 10 MB)
COMMANDS = b"POST /api/battles/00000000-0000-0000-0000-000000000001/commands HTTP/1.1\r\n"


def _first_answer(base: str, head: bytes) -> bytes:
    """The head of the first answer to a request of ``head`` whose body is not sent (what came
    within 10 s; b"" when nothing did)."""
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(COMMANDS + b"Host: x\r\nContent-Type: application/json\r\n" + head + b"\r\n")
        got = b""
        try:
            while b"\r\n\r\n" not in got and (chunk := sock.recv(65536)):
                got += chunk
        except TimeoutError:
            pass
    return got


@pytest.mark.parametrize("expect", [b"Expect: 100-continue\r\n", b""])
def test_a_body_announced_over_the_limit_is_refused_before_it_is_sent(
    site: Site, expect: bytes
) -> None:
    with live_server(site.app(), http=PatientHttp) as base:
        got = _first_answer(base, b"Content-Length: %d\r\n" % OVER + expect)
    assert got.startswith(b"HTTP/1.1 413 "), got


def test_a_body_announced_within_the_limit_is_still_asked_for(site: Site) -> None:
    """``Expect: 100-continue`` with a body the route takes: told to send it, then answered."""
    with live_server(site.app(), http=PatientHttp) as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            body = b'{"option": 0}'
            sock.sendall(
                COMMANDS + b"Host: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n"
                b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
            )
            assert sock.recv(65536) == b"HTTP/1.1 100 Continue\r\n\r\n"
            sock.sendall(body)
            got = b""
            while chunk := sock.recv(65536):
                got += chunk
    assert got.startswith(b"HTTP/1.1 404 "), got  # no such battle: the handler answered


def test_the_refusal_names_the_body(site: Site) -> None:
    """The 413 says what it is about, the body and its limit, as every refusal names its field
    (it named ``path``, "a route of this server", as if there were no such route)."""
    with live_server(site.app(), http=PatientHttp) as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(
                COMMANDS + b"Host: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n" % OVER
            )
            got = b""
            while b"\r\n\r\n" not in got and (chunk := sock.recv(65536)):
                got += chunk
            head, _, body = got.partition(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            while len(body) < length and (chunk := sock.recv(65536)):
                body += chunk
    assert head.startswith(b"HTTP/1.1 413 "), head
    refusal = json.loads(body)
    assert (refusal["status"], refusal["field"]) == (413, "body"), refusal
    assert "size" in refusal["rule"], refusal


@pytest.mark.parametrize("length", ["\u00b2", "1\u00b2", "\u0663"])  # superscript two, Arabic three
def test_a_length_of_other_digits_goes_litestars_way(length: str) -> None:
    """Digits outside ASCII are no Content-Length: Litestar's way (its own refusal), never an
    ``int()`` of them (a 500 under an ASGI server whose parser lets them through)."""
    assert not _announced(length, 10_000_000)
    assert not _announced(length, None)
