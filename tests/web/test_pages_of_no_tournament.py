"""A page of a tournament the server does not have (a mistyped link) is a page that says so,
404, as the tournament's own page and the API say it; three of them answered the API's JSON
to the browser instead."""

from __future__ import annotations

import pytest
from web_helpers import Client, Site, bearer


@pytest.mark.parametrize(
    "path",
    [
        "/tournaments/nope",
        "/tournaments/nope/glance",
        "/tournaments/nope/tables/1",
        "/tournaments/nope/tables/1/setup",
        "/tournaments/nope/rosters",
    ],
)
def test_a_page_of_no_tournament_is_a_page_saying_so(site: Site, client: Client, path: str) -> None:
    r = client.get(path, headers=bearer(site.judge))
    assert r.status_code == 404, r.text
    assert r.headers["content-type"].startswith("text/html"), r.text
    assert "no tournament &#39;nope&#39;" in r.text, r.text
