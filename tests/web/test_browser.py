"""The pages in a real browser: Debian's chromium (``/usr/bin/chromium``, installed by
``.ci/run``), driven by Playwright at a phone's viewport. A phone plays a battle of every game
system end to end on the table page, typing each die on the big buttons; the judge's viewer
steps through it (slider, arrow keys) and shows the same state as ``bxb at``; a URL with a
position opens at that step; a judge voids a command (struck through in the viewer) and the
table plays it again, then the judge runs a what-if and seals; the dashboard verifies all.
The screenshots in docs/web.md are taken here (docs/images/web-*.png)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from playwright.sync_api import BrowserContext, Page
from playwright.sync_api import Error as PlaywrightError
from screenshots import IMAGES
from typer.testing import CliRunner
from web_helpers import CHROMIUM, Site, close_page, live_server, make_site, ready

from blowbyblow.cli.main import app as cli
from blowbyblow.domain.core import CommandIssued, CommandVoided, DiceRolled
from blowbyblow.replay.battles.diff import diff_battles
from blowbyblow.replay.battles.whatif import what_if
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.web.schemas import PlayCommand, StartBattle
from blowbyblow.web.service import Service

from bxbtest import RULESET_IDS, tamper

DICE = [4, 3, 5, 2, 6, 1]
MOST_COMMANDS = 10  # then the table ends the battle (some games never run out of commands)


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, dict[str, str], str]]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)")
    site = make_site(tmp_path_factory.mktemp("browser"))
    site.tournaments.new_tournament("club", "Club Night")
    club = site.tournaments.add_tables("club", len(RULESET_IDS))
    tokens = {rid: token for rid, (_, token) in zip(RULESET_IDS, club.tables, strict=True)}
    tokens["judge"] = club.judge_token
    with live_server(site.app()) as base:
        yield site, tokens, base


def probe(page: Page) -> dict[str, str]:
    """The table page's version, questions asked and error, read even across a reload."""
    deadline = time.monotonic() + 15
    while True:
        try:
            page.wait_for_load_state("domcontentloaded")
            found: dict[str, str] = page.evaluate(
                """() => ({
                    version: document.body.dataset.version || "",
                    asked: (document.getElementById("need") || {dataset: {}}).dataset.asked || "0",
                    error: (document.getElementById("play-error") || {}).textContent || "",
                })"""
            )
            return found
        except PlaywrightError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def changed(page: Page, before: dict[str, str]) -> dict[str, str]:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        now = probe(page)
        if now["error"]:
            raise AssertionError(f"the page refused: {now['error']}")
        if now["version"] != before["version"] or now["asked"] != before["asked"]:
            return now
        time.sleep(0.05)
    raise AssertionError("the page did not move on")


def answer_until_played(page: Page, before: dict[str, str], rolled: list[int], shot: bool) -> None:
    """Answer every question of the command being played until it is written."""
    state = changed(page, before)
    while state["version"] == before["version"]:
        if page.locator("#review").is_visible():
            page.click("#write")  # the dice typed, reviewed: write the command
        elif page.locator("#dice-pad .die").first.is_visible():
            if shot and not (IMAGES / "web-table-dice.png").exists():
                page.wait_for_selector("#live.on")  # the same picture every run
                page.screenshot(path=str(IMAGES / "web-table-dice.png"), full_page=False)
            slots = page.locator("#dice-slots .slot").count()
            for _ in range(slots):
                face = DICE[len(rolled) % len(DICE)]
                rolled.append(face)
                page.locator(f'#dice-pad .die[data-face="{face}"]').click()
        else:
            page.locator("#choice-pad .answer", has_text="(default)").click()
        state = changed(page, state)


def play_at_the_table(page: Page, base: str, token: str, ruleset: str) -> str:
    page.goto(f"{base}/join/{token}")
    page.select_option("#ruleset", ruleset)
    page.click("#start")
    page.wait_for_selector("#battle-label")
    battle = page.evaluate("() => document.body.dataset.battle")
    rolled: list[int] = []
    for _ in range(MOST_COMMANDS):
        if not page.locator("#options .option").count():
            break  # the rules offer nothing more: the battle is over
        before = probe(page)
        page.locator("#options .option").first.click()
        if page.locator("#play-option").count():
            page.click("#play-option")
        answer_until_played(page, before, rolled, shot=ruleset == "necromunda-2023")
    if ruleset == "necromunda-2023":
        page.locator("#last").scroll_into_view_if_needed()
        page.wait_for_selector("#live.on")
        page.screenshot(path=str(IMAGES / "web-table.png"))
    if page.locator("#finish").count():
        page.click("#finish")
        page.wait_for_selector("#status.s-finished")
    return str(battle)


def bxb_at(site: Site, position: int, battle: str) -> str:
    result = CliRunner().invoke(  # wide: the state's lines unwrapped, as the page has them
        cli,
        ["--db", site.db, "--log-level", "error", "at", str(position), battle],
        env={"COLUMNS": "1000"},
    )
    assert result.exit_code == 0, result.output
    return result.output


def describe(page: Page) -> str:
    return str(page.locator("#describe").text_content())


def other_face(values: list[int], sides: int) -> None:
    values[0] = values[0] % sides + 1


def wait_position(page: Page, position: int) -> None:
    page.wait_for_function(
        f"() => document.getElementById('state-panel').dataset.position === '{position}'"
    )


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_a_phone_plays_a_battle_then_the_viewer_steps_through_it(
    web: Any, browser: BrowserContext, ruleset: str
) -> None:
    site, tokens, base = web
    IMAGES.mkdir(parents=True, exist_ok=True)
    page = browser.new_page()
    battle = play_at_the_table(page, base, tokens[ruleset], ruleset)

    # the battle as stored: typed dice only, every command verified
    events = site.store.read(UUID(battle))
    dice = [e.event for e in events if isinstance(e.event, DiceRolled)]
    assert any(isinstance(e.event, CommandIssued) for e in events)
    assert dice and {d.source for d in dice} == {"physical"}
    report = verify_battle(site.store, events[0].originator_id)
    assert report.ok, report.problem

    # the judge's viewer: step with the keys and the slider; the state is `bxb at`'s
    total = len(events)
    page.goto(f"{base}/battles/{battle}")
    ready(page)
    assert describe(page) in bxb_at(site, total, battle)
    page.locator("body").press("Home")
    wait_position(page, 1)
    for _ in range(3):
        page.locator("body").press("ArrowRight")
    wait_position(page, 4)
    assert page.url.endswith(f"/battles/{battle}/at/4")
    assert describe(page) in bxb_at(site, 4, battle)
    middle = total // 2
    page.locator("#slider").fill(str(middle))
    wait_position(page, middle)
    assert describe(page) in bxb_at(site, middle, battle)
    page.locator("body").press("ArrowLeft")
    wait_position(page, middle - 1)

    # a URL with a position opens at that step
    page.goto(f"{base}/battles/{battle}/at/{middle}")
    ready(page)
    assert page.locator("#slider").input_value() == str(middle)
    assert page.locator("#events .ev.current").get_attribute("data-position") == str(middle)
    assert describe(page) in bxb_at(site, middle, battle)
    if ruleset == "necromunda-2023":
        page.wait_for_selector("#live.on")
        page.screenshot(path=str(IMAGES / "web-viewer.png"), full_page=False)
    close_page(page)


def void_and_play_again(page: Page, site: Site, base: str, battle: str) -> None:
    """The judge voids the battle's last command with a reason, in the viewer: it stays in the
    log, struck through; then the command is played again on the table page, its dice typed."""
    events = site.store.read(UUID(battle))
    last = max(e.position for e in events if isinstance(e.event, CommandIssued))
    reason = "the hammer's dice were typed for the stub-gun"
    page.fill("#void-reason", reason)
    page.click("#void")
    page.wait_for_selector(f"#ev-{last}.voided")  # the rows before the page's window fetched too
    struck = page.locator("#events .ev.voided").evaluate_all(
        "rows => rows.map(r => Number(r.dataset.position))"
    )
    assert struck == list(range(last, len(events) + 1))  # every event of the command, no other
    assert reason in page.locator(f"#ev-{last}").inner_text()
    place = site.tournaments.place_of(UUID(battle))
    assert place is not None
    page.goto(f"{base}/tournaments/{place.tournament}/tables/{place.table}")
    receipt = page.locator("#receipt").inner_text()  # the void's receipt, signed by the server
    assert receipt.split()[:3] == ["bxb-receipt-v1", battle, str(len(events) + 1)]
    before = probe(page)
    page.locator("#options .option").first.click()
    if page.locator("#play-option").count():
        page.click("#play-option")
    answer_until_played(page, before, [], shot=False)
    after = [e.event for e in site.store.read(UUID(battle))]
    voided = after[len(events)]
    replayed = after[len(events) + 1]
    assert isinstance(voided, CommandVoided) and voided.reason == reason
    assert isinstance(replayed, CommandIssued) and replayed.index == voided.index


def test_a_judge_verifies_runs_a_what_if_and_seals(web: Any, browser: BrowserContext) -> None:
    site, tokens, base = web
    page = browser.new_page()
    battle = play_at_the_table(page, base, tokens["necromunda-2023"], "necromunda-2023")
    page.goto(f"{base}/join/{tokens['judge']}")
    page.goto(f"{base}/battles/{battle}")
    ready(page)
    void_and_play_again(page, site, base, battle)
    page.goto(f"{base}/battles/{battle}")
    ready(page)
    page.click("#verify")
    page.wait_for_selector("#verify-result .ok")
    rulings = {"nerve-tests": "off", "extra-serious-injury": "no-effect"}
    for name, value in rulings.items():
        page.select_option(f'#whatif-form select[name="{name}"]', value)
    page.click("#whatif-run")
    page.wait_for_selector("#whatif-result h3")
    expected = what_if(site.store.read(UUID(battle)), rulings)
    assert expected.divergence is not None  # the rulings matter in this battle
    shown = page.locator("#whatif-divergence").inner_text()
    assert shown == str(expected.divergence)
    page.locator("#whatif-result").scroll_into_view_if_needed()
    page.screenshot(path=str(IMAGES / "web-whatif.png"), full_page=False)
    page.click("#seal")
    page.wait_for_selector("#sealed")
    assert page.locator("#status").inner_text() == "sealed"
    report = verify_battle(site.store, UUID(battle))
    assert report.ok and report.notes and "sealed by key" in report.notes[0]

    # another battle at the table: the viewer's diff agrees with the engine's
    service = Service(store=site.store, tournaments=site.tournaments)
    other = service.start("club", 3, StartBattle(ruleset="necromunda-2023", seed="other"))
    service.play(UUID(other.battle), PlayCommand(option=0))
    page.goto(f"{base}/battles/{battle}")
    ready(page)
    page.select_option("#diff-other", other.battle)
    page.click("#diff-run")
    a, b = (site.store.read(UUID(x)) for x in (battle, other.battle))
    expected_diff = diff_battles(a, b)
    assert page.locator("#diff-divergence").inner_text() == str(expected_diff.a.position)

    # a die edited in the store behind the server's back: verify highlights the first divergence
    rolled = next(e for e in b if isinstance(e.event, DiceRolled))
    tamper(site.db, other.battle, rolled.position, lambda ev: other_face(ev["values"], ev["sides"]))
    problem = verify_battle(site.store, UUID(other.battle)).problem
    assert problem is not None
    page.goto(f"{base}/battles/{other.battle}")
    ready(page)
    page.click("#verify")
    page.wait_for_selector("#verify-result .bad")
    assert page.locator(".ev.divergent").get_attribute("data-position") == str(problem.position)
    wait_position(page, problem.position)

    page.goto(f"{base}/tournaments/club")
    page.click("#verify-all")
    page.wait_for_selector("#verify-all-result.bad")  # the edited battle fails
    page.goto(f"{base}/tournaments/club")
    statuses = page.locator("#tables tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.status)"
    )
    assert "sealed" in statuses or "verify failed" in statuses
    page.screenshot(path=str(IMAGES / "web-dashboard.png"), full_page=True)
    close_page(page)
