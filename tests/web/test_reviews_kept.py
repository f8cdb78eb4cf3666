"""A command's review is kept for its write (``ReviewedRows``), but not for ever: a review the
players never write (they went back, the phone was put down, the battle ended) is put aside
once ``kept`` newer reviews are held, so a server that runs for a whole event holds a bounded
number of them; a review put aside costs only a narration at its write."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from blowbyblow.domain.core import DiceSpec
from blowbyblow.replay.engine.narrate import narrate
from blowbyblow.replay.engine.registry import game_systems
from blowbyblow.replay.engine.script import start_event
from blowbyblow.replay.store.log import LoggedEvent
from blowbyblow.web import rows as rows_module
from blowbyblow.web.rows import REVIEWS_KEPT, ReviewedRows


def logged_as(system: Any, events: list[Any], first: int) -> list[LoggedEvent]:
    """The events as the store hands them back once written (the very objects reviewed)."""
    return [
        LoggedEvent(
            originator_id=UUID(int=1),
            originator_version=position,
            ruleset=system.id,
            event=ev,
            data=b"",
            prev_hash=b"",
            hash=bytes([position]) * 4,
        )
        for position, ev in enumerate(events, start=first)
    ]


def test_reviews_never_written_are_put_aside_least_recent_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    narrated: list[str] = []

    def counted(system: Any, event: Any) -> str:
        narrated.append(type(event).__name__)
        return narrate(system, event)

    monkeypatch.setattr(rows_module, "narrate", counted)
    system = game_systems()["gangfight"]
    events = [start_event(system, system.demo(), DiceSpec(mode="seeded", seed="s"))]
    reviews = ReviewedRows(kept=3)
    battles = [UUID(int=100 + i) for i in range(8)]
    for battle in battles:
        reviews.review(battle, system, events, first=1)
        assert len(reviews) <= 3
    assert len(reviews) == 3
    reviews.review(battles[5], system, events, first=1)  # reviewed again: the most recent now
    reviews.review(UUID(int=999), system, events, first=1)  # puts aside battles[6], not [5]
    assert len(reviews) == 3
    assert len(narrated) == 10  # each review narrated once

    # the most recent reviews become their writes' rows, unnarrated again, with their hashes
    for battle in (battles[5], battles[7]):
        rows = reviews.written(battle, system, logged_as(system, events, 1), command=0)
        assert [row.hash for row in rows] == ["01010101"]
    assert len(narrated) == 10
    # a review put aside: its command is narrated as it is written, rows alike
    for battle in (battles[0], battles[6]):
        rows = reviews.written(battle, system, logged_as(system, events, 1), command=0)
        assert [row.hash for row in rows] == ["01010101"]
        assert rows[0].text == narrate(system, events[0]).strip()
    assert len(narrated) == 10 + 2  # the two put aside, narrated at their writes
    assert len(reviews) == 1  # only UUID(999)'s review is still held


def test_a_server_holds_at_most_reviews_kept() -> None:
    """By default (the server's), at most ``REVIEWS_KEPT`` reviews are held: more than the
    biggest events' 400 tables, each with one review at a time."""
    assert REVIEWS_KEPT >= 512
    system = game_systems()["gangfight"]
    events = [start_event(system, system.demo(), DiceSpec(mode="seeded", seed="s"))]
    reviews = ReviewedRows()
    for i in range(REVIEWS_KEPT + 50):
        reviews.review(UUID(int=i), system, events, first=1)
    assert len(reviews) == REVIEWS_KEPT
