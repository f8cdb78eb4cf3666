"""The server's pages are rendered from templates that ship in the wheel and do not change while
it runs (issue 25): once a template is loaded, rendering a page does not look at the template
files again (Jinja's reload check did it at every include, once a log row)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from litestar.testing import TestClient
from web_helpers import grow, make_site

from blowbyblow.web.schemas import StartBattle
from blowbyblow.web.service import Service

TEMPLATES = Path(__file__).resolve().parents[2] / "web" / "templates"


def test_a_page_rendered_again_does_not_look_at_its_template_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = make_site(tmp_path)
    service = Service(store=site.store, tournaments=site.tournaments)
    battle = UUID(service.start("spring", 1, StartBattle(ruleset="gangfight", seed="t")).battle)
    grow(site.store, battle, 60)  # a log of more than one row on the page
    looked: list[str] = []
    getmtime = os.path.getmtime

    def counted(path: Any) -> float:
        if Path(path).resolve().is_relative_to(TEMPLATES.resolve()):
            looked.append(str(path))
        return getmtime(path)

    with TestClient(site.app()) as client:
        first = client.get(f"/battles/{battle}")  # the templates loaded
        assert first.status_code == 200
        monkeypatch.setattr(os.path, "getmtime", counted)
        again = client.get(f"/battles/{battle}")
        assert again.status_code == 200
        assert again.text.count('class="ev ') > 1  # rows rendered through _row.html
    assert looked == []
