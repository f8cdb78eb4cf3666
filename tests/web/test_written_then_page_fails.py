"""A command written whose table-page parts cannot then be read or rendered (the store lost
right after the write, a bug in a template): the answer says it was written (201, its events,
no page parts: the table page loads again) and the note goes out, where it said "the store is
not reachable; nothing was written, try again" (503) and told no judge (main 8bb835e)."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import TestClient
from web_helpers import Site, bearer, make_site

from blowbyblow.replay.store.log import BattleStore
from blowbyblow.replay.store.persistence import StoreUnavailable
from blowbyblow.web import api, service


def _lost(*_: Any, **__: Any) -> Any:
    raise StoreUnavailable("connection lost")  # the test's fault: the read after the write


def _boom(*_: Any, **__: Any) -> Any:
    raise RuntimeError("a template's bug")


@pytest.mark.parametrize("failure", [_lost, _boom], ids=["store lost", "bug"])
def test_a_command_written_is_answered_written_when_its_page_parts_fail(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, failure: Any
) -> None:
    site: Site = make_site(tmp_path)
    published: list[Any] = []
    monkeypatch.setattr(api.Server, "publish", lambda self, note: published.append(note))
    with TestClient(site.app(), raise_server_exceptions=False) as c:
        r = c.post(
            "/api/tournaments/spring/tables/1/battles",
            json={"ruleset": "gangfight", "seed": "s"},
            headers=bearer(site.tables[1]),
        )
        battle = r.json()["battle"]
        [before] = [b.version for b in BattleStore(site.db).battles()]
        monkeypatch.setattr(service.Service, "view", failure)
        published.clear()
        r = c.post(
            f"/api/battles/{battle}/commands",
            json={"option": 0, "page": True},
            headers=bearer(site.tables[1]),
        )
        [after] = [b.version for b in BattleStore(site.db).battles()]
        assert after > before  # written
        assert r.status_code == 201, r.text
        body = r.json()
        assert body["status"] == "played" and body["version"] == after, body
        assert body.get("page") is None, body
    assert [(n.kind, n.version) for n in published] == [("played", after)]  # judges hear it
