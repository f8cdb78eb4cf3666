"""The odds desk closed (``bxb serve`` stopping) returns only once its pool's manager thread has
ended. That thread closes the pool's wake-up pipe as it ends, and CPython 3.11's exit hook
(``concurrent.futures.process._python_exit``) writes to the same pipe without a lock: a server
that exited while the thread was still ending printed an ``OSError: [Errno 9] Bad file
descriptor`` traceback as it stopped (seen under load in test_serve_stops)."""

from __future__ import annotations

import time
from concurrent.futures import process

import pytest

from blowbyblow.replay.odds.desk import DeskLimits, OddsDesk


def test_close_waits_for_the_pools_manager_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    ending = process._ExecutorManagerThread.join_executor_internals

    def slowly(self: process._ExecutorManagerThread) -> None:
        time.sleep(0.5)  # the thread's end delayed, as a loaded machine may delay it
        ending(self)

    monkeypatch.setattr(process._ExecutorManagerThread, "join_executor_internals", slowly)
    desk = OddsDesk(DeskLimits(workers=1))
    desk.warm()
    manager = getattr(desk._pool, "_executor_manager_thread", None)
    assert manager is not None and manager.is_alive()
    desk.close()
    assert not manager.is_alive(), "close() returned while the pool's thread was still ending"
