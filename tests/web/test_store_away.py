"""The database away under a running server (issue 26, hole 3): every read, write, page and
stream answers 503 "the store is not reachable; nothing was written, try again" while
PostgreSQL is stopped, never a bare 500 nor another refusal's words; and once it is back, the
same server reads and writes again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from uuid import uuid4

import psycopg
import pytest
from litestar.testing import TestClient
from web_helpers import Site, bearer, make_site

from pgserver import Postgres, controlled_postgres

UNREACHABLE = "the store is not reachable; nothing was written, try again"


@pytest.fixture(scope="module")
def pg() -> Iterator[Postgres]:
    with controlled_postgres() as server:
        yield server


@pytest.fixture
def pg_site(pg: Postgres, tmp_path: Path) -> Site:
    name = f"bxb_{uuid4().hex[:12]}"
    with psycopg.connect(pg.url, autocommit=True) as con:
        con.execute(f"create database {name}")
    return make_site(tmp_path, pg.url.rsplit("/", 1)[0] + "/" + name)


def _requests(site: Site, battle: str) -> list[tuple[str, str, dict[str, object] | None, str]]:
    """(method, path, body, token) of every kind of request a phone or judge makes."""
    t1, judge = site.tables[1], site.judge
    return [
        ("GET", "/api/battles", None, t1),
        ("GET", f"/api/battles/{battle}", None, t1),
        ("GET", f"/api/battles/{battle}/log", None, t1),
        ("GET", f"/api/battles/{battle}/state", None, t1),
        ("GET", f"/api/battles/{battle}/at/1", None, t1),
        ("GET", f"/api/battles/{battle}/legal", None, t1),
        ("GET", f"/api/battles/{battle}/verify", None, t1),
        ("GET", f"/api/battles/{battle}/odds?position=2", None, t1),
        ("GET", f"/api/diff?a={battle}&b={battle}", None, t1),
        ("GET", "/api/tournaments/spring", None, t1),
        ("POST", "/api/tournaments/spring/verify", None, judge),
        ("POST", "/api/tournaments/spring/tables/2/battles", {"ruleset": "necromunda-2023"}, judge),
        ("POST", f"/api/battles/{battle}/commands", {"option": 0}, t1),
        ("POST", f"/api/battles/{battle}/void", {"command": 2, "reason": "misread"}, t1),
        ("POST", f"/api/battles/{battle}/finish", None, t1),
        ("POST", f"/api/battles/{battle}/seal", None, judge),
        ("GET", f"/api/battles/{battle}/export", None, judge),
        ("POST", f"/api/battles/{battle}/whatif", {}, judge),
        ("POST", "/api/tournaments/spring/seal-finished", None, judge),
        ("GET", "/api/tournaments/spring/rounds/1/export", None, judge),
        ("GET", "/", None, t1),
        ("GET", "/tournaments/spring", None, t1),
        ("GET", "/tournaments/spring/tables/1", None, t1),
        ("GET", f"/battles/{battle}", None, t1),
        ("GET", f"/battles/{battle}/at/1", None, t1),
        ("GET", f"/battles/{battle}/at/1/state", None, t1),
        ("GET", f"/battles/{battle}/rows/0", None, t1),
    ]


def test_the_database_away_is_a_503_everywhere_and_back_it_serves_again(
    pg: Postgres, pg_site: Site
) -> None:
    with TestClient(pg_site.app(), raise_server_exceptions=False) as client:
        r = client.post(
            "/api/tournaments/spring/tables/1/battles",
            json={"ruleset": "necromunda-2023", "seed": "away"},
            headers=bearer(pg_site.tables[1]),
        )
        assert r.status_code == 201, r.text
        battle = r.json()["battle"]
        for _ in range(2):
            r = client.post(
                f"/api/battles/{battle}/commands",
                json={"option": 0},
                headers=bearer(pg_site.tables[1]),
            )
            assert r.status_code == 201, r.text
        pg.stop()
        try:
            wrong = []
            for method, path, body, token in _requests(pg_site, battle):
                r = client.request(method, path, json=body, headers=bearer(token))
                if r.status_code != 503 or UNREACHABLE not in r.text:
                    wrong.append(f"{method} {path}: {r.status_code} {r.text[:200]}")
            assert not wrong, "\n".join(wrong)
        finally:
            pg.start()
        r = client.post(
            f"/api/battles/{battle}/commands", json={"option": 0}, headers=bearer(pg_site.tables[1])
        )
        assert r.status_code == 201, r.text
        assert client.get(f"/api/battles/{battle}/verify").json()["ok"]
