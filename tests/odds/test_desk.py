"""The odds desk a server asks (replay/odds/desk.py): bounded work, answers kept by what
decides them, a limit on requests at once, and work in worker processes that stop past their
time."""

from __future__ import annotations

import concurrent.futures as cf
import os
import time
from collections.abc import Iterator
from pathlib import Path

import msgspec
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
from blowbyblow.replay.odds.explore import HowToExplore, OddsError, recorded_odds, scenario_odds


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
        with pytest.raises(OddsBusy, match="1 requests for odds are being worked out"):
            desk.submit(necromunda, charge, budget=60, samples=400)  # refused, not queued
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
    """The limit is processor time (a worker at a lower priority on a busy machine waits, and
    that is not work): 20,000 samples of a charge are far past a second of it."""
    desk = OddsDesk(DeskLimits(seconds=1.0))
    try:
        at_start, _ = _fight(gangfight)
        desk.recorded(gangfight, at_start, budget=1, samples=21)  # the worker's imports, done
        charge, _ = _fight(necromunda)
        with pytest.raises(OddsTimedOut, match="more than 1 s of work"):
            desk.recorded(necromunda, charge, budget=1, samples=20_000)
        assert desk.stats().timed_out == 1 and desk.stats().running == 0
        assert desk.recorded(gangfight, at_start, budget=1, samples=20).units
    finally:
        desk.close()


def test_an_error_of_the_rules_comes_through(desk: OddsDesk, gangfight: list[Event]) -> None:
    with pytest.raises(Exception, match="positions 1 to"):
        desk.recorded(gangfight, len(gangfight) + 5, budget=10, samples=10)
    assert desk.stats().running == 0


def test_a_scenarios_command_is_worked_out_and_kept(desk: OddsDesk) -> None:
    """The quick odds: a scenario's command, the very odds ``scenario_odds`` gives, kept."""
    demo = get_game_system("gangfight").demo()
    odds = desk.scenario(demo, 1, budget=500, samples=100)
    assert odds == scenario_odds(demo, 1, HowToExplore(budget=500, samples=100))
    assert desk.scenario(demo, 1, budget=500, samples=100) == odds
    assert (desk.stats().computed, desk.stats().kept) == (1, 1)


def test_a_refusal_of_the_rules_comes_back_in_its_words(desk: OddsDesk) -> None:
    """An illegal command's RuleViolation cannot be pickled as it is: it comes back as an
    OddsError with the rules' words."""
    demo = get_game_system("gangfight").demo()
    bad = msgspec.structs.replace(demo.commands[0], attacker="nobody")
    with pytest.raises(OddsError, match="nobody"):
        desk.scenario(msgspec.structs.replace(demo, commands=[bad]), 1, budget=10, samples=10)


def test_closing_stops_the_workers_whatever_they_do(necromunda: list[Event]) -> None:
    """A server stopping does not wait for odds nobody will read: the work under way fails,
    and no worker process is left."""
    desk = OddsDesk(DeskLimits(seconds=600))
    charge, _ = _fight(necromunda)
    running = desk.submit(necromunda, charge, budget=1, samples=20_000)
    while not desk.workers():
        time.sleep(0.01)
    workers = desk.workers()
    desk.close()
    with pytest.raises(cf.BrokenExecutor):
        running.result(timeout=60)
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_a_command_past_its_budget_is_sampled_at_once_when_asked_again(
    desk: OddsDesk, gangfight: list[Event]
) -> None:
    at_start, at_die = _fight(gangfight)
    first = desk.recorded(gangfight, at_start, budget=10, samples=40)
    assert first.method == "monte-carlo"
    assert desk.stats().sampled_at_once == 0
    # more samples (the viewer's full answer after its first), fewer runs, another seed: the
    # graph is not run again, and each answer is the one the graph and its samples give
    for budget, samples, seed in ((10, 80, "bxb-odds"), (4, 40, "bxb-odds"), (10, 40, "other")):
        again = desk.recorded(gangfight, at_die, budget=budget, samples=samples, seed=seed)
        how = HowToExplore(budget=budget, samples=samples, seed=seed)
        assert again == recorded_odds(gangfight, at_start, how)
    assert desk.stats().sampled_at_once == 3
    # a larger budget may fit: the graph is tried again
    assert desk.recorded(gangfight, at_start, budget=500, samples=40).method == "exact"
    assert desk.stats().sampled_at_once == 3


def test_a_full_answer_known_to_be_sampled_starts_its_first_answer_at_once(
    gangfight: list[Event],
) -> None:
    """The viewer asks a first answer only when the full one is not back within 50 ms; a full
    answer the desk knows will be sampled (and does not keep) starts that first answer (``ahead``
    samples) as it is asked, so the viewer's ask finds it worked out. A command not known to be
    sampled, or whose full answer is kept, starts none."""
    desk = OddsDesk(DeskLimits(ahead=20))
    try:
        at_start, at_die = _fight(gangfight)
        assert desk.recorded(gangfight, at_start, budget=500, samples=40).method == "exact"
        assert desk.recorded(gangfight, at_start, budget=10, samples=40).method == "monte-carlo"
        assert desk.recorded(gangfight, at_die, budget=10, samples=40).method == "monte-carlo"
        before = desk.stats()
        assert before.first == 0  # not known sampled when asked; then kept
        full = desk.recorded(gangfight, at_die, budget=10, samples=60)  # known: sampled at once
        assert (full.method, full.samples) == ("monte-carlo", 60)
        how = HowToExplore(budget=10, samples=20, graph=False)
        first = desk.recorded(gangfight, at_start, budget=10, samples=20, first=True)
        assert first == msgspec.structs.replace(
            recorded_odds(gangfight, at_start, how),
            note="a first answer: 20 samples drawn at once, the exact odds not tried",
        )
        after = desk.stats()
        assert (after.computed, after.first, after.sampled_at_once) == (before.computed + 2, 1, 1)
        # the first answer asked was found under way or worked out: not started by the ask
        assert after.kept + after.joined == before.kept + before.joined + 1
    finally:
        desk.close()


def test_a_first_answer_is_samples_drawn_at_once_seeded_and_never_taken_for_past_budget(
    desk: OddsDesk, necromunda: list[Event]
) -> None:
    """The viewer's first answer (``first``): its samples drawn at once, the graph not tried
    (said so in its note), the same answer every time; and the command is not remembered past
    its budget, so the full answer asked after it is still the graph's (the 2023 charge:
    exact in 264 runs)."""
    charge, _ = _fight(necromunda)
    first = desk.recorded(necromunda, charge, budget=2000, samples=200, first=True)
    how = HowToExplore(budget=2000, samples=200, graph=False)
    assert first == msgspec.structs.replace(
        recorded_odds(necromunda, charge, how),
        note="a first answer: 200 samples drawn at once, the exact odds not tried",
    )
    assert (first.method, first.runs, first.samples) == ("monte-carlo", 200, 200)
    # kept apart from the full answer with the same budget and samples
    full = desk.recorded(necromunda, charge, budget=2000, samples=200)
    assert (full.method, full.runs) == ("exact", 264)
    assert desk.stats().sampled_at_once == 0
    assert (desk.stats().first, desk.stats().computed) == (1, 2)
    # reproducible: another desk draws the same first answer
    other = OddsDesk(DeskLimits())
    try:
        assert other.recorded(necromunda, charge, budget=2000, samples=200, first=True) == first
    finally:
        other.close()


def test_a_first_answer_does_not_wait_behind_a_full_one(
    desk: OddsDesk, gangfight: list[Event], tmp_path: Path
) -> None:
    """A first answer has a worker of its own: asked while the full answers' one worker is
    held, it is answered, and the full one after the worker is let go. The hold is work that
    waits to read a pipe the test writes, so no margin of time decides it; a first answer
    asked of the full answers' worker would wait behind it and time out."""
    at_start, _ = _fight(gangfight)
    held = tmp_path / "held"
    os.mkfifo(held)
    # the desk's own pool, as it sends work there: its one worker now reads the pipe
    holding = desk._working().submit(Path.read_text, held)
    full = desk.submit(gangfight, at_start, budget=1, samples=2_000)
    first = desk.submit(gangfight, at_start, budget=1, samples=20, first=True)
    assert first.result(timeout=60).runs == 20
    assert not full.done()
    held.write_text("go")  # waits for the worker to open the pipe, then lets it go
    assert holding.result(timeout=60) == "go"
    assert full.result(timeout=120).runs == 2_000
    [first_worker] = desk.workers(first=True)
    assert first_worker not in desk.workers()
    desk.close()  # the first answers' worker stops with the others
    with pytest.raises(ProcessLookupError):
        os.kill(first_worker, 0)


def test_a_first_answer_is_a_few_samples(desk: OddsDesk, gangfight: list[Event]) -> None:
    at_start, _ = _fight(gangfight)
    for samples in (0, 1001):
        with pytest.raises(TooMuchAsked, match="for a first answer") as refused:
            desk.recorded(gangfight, at_start, budget=10, samples=samples, first=True)
        assert refused.value.field == "samples"
