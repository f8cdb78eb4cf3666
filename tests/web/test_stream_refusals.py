"""A live stream asked for something that does not exist is refused at once (404, one line),
as the pages and the other streams refuse it: a table's stream for a table the tournament does
not have was answered 200 and held open, a listener waiting for ever on a table nobody plays."""

from __future__ import annotations

import httpx
import pytest
from web_helpers import Site, live_server


@pytest.mark.parametrize("table", ["99", "-1", "0"])
def test_a_table_the_tournament_does_not_have_has_no_stream(site: Site, table: str) -> None:
    with live_server(site.app()) as base, httpx.Client(base_url=base, timeout=30) as http:
        with http.stream("GET", f"/api/tournaments/spring/tables/{table}/stream") as answer:
            assert answer.status_code == 404, answer.status_code
            assert answer.read().count(b"\n") == 0  # one line
        refused = http.get(f"/api/tournaments/spring/tables/{table}/stream").json()
        assert refused["field"] == "table" and f"no table {table} in spring" in refused["message"]
        with http.stream("GET", "/api/tournaments/spring/tables/1/stream") as answer:
            assert answer.status_code == 200  # a table it has: listened to, as before
