"""Fixtures of the tournament server's tests (and its helpers made importable whatever
pytest's import mode)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient
from playwright.sync_api import BrowserContext, sync_playwright

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
from web_helpers import Client, Site, bearer, make_site, phone  # noqa: E402 - after the path is set


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


@pytest.fixture(scope="module")
def browser(web: Any) -> Iterator[BrowserContext]:
    """A phone's browser (``web_helpers.phone``) for the tests of a module whose own ``web``
    fixture serves its site: opened once the site is served, closed before it stops. (A module
    that serves its site in its own ``browser`` fixture, as test_quick_odds does, overrides it.)"""
    with sync_playwright() as p:
        context = phone(p)
        yield context
        context.close()
