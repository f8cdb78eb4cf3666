"""A typed die's request is answered on the server's event loop (issue 25): when the battle's
head, the table's place and the token are kept in the process's memory, the rules' run goes on
from its question there, with no hand-over to a worker thread and back; only the request that
writes the command goes to a worker (the store's). The answers are those the worker's way
gives, byte for byte."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from test_api_play import DICE, start
from web_helpers import Client, Site, bearer

from blowbyblow.web import api, tournament
from blowbyblow.web.tokens import revoke


@pytest.fixture
def handed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each hand-over to a worker thread, by what it ran."""
    seen: list[str] = []
    work = api.work

    async def counted(fn: Any, *args: Any) -> Any:
        seen.append(getattr(fn, "__qualname__", repr(fn)))
        return await work(fn, *args)

    monkeypatch.setattr(api, "work", counted)
    return seen


def typed_as_the_page(
    client: Client, site: Site, battle: str, table: int, each: Any = None
) -> list[tuple[int, bytes]]:
    """One command of option 0 as the table page sends it (no review asked until an answer is
    typed, then 'Write it'): each answer's status and body; ``each()`` called before the first
    request and after each."""
    body: dict[str, Any] = {"option": 0, "dice": [], "choices": {}, "ask": True, "page": True}
    body["version"] = client.get(f"/api/battles/{battle}/legal").json()["version"]
    answers: list[tuple[int, bytes]] = []
    if each is not None:
        each()
    for _ in range(200):
        r = client.post(
            f"/api/battles/{battle}/commands", json=body, headers=bearer(site.tables[table])
        )
        answers.append((r.status_code, r.content.replace(battle.encode(), b"BATTLE")))
        if each is not None:
            each()
        if r.status_code != 200:
            return answers
        found = r.json()
        if found["status"] == "review":
            body["review"] = False  # "Write it"
            continue
        need = found["need"]
        if need["kind"] == "dice":
            body["dice"] += [DICE[(len(body["dice"]) + i) % len(DICE)] for i in range(need["n"])]
        else:
            body["choices"][need["key"]] = need["default"]
        body["review"] = True
    raise AssertionError("the command never completed")


def test_typed_dice_are_answered_without_a_worker_thread(
    site: Site, client: Client, handed: list[str]
) -> None:
    battle = start(client, site)
    typed_as_the_page(client, site, battle, 1)  # the battle, its place and the token kept
    counts: list[int] = []
    answers = typed_as_the_page(client, site, battle, 1, each=lambda: counts.append(len(handed)))
    assert [status for status, _ in answers] == [200] * (len(answers) - 1) + [201]
    assert len(answers) >= 4  # a question or more, the review, the write
    moved = [after - before for before, after in itertools.pairwise(counts)]
    # each question and the review: no hand-over; the write: one
    assert moved == [0] * (len(answers) - 1) + [1], (moved, handed)


def test_the_loops_answers_are_the_workers(
    site: Site, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    on_loop = start(client, site, table=1)
    in_worker = start(client, site, table=2)
    typed_as_the_page(client, site, on_loop, 1)
    loop_answers = typed_as_the_page(client, site, on_loop, 1)
    monkeypatch.setattr(api, "_kept", lambda *args: None)  # every request the worker's way
    typed_as_the_page(client, site, in_worker, 2)
    worker_answers = typed_as_the_page(client, site, in_worker, 2)
    assert [s for s, _ in loop_answers] == [s for s, _ in worker_answers]
    assert loop_answers[:-1] == worker_answers[:-1]  # every question and the review, byte for byte


def test_another_tables_token_is_refused_on_the_loop(
    site: Site, client: Client, handed: list[str]
) -> None:
    """The loop checks the token as the worker's way does: table 2's token, remembered here (it
    has played its own battle), typing for table 1's battle, kept here with its place, is
    refused (403) on the loop itself, with no hand-over to a worker; nothing is written."""
    mine = start(client, site, table=1)
    theirs = start(client, site, table=2)
    typed_as_the_page(client, site, mine, 1)  # table 1's battle and its place kept
    typed_as_the_page(client, site, theirs, 2)  # table 2's token remembered
    version = client.get(f"/api/battles/{mine}/legal").json()["version"]
    body = {"option": 0, "dice": [], "choices": {}, "ask": True, "version": version}
    before = len(handed)
    r = client.post(f"/api/battles/{mine}/commands", json=body, headers=bearer(site.tables[2]))
    assert r.status_code == 403, r.text
    assert len(handed) == before, handed  # answered on the loop: the loop's own check
    assert client.get(f"/api/battles/{mine}/legal").json()["version"] == version


def test_a_token_revoked_by_another_process_stops_on_the_loop_too(
    site: Site, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A token this process remembers is trusted on the loop only as long as the worker's way
    trusts it (``TOKEN_MEMORY``): revoked by another process (``bxb tables revoke`` beside a
    SQLite server, which hears no note), table 1's token is refused (401) once that memory has
    run out, though its battle and place are kept here; nothing is written."""
    battle = start(client, site, table=1)
    typed_as_the_page(client, site, battle, 1)  # the battle, its place and the token kept
    version = client.get(f"/api/battles/{battle}/legal").json()["version"]
    assert revoke(tournament.TournamentStore(site.db), "spring", 1) == 1  # another process
    monkeypatch.setattr(tournament, "TOKEN_MEMORY", 0.0)  # its few seconds gone by
    body = {"option": 0, "dice": [], "choices": {}, "ask": True, "version": version}
    r = client.post(f"/api/battles/{battle}/commands", json=body, headers=bearer(site.tables[1]))
    assert r.status_code == 401, r.text
    assert client.get(f"/api/battles/{battle}/legal").json()["version"] == version


def _asked_as_the_page(
    client: Client, site: Site, battle: str, table: int, handed: list[str]
) -> list[tuple[int, int]]:
    """One command of option 0 of a seeded battle as the table page sends it (each choice asked,
    answered with its default): each answer's status and the hand-overs its request made."""
    version = client.get(f"/api/battles/{battle}/legal").json()["version"]
    body: dict[str, Any] = {"option": 0, "version": version, "choices": {}, "ask": True}
    body["page"] = True
    answers: list[tuple[int, int]] = []
    for _ in range(50):
        before = len(handed)
        r = client.post(
            f"/api/battles/{battle}/commands", json=body, headers=bearer(site.tables[table])
        )
        answers.append((r.status_code, len(handed) - before))
        if r.status_code != 200:
            return answers
        need = r.json()["need"]
        body["choices"][need["key"]] = need["default"]
    raise AssertionError("the command never completed")


def test_a_seeded_battles_questions_are_answered_without_a_worker_thread(
    site: Site, client: Client, handed: list[str]
) -> None:
    """A seeded battle's command asks its choices one request each (the page asks them all):
    each question is answered on the loop, the write alone goes to a worker. Fails on main
    54f50f0, where each question was a hand-over."""
    battle = start(client, site, seed="loop")
    _asked_as_the_page(client, site, battle, 1, handed)  # the battle, its place, the token kept
    answers = [a for _ in range(2) for a in _asked_as_the_page(client, site, battle, 1, handed)]
    assert any(status == 200 for status, _ in answers)  # a choice asked on the way
    assert all(status in (200, 201) for status, _ in answers), answers
    assert [moved for status, moved in answers if status == 200] == [0] * sum(
        1 for status, _ in answers if status == 200
    ), answers
    assert all(moved == 1 for status, moved in answers if status == 201), answers
