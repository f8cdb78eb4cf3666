"""An answer's head written with less work a request (issue 25), byte for byte as uvicorn writes
it: ``bxb serve``'s HTTP protocol (``web/guard.py``'s ``PatientHttp``) answers through
``HeadedCycle``.

uvicorn checks each header of every answer with two regular expressions (a name's characters, a
value's) and lowers its name, its own ``server`` and ``date`` among them and the page policy's
long ``Content-Security-Policy``: about 40 K instructions an answer for the same few headers. Here
a header is checked by uvicorn's own expressions the first time it is sent and its line kept
(``LINES_KEPT`` at most); an answer whose headers are all kept lines, plus one plain
``content-length``, has its head joined from them. Anything else (a header uvicorn acts on:
``connection``, ``transfer-encoding``, another ``content-length``; a header that fails the
checks; uvicorn's access log on; a paused write) goes uvicorn's own way, which also raises its
errors. Written by hand: uvicorn has no way to pass a header it checked before."""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.http.httptools_impl import (
    HEADER_RE,
    HEADER_VALUE_RE,
    STATUS_LINE,
    RequestResponseCycle,
)

LINES_KEPT = 256  # header lines kept; the date's changes each second
CHUNKS = "bxb.chunks"  # a request's scope key: its connection's protocol (``chunk_writer``)
_ACTED_ON = (b"content-length", b"transfer-encoding", b"connection")
_lines: dict[tuple[bytes, bytes], bytes] = {}


def _line(header: Any) -> bytes | None:
    """``header``'s line in an answer's head as uvicorn writes it (its name lowered), None when
    uvicorn acts on it or would refuse it."""
    try:
        line = _lines.get(header)
    except TypeError:  # a list, or a name or value that is not bytes: uvicorn's way
        return None
    if line is None:
        if type(header) is not tuple or len(header) != 2:
            return None
        name, value = header
        if type(name) is not bytes or type(value) is not bytes:
            return None
        lowered = name.lower()
        if lowered in _ACTED_ON or HEADER_RE.search(name) or HEADER_VALUE_RE.search(value):
            return None
        if len(_lines) >= LINES_KEPT:
            _lines.clear()
        line = _lines[header] = b"".join((lowered, b": ", value, b"\r\n"))
    return line


class HeadedCycle(RequestResponseCycle):
    """uvicorn's request-response cycle, whose answer's head is joined from kept lines when it
    can be (see the module); the body and everything else are uvicorn's."""

    async def send(self, message: Any) -> None:
        if (
            message["type"] == "http.response.start"
            and not (self.response_started or self.disconnected or self.access_log)
            and not self.flow.write_paused
        ):
            head = self._head(message)
            if head is not None:
                self.response_started = True
                self.waiting_for_100_continue = False
                self.transport.write(head)
                return
        await super().send(message)

    def write_chunk(self, data: bytes) -> bool:
        """``data`` written now as the next chunk of a body being streamed, the bytes uvicorn's
        ``send`` writes for it (a live stream's notes, ``web/live.py``: no task woken and no
        ``send`` a note, issue 25); False, nothing written, when ``send``'s own way is needed:
        a paused write (its wait), the connection gone, no chunked body begun, a ``HEAD``."""
        if (
            self.flow.write_paused
            or self.disconnected
            or not self.response_started
            or self.response_complete
            or not self.chunked_encoding
            or self.scope["method"] == "HEAD"
            or not data
        ):
            return False
        transport = self.transport
        chunk = b"%x\r\n%b\r\n" % (len(data), data)
        write_now = getattr(transport, "write_now", None)  # the protocol's OneWrite (guard.py)
        if write_now is None:
            transport.write(chunk)
        else:
            write_now(chunk)
        return True

    def _head(self, message: Any) -> bytes | None:
        """The answer's head as uvicorn's ``send`` writes it, its state set as uvicorn sets it;
        None (nothing set) when uvicorn's own way is needed."""
        status = message["status"]
        start = STATUS_LINE.get(status)
        if start is None:
            return None
        defaults = _defaults(self.default_headers)
        if defaults is None:
            return None
        headers = message.get("headers", ())
        if type(headers) is not list and type(headers) is not tuple:
            return None  # read once, by uvicorn: an iterator given back half read would not do
        content = [start, defaults]
        length: bytes | None = None
        for header in headers:
            line = _line(header)
            if line is not None:
                content.append(line)
            elif length is None and _plain_length(header):
                length = header[1]
                content.append(b"content-length: " + length + b"\r\n")
            else:
                return None
        if not self.keep_alive:
            content.append(b"connection: close\r\n")
        if length is not None:
            self.expected_content_length = int(length)
            self.chunked_encoding = False
        elif self.scope["method"] != "HEAD" and status not in (204, 304):
            self.chunked_encoding = True
            content.append(b"transfer-encoding: chunked\r\n")
        content.append(b"\r\n")
        return b"".join(content)


_kept_defaults: tuple[object, bytes | None] = ((), None)


def _defaults(headers: list[tuple[bytes, bytes]]) -> bytes | None:
    """uvicorn's own headers' lines (``server``, ``date``), joined once for each list it makes
    of them (a new one each second, for the date)."""
    global _kept_defaults  # one list at a time, swapped whole
    kept, lines = _kept_defaults
    if kept is not headers:
        found = [line for line in map(_line, headers) if line is not None]
        lines = b"".join(found) if len(found) == len(headers) else None
        _kept_defaults = (headers, lines)
    return lines


def _plain_length(header: Any) -> bool:
    """A ``content-length`` header as an ASGI app sends it: its name in lower case, its value
    digits."""
    return (
        type(header) is tuple
        and len(header) == 2
        and header[0] == b"content-length"
        and type(header[1]) is bytes
        and header[1].isdigit()
    )


def chunk_writer(scope: Any) -> Any:
    """The ``write_chunk`` of the answer to ``scope``'s request, asked while it is answered,
    when ``bxb serve``'s protocol serves it (``PatientHttp`` puts itself under ``CHUNKS``),
    else None (another server, the tests' client): the body goes through ``send``."""
    protocol = scope.get(CHUNKS)
    cycle = None if protocol is None else protocol.cycle
    if type(cycle) is not HeadedCycle or cycle.scope is not scope:
        return None
    return cycle.write_chunk


__all__ = ["CHUNKS", "LINES_KEPT", "HeadedCycle", "chunk_writer"]
