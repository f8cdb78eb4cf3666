"""A live stream's notes written to its connection by the hub (``web/live.py``'s ``_flush``,
``web/heads.py``'s ``write_chunk``, issue 25): under ``bxb serve``'s protocol each note reaches
every stream, in order and byte for byte, without waking the stream's task or going through
``send``; a connection that cannot take a note now has its task send it, in order, and the hub
writes again after it."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Coroutine, Sequence
from typing import Any

import httpx
import pytest
from web_helpers import Site, bearer, live_server, started_at_two

from blowbyblow.web import live
from blowbyblow.web.guard import PatientHttp
from blowbyblow.web.heads import HeadedCycle
from blowbyblow.web.live import LISTENING, Hub, Note, encoded

COMMANDS = 4
JUDGES = 3


def _heard(url: str, notes: int, heard: list[bytes], ready: threading.Event) -> None:
    with httpx.stream("GET", url, timeout=20) as r:
        got = b""
        for chunk in r.iter_raw():
            got += chunk
            ready.set()
            if got.count(b"event: played") == notes and got.endswith(b"\r\n\r\n"):
                break
    heard.append(got)


def test_every_stream_hears_every_note_in_order_not_sent_through_its_task(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fails where each note wakes each stream's task to ``send`` it (main f0f3752)."""
    sent_notes = 0
    send = HeadedCycle.send

    async def counted(self: HeadedCycle, message: Any) -> None:
        nonlocal sent_notes
        if message["type"] == "http.response.body" and b"event:" in message.get("body", b""):
            sent_notes += 1
        await send(self, message)

    monkeypatch.setattr(HeadedCycle, "send", counted)
    battle = started_at_two(site, "written")
    with live_server(site.app(), http=PatientHttp, access_log=False) as base:
        heard: list[bytes] = []
        threads = []
        for _ in range(JUDGES):
            ready = threading.Event()
            thread = threading.Thread(
                target=_heard,
                args=(f"{base}/api/tournaments/spring/stream", COMMANDS, heard, ready),
                daemon=True,
            )
            thread.start()
            threads.append(thread)
            assert ready.wait(10)
        versions = []
        for _ in range(COMMANDS):
            r = httpx.post(
                f"{base}/api/battles/{battle}/commands",
                json={"option": 0},
                headers=bearer(site.tables[2]),
            )
            assert r.status_code == 201, r.text
            versions.append(r.json()["version"])
        for thread in threads:
            thread.join(20)
    notes = [
        b"event: played\r\ndata: "
        + json.dumps(
            {"kind": "played", "battle": battle, "version": v, "tournament": "spring", "table": 2},
            separators=(",", ":"),
        ).encode()
        + b"\r\n\r\n"
        for v in versions
    ]
    assert heard == [LISTENING + b"".join(notes)] * JUDGES
    assert sent_notes == 0


def test_a_connection_that_cannot_take_a_note_has_its_stream_send_it_in_order() -> None:
    """The hub writes, a write is refused (a paused connection): the stream's task sends what
    waited, then what came meanwhile, then the hub writes again; every note once, in order."""
    notes = [encoded(Note(kind="played", battle="b", version=v)) for v in range(1, 6)]
    written: list[bytes] = []
    answers = iter([True, False, True])

    def write(data: bytes) -> bool:
        if next(answers):
            written.append(data)
            return True
        return False

    async def run() -> list[bytes]:
        hub = Hub(gather=0.0)  # each flush at once: the refusal's path, not the gathering's
        stream = hub.listen("t", write)
        yielded = [await stream.__anext__()]
        turn = asyncio.ensure_future(stream.__anext__())  # the stream's task asleep
        await asyncio.sleep(0)
        hub._deliver(["t"], Note(kind="played", battle="b", version=1))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert written == [notes[0]] and not turn.done()  # written by the hub
        hub._deliver(["t"], Note(kind="played", battle="b", version=2))
        hub._deliver(["t"], Note(kind="played", battle="b", version=3))  # one write: refused
        yielded.append(await turn)  # so the stream sends them
        hub._deliver(["t"], Note(kind="played", battle="b", version=4))  # while it sends
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        yielded.append(await stream.__anext__())
        turn = asyncio.ensure_future(stream.__anext__())
        await asyncio.sleep(0)
        hub._deliver(["t"], Note(kind="played", battle="b", version=5))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert not turn.done()
        hub.close()
        with pytest.raises(StopAsyncIteration):
            await turn
        return yielded

    yielded = asyncio.run(run())
    assert yielded == [LISTENING, notes[1] + notes[2], notes[3]]
    assert written == [notes[0], notes[4]]


class _Clock(asyncio.SelectorEventLoop):
    """An event loop whose clock moves only when the test moves it: what is due when is the
    test's to say, however long a loaded machine stalls between two turns."""

    now = 1000.0

    def time(self) -> float:
        return self.now


async def _turns(n: int = 2) -> None:
    """``n`` turns of the loop: what is due runs."""
    for _ in range(n):
        await asyncio.sleep(0)


async def _closed(hub: Hub, turns: Sequence[asyncio.Future[bytes]]) -> None:
    """The hub closed: each stream's task ends."""
    hub.close()
    for turn in turns:
        with pytest.raises(StopAsyncIteration):
            await turn


def _on_clock(loop: _Clock, run: Coroutine[Any, Any, None]) -> None:
    try:
        loop.run_until_complete(run)
    finally:
        loop.close()


def test_notes_that_come_just_after_a_write_go_together_the_first_at_once() -> None:
    """A note after a quiet spell is written in the turn it came; notes that come within
    ``GATHER`` of the hub's last write, each alone in its turn of the loop, wait and go as one
    write, in order, ``GATHER`` after the first. Fails where each is a write of its own (main
    8bb835e: four writes). The loop's clock is the test's (it waited 1.0 s of a real clock,
    which a stalled machine could outlast between two notes)."""
    notes = [encoded(Note(kind="played", battle="b", version=v)) for v in range(1, 5)]
    written: list[tuple[float, bytes]] = []
    loop = _Clock()
    turns = _turns

    async def run() -> None:
        def write(data: bytes) -> bool:
            written.append((loop.time(), data))
            return True

        hub = Hub()
        stream = hub.listen("t", write)
        assert await stream.__anext__() == LISTENING
        turn = asyncio.ensure_future(stream.__anext__())  # the stream's task asleep
        await turns(1)
        hub._deliver(["t"], Note(kind="played", battle="b", version=1))
        await turns()
        assert [data for _, data in written] == [notes[0]]  # at once
        for version in (2, 3, 4):  # each alone in a turn of the loop, moments apart
            loop.now += live.GATHER / 10
            hub._deliver(["t"], Note(kind="played", battle="b", version=version))
            await turns()
        loop.now = written[0][0] + live.GATHER * 0.99
        await turns(5)
        assert len(written) == 1  # not yet due
        loop.now = written[0][0] + live.GATHER
        await turns(5)
        assert not turn.done()  # written by the hub, the stream's task never woken
        await _closed(hub, [turn])

    _on_clock(loop, run())
    assert [data for _, data in written] == [notes[0], notes[1] + notes[2] + notes[3]]
    assert written[1][0] - written[0][0] == pytest.approx(live.GATHER)


def test_a_tournaments_stream_is_gathered_longer_than_a_tables() -> None:
    """A tournament's stream (its judges', the dashboard's: every command of every table) waits
    ``GATHER_TOURNAMENT`` to write its notes together; a table's stream (a phone that may play
    next) keeps ``GATHER``. Four notes, each alone in a turn of the loop and ``GATHER`` or more
    apart: the table's stream writes each as it comes, the tournament's the first at once and
    the rest as one write, ``GATHER_TOURNAMENT`` after it. Fails where every stream has the one
    gathering (main 54f50f0: four writes). The loop's clock is the test's."""
    step = live.GATHER_TOURNAMENT / 4
    assert step >= live.GATHER
    notes = [encoded(Note(kind="played", battle="b", version=v)) for v in range(1, 5)]
    written: dict[str, list[tuple[float, bytes]]] = {"tournament:t": [], "table:t:1": []}
    loop = _Clock()
    turns = _turns

    async def run() -> None:
        hub = Hub()
        streams = []
        for topic, got in written.items():

            def write(data: bytes, got: list[tuple[float, bytes]] = got) -> bool:
                got.append((loop.time(), data))
                return True

            stream = hub.listen(topic, write)
            assert await stream.__anext__() == LISTENING
            streams.append(asyncio.ensure_future(stream.__anext__()))
        await turns(1)
        for version in range(1, 5):
            hub._deliver(list(written), Note(kind="played", battle="b", version=version))
            await turns()
            loop.now += step * 0.99 if version == 4 else step
        await turns(5)
        assert len(written["tournament:t"]) == 1  # not yet due
        loop.now = written["tournament:t"][0][0] + live.GATHER_TOURNAMENT
        await turns(5)
        await _closed(hub, streams)

    _on_clock(loop, run())
    assert [data for _, data in written["table:t:1"]] == notes
    tournament = written["tournament:t"]
    assert [data for _, data in tournament] == [notes[0], notes[1] + notes[2] + notes[3]]
    assert tournament[1][0] - tournament[0][0] == pytest.approx(live.GATHER_TOURNAMENT)
