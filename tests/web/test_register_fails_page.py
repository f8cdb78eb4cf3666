"""A page asked with a token while the tournament register cannot be read: the refusal page
says the store is not reachable (503, as the API says it), not the server's own failure (500),
though the page cannot say whom the token speaks for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient
from web_helpers import make_site

from blowbyblow.replay.store.log import StoreUnavailable
from blowbyblow.web.tournament import TournamentStore


def _unreachable(*_: Any, **__: Any) -> Any:
    raise StoreUnavailable("the store is not reachable: the test's fault")


def test_a_page_whose_register_cannot_be_read_is_refused_as_unreachable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = make_site(tmp_path)
    app = site.app()
    monkeypatch.setattr(TournamentStore, "principal", _unreachable)
    with TestClient(app, raise_server_exceptions=False) as c:
        r = c.get("/", headers={"Authorization": f"Bearer {site.judge}"})
    # main 8bb835e..: the refusal page asked the register again for whom the token speaks,
    # which raised out of the handler: a 500 ("the server failed")
    assert r.status_code == 503, r.text
    assert r.headers["content-type"].startswith("text/html"), r.headers
    assert "not reachable" in r.text, r.text
