"""Fixtures of the tournament server's tests (and its helpers made importable whatever
pytest's import mode)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
from web_helpers import Client, Site, bearer, make_site  # noqa: E402 - after the path is set


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return make_site(tmp_path)


@pytest.fixture
def client(site: Site) -> Iterator[Client]:
    with TestClient(site.app()) as c:
        yield c


@pytest.fixture
def seeded_battle(site: Site, client: Client) -> str:
    """A battle at spring's table 1, seeded dice, one command played."""
    r = client.post(
        "/api/tournaments/spring/tables/1/battles",
        json={"ruleset": "necromunda-2023", "seed": "auth", "label": "table one"},
        headers=bearer(site.tables[1]),
    )
    assert r.status_code == 201, r.text
    battle = str(r.json()["battle"])
    r = client.post(
        f"/api/battles/{battle}/commands", json={"option": 0}, headers=bearer(site.tables[1])
    )
    assert r.status_code == 201, r.text
    return battle
