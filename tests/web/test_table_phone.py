"""The table page on a phone (Chromium at 390x844, issue 28): what is `hidden` stays off screen,
the next thing to do (the dice pad, the choice buttons, the review) is brought into view after a
tap, words break only at spaces and hyphens, the dice typed for a command are shown for review
before anything is written, and a voided command's dice are offered again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from playwright.sync_api import BrowserContext, Page, expect, sync_playwright
from web_helpers import (
    CHROMIUM,
    CHROMIUM_ARGS,
    PHONE,
    Site,
    close_page,
    fresh_profile,
    live_server,
    make_site,
)

from blowbyblow.domain.core import ChoiceMade, CommandIssued, CommandVoided, DiceRolled

SHOWN_THOUGH_HIDDEN = """() => [...document.querySelectorAll("[hidden]")]
    .filter((e) => getComputedStyle(e).display !== "none")
    .map((e) => e.id || e.className || e.tagName)"""

# Every word on screen (outside code: hashes are cut on purpose) whose letters sit on two lines.
WORDS_CUT = r"""() => {
  const cut = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest("code, script, style") || !el.getClientRects().length) continue;
    for (const m of n.data.matchAll(/[^\s\-]+/g)) {
      const range = document.createRange();
      range.setStart(n, m.index);
      range.setEnd(n, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0)
        .map((r) => Math.round(r.top)));
      if (tops.size > 1) cut.push(m[0]);
    }
  }
  return cut;
}"""


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, str]]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)")
    site = make_site(tmp_path_factory.mktemp("phone"))
    with live_server(site.app()) as base:
        yield site, base


@pytest.fixture(scope="module")
def phone(web: Any) -> Iterator[BrowserContext]:
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            fresh_profile(),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport=PHONE,
            is_mobile=True,
            has_touch=True,
        )
        context.set_default_timeout(15_000)
        yield context
        context.close()


def start(page: Page, base: str, token: str, ruleset: str = "necromunda-2023") -> UUID:
    """A battle (Necromunda unless told) with real dice, typed on the phone."""
    page.goto(f"{base}/join/{token}")
    page.select_option("#ruleset", ruleset)
    page.click("#start")
    page.wait_for_selector("#battle-label")
    return UUID(page.evaluate("() => document.body.dataset.battle"))


def asked(page: Page) -> int:
    return int(page.evaluate("() => document.getElementById('need').dataset.asked || '0'"))


def tap_command(page: Page) -> None:
    """The first command on offer, its weapon picked; then wait for what it asks first (a
    question more than the page had asked: a page that put its last command in place has
    asked that command's questions already, a fresh one none)."""
    before = asked(page)
    option = page.locator("#options .option").first
    option.evaluate("(e) => e.scrollIntoView({ block: 'end' })")  # a thumb at the screen's foot
    option.tap()
    if page.locator("#play-option").is_visible():
        expect(page.locator("#play-option")).to_be_in_viewport(ratio=1)  # the weapon picker
        page.locator("#play-option").tap()
    wait_asked(page, before)


def type_until_review(page: Page, faces: list[int]) -> list[int]:
    """Tap dice (from ``faces``, round and round) and default answers until the review shows."""
    typed: list[int] = []
    while not page.locator("#review").is_visible():
        before = asked(page)
        if page.locator("#dice-pad .die").first.is_visible():
            for _ in range(page.locator("#dice-slots .slot").count()):
                face = faces[len(typed) % len(faces)]
                typed.append(face)
                page.locator(f'#dice-pad .die[data-face="{face}"]').tap()
        else:
            page.locator("#choice-pad .answer", has_text="(default)").tap()
        wait_asked(page, before)
    return typed


def write(page: Page) -> None:
    """Tap "Write it" and wait for the page to show the battle with the command written."""
    version = page.evaluate("() => document.body.dataset.version")
    page.locator("#write").tap()
    page.wait_for_function(f"() => document.body.dataset.version !== '{version}'")


def wait_asked(page: Page, before: int) -> None:
    page.wait_for_function(
        f"() => Number(document.getElementById('need').dataset.asked) > {before}"
    )


def commands(site: Site, battle: UUID) -> int:
    return sum(isinstance(e.event, CommandIssued) for e in site.store.read(battle))


def dice_of_last_command(site: Site, battle: UUID) -> list[int]:
    events = [e.event for e in site.store.read(battle)]
    last = max(i for i, e in enumerate(events) if isinstance(e, CommandIssued))
    return [v for e in events[last:] if isinstance(e, DiceRolled) for v in e.values]


def test_hidden_stays_hidden_and_the_next_thing_to_do_comes_into_view(
    web: Any, phone: BrowserContext
) -> None:
    site, base = web
    page = phone.new_page()
    start(page, base, site.tables[1])
    assert page.evaluate(SHOWN_THOUGH_HIDDEN) == []  # the weapon picker, the dice pad, the review
    tap_command(page)
    assert page.evaluate(SHOWN_THOUGH_HIDDEN) == []
    pad = page.locator("#dice-pad .die, #choice-pad .answer").first
    expect(pad).to_be_in_viewport(ratio=1)
    if page.locator("#choice-pad .answer").first.is_visible():
        assert page.locator("#undo-die").is_hidden()  # a choice has no die to undo
    type_until_review(page, [4, 3, 5])
    assert page.evaluate(SHOWN_THOUGH_HIDDEN) == []  # the dice pad gone while reviewing
    expect(page.locator("#write")).to_be_in_viewport(ratio=1)
    close_page(page)


def test_words_break_at_spaces_and_hyphens_only(web: Any, phone: BrowserContext) -> None:
    site, base = web
    page = phone.new_page()
    battle = start(page, base, site.tables[2])
    for _ in range(3):  # a few commands: their steps, the state and the log on the page
        tap_command(page)
        type_until_review(page, [6, 2, 4, 1])
        write(page)
    assert commands(site, battle) == 3
    page.locator("details summary").tap()  # the whole log too
    assert page.evaluate(WORDS_CUT) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    # the viewer (once it holds every row: it fetches those before its window after its first
    # paint), the dashboard (listening), the front page. States the page reaches, not the
    # network gone quiet: "networkidle" can hang or come early whatever the page does.
    settled = {f"/battles/{battle}": "#ev-1", "/tournaments/spring": "#live.on", "/": "body"}
    for other, state in settled.items():
        page.goto(base + other)
        page.wait_for_load_state("load")
        page.wait_for_selector(state, state="attached")
        assert page.evaluate(WORDS_CUT) == [], other
    close_page(page)


def test_the_dice_typed_are_reviewed_before_the_command_is_written(
    web: Any, phone: BrowserContext
) -> None:
    site, base = web
    page = phone.new_page()
    battle = start(page, base, site.tables[3])
    written = len(site.store.read(battle))
    tap_command(page)
    mistyped = type_until_review(page, [1, 1, 1])
    assert len(site.store.read(battle)) == written  # under review: nothing written
    review = page.locator("#review").inner_text()
    assert " ".join(map(str, mistyped)) in review
    page.locator("#retype").tap()  # a mis-tap: type them again
    page.wait_for_selector("#dice-pad .die", state="visible")
    meant = type_until_review(page, [6, 5, 4])
    assert " ".join(map(str, meant)) in page.locator("#review").inner_text()
    write(page)
    assert dice_of_last_command(site, battle) == meant
    close_page(page)


def test_a_voided_commands_dice_are_offered_again(web: Any, phone: BrowserContext) -> None:
    site, base = web
    page = phone.new_page()
    battle = start(page, base, site.autumn_table)
    tap_command(page)
    rolled = type_until_review(page, [2, 6, 3, 5])
    write(page)
    page.fill("#void-reason", "the wrong fighter")
    page.locator("#void").tap()
    page.wait_for_selector("#last h2:has-text('voided')")
    tap_command(page)
    while not page.locator("#review").is_visible():
        before = asked(page)
        if page.locator("#again").is_visible():
            page.locator("#again").tap()  # the voided command's dice, roll by roll
        else:
            page.locator("#choice-pad .answer", has_text="(default)").tap()
        wait_asked(page, before)
    write(page)
    events = [e.event for e in site.store.read(battle)]
    assert any(isinstance(e, CommandVoided) for e in events)
    assert dice_of_last_command(site, battle) == rolled
    close_page(page)


# What a command written changes on the table page, each part's words (whitespace aside), the
# options' indexes and the flags offered: the same whether put in place or freshly loaded.
PARTS = """() => {
  const text = (id) => (document.getElementById(id).textContent || "").split(/\\s+/).join(" ");
  return {
    parts: ["version", "last", "options", "void-box", "receipt-box", "state", "whole-log",
            "log-count", "picks", "dice-pad", "choice-pad", "review-rows"].map(text),
    indexes: [...document.querySelectorAll("#options .option")].map((b) => b.dataset.index),
    flags: [...document.querySelectorAll(".flag-btn")].map((b) => b.closest("section").id + ":" + b.dataset.command),
    data: [document.body.dataset.version, document.body.dataset.lastCommand],
  };
}"""


def test_a_command_written_is_put_in_place_as_a_fresh_page_shows_it(
    web: Any, phone: BrowserContext
) -> None:
    """Once a command stands, the answer to the next one carries the page's parts and the
    options on offer next: the page shows them without loading itself again (issue 25: a
    load read the whole battle and opened the live stream again, per command)."""
    site, base = web
    ((number, token),) = site.tournaments.add_tables("spring", 1).tables
    page = phone.new_page()
    battle = start(page, base, token, "gangfight")  # always offers a next command
    tap_command(page)  # the first command: correcting it becomes possible, the page loads again
    type_until_review(page, [4, 3, 5])
    write(page)
    page.evaluate("() => { window.notLoadedAgain = true; }")
    for faces in ([6, 2, 4], [3, 3, 1]):
        tap_command(page)
        type_until_review(page, faces)
        write(page)
        assert page.evaluate("() => window.notLoadedAgain === true")
        assert page.url.endswith(f"/tables/{number}")
    assert commands(site, battle) == 3  # the options put in place were played from
    shown = page.evaluate(PARTS)
    page.reload()
    page.wait_for_selector("#battle-label")
    assert page.evaluate(PARTS) == shown
    close_page(page)


def test_the_questions_a_default_leads_to_are_asked_with_no_request(
    web: Any, phone: BrowserContext
) -> None:
    """A choice comes with the questions its default leads to (``then``): tapping the default,
    the page asks the next one (here the roll the choice was for) at once, and sends the answer
    with that roll's dice, one request for the two (issue 25). The command written holds the
    default and the dice typed. Fails on main 54f50f0: a request a question."""
    site, base = web
    ((_, token),) = site.tournaments.add_tables("spring", 1).tables
    page = phone.new_page()
    battle = start(page, base, token, "gangfight")  # a Fight! asks its drops before its rolls
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
    tap_command(page)
    typed = type_until_review(page, [5, 2, 6])
    questions = asked(page)
    commands_posted = sum(1 for url in posted if url.endswith("/commands"))
    write(page)
    made = [e.event for e in site.store.read(battle) if isinstance(e.event, ChoiceMade)]
    assert made, "no choice asked: nothing to see"
    assert all(c.answer == "0" for c in made if c.key.endswith("/drop")), made  # the defaults
    assert dice_of_last_command(site, battle) == typed
    assert commands_posted < questions, (commands_posted, questions)
    close_page(page)
