"""Roster edits on the web (issue 23): between rounds the judge (the organiser's desk) edits a
roster as edits kept in the register's history, never retyped; a table's token, another
tournament's judge and no token are refused, and a bad edit names the entry and field; in
every refusal nothing is written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from web_helpers import Client, Site, bearer

from blowbyblow.replay.rosters.files import load_roster
from blowbyblow.replay.rosters.register import RosterRegister

ROSTERS = Path(__file__).resolve().parents[2] / "docs" / "rosters"
EDITS = "/api/tournaments/spring/rosters/edits"
WHO = {"player": "Ana", "name": "The Iron Fists"}


@pytest.fixture
def kept(site: Site) -> RosterRegister:
    register = RosterRegister(site.db)
    register.add("spring", load_roster(ROSTERS / "iron-fists.toml"))
    return register


def version(register: RosterRegister) -> int:
    return register.get("spring", "Ana", "The Iron Fists").version


def test_the_judge_edits_a_roster_between_rounds(
    site: Site, client: Client, kept: RosterRegister
) -> None:
    injury = {"edit": "set", "entry": "brak", "field": "ws", "value": 5}
    body = dict(WHO, edits=[injury], reason="Lasting Injury: Eye Injury", round=1)
    r = client.post(EDITS, json=body, headers=bearer(site.judge))
    assert r.status_code == 200, r.text
    found = r.json()
    assert found["version"] == 2
    brak = next(f for f in found["forces"]["fighters"] if f["id"] == "brak")
    assert brak["ws"] == 5
    assert found["history"][-1]["edits"] == ["set brak.ws = 5"]
    assert (found["history"][-1]["reason"], found["history"][-1]["round"]) == (
        "Lasting Injury: Eye Injury",
        1,
    )
    recruit = dict(brak, id="ulf", name="Ulf")
    r = client.post(
        EDITS,
        json=dict(WHO, edits=[{"edit": "add", "to": "fighters", "value": recruit}]),
        headers=bearer(site.judge),
    )
    assert r.status_code == 200 and r.json()["version"] == 3
    r = client.post(
        EDITS,
        json=dict(WHO, edits=[{"edit": "remove", "entry": "grax"}], reason="Dead"),
        headers=bearer(site.judge),
    )
    ids = [f["id"] for f in r.json()["forces"]["fighters"]]
    assert "grax" not in ids and "ulf" in ids
    # the history is the register's: the command line shows the same versions
    assert [v.version for v in kept.history("spring", "Ana", "The Iron Fists")] == [1, 2, 3, 4]
    shown = client.get("/api/tournaments/spring/rosters/kept", params=WHO).json()
    assert shown["version"] == 4 and len(shown["history"]) == 4


@pytest.mark.parametrize(
    ("token", "status"),
    [("table", 403), ("other-judge", 403), (None, 401)],
)
def test_only_the_tournaments_judge_edits(
    site: Site, client: Client, kept: RosterRegister, token: str | None, status: int
) -> None:
    tokens = {"table": site.tables[1], "other-judge": site.autumn_judge, None: None}
    body = dict(WHO, edits=[{"edit": "set", "entry": "brak", "field": "ws", "value": 5}])
    r = client.post(EDITS, json=body, headers=bearer(tokens[token]))
    assert r.status_code == status, r.text
    assert version(kept) == 1  # nothing written


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        ({"edit": "set", "entry": "brak", "field": "ws", "value": 30}, "ws"),
        ({"edit": "set", "entry": "nobody", "field": "ws", "value": 3}, "no entry 'nobody'"),
        ({"edit": "set", "entry": "brak", "field": "id", "value": "x"}, "an id is not edited"),
        ({"edit": "add", "to": "fighters", "value": {"id": "brak"}}, "brak"),
    ],
)
def test_a_bad_edit_names_the_entry_and_writes_nothing(
    site: Site, client: Client, kept: RosterRegister, edit: dict[str, Any], says: str
) -> None:
    r = client.post(EDITS, json=dict(WHO, edits=[edit]), headers=bearer(site.judge))
    assert r.status_code == 422, r.text
    assert r.json()["field"] == "edits" and says in r.json()["message"]
    assert version(kept) == 1


def test_bad_requests_are_refused(site: Site, client: Client, kept: RosterRegister) -> None:
    judge = bearer(site.judge)
    r = client.post(
        EDITS,
        json=dict(WHO, name="No Such Gang", edits=[{"edit": "remove", "entry": "x"}]),
        headers=judge,
    )
    assert r.status_code == 404
    for bad in (
        dict(WHO, edits=[]),
        dict(WHO, edits=[{"edit": "explode"}]),
        dict(WHO, name="n" * 201, edits=[{"edit": "remove", "entry": "brak"}]),
        dict(WHO, edits=[{"edit": "remove", "entry": "brak"}], reason="r" * 1001),
    ):
        r = client.post(EDITS, json=bad, headers=judge)
        assert r.status_code in (400, 422), r.text
    assert version(kept) == 1
