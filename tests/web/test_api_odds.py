"""The odds of a recorded command over HTTP (``GET /api/battles/ID/odds?position=N``): the very
numbers ``replay.odds.explore.recorded_odds`` gives for the same command, read as the other reads are
(open, or any valid token with ``--reading tokens``), and a position outside the battle's
commands refused with the field named."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import msgspec
import pytest
from litestar.testing import TestClient
from web_helpers import Client, Site, bearer

from blowbyblow.replay.odds.explore import HowToExplore, recorded_odds


def played(site: Site, client: Client, ruleset: str) -> str:
    """A battle at spring's table 1 with its first demo command played on seeded dice."""
    r = client.post(
        "/api/tournaments/spring/tables/1/battles",
        json={"ruleset": ruleset, "seed": "odds"},
        headers=bearer(site.tables[1]),
    )
    assert r.status_code == 201, r.text
    battle = str(r.json()["battle"])
    r = client.post(
        f"/api/battles/{battle}/commands", json={"option": 0}, headers=bearer(site.tables[1])
    )
    assert r.status_code == 201, r.text
    return battle


def direct(site: Site, battle: str, position: int, budget: int, samples: int) -> Any:
    events = [e.event for e in site.store.read(UUID(battle))]
    odds = recorded_odds(events, position, HowToExplore(budget=budget, samples=samples))
    return msgspec.json.decode(msgspec.json.encode(odds))


@pytest.mark.parametrize(
    ("ruleset", "query", "budget", "samples", "method"),
    [
        ("gangfight", "", 500, 1000, "exact"),  # the viewer's small default budget
        ("gangfight", "&budget=10", 10, 1000, "monte-carlo"),
        ("asl", "&samples=10", 500, 10, "exact"),
    ],
)
def test_the_endpoint_gives_the_numbers_of_recorded_odds(  # noqa: PLR0913 - pytest parameters
    site: Site, client: Client, ruleset: str, query: str, budget: int, samples: int, method: str
) -> None:
    battle = played(site, client, ruleset)
    position = 3  # a rule step of command 1: its odds are the command's
    r = client.get(f"/api/battles/{battle}/odds?position={position}{query}")
    assert r.status_code == 200, r.text
    got = r.json()
    assert got == direct(site, battle, position, budget, samples)
    assert got["method"] == method
    assert got["happened"] is not None and got["happened"]["sides"]
    again = client.get(f"/api/battles/{battle}/odds?position=2{query}")  # its CommandIssued
    assert again.json() == got


def test_a_position_outside_the_commands_is_refused(site: Site, client: Client) -> None:
    battle = played(site, client, "gangfight")
    for position in (1, 999):
        r = client.get(f"/api/battles/{battle}/odds?position={position}")
        assert r.status_code == 422, r.text
        assert r.json()["field"] == "position"
    for query, field in (("?position=2&budget=0", "budget"), ("", "position")):
        r = client.get(f"/api/battles/{battle}/odds{query}")
        assert r.status_code == 400, r.text
        assert r.json()["field"] == field, r.text


def test_reading_odds_open_or_by_token(site: Site, client: Client) -> None:
    battle = played(site, client, "asl")
    url = f"/api/battles/{battle}/odds?position=2"
    assert client.get(url).status_code == 200
    with TestClient(site.app(reading="tokens")) as c:
        assert c.get(url).status_code == 401
        assert c.get(url, headers=bearer("forged")).status_code == 401
        for tok in (site.tables[2], site.autumn_table, site.judge):
            assert c.get(url, headers=bearer(tok)).status_code == 200


def test_odds_run_a_few_at_once_and_never_hold_up_a_tables_write(
    site: Site, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26, hole 4: while as many odds as allowed are being computed, one more is refused
    at once (503, nothing computed) and a table's command is still written."""
    import threading

    from blowbyblow.web import service

    battle = played(site, client, "necromunda-2023")
    started = threading.Semaphore(0)
    go_on = threading.Event()
    real = recorded_odds

    def slow(*args: Any) -> Any:  # the real odds, once the test lets them finish
        started.release()
        go_on.wait(20)
        return real(*args)

    monkeypatch.setattr("blowbyblow.web.service.recorded_odds", slow)
    answers: list[int] = []

    def ask(budget: int) -> None:
        answers.append(
            client.get(f"/api/battles/{battle}/odds?position=2&budget={budget}").status_code
        )

    running = [threading.Thread(target=ask, args=(b,)) for b in range(1, service.ODDS_AT_ONCE + 1)]
    for t in running:
        t.start()
    for _ in running:
        assert started.acquire(timeout=20)
    r = client.get(f"/api/battles/{battle}/odds?position=2&budget=99")
    assert r.status_code == 503 and r.json()["field"] == "position", r.text
    r = client.post(
        f"/api/battles/{battle}/commands", json={"option": 0}, headers=bearer(site.tables[1])
    )
    assert r.status_code == 201, r.text
    go_on.set()
    for t in running:
        t.join(timeout=60)
    assert answers == [200] * service.ODDS_AT_ONCE
    assert client.get(f"/api/battles/{battle}/odds?position=2&budget=99").status_code == 200
