"""The hot routes' framework work made smaller (issue 25) says the same as before: a plain JSON
answer is the bytes Litestar's own ``Response`` sends (``web/answers.py``), a body the handler
cannot read is refused by the request as it is read (``web/guard.py``'s ``BodyRequest``), a
body of another type before anything runs, the streams are server-sent events with the
headers Litestar's ``ServerSentEvent`` gave them (``web/live.py``), and store work handed to a
worker thread comes back as ``run_in_executor`` brought it (``web/api.py``'s ``work``)."""

from __future__ import annotations

import asyncio
import contextvars
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import msgspec
import pytest
from litestar import Response
from web_helpers import Client, Site, bearer, live_server, played_heard, started_at_two

from blowbyblow.web import api
from blowbyblow.web.answers import Answer, Sent
from blowbyblow.web.schemas import ErrorBody


class _Shape(msgspec.Struct):
    name: str
    sides: list[int]
    note: str | None = None


def _sent(answer: Any) -> tuple[type[Any], list[Any]]:
    """What an ASGI answer sends, and its class."""
    messages: list[Any] = []

    async def send(message: Any) -> None:
        messages.append(message)

    async def receive() -> Any:
        return {"type": "http.disconnect"}

    asgi = answer.to_asgi_response(app=None, request=None)
    asyncio.run(asgi({"type": "http"}, receive, send))
    return type(asgi), messages


CONTENTS = [
    _Shape(name="brave", sides=[6, 6, 3]),
    [_Shape(name="é ✓", sides=[]), {"a": 1.5, "b": None}],
    ErrorBody(status=422, field="option", rule="an option", message="option 9: the rules offer 2"),
    {},
]


@pytest.mark.parametrize("content", CONTENTS)
@pytest.mark.parametrize("status", [None, 200, 201, 422])
def test_a_plain_json_answer_is_what_litestar_sends(content: Any, status: int | None) -> None:
    lean, sent = _sent(Answer(content, status_code=status))
    assert lean is Sent  # the lean way was taken
    assert sent == _sent(Response(content, status_code=status))[1]


@pytest.mark.parametrize(
    "answer",
    [
        Answer(b"raw", media_type="application/x-ndjson"),
        Answer("text", media_type="text/plain"),
        Answer({"a": 1}, headers={"Content-Disposition": "attachment"}),
        Answer({"a": 1}, cookies={"k": "v"}),
        Answer({"a": 1}, status_code=201, media_type="application/vnd.x+json"),
    ],
)
def test_any_other_answer_goes_litestars_way(answer: Answer[Any]) -> None:
    lean, sent = _sent(answer)
    plain = Response(
        answer.content,
        status_code=answer.status_code,
        media_type=answer.media_type,
        headers=answer.headers,
        cookies=answer.cookies,
    )
    assert lean is not Sent
    assert sent == _sent(plain)[1]


def test_the_command_route_refuses_as_before_and_writes_nothing(
    site: Site, client: Client, seeded_battle: str
) -> None:
    url = f"/api/battles/{seeded_battle}/commands"
    table = bearer(site.tables[1])
    cases: list[tuple[bytes, dict[str, str], int, str | None, str]] = [
        (
            b'{"option": "\xff"}',
            {**table, "Content-Type": "application/json"},
            400,
            "body",
            "UTF-8",
        ),
        (
            b"[" * 10_000 + b"]" * 10_000,
            {**table, "Content-Type": "application/json"},
            400,
            "body",
            "deep",
        ),
        (
            b'{"option": 0}',
            {**table, "Content-Type": "text/plain"},
            415,
            "Content-Type",
            "text/plain",
        ),
        (b'{"option": 0}', {"Content-Type": "application/json"}, 401, "Authorization", "no token"),
        (
            b'{"option": 0, "oops": 1}',
            {**table, "Content-Type": "application/json"},
            400,
            "oops",
            "oops",
        ),
        (b'{"option": 0', {**table, "Content-Type": "application/json"}, 400, None, "truncated"),
    ]
    before = site.written()
    for body, headers, status, field, said in cases:
        r = client.post(url, content=body, headers=headers)
        assert r.status_code == status, (body[:30], r.text)
        refusal = r.json()
        assert refusal["status"] == status and field in (None, refusal["field"]), refusal
        assert said in refusal["message"] and "\n" not in refusal["message"], refusal
        assert r.headers["content-type"] == "application/json"
        assert site.written() == before
    for kind in ("application/json; charset=utf-8", "Application/JSON"):  # JSON, however named
        r = client.post(url, content=b'{"option": 0}', headers={**table, "Content-Type": kind})
        assert r.status_code == 201, r.text


def test_a_tournaments_stream_is_server_sent_events(site: Site) -> None:
    battle = started_at_two(site, "sse")
    with live_server(site.app()) as base:
        got, r = played_heard(base, "/api/tournaments/spring/stream", battle, site.tables[2])
    version = r.json()["version"]
    headers = got.headers
    assert headers is not None
    assert headers["content-type"] == "text/event-stream; charset=utf-8"
    assert headers["cache-control"] == "no-cache"
    assert headers["connection"] == "keep-alive"
    assert headers["x-accel-buffering"] == "no"
    assert "content-security-policy" in headers
    first, _, rest = got.bytes.partition(b"\r\n\r\n")
    assert first == b": listening\r\nretry: 2000"
    note = {"kind": "played", "battle": battle, "version": version}
    note |= {"tournament": "spring", "table": 2}
    assert rest == b"event: played\r\ndata: " + json.dumps(note, separators=(",", ":")).encode() + (
        b"\r\n\r\n"
    )


def test_work_answers_raises_carries_the_context_and_never_starts_what_was_cancelled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``web/api.py``'s ``work``: the worker's answer or its exception comes back to the
    request, with the request's context; a request cancelled before its work started (every
    worker busy) never starts it."""
    pool = ThreadPoolExecutor(max_workers=1)
    monkeypatch.setattr(api, "_workers", [pool])
    asked: contextvars.ContextVar[str] = contextvars.ContextVar("asked")
    ran: list[str] = []

    def fail() -> None:
        raise KeyError("no such battle")

    async def run() -> tuple[str, str]:
        asked.set("table 3")
        answer = await api.work(lambda x: f"{asked.get()}: {x}", "played")
        with pytest.raises(KeyError, match="no such battle"):
            await api.work(fail)
        busy = threading.Event()
        release = threading.Event()

        def block() -> bool:
            busy.set()
            return release.wait(10)

        blocker = asyncio.ensure_future(api.work(block))
        await asyncio.get_running_loop().run_in_executor(None, busy.wait, 10)
        waiting = asyncio.ensure_future(api.work(ran.append, "written"))
        await asyncio.sleep(0.05)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        release.set()
        await blocker
        after = await api.work(lambda: "the pool goes on")
        return answer, after

    try:
        answer, after = asyncio.run(run())
    finally:
        pool.shutdown(wait=True)
    assert answer == "table 3: played"
    assert after == "the pool goes on"
    assert ran == []  # cancelled before it started: never started
