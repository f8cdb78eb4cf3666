"""Dice typed roll by roll do not adjudicate the command again at every roll (issue 25): the door
keeps the command's run paused at the rules' question and resumes it with the next request's
answers; the events are those of every answer given at once; a server that has no paused run
(another process, answers that changed) carries on from every answer the request carries."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import TestClient
from test_api_play import DICE, play_typed, start
from web_helpers import Client, Site, bearer

from blowbyblow.replay.battles.battle import Battle


@pytest.fixture
def adjudications(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the door ran a command's procedure (from its start)."""
    runs: list[int] = []
    adjudicate = Battle.adjudicate

    def counted(self: Battle, head: Any, command: Any, **how: Any) -> Any:
        runs.append(head.version)
        return adjudicate(self, head, command, **how)

    monkeypatch.setattr(Battle, "adjudicate", counted)
    return runs


def played_rows(client: Client, battle: str) -> list[tuple[str, Any]]:
    """The battle's events after its opening, as the log gives them (what each says)."""
    rows = client.get(f"/api/battles/{battle}/log").json()
    return [(row["type"], row["event"]) for row in rows[1:]]


def test_a_command_typed_roll_by_roll_is_adjudicated_once(
    site: Site, client: Client, adjudications: list[int]
) -> None:
    battle = start(client, site)
    r, needs = play_typed(client, site, battle, {"option": 0})
    assert r.status_code == 201, r.text
    assert len(needs) >= 3  # several rolls and a choice: as many requests as answers, plus one
    assert len(adjudications) == 1, adjudications  # one run, paused at each question
    assert client.get(f"/api/battles/{battle}/verify").json()["ok"] is True


def test_roll_by_roll_writes_what_every_answer_at_once_writes(site: Site, client: Client) -> None:
    by_roll = start(client, site, table=1)
    r, needs = play_typed(client, site, by_roll, {"option": 0})
    assert r.status_code == 201, r.text
    typed = sum(n["n"] for n in needs if n["kind"] == "dice")
    dice = [DICE[i % len(DICE)] for i in range(typed)]
    choices = {n["key"]: n["default"] for n in needs if n["kind"] == "choice"}
    at_once = start(client, site, table=2)
    r = client.post(
        f"/api/battles/{at_once}/commands",
        json={"option": 0, "dice": dice, "choices": choices, "ask": True},
        headers=bearer(site.tables[2]),
    )
    assert r.status_code == 201, r.text
    assert played_rows(client, by_roll) == played_rows(client, at_once)


def test_another_server_carries_on_from_every_answer_given(
    site: Site, client: Client, adjudications: list[int]
) -> None:
    battle = start(client, site)
    url = f"/api/battles/{battle}/commands"
    first = client.post(
        url, json={"option": 0, "dice": [], "ask": True}, headers=bearer(site.tables[1])
    ).json()["need"]
    assert first["kind"] == "dice"
    dice = [DICE[i % len(DICE)] for i in range(first["n"])]
    with TestClient(site.app()) as other:  # a second process on the same store: no paused run
        second = other.post(
            url, json={"option": 0, "dice": dice, "ask": True}, headers=bearer(site.tables[1])
        )
        assert second.status_code == 200, second.text
        assert second.json()["need"]["dice_used"] == len(dice)
    assert len(adjudications) == 2  # the second server ran the command from every answer
    # the first phone starts the command again (its answers changed): asked from the first roll
    again = client.post(
        url, json={"option": 0, "dice": [], "ask": True}, headers=bearer(site.tables[1])
    ).json()["need"]
    assert again == first
    r, _ = play_typed(client, site, battle, {"option": 0})
    assert r.status_code == 201, r.text
    assert client.get(f"/api/battles/{battle}/verify").json()["ok"] is True


def test_a_die_typed_beyond_the_command_after_a_pause_is_refused_and_nothing_written(
    site: Site, client: Client
) -> None:
    battle = start(client, site)
    url = f"/api/battles/{battle}/commands"
    before = site.written()
    need = client.post(
        url, json={"option": 0, "dice": [], "ask": True}, headers=bearer(site.tables[1])
    ).json()["need"]
    r = client.post(
        url,
        json={"option": 0, "dice": [7] * need["n"], "ask": True},
        headers=bearer(site.tables[1]),
    )
    assert r.status_code == 422 and r.json()["field"] == "dice", r.text
    r = client.post(  # every die at once, choices left to the rules' defaults
        url, json={"option": 0, "dice": [4] * 200}, headers=bearer(site.tables[1])
    )
    assert r.status_code == 422, r.text
    assert r.json()["rule"] == "every die typed is one the rules ask for"
    assert site.written() == before
