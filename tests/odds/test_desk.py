"""The odds desk a server asks (replay/odds/desk.py): bounded work, answers kept by what
decides them, a limit on requests at once, and work in worker processes that stop past their
time."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from odds_helpers import recorded

from blowbyblow.domain.core import CommandIssued, DiceRolled, Event
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.odds.desk import (
    DeskLimits,
    OddsBusy,
    OddsDesk,
    OddsTimedOut,
    TooMuchAsked,
)
from blowbyblow.replay.odds.explore import HowToExplore, recorded_odds


@pytest.fixture(scope="module")
def gangfight() -> list[Event]:
    return recorded(get_game_system("gangfight").demo())


@pytest.fixture(scope="module")
def necromunda() -> list[Event]:
    return recorded(get_game_system("necromunda-2023").demo())


@pytest.fixture
def desk() -> Iterator[OddsDesk]:
    d = OddsDesk(DeskLimits(waiting=2, seconds=20))
    yield d
    d.close()


def _fight(events: list[Event]) -> tuple[int, int]:
    """Two positions of the first command that rolls dice: its CommandIssued and a die of it."""
    first = next(i for i, e in enumerate(events) if isinstance(e, DiceRolled))
    start = max(i for i in range(first) if isinstance(events[i], CommandIssued))
    return start + 1, first + 1


def test_the_answer_is_the_odds_and_is_kept_by_command(
    desk: OddsDesk, gangfight: list[Event]
) -> None:
    at_start, at_die = _fight(gangfight)
    odds = desk.recorded(gangfight, at_start, budget=500, samples=200)
    assert odds == recorded_odds(gangfight, at_start, HowToExplore(budget=500, samples=200))
    # another position of the same command: the same answer, not worked out again
    assert desk.recorded(gangfight, at_die, budget=500, samples=200) == odds
    assert (desk.stats().computed, desk.stats().kept) == (1, 1)
    # another budget decides another answer
    desk.recorded(gangfight, at_die, budget=400, samples=200)
    assert desk.stats().computed == 2


def test_too_much_asked_is_refused_before_any_work(desk: OddsDesk, gangfight: list[Event]) -> None:
    with pytest.raises(TooMuchAsked, match=r"budget: must be 1 to 5,000, not 5001") as e:
        desk.recorded(gangfight, 3, budget=5001, samples=0)
    assert e.value.field == "budget"
    with pytest.raises(TooMuchAsked, match="samples"):
        desk.recorded(gangfight, 3, budget=10, samples=20_001)
    assert desk.stats().computed == 0 and desk.stats().running == 0


def test_more_requests_than_allowed_are_refused_at_once(necromunda: list[Event]) -> None:
    desk = OddsDesk(DeskLimits(waiting=1, seconds=30))
    try:
        charge, _ = _fight(necromunda)
        first = desk.submit(necromunda, charge, budget=50, samples=400)
        started = time.perf_counter()
        with pytest.raises(OddsBusy, match="1 requests for odds are being worked out"):
            desk.submit(necromunda, charge, budget=60, samples=400)
        assert time.perf_counter() - started < 0.5  # refused, not queued
        # the same question joins the one being worked out
        assert desk.submit(necromunda, charge, budget=50, samples=400) is first
        first.result()
        desk.recorded(necromunda, charge, budget=60, samples=400)  # a slot again
        assert desk.stats().refused == 1 and desk.stats().joined == 1
    finally:
        desk.close()


def test_work_past_its_time_is_stopped_and_the_desk_goes_on(
    necromunda: list[Event], gangfight: list[Event]
) -> None:
    desk = OddsDesk(DeskLimits(seconds=1.0))
    try:
        desk.warm()
        charge, _ = _fight(necromunda)
        started = time.perf_counter()
        with pytest.raises(OddsTimedOut, match="longer than 1 s"):
            desk.recorded(necromunda, charge, budget=1, samples=20_000)
        assert time.perf_counter() - started < 5
        assert desk.stats().timed_out == 1 and desk.stats().running == 0
        at_start, _ = _fight(gangfight)
        assert desk.recorded(gangfight, at_start, budget=1, samples=20).units
    finally:
        desk.close()


def test_an_error_of_the_rules_comes_through(desk: OddsDesk, gangfight: list[Event]) -> None:
    with pytest.raises(Exception, match="positions 1 to"):
        desk.recorded(gangfight, len(gangfight) + 5, budget=10, samples=10)
    assert desk.stats().running == 0
