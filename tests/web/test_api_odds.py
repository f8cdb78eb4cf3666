"""The odds of a recorded command over HTTP (``GET /api/battles/ID/odds?position=N``): the very
numbers ``replay.odds.explore.recorded_odds`` gives for the same command, read as the other reads are
(open, or any valid token with ``--reading tokens``), and a position outside the battle's
commands refused with the field named."""

from __future__ import annotations

import os
import resource
import threading
import time
from typing import Any
from uuid import UUID

import msgspec
import pytest
from litestar.testing import TestClient
from web_helpers import Client, Site, bearer

from blowbyblow.domain.core import CommandIssued
from blowbyblow.replay.battles.record import record
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.odds.desk import DeskLimits
from blowbyblow.replay.odds.explore import HowToExplore, recorded_odds
from blowbyblow.web.api import ODDS_BUDGET, ODDS_SAMPLES


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
        ("gangfight", "", ODDS_BUDGET, ODDS_SAMPLES, "exact"),  # the viewer's defaults
        ("gangfight", "&budget=10", 10, 1000, "monte-carlo"),
        ("asl", "&samples=10", ODDS_BUDGET, 10, "exact"),
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


def test_the_viewers_odds_are_exact_when_the_graph_fits_a_few_thousand_runs(
    site: Site, client: Client
) -> None:
    """The 2023 demo's charge: its graph needs 264 runs; the viewer's default budget takes it
    whole, exact (a budget of 500 sampled it)."""
    battle = record(site.store, get_game_system("necromunda-2023").demo(), quiet=True).battle
    charge = next(e.position for e in site.store.read(battle) if isinstance(e.event, CommandIssued))
    r = client.get(f"/api/battles/{battle}/odds?position={charge}")
    assert r.status_code == 200, r.text
    got = r.json()
    assert (got["method"], got["action"]) == ("exact", "charge")
    assert got["happened"] is not None and got["happened"]["sides"]


def test_a_first_answer_is_a_few_samples_drawn_at_once_and_the_full_one_unchanged(
    site: Site, client: Client
) -> None:
    """``first=true`` (the viewer asks it beside the full answer): the 2023 demo's charge
    sampled at once, 200 samples, the graph not tried and said so; the full answer asked after
    it is the one asked alone, exact (the first is not taken for a graph past its budget); more
    samples than a first answer's are refused, naming them."""
    battle = record(site.store, get_game_system("necromunda-2023").demo(), quiet=True).battle
    charge = next(e.position for e in site.store.read(battle) if isinstance(e.event, CommandIssued))
    url = f"/api/battles/{battle}/odds?position={charge}"
    r = client.get(f"{url}&first=true&samples=200")
    assert r.status_code == 200, r.text
    first = r.json()
    assert (first["method"], first["samples"], first["runs"]) == ("monte-carlo", 200, 200)
    assert first["note"] == "a first answer: 200 samples drawn at once, the exact odds not tried"
    assert client.get(f"{url}&first=true&samples=200").json() == first  # seeded: the same
    full = client.get(url).json()
    assert full == direct(site, str(battle), charge, ODDS_BUDGET, ODDS_SAMPLES)
    assert (full["method"], full["runs"]) == ("exact", 264)
    r = client.get(f"{url}&first=true&samples=5000")
    assert r.status_code == 422, r.text
    assert r.json()["field"] == "samples"


def test_a_position_outside_the_commands_is_refused(site: Site, client: Client) -> None:
    battle = played(site, client, "gangfight")
    # 10**23: past what msgpack writes (64 bits), which the odds desk's key of an answer is
    # written in: a 500 with Litestar's body, before
    for position in (1, 999, 2**64, 10**23):
        r = client.get(f"/api/battles/{battle}/odds?position={position}")
        assert r.status_code == 422, r.text
        assert r.json()["field"] == "position"
        said = r.json()["message"]
        # before, position 1 was said to have "no command yet", in a battle with commands
        expected = f"not {position}" if position > 1 else "its first command is at position 2"
        assert expected in said, said
    for query, field in (("?position=2&budget=0", "budget"), ("", "position")):
        r = client.get(f"/api/battles/{battle}/odds{query}")
        assert r.status_code == 400, r.text
        assert r.json()["field"] == field, r.text


def test_odds_of_a_battle_with_no_command_yet_say_so(site: Site, client: Client) -> None:
    """Before, the refusal pointed at "its first command is at position (none)"."""
    r = client.post(
        "/api/tournaments/spring/tables/1/battles",
        json={"ruleset": "gangfight", "seed": "odds"},
        headers=bearer(site.tables[1]),
    )
    assert r.status_code == 201, r.text
    r = client.get(f"/api/battles/{r.json()['battle']}/odds?position=1")
    assert r.status_code == 422, r.text
    assert r.json()["message"] == "position 1 is the battle's start; no command yet", r.text


def test_reading_odds_open_or_by_token(site: Site, client: Client) -> None:
    battle = played(site, client, "asl")
    url = f"/api/battles/{battle}/odds?position=2"
    assert client.get(url).status_code == 200
    with TestClient(site.app(reading="tokens")) as c:
        assert c.get(url).status_code == 401
        assert c.get(url, headers=bearer("forged")).status_code == 401
        for tok in (site.tables[2], site.autumn_table, site.judge):
            assert c.get(url, headers=bearer(tok)).status_code == 200


def _cpu() -> float:
    """This process's processor time, its threads' included (the server runs in it)."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def test_odds_are_worked_out_outside_the_servers_process(site: Site, client: Client) -> None:
    """Issue 26, hole 4: the odds run in the odds desk's worker processes, at a lower priority,
    never in the server's: while the server answers odds that cost a processor seconds, its own
    process spends a small part of that (reading the battle, sending the answer), and a table's
    writes never wait for the interpreter. Measured as processor time, not as elapsed time."""
    battle = played(site, client, "necromunda-2023")  # a charge: 2,000 samples of it are heavy
    events = [e.event for e in site.store.read(UUID(battle))]
    before = _cpu()
    direct = recorded_odds(events, 2, HowToExplore(budget=1, samples=2000))
    cost = _cpu() - before
    before = _cpu()
    r = client.get(f"/api/battles/{battle}/odds?position=2&budget=1&samples=2000")
    served = _cpu() - before
    assert r.status_code == 200, r.text
    assert r.json() == msgspec.json.decode(msgspec.json.encode(direct))
    assert served < cost / 4, (served, cost)


def test_odds_past_their_time_are_stopped(site: Site, client: Client) -> None:
    """A request whose work outlasts the desk's time limit is stopped by its worker and
    refused (naming the budget to lower); the server goes on answering."""
    battle = played(site, client, "necromunda-2023")
    with TestClient(site.app(odds=DeskLimits(seconds=0.3))) as c:
        r = c.get(f"/api/battles/{battle}/odds?position=2&budget=1&samples=20000")
        assert r.status_code == 422, r.text
        assert r.json()["field"] == "budget" and "more than 0.3 s of work" in r.json()["message"]
        assert c.get(f"/api/battles/{battle}/odds?position=2&budget=1&samples=5").status_code == 200


def test_odds_kept_by_command_and_a_tables_write_goes_through_while_they_are_full(
    site: Site, client: Client
) -> None:
    """Two positions of one command are one answer (worked out once). While as many odds as
    the desk takes are being worked out, one more is refused at once (503, nothing computed) and
    a table's command is written and answered while they are all still running; when the server
    stops, the desk's worker processes stop with it, whatever they were doing."""
    gangfight = played(site, client, "gangfight")
    battle = played(site, client, "necromunda-2023")
    limits = DeskLimits(waiting=2, seconds=600)
    app = site.app(odds=limits)
    with TestClient(app) as c:
        first = c.get(f"/api/battles/{gangfight}/odds?position=2").json()
        assert c.get(f"/api/battles/{gangfight}/odds?position=3").json() == first
        desk = app.state.server.service.odds_desk.desk()
        assert (desk.stats().computed, desk.stats().kept) == (1, 1)
        workers = desk.workers()
        assert workers
        answers: list[int] = []

        def ask(samples: int) -> None:  # heavy: 20,000 samples of a charge each
            url = f"/api/battles/{battle}/odds?position=2&budget=1&samples={samples}"
            answers.append(c.get(url).status_code)

        running = [threading.Thread(target=ask, args=(20000 - k,)) for k in range(2)]
        for t in running:
            t.start()
        while desk.stats().running < limits.waiting:
            time.sleep(0.01)
        r = c.get(f"/api/battles/{battle}/odds?position=2&budget=1&samples=99")
        assert r.status_code == 503 and r.json()["field"] == "position", r.text
        r = c.post(
            f"/api/battles/{battle}/commands", json={"option": 0}, headers=bearer(site.tables[1])
        )
        assert r.status_code == 201, r.text
        assert desk.stats().running == limits.waiting and answers == []  # the odds still run
    for t in running:  # the server stopped: its odds are abandoned, not awaited
        t.join(timeout=60)
    assert sorted(answers) == [503, 503]
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
