"""The paused runs' own bookkeeping (replay/battles/pending.py): racing phones that send the same
command with different dice each get their own answers; a request taking a run on while the
other phone's answers (or a write) put it aside still hears the truth for its own answers; a run
paused at a question holds no thread; answers given with ``ask`` off are not held to a question
asked with it on."""

from __future__ import annotations

import threading
from typing import Any
from uuid import uuid4

from test_api_play import start
from web_helpers import Client, Site, bearer

from blowbyblow.replay.battles.inputs import Need
from blowbyblow.replay.battles.pending import Pending

KEYS = ("first", "second")


def two_rolls(hold: tuple[threading.Event, threading.Event] | None = None) -> Any:
    """A command of two rolls, as ``Battle.begin`` gives one: a call that takes it on from
    where it stopped. ``hold``: (reached, go_on): a first die of 3 waits for ``go_on`` there,
    as rules that take their time would."""

    def begin(dice: Any, choices: Any) -> Any:
        got: list[tuple[int, ...]] = []

        def go_on() -> tuple[tuple[int, ...], ...]:
            while len(got) < len(KEYS):
                got.append(dice.roll(KEYS[len(got)], 1, 6, "to hit")[0])
                if hold is not None and got == [(3,)]:
                    hold[0].set()
                    hold[1].wait(10)
            return tuple(got)

        return go_on

    return begin


def test_a_request_whose_run_is_put_aside_meanwhile_is_still_answered() -> None:
    pending = Pending()
    key = (uuid4(), 3, b"the same command at the same version")
    reached, go_on = threading.Event(), threading.Event()
    begin = two_rolls((reached, go_on))
    word, _ = pending.answer(key, [], {}, True, begin)
    assert isinstance(word, Need) and word.key == "first"
    answered: dict[str, object] = {}
    first_phone = threading.Thread(
        target=lambda: answered.update(a=pending.answer(key, [3], {}, True, begin)[0])
    )
    first_phone.start()
    assert reached.wait(10)
    other, _ = pending.answer(key, [5], {}, True, begin)  # the other phone's die
    assert isinstance(other, Need) and other.key == "second" and other.dice_used == 1
    go_on.set()
    first_phone.join(20)
    assert not first_phone.is_alive(), "the first phone waited on a run put aside"
    word = answered["a"]
    assert isinstance(word, Need) and word.key == "second" and word.dice_used == 1
    done, _ = pending.answer(key, [3, 6], {}, True, begin)
    assert done == ((3,), (6,))
    done, _ = pending.answer(key, [5, 2], {}, True, begin)  # the other phone's, from its own
    assert done == ((5,), (2,))


def test_a_run_written_past_while_a_request_takes_it_on_answers_that_request() -> None:
    pending = Pending()
    battle = uuid4()
    key = (battle, 3, b"a command")
    other = (uuid4(), 3, b"a command")
    reached, go_on = threading.Event(), threading.Event()
    begin = two_rolls((reached, go_on))
    for k in (key, other):
        word, _ = pending.answer(k, [], {}, True, begin)
        assert isinstance(word, Need) and word.key == "first"
    answered: dict[str, object] = {}
    phone = threading.Thread(
        target=lambda: answered.update(a=pending.answer(key, [3], {}, True, begin)[0])
    )
    phone.start()
    assert reached.wait(10)
    pending.drop(battle, 4)  # the battle written past version 3 meanwhile
    go_on.set()
    phone.join(20)
    assert not phone.is_alive()
    word = answered["a"]
    assert isinstance(word, Need) and word.key == "second" and word.dice_used == 1
    assert len(pending) == 1  # the other battle's run is kept; this one's is not kept again
    word, _ = pending.answer(other, [4], {}, True, begin)
    assert isinstance(word, Need) and word.key == "second"


def test_paused_runs_hold_no_thread(site: Site, client: Client) -> None:
    """Every command paused at its first roll is kept (a phone per option, as if each table
    typed one), and none of them holds a thread while it waits."""
    battle = start(client, site)
    options = client.get(f"/api/battles/{battle}/legal").json()["options"]
    before = threading.active_count()
    paused = 0
    for option in range(min(len(options), 12)):
        r = client.post(
            f"/api/battles/{battle}/commands",
            json={"option": option, "dice": [], "ask": True},
            headers=bearer(site.tables[1]),
        )
        paused += r.status_code == 200 and r.json()["status"] == "needs"
    assert paused >= 4, paused
    assert len(site_door(client).pending) == paused
    assert threading.active_count() <= before + 1, "a thread per paused run"


def site_door(client: Client) -> Any:
    return client.app.state.server.service.door


def test_a_command_paused_at_a_choice_goes_on_with_the_default_when_no_longer_asked(
    site: Site, client: Client
) -> None:
    """The table page asks each choice (``ask``); a request with ``ask`` off takes the rules'
    default for every choice not answered, even when the command is paused at one."""
    battle = start(client, site)
    url = f"/api/battles/{battle}/commands"
    body: dict[str, Any] = {"option": 0, "dice": [], "choices": {}, "ask": True}
    for _ in range(50):
        r = client.post(url, json=body, headers=bearer(site.tables[1]))
        need = r.json()["need"]
        if need["kind"] == "choice":
            break
        body["dice"] += [4] * need["n"]
    else:
        raise AssertionError("the command asked no choice")
    body["ask"] = False
    while True:
        r = client.post(url, json=body, headers=bearer(site.tables[1]))
        if r.status_code != 200:
            break
        need = r.json()["need"]
        assert need["kind"] == "dice", need  # choices are no longer asked
        body["dice"] += [4] * need["n"]
    assert r.status_code == 201, r.text
    made = [
        row["event"]
        for row in client.get(f"/api/battles/{battle}/log").json()
        if row["type"] == "ChoiceMade"
    ]
    assert made and all(c["source"] == "default" for c in made), made


def test_an_answer_to_a_question_a_paused_run_settled_by_default_starts_afresh() -> None:
    """With ``ask`` off a run takes a choice's default and pauses at the next die; a request
    that then answers that choice is adjudicated as a fresh run would be (its answer read)."""
    pending = Pending()
    key = (uuid4(), 3, b"a command asking a choice, then a die")

    def begin(dice: Any, choices: Any) -> Any:
        got: list[Any] = []  # what the run has been answered: it goes on from there

        def go_on() -> tuple[str, tuple[int, ...]]:
            if not got:
                got.append(choices.choose("c1/side", ("left", "right"), "left", "which side")[0])
            return got[0], dice.roll("c1/hit", 1, 6, "to hit")[0]

        return go_on

    for answer, side in (
        ({"c1/side": "right"}, "right"),
        ({"side": "right"}, "right"),
        ({}, "left"),
    ):
        word, _ = pending.answer(key, [], {}, False, begin)
        assert isinstance(word, Need) and word.key == "c1/hit" and len(pending) == 1
        done, _ = pending.answer(key, [4], answer, False, begin)
        assert done == (side, (4,)), answer
