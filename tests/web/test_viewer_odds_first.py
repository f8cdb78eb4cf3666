"""The viewer's odds (web/static/viewer.js): the odds button asks the full answer, and a first
one when the full one is not back soon, the first a few samples drawn at once by the odds desk's
worker for first answers (the graph not tried); whichever comes first is shown, a first answer
marked as such until the full one, unchanged, replaces it. The full answers' worker is held
(work reading a pipe the test writes) until the first answer is on screen, so no margin of time
decides which comes first."""

from __future__ import annotations

import os
from pathlib import Path
from uuid import UUID

import pytest
from litestar import Litestar
from playwright.sync_api import sync_playwright
from web_helpers import CHROMIUM, close_page, live_server, make_site, phone, ready

from blowbyblow.domain.core import CommandIssued
from blowbyblow.replay.battles.record import record
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.odds.desk import DeskStats


def odds_as_pressed(
    app: Litestar, battle: UUID, position: int, held: Path
) -> tuple[str, str, DeskStats]:
    """The viewer of ``app`` at ``position``, its odds button pressed on a phone while the full
    answers' worker is held: the method's line at the first answer ("on the way") and, the
    worker let go, once the full one's plot is shown, and the server's odds desk's counts then
    (while it serves). ``held``: a path for the pipe that holds the worker."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)")
    with live_server(app) as base, sync_playwright() as p:
        # as `bxb serve` warms it: the workers (the first answers' one too) loaded, not cold
        desk = app.state.server.service.odds_desk.desk()
        desk.warm()
        os.mkfifo(held)
        # the desk's own pool, as it sends full answers there: its one worker reads the pipe
        holding = desk._working().submit(Path.read_text, held)
        context = phone(p)
        context.set_default_timeout(120_000)
        page = context.new_page()
        page.goto(f"{base}/battles/{battle}/at/{position}")
        ready(page)
        page.locator(f"#ev-{position} .odds-btn").click()
        method = page.locator(f"#ev-{position} .odds-method")
        page.locator(f"#ev-{position} .odds-coming").wait_for()
        first = method.inner_text()
        held.write_text("go")  # waits for the worker to open the pipe, then lets it go
        assert holding.result(timeout=60) == "go"
        page.locator(f"#ev-{position} .odds figure.plot img").wait_for()
        full = method.inner_text()
        close_page(page)
        context.close()
        return first, full, app.state.server.service.odds_desk.desk().stats()


NOT_TRIED = "a first answer: 200 samples drawn at once, the exact odds not tried"


def test_a_sampled_command_shows_a_first_answer_then_the_full_one(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    site = make_site(tmp_path_factory.mktemp("first"))
    # the 40K demo's second fight (its 6th command): its graph needs 9,763 runs, more than the
    # viewer's budget, so sampled
    battle: UUID = record(site.store, get_game_system("wh40k-2e").demo(), quiet=True).battle
    starts = [e.position for e in site.store.read(battle) if isinstance(e.event, CommandIssued)]
    first, full, stats = odds_as_pressed(
        site.app(), battle, starts[5], tmp_path_factory.mktemp("held") / "held"
    )
    assert "Monte Carlo: 200 samples" in first and "95% intervals" in first
    assert NOT_TRIED in first and "the full answer on the way" in first
    assert "Monte Carlo: 1000 samples" in full and "on the way" not in full
    assert "more than 2000 runs needed" in full
    # two answers worked out: the first (samples alone) and the full one (the graph run once,
    # to the server's budget, then its samples)
    assert (stats.computed, stats.first, stats.sampled_at_once) == (2, 1, 0)


def test_a_command_exact_within_the_servers_budget_is_shown_sampled_then_exact(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The Necromunda 2023 demo's charge: its graph needs 264 runs, a few hundred milliseconds;
    its first answer is shown sooner, marked, then the exact one."""
    site = make_site(tmp_path_factory.mktemp("exact"))
    battle: UUID = record(site.store, get_game_system("necromunda-2023").demo(), quiet=True).battle
    charge = next(e.position for e in site.store.read(battle) if isinstance(e.event, CommandIssued))
    first, full, stats = odds_as_pressed(
        site.app(), battle, charge, tmp_path_factory.mktemp("held") / "held"
    )
    assert "Monte Carlo: 200 samples" in first and NOT_TRIED in first
    assert "exact: 264 runs of the rules" in full and "on the way" not in full
    assert (stats.computed, stats.first) == (2, 1)
