"""The plots on the judge's viewer (web/plots.py): matplotlib draws them on the server as SVG,
the figures ``bxb odds --plot`` and ``bxb luck --plot`` draw; in Chromium, the odds of a command
show the plot, what the dice gave marked, and the luck up to a step shows each side's line; a
server without matplotlib answers 501 with what to install; the viewer's luck is bounded. The
screenshots in docs/web.md are taken here (docs/images/web-odds-plot.png, web-luck-plot.png)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest
from litestar.testing import TestClient
from playwright.sync_api import BrowserContext, sync_playwright
from screenshots import IMAGES
from web_helpers import CHROMIUM, Site, close_page, grow, live_server, make_site, phone, ready

from blowbyblow.domain.core import CommandIssued
from blowbyblow.replay.battles.record import record
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.odds.luck import HowToJudge, battle_luck
from blowbyblow.replay.odds.plots import HAPPENED, NEEDS, image, odds_figure
from blowbyblow.web.schemas import StartBattle
from blowbyblow.web.service import Service

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def fought(tmp_path_factory: pytest.TempPathFactory) -> tuple[Site, UUID, int]:
    """Gangfight's demo recorded: its first command (a fight) and where it stands."""
    site = make_site(tmp_path_factory.mktemp("plots"))
    battle = record(site.store, get_game_system("gangfight").demo(), quiet=True).battle
    first = next(e.position for e in site.store.read(battle) if isinstance(e.event, CommandIssued))
    return site, battle, first


def orange() -> str:
    from matplotlib.colors import to_hex

    return str(to_hex(HAPPENED))


def test_the_plot_is_the_odds_bxb_odds_draws(fought: tuple[Site, UUID, int]) -> None:
    site, battle, first = fought
    service = Service(store=site.store, tournaments=site.tournaments)
    odds = service.odds(battle, first, 500, 1000)
    with TestClient(site.app()) as client:
        got = client.get(f"/api/battles/{battle}/odds/plot", params={"position": first})
        again = client.get(f"/api/battles/{battle}/odds/plot", params={"position": first + 1})
    assert got.status_code == 200 and got.headers["content-type"].startswith("image/svg+xml")
    label = site.store.read(battle)[0].event.label  # type: ignore[attr-defined]
    assert got.content == image(odds_figure(odds, label, columns=1), "svg")
    assert again.content == got.content  # any position of the command: the same plot
    svg = got.text
    assert orange() in svg  # what the dice gave, marked
    for side in odds.sides:
        assert f"{side.side}: net loss" in svg


def test_a_server_without_matplotlib_says_what_to_install(fought: tuple[Site, UUID, int]) -> None:
    site, battle, first = fought
    script = f"""
import sys
sys.modules["matplotlib"] = None  # as if the plot extra were not installed
sys.path.insert(0, {str(HERE)!r})
from litestar.testing import TestClient
from web_helpers import Site
from blowbyblow.replay.store.log import BattleStore
from blowbyblow.web.app import create_app
from blowbyblow.web.tournament import TournamentStore
app = create_app(BattleStore({site.db!r}), TournamentStore({site.db!r}))
with TestClient(app) as client:
    r = client.get("/api/battles/{battle}/odds/plot", params={{"position": {first}}})
    print(r.status_code, r.json()["message"])
"""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    assert out.strip() == f"501 {NEEDS}"


@pytest.fixture(scope="module")
def browser(fought: tuple[Site, UUID, int]) -> Iterator[tuple[BrowserContext, str]]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)")
    site, _, _ = fought
    with live_server(site.app()) as base, sync_playwright() as p:
        context = phone(p)
        context.set_default_timeout(60_000)  # the odds are worked out first
        yield context, base
        context.close()


def test_the_odds_of_a_command_show_their_plot(
    fought: tuple[Site, UUID, int], browser: tuple[BrowserContext, str]
) -> None:
    _, battle, first = fought
    context, base = browser
    page = context.new_page()
    page.goto(f"{base}/battles/{battle}/at/{first}")
    ready(page)
    page.locator(f"#ev-{first} .odds-btn").click()
    plot = page.locator(f"#ev-{first} .odds figure.plot img")
    plot.wait_for()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=plot.element_handle())
    assert "odds" in str(plot.get_attribute("alt"))
    assert not page.locator(".plot-error").count()
    page.locator(f"#ev-{first} .odds-plot").screenshot(path=str(IMAGES / "web-odds-plot.png"))
    close_page(page)


def test_the_luck_up_to_a_step_shows_as_a_line(
    fought: tuple[Site, UUID, int], browser: tuple[BrowserContext, str]
) -> None:
    site, battle, _ = fought
    context, base = browser
    end = site.store.version(battle)
    page = context.new_page()
    page.goto(f"{base}/battles/{battle}/at/{end}")
    ready(page)
    page.click("#luck")
    page.wait_for_selector("#luck-result[data-state=shown]")
    plot = page.locator("#luck-result figure.plot img")
    assert plot.evaluate("img => img.naturalWidth") > 0
    page.locator("#luck-box").screenshot(path=str(IMAGES / "web-luck-plot.png"))
    close_page(page)
    with TestClient(site.app()) as client:
        svg = client.get(f"/api/battles/{battle}/luck/plot", params={"upto": end}).text
    luck = battle_luck(
        [e.event for e in site.store.read(battle)], HowToJudge(budget=200, samples=10)
    )
    for side in luck.sides:  # each side's line, named in the legend
        assert f">{side.side}<" in svg


def test_the_viewers_luck_is_bounded(fought: tuple[Site, UUID, int]) -> None:
    """A battle longer than the viewer's bound is refused at once, with what to run instead."""
    site, _, _ = fought
    service = Service(store=site.store, tournaments=site.tournaments)
    long = UUID(service.start("spring", 2, StartBattle(ruleset="gangfight", seed="l")).battle)
    grow(site.store, long, 600)
    with TestClient(site.app()) as client:
        r = client.get(f"/api/battles/{long}/luck/plot")
    assert r.status_code == 422, r.text
    assert "at most 40 commands" in r.json()["rule"] and "bxb luck" in r.json()["message"]
