"""A battle a newer blowbyblow wrote, on the server: its pages and its log are refused (409) with
the line that names what is too new and that an upgrade reads it, never a 500 (docs/store.md)."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import pytest
from litestar.testing import TestClient
from web_helpers import make_site

from blowbyblow.replay.store.log import BattleStore

from bxbtest import NEWER, record_demo, written_by_a_newer_release


@pytest.mark.parametrize("kind", sorted(NEWER))
def test_a_battle_a_newer_release_wrote_is_refused_in_words(tmp_path: Path, kind: str) -> None:
    db = tmp_path / "site.sqlite"
    record_demo(BattleStore(str(db)), "necromunda-2023")
    battle, last, what = written_by_a_newer_release(db, kind)
    bid = UUID(battle)
    site = make_site(tmp_path, str(db))
    with TestClient(site.app()) as c:
        for url in (f"/battles/{bid}", f"/battles/{bid}/at/{last}", f"/api/battles/{bid}/log"):
            r = c.get(url)
            assert r.status_code == 409, (url, r.status_code, r.text[:300])
            assert "written by a newer blowbyblow" in r.text and what in r.text, (url, r.text)
            assert "upgrade blowbyblow" in r.text, url
