"""The viewer's odds button (web/static/viewer.js) asks the full answer at once and a first one
only when the full one is not back 50 ms after the tap, so a command whose full answer is quick
pays for no samples beside it. Timing decides none of it here: the page's clock is Playwright's
(its timers fire only when the test moves it on), and the server's odds are held until the test
lets them go (``HeldOdds``), so the full answer is back before the 50 ms, or held past them, as
each test says."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from uuid import UUID

import pytest
from litestar import Litestar
from playwright.sync_api import Page, sync_playwright
from web_helpers import CHROMIUM, close_page, live_server, make_site, phone, ready

from blowbyblow.domain.core import CommandIssued, Event
from blowbyblow.replay.battles.record import record
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.odds.explore import Odds
from blowbyblow.web.odds_desk import ServerOdds

# Every fetch the page makes, in the order its script made them (a call, not a request seen
# on the network: what the script asked is known as soon as the test's next call returns);
# `window.fullBack`, a promise of the first full odds answer read by the page (its JSON
# parsed: the script's own handling of it follows in the same turn, before the test's next
# call); `window.imaged`, every image the script asked for (a plot is an <img>, not a fetch).
FETCHES = """
window.fetched = [];
window.imaged = [];
let back;
window.fullBack = new Promise((resolve) => { back = resolve; });
const fetchOf = window.fetch;
window.fetch = (url, init) => {
  window.fetched.push(String(url));
  return fetchOf(url, init).then((response) => {
    const json = response.json.bind(response);
    const full = String(url).includes("/odds?") && !String(url).includes("first=true");
    response.json = () => json().then((data) => { if (full) back(String(url)); return data; });
    return response;
  });
};
const src = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, "src");
Object.defineProperty(HTMLImageElement.prototype, "src", {
  ...src,
  set(url) { window.imaged.push(String(url)); src.set.call(this, url); },
});
"""


@dataclass
class HeldOdds(ServerOdds):
    """The server's odds, each kind held until the test lets it go (``go``): the full answers
    (the plot's too) and the first answers; ``asked``, the kinds asked, in order."""

    asked: list[str] = field(default_factory=list)
    go: dict[str, threading.Event] = field(
        default_factory=lambda: {"full": threading.Event(), "first": threading.Event()}
    )

    def recorded(
        self, events: Sequence[Event], position: int, budget: int, samples: int, first: bool = False
    ) -> Odds:
        kind = "first" if first else "full"
        self.asked.append(kind)
        if not self.go[kind].wait(120):
            raise AssertionError(f"the test never let the {kind} answer go")
        return super().recorded(events, position, budget, samples, first)


@contextmanager
def viewer(tmp: Path, odds: HeldOdds) -> Iterator[tuple[Page, int]]:
    """A phone's viewer of the Gangfight demo at its first command, served with ``odds``; its
    clock Playwright's, stopped once the page is ready; every fetch it makes noted."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)")
    site = make_site(tmp)
    battle: UUID = record(site.store, get_game_system("gangfight").demo(), quiet=True).battle
    command = next(
        e.position for e in site.store.read(battle) if isinstance(e.event, CommandIssued)
    )
    app: Litestar = site.app()
    app.state.server.service.odds_desk = odds
    try:
        with live_server(app) as base, sync_playwright() as p:
            context = phone(p)
            context.set_default_timeout(120_000)
            page = context.new_page()
            page.add_init_script(FETCHES)
            page.clock.install()  # runs on as the clock does until paused
            page.goto(f"{base}/battles/{battle}/at/{command}")
            ready(page)
            page.clock.pause_at(page.evaluate("Date.now()") + 1000)
            yield page, command
            close_page(page)
            context.close()
    finally:
        for go in odds.go.values():
            go.set()
        odds.close()


def odds_fetched(page: Page) -> list[str]:
    fetched: list[str] = page.evaluate("window.fetched")
    return [url for url in fetched if "/odds?" in url]


def test_a_full_answer_back_within_50_ms_asks_no_first_one(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    odds = HeldOdds()
    odds.go["full"].set()  # answered as soon as worked out; the page's clock does not move
    odds.go["first"].set()
    with viewer(tmp_path_factory.mktemp("quick"), odds) as (page, command):
        page.locator(f"#ev-{command} .odds-btn").click()
        page.locator(f"#ev-{command} .odds figure.plot img").wait_for()
        assert "exact:" in page.locator(f"#ev-{command} .odds-method").inner_text()
        page.clock.run_for(10_000)  # the first answer's timer, had it been left running
        [full] = odds_fetched(page)
        assert "first=true" not in full
        assert "first" not in odds.asked


def test_a_full_answer_held_past_50_ms_asks_a_first_one_shown_until_the_full_one(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    odds = HeldOdds()
    odds.go["first"].set()
    with viewer(tmp_path_factory.mktemp("held"), odds) as (page, command):
        page.locator(f"#ev-{command} .odds-btn").click()
        method = page.locator(f"#ev-{command} .odds-method")
        page.clock.run_for(49)
        assert ["first=true" in url for url in odds_fetched(page)] == [False]
        page.clock.run_for(1)  # 50 ms after the tap, the full answer still held
        assert ["first=true" in url for url in odds_fetched(page)] == [False, True]
        page.locator(f"#ev-{command} .odds-coming").wait_for()
        shown = method.inner_text()
        assert "Monte Carlo: 200 samples" in shown and "the full answer on the way" in shown
        assert odds.asked == ["full", "first"]
        odds.go["full"].set()
        page.locator(f"#ev-{command} .odds figure.plot img").wait_for()
        shown = method.inner_text()
        assert "exact:" in shown and "on the way" not in shown


def test_odds_closed_again_within_50_ms_ask_no_first_answer(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A judge who taps the button again (closing the odds) before the 50 ms have passed asks
    for no first answer: nobody would see it."""
    odds = HeldOdds()
    odds.go["first"].set()
    with viewer(tmp_path_factory.mktemp("closed"), odds) as (page, command):
        button = page.locator(f"#ev-{command} .odds-btn")
        button.click()
        button.click()
        assert page.locator(f"#ev-{command} .odds").count() == 0
        page.clock.run_for(1000)
        assert ["first=true" in url for url in odds_fetched(page)] == [False]


def test_odds_closed_before_the_full_answer_fetch_no_plot(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Odds closed while their full answer is worked out: the answer, once back, is shown
    nowhere and its plot is not asked for (nobody would see it); opened again, they are
    shown with their plot, as ever."""
    odds = HeldOdds()
    with viewer(tmp_path_factory.mktemp("gone"), odds) as (page, command):
        button = page.locator(f"#ev-{command} .odds-btn")
        button.click()
        button.click()
        assert page.locator(f"#ev-{command} .odds").count() == 0
        odds.go["full"].set()
        assert "/odds?" in page.evaluate("window.fullBack")
        assert page.evaluate("window.imaged") == []
        assert page.locator(f"#ev-{command} .odds").count() == 0
        button.click()
        page.locator(f"#ev-{command} .odds figure.plot img").wait_for()
        [plot] = page.evaluate("window.imaged")
        assert "/odds/plot?" in plot
