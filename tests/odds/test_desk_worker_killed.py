"""A worker of the odds desk killed (by the kernel out of memory, or by a signal) breaks its
process pool, and a broken pool refuses every task: every odds asked for after it was refused
until the server restarted. The desk now puts a new pool in its place: the odds being worked
out by the killed worker fail (nothing else can be said of them), the next are answered."""

from __future__ import annotations

import concurrent.futures as cf
import os
import signal
from collections.abc import Iterator

import pytest
from odds_helpers import recorded

from blowbyblow.domain.core import CommandIssued
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.odds.desk import DeskLimits, OddsDesk


@pytest.fixture
def desk() -> Iterator[OddsDesk]:
    d = OddsDesk(DeskLimits(seconds=60))
    yield d
    d.close()


def test_a_worker_killed_leaves_the_desk_answering(desk: OddsDesk) -> None:
    events = recorded(get_game_system("necromunda-2023").demo())
    charge = next(i for i, e in enumerate(events, 1) if isinstance(e, CommandIssued))
    desk.warm()
    [worker] = desk.workers()
    asked = desk.submit(events, charge, budget=5000, samples=4000)  # seconds of work
    os.kill(worker, signal.SIGKILL)
    with pytest.raises(cf.BrokenExecutor):
        asked.result(timeout=120)  # what the killed worker had: lost
    gangfight = get_game_system("gangfight").demo()
    odds = desk.scenario(gangfight, 1, budget=500, samples=200)  # refused before: pool broken
    assert odds.method == "exact"
    assert desk.workers() and worker not in desk.workers()
    assert desk.stats().running == 0
