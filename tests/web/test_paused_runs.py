"""The paused runs' own hand-over (replay/battles/pending.py): racing phones that send the same
command with different dice each get their own answers; a request waiting on a run that the other
phone's answers put aside meanwhile still hears the rules' next question, and the command then
completes from either phone's answers."""

from __future__ import annotations

import threading
from typing import Any
from uuid import uuid4

import pytest

from blowbyblow.replay.battles import pending as pending_module
from blowbyblow.replay.battles.inputs import Need
from blowbyblow.replay.battles.pending import Pending


def test_a_request_whose_run_is_put_aside_meanwhile_is_still_answered() -> None:
    pending = Pending()
    key = (uuid4(), 3, b"the same command at the same version")
    reached, go_on = threading.Event(), threading.Event()

    def procedure(dice: Any, choices: Any) -> tuple[Any, Any]:
        first, _ = dice.roll("first", 1, 6, "to hit")
        if first == (3,):  # the first phone's run is still working when the second answers
            reached.set()
            go_on.wait(10)
        second, _ = dice.roll("second", 1, 6, "to wound")
        return first, second

    word, _ = pending.answer(key, [], {}, True, procedure)
    assert isinstance(word, Need) and word.key == "first"
    answered: dict[str, object] = {}
    first_phone = threading.Thread(
        target=lambda: answered.update(a=pending.answer(key, [3], {}, True, procedure)[0])
    )
    first_phone.start()
    assert reached.wait(10)
    other, _ = pending.answer(key, [5], {}, True, procedure)  # the other phone's die
    assert isinstance(other, Need) and other.key == "second" and other.dice_used == 1
    go_on.set()
    first_phone.join(20)
    assert not first_phone.is_alive(), "the first phone waited on a run put aside"
    word = answered["a"]
    assert isinstance(word, Need) and word.key == "second" and word.dice_used == 1
    done, _ = pending.answer(key, [3, 6], {}, True, procedure)
    assert done == ((3,), (6,))


def test_a_run_put_aside_between_found_and_answered_is_started_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A write (or another phone's answers) puts a paused run aside just after a request found
    it: the request's answers go to a run that will never speak again, so the request starts the
    command afresh instead of waiting for it (it waited a minute, then failed: a 503)."""
    monkeypatch.setattr(pending_module, "WAIT_FOR_RULES", 5.0)
    pending = Pending()
    battle = uuid4()
    key = (battle, 3, b"a command")

    def procedure(dice: Any, choices: Any) -> tuple[Any, Any]:
        return dice.roll("first", 1, 6, "to hit")[0], dice.roll("second", 1, 6, "to wound")[0]

    word, _ = pending.answer(key, [], {}, True, procedure)
    assert isinstance(word, Need) and word.key == "first"
    found = pending._runs[key]
    original = found.takes
    asked: list[bool] = []

    def taken_then_put_aside(dice: Any, choices: Any) -> bool:
        answer = original(dice, choices)
        asked.append(answer)
        if len(asked) == 2:  # checked again once the request holds the run: then written past
            pending.drop(battle, 4)
        return answer

    monkeypatch.setattr(found, "takes", taken_then_put_aside)
    word, _ = pending.answer(key, [4], {}, True, procedure)
    assert isinstance(word, Need) and word.key == "second" and word.dice_used == 1
