"""Every auth rule of the API, through Litestar's test client: nothing is written without a
valid token (401), a table's token plays (and voids in) only its own table's battles (403),
only a judge of the battle's tournament seals, exports, imports, runs what-ifs, rules on a
command, notes an event and forks a battle (403; a table flags its own battle's commands),
reading is open or needs a token; and a refused request writes nothing at all. The void's own
rules (a table only until it ends its battle) are in test_api_void_fair.py."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import TestClient
from web_helpers import Client, Site, bearer

from blowbyblow.replay.battles.record import record
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.evidence.export import export_battle
from blowbyblow.replay.store.log import BattleStore

WHO = ("nobody", "bogus", "table1", "table2", "judge", "autumn_table", "autumn_judge")


def token(site: Site, who: str) -> str | None:
    return {
        "nobody": None,
        "bogus": "not-a-token-this-server-made",
        "table1": site.tables[1],
        "table2": site.tables[2],
        "judge": site.judge,
        "autumn_table": site.autumn_table,
        "autumn_judge": site.autumn_judge,
    }[who]


# What each principal gets for each write: 401 without a valid token, 403 without the right.
TABLE_WRITE = {
    "nobody": 401,
    "bogus": 401,
    "table1": 0,
    "table2": 403,
    "judge": 0,
    "autumn_table": 403,
    "autumn_judge": 403,
}
JUDGE_ONLY = {**TABLE_WRITE, "table1": 403}

WRITES: list[tuple[str, str, str, Any, dict[str, int], int]] = [
    # name, method, path ({b}: the battle at table 1), body, expected by principal, success status
    (
        "start a battle",
        "POST",
        "/api/tournaments/spring/tables/1/battles",
        {"ruleset": "gangfight", "seed": "s"},
        TABLE_WRITE,
        201,
    ),
    ("play a command", "POST", "/api/battles/{b}/commands", {"option": 0}, TABLE_WRITE, 201),
    ("finish", "POST", "/api/battles/{b}/finish", None, TABLE_WRITE, 200),
    (
        "void a command",
        "POST",
        "/api/battles/{b}/void",
        {"command": 1, "reason": "a die typed wrong"},
        TABLE_WRITE,
        201,
    ),
    (
        "flag a command",
        "POST",
        "/api/battles/{b}/flags",
        {"command": 1, "reason": "that was a 5"},
        TABLE_WRITE,
        201,
    ),
    (
        "rule on a command",
        "POST",
        "/api/battles/{b}/rulings",
        {"command": 1, "reason": "stands"},
        JUDGE_ONLY,
        201,
    ),
    (
        "note an event",
        "POST",
        "/api/battles/{b}/notes",
        {"position": 2, "text": "ok"},
        JUDGE_ONLY,
        201,
    ),
    ("fork", "POST", "/api/battles/{b}/fork", {"position": 1, "reason": "again"}, JUDGE_ONLY, 201),
    ("seal", "POST", "/api/battles/{b}/seal", None, JUDGE_ONLY, 201),
    ("seal all finished", "POST", "/api/tournaments/spring/seal-finished", None, JUDGE_ONLY, 200),
]
JUDGE_READS: list[tuple[str, str, str, Any]] = [
    ("export", "GET", "/api/battles/{b}/export", None),
    ("what-if", "POST", "/api/battles/{b}/whatif", {"rulings": {}}),
    ("export a round", "GET", "/api/tournaments/spring/rounds/1/export", None),
]


def call(client: Client, method: str, path: str, body: Any, tok: str | None) -> Any:
    return client.request(method, path, json=body, headers=bearer(tok))


def refused_properly(response: Any, status: int) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["status"] == status
    assert body["field"] == "Authorization"
    assert body["rule"] and body["message"]
    assert body["written"] == 0


@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize(("name", "method", "path", "body", "expected", "ok"), WRITES)
def test_writes_follow_the_token_rules(  # noqa: PLR0913 - pytest parameters
    site: Site,
    client: Client,
    seeded_battle: str,
    who: str,
    name: str,
    method: str,
    path: str,
    body: Any,
    expected: dict[str, int],
    ok: int,
) -> None:
    if name == "seal all finished":  # something to seal
        client.post(f"/api/battles/{seeded_battle}/finish", headers=bearer(site.tables[1]))
    before = site.written()
    response = call(client, method, path.format(b=seeded_battle), body, token(site, who))
    if expected[who]:
        refused_properly(response, expected[who])
        assert site.written() == before, f"{name} refused but something was written"
    else:
        assert response.status_code == ok, response.text
        assert site.written() != before, f"{name} answered {ok} but wrote nothing"


@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize(("name", "method", "path", "body"), JUDGE_READS)
def test_judge_only_reads(  # noqa: PLR0913 - pytest parameters
    site: Site,
    client: Client,
    seeded_battle: str,
    who: str,
    name: str,
    method: str,
    path: str,
    body: Any,
) -> None:
    before = site.written()
    response = call(client, method, path.format(b=seeded_battle), body, token(site, who))
    if JUDGE_ONLY[who]:
        refused_properly(response, JUDGE_ONLY[who])
    else:
        assert response.status_code == 200, response.text
    assert site.written() == before


def _foreign_export() -> str:
    """An export of a battle this site's store does not hold."""
    other = BattleStore(":memory:")
    rec = record(other, get_game_system("wh40k-2e").demo(), quiet=True)
    return export_battle(other, rec.battle).decode()


@pytest.mark.parametrize("who", WHO)
def test_only_a_judge_imports(site: Site, client: Client, who: str) -> None:
    text = _foreign_export()
    before = site.written()
    response = call(client, "POST", "/api/import", {"text": text}, token(site, who))
    if who in ("judge", "autumn_judge"):  # a battle at no table: any tournament's judge
        assert response.status_code == 201, response.text
        assert site.written() != before
    else:
        refused_properly(response, 401 if who in ("nobody", "bogus") else 403)
        assert site.written() == before


def test_a_bad_token_in_the_cookie_is_no_token(site: Site, seeded_battle: str) -> None:
    with TestClient(site.app()) as c:
        c.cookies.set("bxb_token", "forged")
        before = site.written()
        r = c.post(f"/api/battles/{seeded_battle}/commands", json={"option": 0})
        refused_properly(r, 401)
        assert site.written() == before
        c.cookies.set("bxb_token", site.tables[1])
        r = c.post(f"/api/battles/{seeded_battle}/commands", json={"option": 0})
        assert r.status_code == 201, r.text


READS = [
    "/api/battles",
    "/api/battles/{b}",
    "/api/battles/{b}/log",
    "/api/battles/{b}/at/2",
    "/api/battles/{b}/legal",
    "/api/battles/{b}/verify",
    "/api/tournaments/spring",
    "/api/rulesets",
    "/",
    "/tournaments/spring",
    "/tournaments/spring/tables/1",
    "/battles/{b}",
    "/battles/{b}/at/2",
]


@pytest.mark.parametrize("path", READS)
def test_reading_open_or_by_token(site: Site, seeded_battle: str, path: str) -> None:
    url = path.format(b=seeded_battle)
    with TestClient(site.app(reading="open")) as c:
        assert c.get(url).status_code == 200
    with TestClient(site.app(reading="tokens")) as c:
        refused = c.get(url)
        assert refused.status_code == 401, refused.text
        assert c.get(url, headers=bearer("forged")).status_code == 401
        for tok in (site.tables[2], site.autumn_table, site.judge):
            assert c.get(url, headers=bearer(tok)).status_code == 200


def test_join_keeps_the_token_in_a_strict_cookie(site: Site) -> None:
    with TestClient(site.app()) as c:
        r = c.get(f"/join/{site.tables[2]}", follow_redirects=False)
        assert r.status_code in (301, 302, 303, 307)
        assert r.headers["location"] == "/tournaments/spring/tables/2"
        cookie = r.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie
        assert c.get("/join/forged", follow_redirects=False).status_code == 401
