"""The odds desk closed (``bxb serve`` stopping) returns only once its pool's manager thread has
ended. That thread closes the pool's wake-up pipe as it ends, and CPython 3.11's exit hook
(``concurrent.futures.process._python_exit``) writes to the same pipe without a lock: a server
that exited while the thread was still ending printed an ``OSError: [Errno 9] Bad file
descriptor`` traceback as it stopped (seen under load in test_serve_stops)."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import process
from pathlib import Path

import pytest

from blowbyblow.replay.odds.desk import DeskLimits, OddsDesk


def _ends_once_joined(thread: threading.Thread, release: threading.Event) -> None:
    """``thread``'s end (held on ``release``) let go only by a join of it: a close() that does
    not wait for the thread returns with it still alive, however long close() itself takes. A
    time (a timer, a sleep) let a slow close() outlast it and pass without waiting."""
    join = thread.join

    def joined(timeout: float | None = None) -> None:
        release.set()
        join(timeout)

    thread.join = joined  # type: ignore[method-assign]


def test_close_waits_for_the_pools_manager_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    ending = process._ExecutorManagerThread.join_executor_internals
    release = threading.Event()

    def slowly(self: process._ExecutorManagerThread) -> None:
        release.wait(120)  # the thread's end delayed, as a loaded machine may delay it
        ending(self)

    monkeypatch.setattr(process._ExecutorManagerThread, "join_executor_internals", slowly)
    desk = OddsDesk(DeskLimits(workers=1))
    desk.warm()
    manager = getattr(desk._pool, "_executor_manager_thread", None)
    assert manager is not None and manager.is_alive()
    _ends_once_joined(manager, release)
    try:
        desk.close()
        assert not manager.is_alive(), "close() returned while the pool's thread was still ending"
    finally:
        release.set()


def test_close_waits_for_a_broken_pools_manager_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker killed breaks its pool, and the next request puts a new pool in its place
    (shut down without waiting): that pool's manager thread, still ending, is the same exit
    race as the pool the desk closes."""
    ending = process._ExecutorManagerThread.join_executor_internals
    slow: list[process._ExecutorManagerThread] = []
    release = threading.Event()

    def slowly(self: process._ExecutorManagerThread) -> None:
        slow.append(self)
        # the broken pool's thread held ending until the desk is being closed (an event, not a
        # sleep: a new worker's start may take seconds on a loaded machine)
        release.wait(120)
        ending(self)

    desk = OddsDesk(DeskLimits(workers=1))
    try:
        desk.warm()
        [worker] = desk.workers()
        monkeypatch.setattr(process._ExecutorManagerThread, "join_executor_internals", slowly)
        os.kill(worker, signal.SIGKILL)
        waited = time.monotonic() + 120
        while not slow and time.monotonic() < waited:  # the break seen by its thread
            time.sleep(0.01)
        [broken] = slow
        monkeypatch.setattr(process._ExecutorManagerThread, "join_executor_internals", ending)
        desk.warm()  # a new pool in the broken one's place
        assert broken.is_alive()
        _ends_once_joined(broken, release)  # let end when close() waits for it, not before
    finally:
        desk.close()
    try:
        assert not broken.is_alive(), "close() returned while the broken pool's thread was ending"
    finally:
        release.set()


def test_a_process_the_workers_are_forked_from_ignores_ctrl_c_from_its_start() -> None:
    """A terminal's Ctrl-C reaches every process of its group: a worker still starting (before
    its initializer, ``_lower_priority``) printed a KeyboardInterrupt traceback. A process
    started as the desk's workers are, sent SIGINT as its first act, goes on and ends well."""
    desk = OddsDesk(DeskLimits(workers=1))  # the forkserver: started by the desk
    try:
        started = multiprocessing.get_context("forkserver").Process(
            target=signal.raise_signal, args=(signal.SIGINT,)
        )
        started.start()
        started.join(120)
        assert started.exitcode == 0
    finally:
        desk.close()


def test_close_stops_a_worker_being_started(monkeypatch: pytest.MonkeyPatch) -> None:
    """Closed while its first worker is being started (``bxb serve`` stopped in its first
    seconds, the warm-up under way): that worker was not yet among the pool's processes when
    close() looked, and was left starting after close() returned."""
    adjust = process.ProcessPoolExecutor._adjust_process_count
    spawning = threading.Event()

    def slowly(self: process.ProcessPoolExecutor) -> None:
        spawning.set()
        time.sleep(0.5)  # a loaded machine's slow start, the pool's lock held as submit holds it
        adjust(self)

    monkeypatch.setattr(process.ProcessPoolExecutor, "_adjust_process_count", slowly)
    desk = OddsDesk(DeskLimits(workers=1))
    pool = desk._pool
    started = pool._processes  # shutdown forgets it: the same dict, filled as workers start

    def warm() -> None:
        with contextlib.suppress(Exception):  # cut short by the close: not this test's
            desk.warm()

    warming = threading.Thread(target=warm)
    warming.start()
    assert spawning.wait(120)
    desk.close()
    assert started, "no worker was started"
    assert not any(p.is_alive() for p in started.values()), "a worker left running"
    warming.join(120)


def test_a_server_killed_outright_leaves_no_worker() -> None:
    """A process with an odds desk killed outright (``kill -9``, the kernel out of memory): its
    worker waited on its task queue for ever, and kept the fork server and the resource
    tracker alive with it. The first answers' worker ends too."""
    script = (
        "from blowbyblow.replay.odds.desk import DeskLimits, OddsDesk\n"
        "desk = OddsDesk(DeskLimits(workers=1)); desk.warm()\n"
        "print(*desk.workers(), *desk.workers(first=True), flush=True)\n"
        "import time; time.sleep(600)\n"
    )
    server = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    workers = list(map(int, server.stdout.readline().split()))
    assert len(workers) == 2, workers
    server.kill()
    server.wait()
    try:
        deadline = time.monotonic() + 60  # a guard against a hang, not a measure
        for worker in workers:
            while Path(f"/proc/{worker}").exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert not Path(f"/proc/{worker}").exists(), "a worker outlived its server"
    finally:
        for worker in workers:
            if Path(f"/proc/{worker}").exists():  # only the workers this test's process started
                os.kill(worker, signal.SIGKILL)


class _WithoutShutdownLock:
    """A pool as a Python whose ``ProcessPoolExecutor`` has no ``_shutdown_lock`` shows it (a
    private name): every other name is the real pool's."""

    def __init__(self, pool: process.ProcessPoolExecutor) -> None:
        self._inner = pool

    def __getattr__(self, name: str) -> object:
        if name == "_shutdown_lock":
            raise AttributeError(name)
        return getattr(self._inner, name)


def test_close_stops_the_workers_of_a_pool_without_its_shutdown_lock() -> None:
    """``close`` reads the pool's private names with defaults: one that is missing on another
    Python is no AttributeError as the server stops, and the workers still end."""
    desk = OddsDesk(DeskLimits(workers=1))
    desk._pool = _WithoutShutdownLock(desk._pool)  # type: ignore[assignment]
    desk.warm()
    [worker] = desk.workers()
    desk.close()
    assert not Path(f"/proc/{worker}").exists(), "a worker left running"
