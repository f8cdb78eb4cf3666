"""The judge's viewer following a battle live (viewer.js): its stream is opened once the page is
on screen, so a command written between the page's answer and the stream's opening is told by no
note; the page asks for the rows after its end when the stream opens. Each row is shown once,
whichever of two answers (the rows asked at the opening, the rows a note asks for) comes first.
The stream's opening and the rows' answer are held back by the test (Playwright's routes), and
every wait is on what the page shows or has heard, never on time."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from playwright.sync_api import BrowserContext, Page, sync_playwright
from web_helpers import CHROMIUM, Site, close_page, grow, live_server, make_site, phone

from blowbyblow.web.schemas import StartBattle
from blowbyblow.web.service import Service

# What the page hears on its stream, recorded by the test before the page's own handlers run
# (an init script: the listener is added as the EventSource is made, before bxb.listen adds its).
HEARD = """window.bxbHeard = []; const Source = window.EventSource;
window.EventSource = class extends Source { constructor(url, options) { super(url, options);
  this.addEventListener('played', (e) => window.bxbHeard.push(JSON.parse(e.data).version)); } };"""


@pytest.fixture(scope="module")
def followed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, UUID, Any, str]]:
    """A Gangfight battle of a few hundred events at spring's table 1, served live, and a
    browser."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)")
    site = make_site(tmp_path_factory.mktemp("viewer-live"))
    service = Service(store=site.store, tournaments=site.tournaments)
    battle = UUID(service.start("spring", 1, StartBattle(ruleset="gangfight", seed="live")).battle)
    grow(site.store, battle, 300)
    with live_server(site.app()) as base, sync_playwright() as p:
        context = phone(p)
        yield site, battle, context, base
        context.close()


def play(site: Site, battle: UUID, context: BrowserContext, base: str) -> int:
    """The table plays a command (its first option), as its phone does: the battle's version."""
    played = context.request.post(
        f"{base}/api/battles/{battle}/commands",
        data={"option": 0},
        headers={"Authorization": f"Bearer {site.tables[1]}"},
    )
    assert played.ok, played.text()
    return int(played.json()["version"])


def until(page: Page, found: Callable[[], object]) -> None:
    """Wait for ``found()`` (something a route handler records), letting Playwright's events in."""
    for _ in range(400):
        if found():
            return
        page.wait_for_timeout(50)
    raise AssertionError("not seen within 20 s")


def shown_to(page: Page, version: int) -> list[int]:
    """Wait for the page at its end to show ``version`` (its row held, its state shown): the
    positions of the rows held."""
    page.wait_for_selector(f"#ev-{version}", state="attached")
    page.wait_for_function(
        f"() => document.getElementById('state-panel').dataset.position === '{version}'"
    )
    found: list[int] = page.locator("#events > .ev").evaluate_all(
        "rows => rows.map(r => Number(r.dataset.position))"
    )
    return found


def test_a_command_written_before_the_stream_opens_is_shown(
    followed: tuple[Site, UUID, BrowserContext, str],
) -> None:
    """The page is answered, its stream's opening held back; the table plays; the stream opens:
    the command is shown (no note will ever tell of it), each row once; the next command, told
    by a note, is shown after it."""
    site, battle, context, base = followed
    page = context.new_page()
    streams: list[Any] = []
    page.route("**/stream", lambda route: streams.append(route))
    page.goto(f"{base}/battles/{battle}")
    until(page, lambda: streams)  # the page is shown and asks for its stream: held back
    before = int(page.locator("body").get_attribute("data-of") or 0)
    version = play(site, battle, context, base)
    assert version > before
    streams[0].continue_()
    page.wait_for_selector("#live.on")
    rows = shown_to(page, version)
    assert rows == list(range(rows[0], version + 1))  # every row once, in order
    assert page.locator("#of").text_content() == str(version)
    later = play(site, battle, context, base)
    rows = shown_to(page, later)
    assert rows == list(range(rows[0], later + 1))
    close_page(page)


def test_the_rows_asked_at_the_opening_answered_after_a_note_add_each_row_once(
    followed: tuple[Site, UUID, BrowserContext, str],
) -> None:
    """The rows asked for when the stream opens are read before the next command and answered
    after the note of it is heard: the page shows every row once, the older answer adding only
    what it has."""
    site, battle, context, base = followed
    page = context.new_page()
    page.add_init_script(HEARD)
    streams: list[Any] = []
    page.route("**/stream", lambda route: streams.append(route))
    page.goto(f"{base}/battles/{battle}")
    until(page, lambda: streams)
    before = int(page.locator("body").get_attribute("data-of") or 0)
    first = play(site, battle, context, base)
    opening: list[Any] = []
    page.route(
        f"**/battles/{battle}/rows/{before}", lambda route: opening.append(route)
    )  # the rows after its end
    streams[0].continue_()
    until(page, lambda: opening)
    answer = opening[0].fetch()  # read now: the first command's rows, not the second's
    second = play(site, battle, context, base)
    page.wait_for_function(f"() => window.bxbHeard.includes({second})")
    opening[0].fulfill(response=answer)  # the older answer comes last
    rows = shown_to(page, second)
    assert first < second
    assert rows == list(range(rows[0], second + 1))
    close_page(page)
