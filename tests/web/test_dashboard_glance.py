"""The organiser's and judge's dashboard at a glance (issue 28), in Chromium: 20 tables on one
screen, each with its game and sides, the last thing that happened, how long since, a flag, a
void, a verify failure, sealed or not; sorted by what needs attention; redrawn in place (never
reloaded) when a table writes. The screenshot in docs/web.md is taken here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import httpx
import pytest
from playwright.sync_api import BrowserContext, ViewportSize, sync_playwright
from screenshots import IMAGES
from web_helpers import (
    CHROMIUM,
    CHROMIUM_ARGS,
    Site,
    close_page,
    fresh_profile,
    live_server,
    make_site,
)

from blowbyblow.domain.core import CommandIssued, DiceRolled
from blowbyblow.replay.battles.fork import flag
from blowbyblow.web.glance import RANKS
from blowbyblow.web.schemas import PlayCommand, StartBattle, VoidRequest
from blowbyblow.web.service import Service

from bxbtest import RULESET_IDS, tamper

SCREEN = ViewportSize(width=1366, height=900)  # a judge's laptop
TABLES = 20
FLAGGED, VOIDED, FINISHED, SEALED, TAMPERED, LIVE = 4, 7, 9, 12, 15, 1


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, dict[int, str], str]]:
    """20 tables, 18 battles under way (every game system), one flagged, one with a void, one
    finished, one sealed, one edited behind the server's back; two tables not started."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)")
    site = make_site(tmp_path_factory.mktemp("glance"))
    site.tournaments.new_tournament("league", "Winter League")
    made = site.tournaments.add_tables("league", TABLES)
    tokens = dict(made.tables)
    tokens[0] = made.judge_token
    service = Service(store=site.store, tournaments=site.tournaments, key=site.key)
    for table in range(1, TABLES - 1):
        ruleset = "necromunda-2023" if table == TAMPERED else RULESET_IDS[table % len(RULESET_IDS)]
        started = service.start("league", table, StartBattle(ruleset=ruleset, seed=f"t{table}"))
        battle = UUID(started.battle)
        for _ in range(1 + table % 3):
            service.play(battle, PlayCommand(option=0))
        if table == FLAGGED:
            flag(site.store, battle, command=1, by="Vex's player", reason="the save was a 5")
        if table == VOIDED:
            last = service.summary(battle).last_command
            service.void(battle, VoidRequest(command=last, reason="wrong fighter"), by="judge")
        if table == FINISHED:
            service.finish(battle)
        if table == SEALED:
            service.seal(battle)
        if table == TAMPERED:
            rolled = next(e for e in site.store.read(battle) if isinstance(e.event, DiceRolled))
            tamper(site.db, str(battle), rolled.position, lambda ev: ev.update(values=[0]))
    with live_server(site.app()) as base:
        yield site, tokens, base


@pytest.fixture(scope="module")
def laptop(league: Any) -> Iterator[BrowserContext]:
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            fresh_profile(),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport=SCREEN,
        )
        context.set_default_timeout(15_000)
        yield context
        context.close()


def rows(page: Any) -> list[dict[str, str]]:
    found: list[dict[str, str]] = page.locator("#glance tr").evaluate_all(
        """rows => rows.map(r => ({table: r.dataset.table, needs: r.dataset.needs,
            text: r.innerText, flag: (r.querySelector("a.flagged") || {}).href || ""}))"""
    )
    return found


def drawn(page: Any) -> int:
    return int(page.evaluate("() => document.getElementById('glance').dataset.drawn || '0'"))


def test_twenty_tables_at_a_glance_sorted_by_what_needs_attention_updated_in_place(
    league: Any, laptop: BrowserContext
) -> None:
    site, tokens, base = league
    page = laptop.new_page()
    page.goto(f"{base}/join/{tokens[0]}")  # the judge
    page.goto(f"{base}/tournaments/league")
    page.wait_for_selector("#live.on")
    page.evaluate("() => { window.kept = true; }")  # gone if the page reloads

    page.click("#verify-all")  # the edited battle fails: its row comes first, in place
    page.wait_for_function("() => document.getElementById('glance').dataset.drawn")
    shown = rows(page)
    assert len(shown) == TABLES
    needs = [r["needs"] for r in shown]
    assert needs == sorted(needs, key=lambda n: RANKS[n])  # what needs attention first
    by_table = {int(r["table"]): r for r in shown}
    assert [int(r["table"]) for r in shown[:2]] == [TAMPERED, FLAGGED]
    assert by_table[FINISHED]["needs"] == "finished"  # waiting for its seal
    assert by_table[TAMPERED]["needs"] == "verify failed"
    assert "flag: command 1: the save was a 5" in by_table[FLAGGED]["text"]
    assert by_table[FLAGGED]["flag"].endswith("/at/" + str(_issued(site, FLAGGED, 1)))
    assert "1 voided" in by_table[VOIDED]["text"]
    assert by_table[SEALED]["needs"] == "sealed" and shown[-1]["needs"] == "sealed"
    assert by_table[TABLES]["needs"] == "waiting" and "no battle yet" in by_table[TABLES]["text"]
    for table in (1, 3, 5):  # the game and sides, a line of narration, how long since
        text = by_table[table]["text"]
        assert " v " in text and " s" in text, text
    last_row = page.locator("#glance tr").last.bounding_box()
    assert last_row is not None and last_row["y"] + last_row["height"] <= SCREEN["height"]
    IMAGES.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(IMAGES / "web-dashboard-glance.png"))

    # a table plays: its row is redrawn, the page is not reloaded
    before, line = drawn(page), by_table[LIVE]["text"]
    battle = site.tournaments.battles("league", LIVE)[-1].battle
    played = httpx.post(
        f"{base}/api/battles/{battle}/commands",
        json={"option": 0},
        headers={"Authorization": f"Bearer {tokens[LIVE]}"},
    )
    assert played.status_code == 201, played.text
    page.wait_for_function(
        f"() => Number(document.getElementById('glance').dataset.drawn) > {before}"
    )
    now = {int(r["table"]): r for r in rows(page)}
    assert now[LIVE]["text"] != line
    assert page.evaluate("() => window.kept") is True
    close_page(page)


def _issued(site: Site, table: int, command: int) -> int:
    """The position of command ``command``'s CommandIssued in the battle at ``table``."""
    battle = site.tournaments.battles("league", table)[-1].battle
    for logged in site.store.read(battle):
        if isinstance(logged.event, CommandIssued) and logged.event.index == command:
            return logged.position
    raise AssertionError(f"no command {command} at table {table}")
