"""The server's quick odds (web/quick_odds.py): "this profile against that one" with no scenario
file; the odds of a legal option from a setup changed by hand are those of a scenario file with
the same setup and command; a setup the rules refuse is a 422 naming the field; the page
(Chromium, a phone) changes a profile with the setup forms' engine and shows the server's odds
(docs/images/web-quick-odds.png)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient
from playwright.sync_api import BrowserContext, sync_playwright
from screenshots import IMAGES
from web_helpers import CHROMIUM, close_page, live_server, make_site, phone

from blowbyblow.replay.engine.codec import encode_json
from blowbyblow.replay.odds.explore import HowToExplore

from bxbtest import quick_by_hand, quick_demo_data


def test_the_servers_quick_odds_are_the_command_lines(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    setup, command = quick_demo_data()
    setup["fighters"][0]["profile"]["att"] = 1
    with TestClient(site.app()) as client:
        start = client.get("/api/rulesets/gangfight/quick").json()
        assert start["setup"] == quick_demo_data()[0] and start["options"]
        offered = client.post("/api/rulesets/gangfight/quick/options", json={"setup": setup}).json()
        option = next(i for i, o in enumerate(offered) if o["type"] == command["type"])
        got = client.post(  # the command as its JSON: a scenario file's action
            "/api/rulesets/gangfight/quick/odds",
            json={"setup": setup, "command": command, "budget": 300, "samples": 400},
        )
        picked = client.post(  # a legal option, as the page picks it
            "/api/rulesets/gangfight/quick/odds",
            json={"setup": setup, "option": option, "budget": 300, "samples": 400},
        )
        bad = client.post(
            "/api/rulesets/gangfight/quick/options",
            json={"setup": {**setup, "fighters": [{**setup["fighters"][0], "side": 3}]}},
        )
    assert got.status_code == 200, got.text
    assert picked.status_code == 200 and picked.json()["action"] == command["type"], picked.text
    expected = quick_by_hand(setup, command, HowToExplore(budget=300, samples=400))
    assert got.json()["sides"] == json.loads(encode_json(expected))["sides"]
    assert bad.status_code == 422 and "fighters[0].side" in bad.json()["message"], bad.text


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[BrowserContext, str]]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)")
    site = make_site(tmp_path_factory.mktemp("quick"))
    with live_server(site.app()) as base, sync_playwright() as p:
        context = phone(p)
        context.set_default_timeout(60_000)  # the odds are worked out while the test waits
        yield context, base
        context.close()


def test_the_quick_odds_page_weighs_a_changed_profile(
    browser: tuple[BrowserContext, str],
) -> None:
    """On a phone: Gangfight, the Veteran's attacks typed down to 1 in the setup form (the
    setup forms' engine), a fight picked among the commands the rules allow: the odds shown are
    the server's for that setup and command, each tally's mean, spread and at least k per side."""
    context, base = browser
    page = context.new_page()
    page.goto(f"{base}/odds")
    page.select_option("#quick-ruleset", "gangfight")
    page.wait_for_function("() => document.body.dataset.form === 'gangfight'")
    field = page.locator("[data-path='fighters[0].profile.att']")
    field.fill("1")
    fight = page.locator("#quick-command option", has_text="fight").first
    page.wait_for_function("() => document.getElementById('quick-command').options.length > 0")
    option = int(str(fight.get_attribute("value")))
    page.select_option("#quick-command", str(option))
    page.click("#quick-run")
    page.wait_for_selector("#quick-method")
    shown = page.locator(".quick-tally[data-tally='hits'] tbody tr").evaluate_all(
        "rows => rows.map(r => r.children[1].textContent)"
    )
    setup, _ = quick_demo_data()
    setup["fighters"][0]["profile"]["att"] = 1
    picks = {
        k: v[0]
        for k, v in context.request.post(
            f"{base}/api/rulesets/gangfight/quick/options", data={"setup": setup}
        )
        .json()[option]["options"]
        .items()
    }
    expected = context.request.post(
        f"{base}/api/rulesets/gangfight/quick/odds",
        data={"setup": setup, "option": option, "picks": picks},
    ).json()
    hits = next(t for t in expected["tallies"] if t["name"] == "hits")
    assert shown == [f"{t['expected']['value']:.2f}" for t in [hits, *hits["by_side"]]]
    page.locator("#quick-result-box").screenshot(path=str(IMAGES / "web-quick-odds.png"))
    close_page(page)
