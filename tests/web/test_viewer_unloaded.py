"""The judge's viewer runs its scripts through one inline loader, allowed by its hash in the
page's policy (web/guard.py). A proxy that rewrites the page's HTML (minifies it, injects into
it) changes that hash: the browser refuses the loader, no script runs, and the page looked whole
while every button, key and live update did nothing. It now says so: a line shown once a few
seconds have passed without the loader marking the page."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from uuid import UUID

import pytest
from playwright.sync_api import BrowserContext, Route, sync_playwright
from web_helpers import CHROMIUM, Site, close_page, live_server, make_site, phone, ready

from blowbyblow.web.schemas import PlayCommand, StartBattle
from blowbyblow.web.service import Service

UNLOADED = ".unloaded"
SHOWN_AFTER = 3_000  # ms: app.css's delay before the line shows


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[BrowserContext, str]]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)")
    site: Site = make_site(tmp_path_factory.mktemp("viewer-unloaded"))
    service = Service(store=site.store, tournaments=site.tournaments)
    battle = UUID(service.start("spring", 1, StartBattle(ruleset="gangfight", seed="u")).battle)
    service.play(battle, PlayCommand(option=0))
    with live_server(site.app()) as base, sync_playwright() as p:
        context = phone(p)
        yield context, f"{base}/battles/{battle}"
        context.close()


def _script_touched(html: str) -> str:
    """A proxy that injects into the page's inline script (a tracker, a polyfill)."""
    return html.replace('"use strict";', '"use strict"; /* proxy */', 1)


def _minified(html: str) -> str:
    """A proxy that minifies the page: each line's leading blanks taken out (the inline styles'
    hash breaks too, so the page is not styled either)."""
    return re.sub(r"\n[ \t]+", "\n", html)


def test_the_viewer_says_nothing_of_its_scripts_when_they_ran(
    viewer: tuple[BrowserContext, str],
) -> None:
    context, url = viewer
    page = context.new_page()
    page.goto(url)
    ready(page)
    page.wait_for_timeout(SHOWN_AFTER + 500)
    assert page.locator(UNLOADED).count() == 1
    assert page.locator(UNLOADED).is_hidden()
    close_page(page)


@pytest.mark.parametrize("rewrite", [_script_touched, _minified])
def test_a_page_whose_loader_a_proxy_broke_says_its_scripts_did_not_run(
    viewer: tuple[BrowserContext, str], rewrite: Callable[[str], str]
) -> None:
    context, url = viewer
    page = context.new_page()

    def proxy(route: Route) -> None:
        answer = route.fetch()
        assert "content-security-policy" in {k.lower() for k in answer.headers}
        route.fulfill(response=answer, body=rewrite(answer.text()))

    page.route(url, proxy)
    refused: list[str] = []
    page.on("console", lambda m: refused.append(m.text) if "Content Security" in m.text else None)
    page.goto(url)
    line = page.locator(UNLOADED)
    line.wait_for(state="visible", timeout=SHOWN_AFTER + 10_000)
    assert "scripts did not run" in line.inner_text()
    assert page.get_attribute("body", "data-loader") is None  # the loader was refused
    assert refused, "the browser did not refuse the loader: the rewrite changed nothing"
    close_page(page)
