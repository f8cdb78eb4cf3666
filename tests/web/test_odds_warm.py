"""The server's odds desk warmed up at start-up (``ServerOdds.warm``, called by ``bxb serve``):
its worker processes are started before any odds are asked for, so the first odds wait for no
process to start and load the rules; a server stopped before or while it warms up (Ctrl-C at
once) starts no desk after its close and prints no thread's traceback."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from blowbyblow.cli import serve
from blowbyblow.cli.main import app as cli
from blowbyblow.replay.odds.desk import DeskClosed
from blowbyblow.web.errors import ApiError
from blowbyblow.web.odds_desk import ServerOdds


def waited(done: Callable[[], bool], what: str, patience: float = 120.0) -> None:
    """Wait until ``done()`` (a guard against a hang, not a measure)."""
    deadline = time.monotonic() + patience
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting for {what} after {patience:.0f} s")
        time.sleep(0.05)


def warming() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "odds-warm"]


@pytest.fixture
def thread_errors(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[BaseException]]:
    """What a thread raised and did not catch (printed as a traceback outside a test)."""
    raised: list[BaseException] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: raised.append(args.exc_value))
    yield raised


def test_warm_starts_every_worker_before_any_odds_are_asked(
    thread_errors: list[BaseException],
) -> None:
    odds = ServerOdds()
    try:
        odds.warm()
        for thread in warming():
            thread.join(120)
        assert not warming(), "the warm-up never ended"
        desk = odds._desk  # started by the warm-up, not by a request
        assert desk is not None
        assert len(desk.workers()) == odds.limits.workers
        assert desk.stats().computed == 0  # nothing asked for yet
    finally:
        odds.close()
    assert thread_errors == []


@pytest.mark.parametrize("pause", [0.0, 0.2])
def test_a_server_closed_as_it_warms_up_starts_no_desk_and_says_nothing(
    thread_errors: list[BaseException], pause: float
) -> None:
    """Closed at once, or while the workers start (whichever comes first under the machine's
    load, the answer is the same): no desk is left and the warm-up raises nothing."""
    odds = ServerOdds()
    odds.warm()
    time.sleep(pause)  # a close at some point of the warm-up, not a wait for a state
    odds.close()
    for thread in warming():
        thread.join(120)
    assert not warming(), "the warm-up never ended"
    assert odds._desk is None  # none started after the close, none left running
    assert thread_errors == []


def test_a_closed_servers_odds_stay_closed(thread_errors: list[BaseException]) -> None:
    """After ``close`` (the server stopping), neither a request's thread still running nor a
    warm-up starts a desk again: the odds are refused (503, the server is stopping). A new desk
    had been made, whose workers nobody closed (the server's exit then waited about 10 s)."""
    odds = ServerOdds()
    try:
        odds.desk()  # started, as by the first odds asked
        odds.close()
        with pytest.raises(DeskClosed):
            odds.desk()
        with pytest.raises(ApiError) as refused:
            odds.recorded([], 1, budget=10, samples=10)
        assert (refused.value.status, refused.value.message) == (
            503,
            "the server is stopping; try again",
        )
        odds.warm()
        for thread in warming():
            thread.join(120)
        assert not warming(), "the warm-up never ended"
        assert odds._desk is None  # none started after the close
        assert thread_errors == []
    finally:
        odds.close()


def test_bxb_serve_warms_its_odds_desk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    workers: list[int] = []

    def run(app: Any, **kw: Any) -> None:  # while it serves: its desk's workers are started
        odds: ServerOdds = app.state.server.service.odds_desk
        waited(lambda: odds._desk is not None and len(odds._desk.workers()) > 0, "the workers")
        assert odds._desk is not None
        workers.extend(odds._desk.workers())

    monkeypatch.setattr(uvicorn, "run", run)
    monkeypatch.setattr(serve, "_check_free", lambda host, port: None)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    db = tmp_path / "t.sqlite"
    done = CliRunner().invoke(cli, ["--db", str(db), "--log-level", "error", "serve"])
    assert done.exit_code == 0, done.output
    assert workers


def test_a_worker_killed_is_said_for_its_odds_and_the_next_are_answered(
    thread_errors: list[BaseException],
) -> None:
    """The worker working out a judge's odds killed (out of memory): that request is told so
    (503, ask again), not "the server is stopping"; the odds asked next are answered (a broken
    pool refused them all until the server restarted)."""
    import os
    import signal

    from blowbyblow.domain.core import CommandIssued
    from blowbyblow.replay.engine.registry import get_game_system
    from blowbyblow.replay.engine.script import play
    from blowbyblow.web.errors import ApiError

    events = play(get_game_system("necromunda-2023").demo()).events
    charge = next(i for i, e in enumerate(events, 1) if isinstance(e, CommandIssued))
    odds = ServerOdds()
    try:
        odds.desk().warm()
        [worker] = odds.desk().workers()
        said: list[BaseException] = []

        def ask() -> None:
            try:
                odds.recorded(events, charge, budget=5000, samples=4000)  # seconds of work
            except ApiError as e:
                said.append(e)

        asking = threading.Thread(target=ask)
        asking.start()
        waited(lambda: odds.desk().stats().running == 1, "the odds asked")
        os.kill(worker, signal.SIGKILL)
        asking.join(120)
        [error] = said
        assert isinstance(error, ApiError) and error.status == 503
        assert "stopped before its answer" in error.message and "ask again" in error.message
        answered = odds.scenario(get_game_system("gangfight").demo(), 500, 200, "setup")
        assert answered.method == "exact"
    finally:
        odds.close()
    assert thread_errors == []
