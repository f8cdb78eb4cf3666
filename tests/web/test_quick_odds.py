"""The server's quick odds (web/quick_odds.py): "this profile against that one" with no scenario
file; the odds of a legal option from a setup changed by hand are those of a scenario file with
the same setup and command; a setup the rules refuse is a 422 naming the field; the page
(Chromium, a phone) changes a profile with the setup forms' engine and shows the server's odds
(docs/images/web-quick-odds.png)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient
from playwright.sync_api import BrowserContext, Route, sync_playwright
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


def holding_the_first(held: list[Route]) -> Callable[[Route], None]:
    """A route handler that holds the first request it sees (in ``held``, to let through later
    with ``continue_``) and lets every later one through."""

    def hold_the_first(route: Route) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)

    return hold_the_first


def test_a_game_picked_while_the_first_loads_is_the_one_shown(
    browser: tuple[BrowserContext, str],
) -> None:
    """The page loads its first game's setup when it opens; a game picked before that answer comes
    is the one shown, even when the first answer comes last (it did on a faster Chromium): the
    page's first answer is held here until the picked game's form is drawn, then let through."""
    context, base = browser
    page = context.new_page()
    held: list[Route] = []
    hold_the_first = holding_the_first(held)
    page.route(re.compile(r"/api/rulesets/[^/]+/quick$"), hold_the_first)
    with page.expect_request(re.compile(r"/api/rulesets/[^/]+/quick$")) as first:
        page.goto(f"{base}/odds")
    first_game = first.value.url.split("/")[-2]
    picked = next(
        v
        for v in page.locator("#quick-ruleset option").evaluate_all("os => os.map(o => o.value)")
        if v != first_game
    )
    page.select_option("#quick-ruleset", picked)
    page.wait_for_function(f"() => document.body.dataset.form === {json.dumps(picked)}")
    fields = page.locator("#quick-form [data-path]").evaluate_all("fs => fs.length")
    with page.expect_response(lambda r: r.url.endswith(f"/{first_game}/quick")):
        held[0].continue_()
    page.evaluate("() => new Promise(r => setTimeout(r, 200))")  # the late answer handled
    assert page.evaluate("() => document.body.dataset.form") == picked
    assert page.locator("#quick-ruleset").input_value() == picked
    assert page.locator("#quick-form [data-path]").evaluate_all("fs => fs.length") == fields
    assert page.locator("#quick-problem").text_content() == ""
    close_page(page)


def test_the_odds_shown_are_those_of_the_last_press(
    browser: tuple[BrowserContext, str],
) -> None:
    """ "Work out the odds" pressed for a fight, then for a move before the fight's answer came:
    the move's odds stay shown when the fight's answer comes last (held here by page.route)."""
    context, base = browser
    page = context.new_page()
    page.goto(f"{base}/odds")
    page.select_option("#quick-ruleset", "gangfight")
    page.wait_for_function("() => document.body.dataset.form === 'gangfight'")
    types = [
        o["type"]
        for o in context.request.get(f"{base}/api/rulesets/gangfight/quick").json()["options"]
    ]
    fight, move = types.index("fight"), types.index("move")
    held: list[Route] = []
    hold_the_first = holding_the_first(held)
    page.route("**/api/rulesets/gangfight/quick/odds", hold_the_first)
    page.select_option("#quick-command", str(fight))
    with page.expect_request("**/quick/odds"):
        page.click("#quick-run")
    page.select_option("#quick-command", str(move))
    page.click("#quick-run")
    page.wait_for_function(
        "() => (document.getElementById('quick-method') || {}).textContent?.includes('Command: move')"
    )
    with page.expect_response("**/quick/odds"):
        held[0].continue_()
    page.evaluate("() => new Promise(r => setTimeout(r, 200))")  # the late answer handled
    assert "Command: move;" in (page.locator("#quick-method").text_content() or "")
    close_page(page)
