"""A dispute settled at the table, in Debian's Chromium at 390x844 (issue 24; docs/judging.md,
Disputes): a phone plays three commands with real dice and flags the second; the judge's
dashboard, open all along, shows the flag without a reload; the judge taps it, lands on the
step in dispute, steps by command to the die, previews a fork with the die corrected, then
forks; the phone, told by its live stream, goes on in the child and plays a command there.
Parent and child verify (the child's link to its parent with it). The screenshots go to
docs/images and are shown in docs/judging.md."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from playwright.sync_api import Page, expect, sync_playwright
from screenshots import IMAGES
from test_table_phone import commands, start, tap_command, type_until_review, write
from web_helpers import CHROMIUM, Site, live_server, make_site, phone, ready

from blowbyblow.domain.core import CommandIssued, DiceRolled
from blowbyblow.domain.judging import CORRECTED_BY_JUDGE, CommandFlagged, DieCorrected, RulingGiven
from blowbyblow.replay.battles.fork import preview_fork
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.evidence.verify import verify_battle

REASON = "the first hit die of command 2 showed a 5, not what was typed"


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, str]]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)")
    site = make_site(tmp_path_factory.mktemp("dispute"))
    with live_server(site.app()) as base:
        yield site, base


def dice_of(site: Site, battle: UUID, command: int) -> list[tuple[int, DiceRolled]]:
    """The dice rolled in command ``command``, each with its position."""
    return [
        (e.position, e.event)
        for e in site.store.read(battle)
        if isinstance(e.event, DiceRolled) and e.event.key.startswith(f"c{command}/")
    ]


def a_correction(site: Site, battle: UUID, before: int) -> tuple[int, DiceRolled, list[int]]:
    """A die of command 2 and other faces for it under which command 2 is played again whole
    and the battle goes on (as a judge would look before forking): its position, the die, the
    corrected faces."""
    for position, die in dice_of(site, battle, 2):
        for face in range(1, die.sides + 1):
            faces = [face, *die.values[1:]]
            if faces == list(die.values):
                continue
            change = DieCorrected(key=die.key, values=tuple(faces))
            seen = preview_fork(site.store, battle, position=before, change=change)
            system = get_game_system(seen.started.ruleset)
            if seen.replayed >= 1 and system.legal_commands(seen.state, seen.started.rulings):
                return position, die, faces
    raise AssertionError("no correction of command 2's dice lets it be played again whole")


def shot(page: Page, name: str) -> None:
    page.screenshot(path=str(IMAGES / name), full_page=False)


def test_a_phone_flags_the_judge_forks_with_a_corrected_die_and_the_phone_plays_on(
    web: Any,
) -> None:
    site, base = web
    with sync_playwright() as p:
        table, judging = phone(p), phone(p)
        # The judge's dashboard is open before anything happens: it must hear the flag.
        board = judging.new_page()
        board.goto(f"{base}/join/{site.judge}")
        board.wait_for_selector("#live.on")

        # A phone plays three commands with real dice.
        page = table.new_page()
        parent = start(page, base, site.tables[1])
        for faces in ([1, 2, 1, 3], [2, 1, 3, 1], [1, 1, 2, 2]):  # few hits: the battle goes on
            tap_command(page)
            type_until_review(page, faces)
            write(page)
        assert commands(site, parent) == 3

        # It flags command 2, from the whole log, with a reason.
        page.locator("details summary").tap()
        page.locator('.flag-btn[data-command="2"]').first.tap()
        expect(page.locator("#flag-form")).to_be_in_viewport()
        page.fill("#flag-reason", REASON)
        shot(page, "dispute-phone-flag.png")
        page.locator("#flag-send").tap()
        page.wait_for_selector("#open-flags")
        assert REASON in page.locator("#open-flags").inner_text()
        [flag] = [e.event for e in site.store.read(parent) if isinstance(e.event, CommandFlagged)]
        assert flag.index == 2 and flag.by == "table 1 of spring"

        # The dashboard shows it at once, redrawn in place; the step is one tap away.
        badge = board.locator('tr[data-table="1"] a.badge.flagged')
        expect(badge).to_contain_text("command 2")
        assert board.evaluate("() => performance.getEntriesByType('navigation').length") == 1
        shot(board, "dispute-dashboard.png")
        badge.tap()
        board.wait_for_url(f"**/battles/{parent}/at/{flag.position}")
        ready(board)
        viewer = board
        expect(viewer.locator("#cmd-where")).to_contain_text("command 2")
        expect(viewer.locator(f"#ev-{flag.position}")).to_have_class("ev ev-CommandIssued current")

        # The flag shows on the command it is about; the judge steps to its first die.
        expect(viewer.locator(f"#ev-{flag.position} .about-CommandFlagged")).to_contain_text(REASON)
        die_at, die, corrected = a_correction(site, parent, flag.position - 1)
        viewer.locator(f"#ev-{die_at}").tap()
        expect(viewer.locator("#die-key")).to_have_value(die.key)
        viewer.locator("#by-command").scroll_into_view_if_needed()
        shot(viewer, "dispute-viewer-step.png")

        # A fork with the die corrected: previewed (nothing written), then written.
        viewer.locator("#decide-die").check()
        viewer.fill("#die-values", " ".join(map(str, corrected)))
        viewer.fill("#rule-reason", "both players agree the die was typed wrong")
        written = len(site.store.read(parent))
        viewer.locator("#fork-preview").tap()
        viewer.wait_for_selector("#fork-seen")
        assert len(site.store.read(parent)) == written and len(site.store.battles()) == 1
        viewer.locator("#rule-form fieldset").first.scroll_into_view_if_needed()
        shot(viewer, "dispute-viewer-ruling.png")
        viewer.locator("#fork-seen").scroll_into_view_if_needed()
        shot(viewer, "dispute-viewer-fork.png")
        viewer.locator("#rule-send").tap()
        viewer.wait_for_selector("#fork-done")
        child = UUID(viewer.locator("#fork-child").get_attribute("href").rsplit("/", 1)[-1])
        [(fixed_at, fixed)] = [(p, e) for p, e in dice_of(site, child, 2) if e.key == die.key]
        assert list(fixed.values) == corrected
        assert fixed.source == CORRECTED_BY_JUDGE
        expect(viewer.locator("#superseded")).to_be_visible()

        # The phone hears the fork and goes on in the child: it plays a command there.
        page.wait_for_function(f"() => document.body.dataset.battle === '{child}'")
        expect(page.locator("#forked")).to_contain_text("both players agree")
        page.locator("#forked").scroll_into_view_if_needed()
        shot(page, "dispute-phone-child.png")
        before = commands(site, child)
        tap_command(page)
        type_until_review(page, [3, 4, 6, 2])
        write(page)
        assert commands(site, child) == before + 1
        assert site.tournaments.battles("spring", 1)[-1].battle == child

        # The family and the diff of parent and child, in the child's viewer.
        viewer.goto(f"{base}/battles/{child}")
        ready(viewer)
        expect(viewer.locator("#family li")).to_have_count(2)
        viewer.locator(".family-diff").tap()
        expect(viewer.locator("#diff-divergence")).to_have_text(str(fixed_at))
        expect(viewer.locator("#diff-divergence-b")).to_have_text(str(die_at))
        table.close()
        judging.close()

    parent_events = [e.event for e in site.store.read(parent)]
    assert sum(isinstance(e, CommandIssued) for e in parent_events) == 3
    assert isinstance(parent_events[-1], RulingGiven) and parent_events[-1].ruling.child == str(
        child
    )
    assert verify_battle(site.store, parent).ok
    report = verify_battle(site.store, child)
    assert report.ok and any("link holds" in n for n in report.notes), report.notes
