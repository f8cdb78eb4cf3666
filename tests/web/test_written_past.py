"""A command sent without a version is played on the battle as it stands: written past while it
was adjudicated (another phone's command landed first), it is adjudicated again from the battle
read anew. Under endless contention that went on for ever, a worker thread adjudicating again
and again; it is tried ``AGAIN`` times more, then refused with one clear line (409), nothing
written."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest
from web_helpers import Client, Site, bearer

from blowbyblow.replay.store.log import StaleVersion
from blowbyblow.web.service import AGAIN

ENDLESS = 50  # appends refused before the test gives up on the server ever stopping


def _written_past(site: Site, monkeypatch: pytest.MonkeyPatch, times: int) -> list[int]:
    """The store refuses the next ``times`` appends as written past (as it refuses a writer
    whose version another writer has gone beyond), then writes; the list counts the appends."""
    append: Callable[..., Any] = site.store.append
    tried: list[int] = []

    def refused(*args: Any, **kwargs: Any) -> Any:
        tried.append(1)
        if len(tried) > ENDLESS:
            raise RuntimeError("the server adjudicated again without end")
        if len(tried) <= times:
            raise StaleVersion("the battle was written past")
        return append(*args, **kwargs)

    monkeypatch.setattr(site.store, "append", refused)
    return tried


def _played_without_a_version(site: Site, client: Client, battle: str) -> Any:
    """The first option the rules offer, sent by table 1 with no version: played as it stands."""
    return client.post(
        f"/api/battles/{battle}/commands", json={"option": 0}, headers=bearer(site.tables[1])
    )


def test_a_command_always_written_past_is_refused_after_a_bound(
    site: Site, client: Client, seeded_battle: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = site.written()
    tried = _written_past(site, monkeypatch, times=ENDLESS)
    r = _played_without_a_version(site, client, seeded_battle)
    assert r.status_code == 409, r.text
    assert len(tried) == AGAIN + 1
    assert f"written past {AGAIN + 1} times" in r.json()["message"]
    assert "Traceback" not in r.text
    assert site.written() == before


def test_a_table_s_own_contention_is_still_played(
    site: Site, client: Client, seeded_battle: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Written past by the table's other phone and its judge, and once more: still played."""
    version = site.store.version(UUID(seeded_battle))
    tried = _written_past(site, monkeypatch, times=AGAIN)
    r = _played_without_a_version(site, client, seeded_battle)
    assert r.status_code == 201, r.text
    assert len(tried) == AGAIN + 1
    assert r.json()["events"][0]["position"] == version + 1
