"""A choice asked comes with the questions its default leads to (``then``,
``replay/battles/pending.py``, issue 25): the table page asks them in turn while the players take
each default, and sends them all with the roll that ends them, one request where each choice was
one. The run went on with the defaults, so that request takes it on from there; any other
answer is a fresh run's, as before."""

from __future__ import annotations

from typing import Any
from uuid import uuid4

from test_api_play import start
from web_helpers import Client, Site, bearer

from blowbyblow.replay.battles.inputs import Need
from blowbyblow.replay.battles.pending import Pending


def two_choices_then_a_roll(begun: list[int]) -> Any:
    """A command asking "c1/side" (default left), "c1/aim" (default low), then a die; each run
    begun counted in ``begun``."""

    def begin(dice: Any, choices: Any) -> Any:
        begun.append(1)
        got: list[str] = []  # the run's answers so far: it goes on from there

        def go_on() -> tuple[str, str, tuple[int, ...]]:
            if not got:
                got.append(choices.choose("c1/side", ("left", "right"), "left", "side")[0])
            if len(got) == 1:
                got.append(choices.choose("c1/aim", ("low", "high"), "low", "aim")[0])
            return got[0], got[1], dice.roll("c1/hit", 1, 6, "to hit")[0]

        return go_on

    return begin


def test_a_choice_comes_with_the_questions_its_default_leads_to() -> None:
    pending, begun = Pending(), list[int]()
    begin = two_choices_then_a_roll(begun)
    key = (uuid4(), 3, b"a command")
    word, _ = pending.answer(key, [], {}, True, begin)
    assert isinstance(word, Need) and word.key == "c1/side"
    assert [(n.kind, n.key) for n in word.then] == [("choice", "c1/aim"), ("dice", "c1/hit")]
    again, _ = pending.answer(key, [], {}, True, begin)  # nothing new: the same question
    assert again == word
    done, _ = pending.answer(key, [5], {"c1/side": "left", "c1/aim": "low"}, True, begin)
    assert done == ("left", "low", (5,))
    assert len(begun) == 1  # the defaults' run taken on, not begun again


def test_another_answer_than_the_default_is_a_fresh_runs() -> None:
    pending, begun = Pending(), list[int]()
    begin = two_choices_then_a_roll(begun)
    key = (uuid4(), 3, b"a command")
    pending.answer(key, [], {}, True, begin)
    word, _ = pending.answer(key, [], {"c1/side": "right"}, True, begin)
    assert isinstance(word, Need) and word.key == "c1/aim"
    assert [(n.kind, n.key) for n in word.then] == [("dice", "c1/hit")]
    done, _ = pending.answer(key, [2], {"c1/side": "right", "c1/aim": "low"}, True, begin)
    assert done == ("right", "low", (2,)) and len(begun) == 2
    # one default taken and the next question answered otherwise: a fresh run's word too
    pending.answer((uuid4(), 3, b"b"), [], {}, True, begin)
    done, _ = pending.answer(key, [6], {"c1/side": "left", "c1/aim": "high"}, True, begin)
    assert done == ("left", "high", (6,))


def _typed(
    client: Client, site: Site, battle: str, table: int, walk: bool
) -> tuple[int, list[Any]]:
    """One command of option 0 typed as the table page sends it, each choice's default taken
    (``walk``: the questions of ``then`` asked with no request between them): the requests
    made, and the log's rows of the command."""
    version = client.get(f"/api/battles/{battle}/legal").json()["version"]
    body: dict[str, Any] = {"option": 0, "version": version, "dice": [], "choices": {}}
    body["ask"] = True
    for requests in range(1, 61):
        r = client.post(
            f"/api/battles/{battle}/commands", json=body, headers=bearer(site.tables[table])
        )
        if r.status_code == 201:
            events = [(e["type"], e["event"]) for e in r.json()["events"]]
            return requests, events
        assert r.status_code == 200, r.text
        first = r.json()["need"]
        for need in [first, *(first.get("then", []) if walk else [])]:
            if need["kind"] == "dice":
                body["dice"] += [4] * need["n"]
            else:
                body["choices"][need["key"]] = need["default"]
    raise AssertionError("the command never completed")


def test_the_page_types_a_command_in_fewer_requests_the_same_events(
    site: Site, client: Client
) -> None:
    """Two battles alike, a command typed in each: asked one question a request, and walking
    ``then``. The same events, in fewer requests where the command asks a choice. Fails on main
    54f50f0 (no ``then``: as many requests)."""
    one = start(client, site, table=1, ruleset="gangfight")
    walked = start(client, site, table=2, ruleset="gangfight")
    asked, rows = 0, []
    for _ in range(3):
        one_by_one = _typed(client, site, one, 1, walk=False)
        at_once = _typed(client, site, walked, 2, walk=True)
        assert at_once[1] == one_by_one[1]  # the same events
        asked += one_by_one[0] - at_once[0]
        rows += [e for e in at_once[1] if e[0] == "ChoiceMade"]
    assert rows, "no choice asked: nothing to see"
    assert asked > 0


def choice_a_hidden_roll_then_a_choice(begun: list[int]) -> Any:
    """A command asking "c1/side", rolling a die of its own (the battle's digital dice: no die
    typed), then asking "c1/press" only when that die is a 6."""

    def begin(dice: Any, choices: Any) -> Any:
        assert dice is None  # the battle's own dice
        begun.append(1)

        def go_on() -> tuple[str, int, str]:
            side = choices.choose("c1/side", ("left", "right"), "left", "side")[0]
            die = 6  # the battle's seed rolled it: not shown before the command is
            press = choices.choose("c1/press", ("yes", "no"), "no", "press")[0] if die == 6 else ""
            return side, die, press

        return go_on

    return begin


def test_no_question_past_a_die_the_battle_rolls_comes_ahead() -> None:
    """With the battle's own dice (seeded, fair) the run would roll on past the choice with its
    default; a question it met after that roll would tell the players, before they choose, what
    the die showed (here: a 6, or "c1/press" would not be asked). Nothing past a roll comes
    with the question. Fails on 392dd32 (then: c1/press)."""
    pending, begun = Pending(), list[int]()
    begin = choice_a_hidden_roll_then_a_choice(begun)
    key = (uuid4(), 3, b"a command")
    word, _ = pending.answer(key, None, {}, True, begin)
    assert isinstance(word, Need) and word.key == "c1/side"
    assert word.then == []
    word, _ = pending.answer(key, None, {"c1/side": "left"}, True, begin)
    assert isinstance(word, Need) and word.key == "c1/press"
    done, _ = pending.answer(key, None, {"c1/side": "left", "c1/press": "yes"}, True, begin)
    assert done == ("left", 6, "yes")


def test_a_seeded_battles_questions_tell_no_die_ahead(site: Site, client: Client) -> None:
    """A seeded Gangfight battle's commands played with each default: no question that comes
    with another (``then``) was asked past a die rolled after that one (its log's order), as
    Gangfight's armour question after the hit roll told whether the hit landed. Fails on
    392dd32 (c1/fight/armour/drop came with c1/fight/hit/drop)."""
    r = client.post(
        "/api/tournaments/spring/tables/1/battles",
        json={"ruleset": "gangfight", "seed": "s1"},
        headers=bearer(site.tables[1]),
    )
    assert r.status_code == 201, r.text
    battle, asked = r.json()["battle"], 0
    for _ in range(3):
        version = client.get(f"/api/battles/{battle}/legal").json()["version"]
        body: dict[str, Any] = {"option": 0, "version": version, "choices": {}, "ask": True}
        came: list[tuple[str, list[str]]] = []
        for _ in range(40):
            r = client.post(
                f"/api/battles/{battle}/commands", json=body, headers=bearer(site.tables[1])
            )
            if r.status_code != 200:
                break
            need = r.json()["need"]
            came.append((need["key"], [n["key"] for n in need.get("then", [])]))
            body["choices"][need["key"]] = need["default"]
        assert r.status_code == 201, r.text
        rows = [(e["type"], e["event"].get("key", "")) for e in r.json()["events"]]
        order = [(t, k) for t, k in rows if t in ("DiceRolled", "ChoiceMade")]
        keys = [k for _, k in order]
        for key, then in came:
            asked += 1
            for later in then:
                rolled = [
                    k for t, k in order[keys.index(key) : keys.index(later)] if t != "ChoiceMade"
                ]
                assert not rolled, (key, later, rolled)
    assert asked, "no choice asked: nothing to see"
