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
from blowbyblow.replay.engine.narrate import narrate
from blowbyblow.web import rows as rows_module


@pytest.fixture
def adjudications(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the door started a command's procedure (from its start)."""
    runs: list[int] = []
    begin = Battle.begin

    def counted(self: Battle, head: Any, command: Any, **how: Any) -> Any:
        runs.append(head.version)
        return begin(self, head, command, **how)

    monkeypatch.setattr(Battle, "begin", counted)
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


def test_a_command_reviewed_then_written_is_adjudicated_once(
    site: Site, client: Client, adjudications: list[int]
) -> None:
    """The table page sends its typed dice with ``review`` until the command completes, shows
    it, then sends the same answers to write it: what was reviewed is what is written, and the
    write does not run the command again."""
    battle = start(client, site)
    url = f"/api/battles/{battle}/commands"
    body: dict[str, Any] = {"option": 0, "dice": [], "choices": {}, "ask": True, "review": True}
    for _ in range(200):
        r = client.post(url, json=body, headers=bearer(site.tables[1]))
        assert r.status_code == 200, r.text
        if r.json()["status"] == "review":
            break
        need = r.json()["need"]
        if need["kind"] == "dice":
            body["dice"] += [DICE[(len(body["dice"]) + i) % len(DICE)] for i in range(need["n"])]
        else:
            body["choices"][need["key"]] = need["default"]
    reviewed = r.json()["events"]
    assert client.post(url, json=body, headers=bearer(site.tables[1])).json() == r.json()
    r = client.post(url, json={**body, "review": False}, headers=bearer(site.tables[1]))
    assert r.status_code == 201, r.text
    assert [(e["type"], e["event"]) for e in r.json()["events"]] == [
        (e["type"], e["event"]) for e in reviewed
    ]
    assert len(adjudications) == 1, adjudications
    again = client.post(url, json={**body, "review": False}, headers=bearer(site.tables[1]))
    assert again.status_code != 201  # written once: the same answers again write nothing more
    assert client.get(f"/api/battles/{battle}/verify").json()["ok"] is True


def test_a_server_restarted_mid_command_carries_on_from_the_dice_given_none_lost_or_doubled(
    site: Site, client: Client
) -> None:
    """Half the rolls typed to one server, which then restarts (its paused runs gone); the
    phone carries on against the new one, sending one request twice (a retry): the dice written
    are exactly those typed, in order, and the log is that of every answer given at once."""
    battle = start(client, site, table=1)
    url = f"/api/battles/{battle}/commands"
    body: dict[str, Any] = {"option": 0, "dice": [], "choices": {}, "ask": True}
    server = client
    restarted = None
    for step in range(200):
        r = server.post(url, json=body, headers=bearer(site.tables[1]))
        if r.status_code != 200:
            break
        if restarted is not None:  # the phone's retry: the same answers, the same question
            assert server.post(url, json=body, headers=bearer(site.tables[1])).json() == r.json()
        need = r.json()["need"]
        if need["kind"] == "dice":
            assert need["dice_used"] == len(body["dice"])
            body["dice"] += [DICE[(len(body["dice"]) + i) % len(DICE)] for i in range(need["n"])]
        else:
            body["choices"][need["key"]] = need["default"]
        if step == 2:
            restarted = TestClient(site.app()).__enter__()  # the same store, nothing in memory
            server = restarted
    assert restarted is not None and server is restarted
    try:
        assert r.status_code == 201, r.text
    finally:
        restarted.__exit__(None, None, None)
    rolled = [
        v
        for row in client.get(f"/api/battles/{battle}/log").json()
        if row["type"] == "DiceRolled"
        for v in row["event"]["values"]
    ]
    assert rolled == body["dice"]
    at_once = start(client, site, table=2)
    r = client.post(f"/api/battles/{at_once}/commands", json=body, headers=bearer(site.tables[2]))
    assert r.status_code == 201, r.text
    assert played_rows(client, battle) == played_rows(client, at_once)
    assert client.get(f"/api/battles/{battle}/verify").json()["ok"] is True


def test_racing_phones_on_two_servers_write_the_command_once(site: Site, client: Client) -> None:
    """Two phones at one table, each on a server process of its own, type the same command's
    dice roll by roll from the version they read, their requests interleaved: one writes it,
    the other is told someone played first (409), and the battle holds it once."""
    battle = start(client, site)
    url = f"/api/battles/{battle}/commands"
    version = client.get(f"/api/battles/{battle}/legal").json()["version"]
    body: dict[str, Any] = {"option": 0, "version": version, "dice": [], "choices": {}}
    body["ask"] = True
    with TestClient(site.app()) as other:
        answers = []
        for _ in range(200):
            first = client.post(url, json=body, headers=bearer(site.tables[1]))
            second = other.post(url, json=body, headers=bearer(site.tables[1]))
            answers = [first, second]
            if first.status_code != 200:
                break
            assert second.json() == first.json()
            need = first.json()["need"]
            if need["kind"] == "dice":
                body["dice"] += [
                    DICE[(len(body["dice"]) + i) % len(DICE)] for i in range(need["n"])
                ]
            else:
                body["choices"][need["key"]] = need["default"]
    assert [a.status_code for a in answers] == [201, 409], [a.text for a in answers]
    issued = [
        row
        for row in client.get(f"/api/battles/{battle}/log").json()
        if row["type"] == "CommandIssued"
    ]
    assert [row["event"]["index"] for row in issued] == [1]
    assert client.get(f"/api/battles/{battle}/verify").json()["ok"] is True


def test_a_reviewed_command_is_narrated_once_and_written_with_the_logs_rows(
    site: Site, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rows the players reviewed are the written command's rows (each now with its hash):
    its events are narrated once, for the review, not again for the write (issue 25); the
    answer's rows are the log's own rows of those positions, field for field."""
    narrated: list[str] = []

    def counted(system: Any, event: Any) -> str:
        narrated.append(type(event).__name__)
        return narrate(system, event)

    monkeypatch.setattr(rows_module, "narrate", counted)
    battle = start(client, site)
    url = f"/api/battles/{battle}/commands"
    body: dict[str, Any] = {"option": 0, "dice": [], "choices": {}, "ask": True, "review": True}
    for _ in range(200):
        r = client.post(url, json=body, headers=bearer(site.tables[1]))
        if r.json()["status"] == "review":
            break
        need = r.json()["need"]
        if need["kind"] == "dice":
            body["dice"] += [DICE[(len(body["dice"]) + i) % len(DICE)] for i in range(need["n"])]
        else:
            body["choices"][need["key"]] = need["default"]
    reviewed = r.json()["events"]
    assert all(row["hash"] == "" for row in reviewed)
    r = client.post(url, json={**body, "review": False}, headers=bearer(site.tables[1]))
    assert r.status_code == 201, r.text
    assert len(narrated) == len(reviewed)  # once each, for the review
    written = r.json()["events"]
    first = written[0]["position"]
    logged = client.get(f"/api/battles/{battle}/log", params={"after": first - 1}).json()
    assert written == logged[: len(written)]
    assert all(row["hash"] for row in written)
