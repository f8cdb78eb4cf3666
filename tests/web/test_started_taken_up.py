"""A phone's own confirmation that starts the battle takes the phone to the table page even when
its answer comes after a newer asking (docs/web.md): the setup page drops an answer older than
the last asking (test_stale_answers), but a started battle is final, so the write's answer that
says so is not stale whatever was asked since; the newer asking, answered, would say the same
(the setup gone). The test holds the confirmation's answer back, lets the page hear the start on
its stream and ask for the setup again, holds that answer back for good, then lets the
confirmation's answer in: the page goes to the table. No timing: the waits are on what the page
asked and where it is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from playwright.sync_api import BrowserContext, Page
from test_stale_answers import Held, opened
from web_helpers import CHROMIUM, Site, bearer, close_page, live_server, make_site

from blowbyblow.replay.engine.registry import get_game_system

SLUG = "taken-up"
TABLE = 1


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, dict[int, str], str]]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)")
    site = make_site(tmp_path_factory.mktemp("taken"))
    site.tournaments.new_tournament(SLUG, "Taken Up Night")
    made = site.tournaments.add_tables(SLUG, TABLE)
    with live_server(site.app()) as base:
        yield site, dict(made.tables), base


@pytest.fixture
def page(browser: BrowserContext) -> Iterator[Page]:
    made = browser.new_page()
    yield made
    close_page(made)


def test_a_confirmation_that_starts_the_battle_is_taken_up_after_a_newer_asking(
    web: Any, page: Page
) -> None:
    site, tokens, base = web
    token = tokens[TABLE]
    pending = f"/api/tournaments/{SLUG}/tables/{TABLE}/setup"
    ruleset = "necromunda-2023"
    setup = msgspec.json.decode(msgspec.json.encode(get_game_system(ruleset).demo().setup))
    saved = httpx.put(
        f"{base}{pending}",
        json={"ruleset": ruleset, "setup": setup, "revision": 0},
        headers=bearer(token),
    )
    assert saved.status_code == 200, saved.text
    first, last = saved.json()["sides"]
    confirmed = httpx.post(  # the other phone confirms its side
        f"{base}{pending}/confirm", json={"side": first, "revision": 1}, headers=bearer(token)
    )
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["battle"] is None

    opened(page, base, token)
    page.goto(f"{base}{pending.replace('/api', '')}")
    page.wait_for_selector("#live.on")
    button = page.locator(f"#confirms button[data-side='{last}']")
    button.wait_for()
    confirming = Held(page, f"**{pending}/confirm", lambda r: True)
    asked_again = Held(page, f"**{pending}", lambda r: r.method == "GET")
    button.click()
    confirming.asked()  # the battle started on the server: that answer held back
    asked_again.asked()  # the start heard on the stream, the setup asked for: held for good
    assert page.url.endswith(pending.replace("/api", ""))  # nothing taken up yet
    confirming.release()  # the confirmation's answer, older than the asking after it
    page.wait_for_url(f"**/tournaments/{SLUG}/tables/{TABLE}")
    assert len(site.tournaments.battles(SLUG, TABLE)) == 1  # started once, by that confirmation
