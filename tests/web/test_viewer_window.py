"""The judge's viewer on a long battle (web/window.py): the page holds a few rows around its
position, not the whole log, and they are the very rows the whole log gives there (commands,
voids struck through); a far position opens in Chromium with its row marked and in sight before
any script runs, and its state; once shown, the rows before it are fetched; scrolling the log
fetches the rows before and after; a step outside the rows held fetches the rows around it;
a battle followed live grows at its end only when the end is held. Sizes, never times: the
benchmark (benchmarks/viewer.py) measures those."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from litestar.testing import TestClient
from playwright.sync_api import BrowserContext, Page, ViewportSize, sync_playwright
from web_helpers import CHROMIUM, Site, close_page, grow, live_server, make_site, phone, ready

from blowbyblow.domain.core import CommandIssued
from blowbyblow.replay.battles.record import void_command
from blowbyblow.web import window
from blowbyblow.web.schemas import PlayCommand, StartBattle
from blowbyblow.web.service import Service

EVENTS = 6000  # over several snapshot intervals, and 15-20x a window's rows
FAR = 4321  # a position far from both ends
PAGE_BYTES = 300_000  # issue 25's bound on the viewer's page
LAPTOP: ViewportSize = {
    "width": 1280,
    "height": 900,
}  # a judge's laptop, as benchmarks/viewer.py opens pages


@pytest.fixture(scope="module")
def long(tmp_path_factory: pytest.TempPathFactory) -> tuple[Site, UUID]:
    """A Gangfight battle at spring's table 1 of about EVERY * 6 events, a command voided in the
    middle of it (and played again)."""
    site = make_site(tmp_path_factory.mktemp("viewer-window"))
    service = Service(store=site.store, tournaments=site.tournaments)
    started = service.start("spring", 1, StartBattle(ruleset="gangfight", seed="window"))
    battle = UUID(started.battle)
    grow(site.store, battle, FAR + 30)
    issued = [e.event for e in site.store.read(battle) if isinstance(e.event, CommandIssued)]
    void_command(site.store, battle, command=issued[-1].index, by="judge", reason="mis-typed")
    grow(site.store, battle, EVENTS)
    return site, battle


def whole_rows(site: Site, battle: UUID) -> list[Any]:
    return Service(store=site.store, tournaments=site.tournaments).log(battle)


def test_the_rows_of_a_window_are_the_whole_logs_rows_there(long: tuple[Site, UUID]) -> None:
    site, battle = long
    service = Service(store=site.store, tournaments=site.tournaments)
    whole = whole_rows(site, battle)
    voided = [r.position for r in whole if r.voided_at]
    assert voided and voided[0] > 2 * window.AFTER  # the void is far from the start
    spans = [(0, 5), (voided[0] - 3, voided[-1] + 4), (999, 1001), (FAR - 7, FAR + 250)]
    spans += [(len(whole) - 3, len(whole) + 10)]
    for after, upto in spans:
        got = window.more_rows(service, battle, after, upto)
        assert got == whole[after : min(upto, len(whole), after + window.MOST_ROWS)], (after, upto)
    assert len(window.more_rows(service, battle, 0, None)) == window.MOST_ROWS  # bounded


def test_the_state_at_a_position_is_the_whole_logs(long: tuple[Site, UUID]) -> None:
    site, battle = long
    service = Service(store=site.store, tournaments=site.tournaments)
    whole = whole_rows(site, battle)
    voided = next(r.position for r in whole if r.voided_at)
    for position in (1, 2, 999, 1000, voided, FAR, len(whole)):
        windowed = window.state(service, battle, position)
        assert windowed == service.state_at(battle, position), position


def test_the_page_holds_the_window_not_the_log(long: tuple[Site, UUID]) -> None:
    site, battle = long
    with TestClient(site.app()) as client:
        page = client.get(f"/battles/{battle}/at/{FAR}")
        assert page.status_code == 200, page.text
        end = client.get(f"/battles/{battle}")
    assert len(page.content) < PAGE_BYTES and len(end.content) < PAGE_BYTES
    rows = page.text.count('<li class="ev ')
    assert rows == window.BEFORE + 1 + window.AFTER <= 25  # a score of rows to draw at first
    assert f'id="ev-{FAR - window.BEFORE}"' in page.text
    assert f'id="ev-{FAR - window.BEFORE - 1}"' not in page.text
    assert f'id="ev-{FAR + window.AFTER}"' in page.text
    assert f'id="ev-{FAR + window.AFTER + 1}"' not in page.text
    # at the end: as many rows, all of them before it (what led to it)
    last = site.store.version(battle)
    assert end.text.count('<li class="ev ') == window.BEFORE + 1 + window.AFTER
    assert f'id="ev-{last - window.BEFORE - window.AFTER}"' in end.text
    assert f'current" data-position="{last}"' in end.text  # its row marked current


@pytest.fixture(scope="module")
def browser(long: tuple[Site, UUID]) -> Iterator[tuple[BrowserContext, str]]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)")
    site, _ = long
    with live_server(site.app()) as base, sync_playwright() as p:
        context = phone(p)
        yield context, base
        context.close()


def held(page: Page) -> list[int]:
    found: list[int] = page.locator("#events > .ev").evaluate_all(
        "rows => rows.map(r => Number(r.dataset.position))"
    )
    return found


def in_sight(page: Page, position: int) -> bool:
    """Whether the row of ``position`` is inside the log's box as it is scrolled."""
    found: bool = page.evaluate(
        """p => { const row = document.getElementById('ev-' + p).getBoundingClientRect();
          const box = document.getElementById('events').getBoundingClientRect();
          return row.height > 0 && row.top >= box.top && row.bottom <= box.bottom; }""",
        position,
    )
    return found


def state_at(page: Page, position: int) -> None:
    page.wait_for_function(
        f"() => document.getElementById('state-panel').dataset.position === '{position}'"
    )


def test_a_far_position_opens_with_its_row_and_state_and_scrolling_fetches_more(
    long: tuple[Site, UUID], browser: tuple[BrowserContext, str]
) -> None:
    site, battle = long
    context, base = browser
    page = context.new_page()
    page.set_viewport_size(LAPTOP)  # its row in sight at once: nothing scrolls the log
    page.goto(f"{base}/battles/{battle}/at/{FAR}")
    ready(page)
    current = page.locator(f"#ev-{FAR}")
    assert current.is_visible() and "current" in str(current.get_attribute("class"))
    expected = window.state(Service(store=site.store, tournaments=site.tournaments), battle, FAR)
    assert page.locator("#describe").text_content() == expected.text
    # once shown, a hundred rows before and after the few the page came with are fetched, its
    # row kept in sight
    first, last = FAR - window.BEFORE, FAR + window.AFTER
    page.wait_for_selector(f"#ev-{first - 100}", state="attached", timeout=10_000)
    page.wait_for_selector(f"#ev-{last + 100}", state="attached", timeout=10_000)
    rows = held(page)  # (more if the list was scrolled near an end meanwhile)
    assert rows == list(range(rows[0], rows[-1] + 1))
    assert rows[0] <= first - 100 and rows[-1] >= last + 100
    assert in_sight(page, FAR)

    # scrolled to the top of the rows held: the rows before them are fetched, in order
    page.locator("#events").evaluate("list => { list.scrollTop = 0; }")
    page.wait_for_selector(f"#ev-{first - 101}", state="attached")
    rows = held(page)
    assert rows == list(range(rows[0], last + 101)) and rows[0] < first - 100
    # ... and to the bottom: the rows after them
    page.locator("#events").evaluate("list => { list.scrollTop = list.scrollHeight; }")
    page.wait_for_selector(f"#ev-{last + 101}", state="attached")
    rows = held(page)
    assert rows == list(range(rows[0], rows[-1] + 1)) and rows[-1] > last + 100

    # a step far outside the rows held: the rows around it are fetched, its state shown
    page.locator("#slider").fill("7")
    state_at(page, 7)
    page.wait_for_selector("#ev-7.current")
    assert held(page)[0] == 1
    close_page(page)


def test_on_a_phone_the_rows_fetched_before_keep_its_row_in_sight(
    long: tuple[Site, UUID], browser: tuple[BrowserContext, str]
) -> None:
    """On a phone the rows are taller: the log is scrolled to the position's row, then the rows
    before are fetched above it and the rows after below it; the row stays where it was (the
    browser's scroll anchoring would move it once more)."""
    _, battle = long
    context, base = browser
    page = context.new_page()
    page.goto(f"{base}/battles/{battle}/at/{FAR}")
    ready(page)
    first, last = FAR - window.BEFORE, FAR + window.AFTER
    page.wait_for_selector(f"#ev-{first - 100}", state="attached", timeout=10_000)
    page.wait_for_selector(f"#ev-{last + 100}", state="attached", timeout=10_000)
    assert page.locator("#events").evaluate("list => list.scrollTop") > 0
    assert in_sight(page, FAR)
    rows = held(page)  # and more if the list was scrolled near an end meanwhile
    assert rows == list(range(rows[0], rows[-1] + 1))
    assert rows[0] <= first - 100 and rows[-1] >= last + 100
    close_page(page)


def test_the_first_paint_needs_no_script(
    long: tuple[Site, UUID], browser: tuple[BrowserContext, str]
) -> None:
    """The page as its HTML and styles give it, before any script runs (here only the inline
    loader does, every script it asks for refused, its line saying so above the log): its
    position's row marked current and in sight in the log's box, the later rows dimmed, the
    state panel at the position, a few dozen rows to lay out."""
    page = as_styled(long, browser)
    assert page.locator(f"#ev-{FAR}.current").count() == 1
    assert in_sight(page, FAR)
    assert page.locator("#events .ev.later").count() == window.AFTER
    assert page.locator("#state-panel").get_attribute("data-position") == str(FAR)
    assert len(held(page)) == window.BEFORE + 1 + window.AFTER
    close_page(page)


def test_the_page_is_painted_while_its_scripts_are_on_their_way(
    long: tuple[Site, UUID], browser: tuple[BrowserContext, str]
) -> None:
    """The first paint waits for no script: with every script held back (asked for, never
    answered while it looks), the page is parsed to its end and painted, its row current and in
    sight (a script in the page's way would hold the parser); its scripts are asked for then."""
    _, battle = long
    context, base = browser
    page = context.new_page()
    held_back: list[Any] = []
    page.route("**/*.js", lambda route: held_back.append(route))  # not answered while it looks
    page.set_viewport_size(LAPTOP)
    page.goto(f"{base}/battles/{battle}/at/{FAR}", wait_until="commit")
    page.wait_for_function("() => performance.getEntriesByName('first-contentful-paint').length")
    assert page.evaluate("() => document.readyState") != "loading"  # parsed to its end
    assert page.locator(f"#ev-{FAR}.current").count() == 1 and in_sight(page, FAR)
    for _ in range(100):  # asked for once the page is painted
        if held_back:
            break
        page.wait_for_timeout(50)
    assert held_back and page.locator("body[data-ready]").count() == 0  # asked for, not in
    page.unroute("**/*.js")  # the scripts held back go on
    close_page(page)


def test_the_page_asks_the_server_for_nothing_before_it_is_painted(
    long: tuple[Site, UUID], browser: tuple[BrowserContext, str]
) -> None:
    """What the page's scripts ask of the server (the rows before, the command step, what was
    said, the family) is asked once the page has been painted: on two cores, the server's
    answers and the hundred rows laid out would otherwise race the first paint."""
    _, battle = long
    context, base = browser
    page = context.new_page()
    page.set_viewport_size(LAPTOP)
    page.goto(f"{base}/battles/{battle}/at/{FAR}")
    page.wait_for_selector(f"#ev-{FAR - window.BEFORE - 1}", state="attached", timeout=10_000)
    page.wait_for_function(
        "() => performance.getEntriesByType('resource').filter(r => r.initiatorType === 'fetch')"
        ".length >= 4"  # the rows before, the step, the event there, what was said...
    )
    painted, asked = page.evaluate(
        """() => [performance.getEntriesByName('first-contentful-paint')[0].startTime,
          performance.getEntriesByType('resource').filter(r => r.initiatorType === 'fetch')
            .map(r => [r.startTime, r.name])]"""
    )
    early = [name for start, name in asked if start < painted]
    assert early == [], f"asked before the first paint ({painted:.0f} ms): {early}"
    # nor an icon the server does not have (the browser asks for /favicon.ico unless told)
    page.wait_for_load_state("load")
    icons = page.evaluate(
        "() => performance.getEntriesByType('resource').filter(r => r.name.includes('favicon'))"
        ".length"
    )
    assert icons == 0
    close_page(page)


def test_the_viewers_own_scripts_are_asked_for_once_it_is_painted(
    long: tuple[Site, UUID], browser: tuple[BrowserContext, str]
) -> None:
    """Run before the first paint, the viewer's scripts were its largest own cost there: the page
    asks for none before it (its inline loader asks for bxb.js and the viewer's own once the page
    is on screen) and says when they have run (``data-ready``); then the keys step."""
    _, battle = long
    context, base = browser
    page = context.new_page()
    page.set_viewport_size(LAPTOP)
    page.goto(f"{base}/battles/{battle}/at/{FAR}")
    ready(page)
    painted, asked = page.evaluate(
        """() => [performance.getEntriesByName('first-contentful-paint')[0].startTime,
          performance.getEntriesByType('resource').filter(r => r.initiatorType === 'script')
            .map(r => [r.startTime, r.name.split('/').pop()])]"""
    )
    early = [name for start, name in asked if start < painted]
    later = [name for start, name in asked if start >= painted]
    assert early == [], f"asked before the first paint ({painted:.0f} ms): {early}"
    # asked for at once, in any order (the browser starts their fetches as it will); they run
    # in the page's order all the same (async off), which the keys stepping below needs
    assert sorted(later) == sorted(["bxb.js", "plots.js", "viewer.js", "dispute_viewer.js"])
    page.keyboard.press("ArrowLeft")
    state_at(page, FAR - 1)
    close_page(page)


def test_a_script_that_does_not_come_is_named_and_the_rest_works(
    long: tuple[Site, UUID], browser: tuple[BrowserContext, str]
) -> None:
    """One of the viewer's scripts refused (a proxy, a dropped connection): the page still says
    it is ready once the others have run, names the one that did not come, at its top and on its
    body (``data-failed``), and what the others do works: the keys step."""
    page = as_styled(long, browser, refused="dispute_viewer.js")
    page.locator("body[data-ready]").wait_for(state="attached")
    assert page.get_attribute("body", "data-failed") == "dispute_viewer.js"
    said = page.locator("main > [role=alert]")
    assert "did not load (dispute_viewer.js)" in said.inner_text()
    assert said.bounding_box() is not None  # on the page, not only in its attributes
    page.keyboard.press("ArrowLeft")
    state_at(page, FAR - 1)
    close_page(page)


# The test's own record of each EventSource the page makes: its URL, and whether the page had
# been painted when it was made (an init script, before the page's own).
STREAMS = """window.bxbStreams = []; const Source = window.EventSource;
window.EventSource = class extends Source { constructor(url, options) { super(url, options);
  window.bxbStreams.push([url, performance.getEntriesByName('first-contentful-paint').length]); } };"""


def test_the_page_listens_to_its_battle_once_it_is_painted(
    long: tuple[Site, UUID], browser: tuple[BrowserContext, str]
) -> None:
    """The battle's live stream (a request the server answers, then the badge's change and a
    frame more) is opened once the page has been painted, not while its first frame is drawn on
    the same two cores; and it is opened, once: the badge says live."""
    _, battle = long
    context, base = browser
    page = context.new_page()
    page.add_init_script(STREAMS)
    page.set_viewport_size(LAPTOP)
    page.goto(f"{base}/battles/{battle}/at/{FAR}")
    page.wait_for_selector("#live.on")
    streams = page.evaluate("() => window.bxbStreams")
    assert [(url.split("/")[-1], painted) for url, painted in streams] == [("stream", 1)]
    close_page(page)


def as_styled(
    long: tuple[Site, UUID], browser: tuple[BrowserContext, str], refused: str = "*.js"
) -> Page:
    """A far position opened on a laptop, its scripts named ``refused`` refused (all of them by
    default: the page as its HTML and styles give it)."""
    _, battle = long
    context, base = browser
    page = context.new_page()
    page.route(f"**/{refused}", lambda route: route.abort())
    page.set_viewport_size(LAPTOP)
    page.goto(f"{base}/battles/{battle}/at/{FAR}")
    return page


def test_the_positions_are_on_one_line(
    long: tuple[Site, UUID], browser: tuple[BrowserContext, str]
) -> None:
    """The log's position column is as wide as the battle's longest position, a command's bold
    row's too: no position wraps (a 2.6rem column wrapped four bold digits, five of any)."""
    page = as_styled(long, browser)
    lines = page.locator("#events .ev .pos").evaluate_all(
        "cells => cells.map(c => { const text = document.createRange();"
        " text.selectNodeContents(c); return [c.textContent, text.getClientRects().length]; })"
    )
    assert lines and all(n == 1 for _, n in lines), [p for p, n in lines if n != 1]
    close_page(page)


# Every font the first screen draws with: its family list (as the style sheet names it), size,
# weight and style, for the text that takes up room (what is hidden is not laid out).
FACES = """() => { const faces = new Set(); const text = document.createTreeWalker(document.body,
  NodeFilter.SHOW_TEXT); let node;
  while ((node = text.nextNode())) {
    const element = node.parentElement;
    if (!node.textContent.trim() || !element.getClientRects().length) continue;
    const s = getComputedStyle(element);
    faces.add([s.fontFamily, s.fontSize, s.fontWeight, s.fontStyle].join("|"));
  }
  return [...faces]; }"""


def test_the_first_screen_asks_for_few_fonts(
    long: tuple[Site, UUID], browser: tuple[BrowserContext, str]
) -> None:
    """Each font a page draws with (a size, weight or style of a family) and each family its
    style sheet names before the one a browser has is a question the renderer asks the browser,
    synchronously, before its first paint (Chrome's trace: 12 fonts and 9 names, 21 waits, on a
    fresh page of the viewer; docs/web.md), and each face (regular, bold, italic, monospace) a
    font file the renderer opens. The first screen, as its HTML and styles give it, draws with
    at most 7 fonts (a voided command's bold note among them) of at most 4 names in all (the
    platform's face, Menlo, the generics), and nothing in italic: a fighter's status is a badge
    and a modifier's rule muted, as legible, without a third face of the family."""
    page = as_styled(long, browser)
    page.wait_for_function(
        "() => performance.getEntriesByName('first-contentful-paint').length", polling="raf"
    )
    faces = page.evaluate(FACES)
    families = {face.split("|")[0] for face in faces}
    names = [name.strip() for family in families for name in family.split(",")]
    assert len(faces) <= 7, sorted(faces)
    assert len(names) <= 4, families
    assert [face for face in faces if face.endswith("|italic")] == []
    close_page(page)


def test_the_page_carries_its_styles(
    long: tuple[Site, UUID], browser: tuple[BrowserContext, str]
) -> None:
    """The style sheets are in the page (the policy allows them by their hash): with the server's
    style sheet files refused, the page is styled all the same, its current row highlighted."""
    _, battle = long
    context, base = browser
    page = context.new_page()
    refused: list[str] = []

    def refuse(route: Any) -> None:
        refused.append(route.request.url)
        route.abort()

    page.route("**/*.css", refuse)
    page.goto(f"{base}/battles/{battle}/at/{FAR}")
    assert refused == []  # not even asked for
    colour = page.locator(f"#ev-{FAR}").evaluate("row => getComputedStyle(row).backgroundColor")
    assert colour == "rgb(255, 244, 194)"  # app.css: #events .ev.current
    close_page(page)


def test_the_rows_of_a_voided_command_are_struck_through_in_the_window(
    long: tuple[Site, UUID], browser: tuple[BrowserContext, str]
) -> None:
    site, battle = long
    context, base = browser
    voided = [r for r in whole_rows(site, battle) if r.voided_at]
    page = context.new_page()
    page.goto(f"{base}/battles/{battle}/at/{voided[0].position}")
    struck = page.locator("#events .ev.voided").evaluate_all(
        "rows => rows.map(r => Number(r.dataset.position))"
    )
    assert struck == [r.position for r in voided]
    assert "mis-typed" in str(page.locator(f"#ev-{voided[0].position}").text_content())
    close_page(page)


def test_a_battle_followed_live_grows_at_its_end(
    long: tuple[Site, UUID], browser: tuple[BrowserContext, str]
) -> None:
    site, battle = long
    context, base = browser
    at_end, far = context.new_page(), context.new_page()
    at_end.goto(f"{base}/battles/{battle}")
    far.goto(f"{base}/battles/{battle}/at/{FAR}")
    for p in (at_end, far):
        p.wait_for_selector("#live.on")
    far_end = FAR + window.AFTER + 100  # the rows the far page fetched after it, once shown
    far.wait_for_selector(f"#ev-{far_end}", state="attached")
    before = site.store.version(battle)
    played = context.request.post(  # the table plays a command, as its phone does
        f"{base}/api/battles/{battle}/commands",
        data={"option": 0},
        headers={"Authorization": f"Bearer {site.tables[1]}"},
    )
    assert played.ok, played.text()
    version = int(played.json()["version"])
    state_at(at_end, version)  # the viewer at the end follows it
    assert held(at_end)[-1] == version
    far.wait_for_function(f"() => document.getElementById('of').textContent === '{version}'")
    assert held(far)[-1] == far_end  # far from the end: nothing fetched for it
    assert before < version
    for p in (at_end, far):
        close_page(p)


def test_the_summary_from_the_index_is_the_doors(long: tuple[Site, UUID], tmp_path: Path) -> None:
    """What the page says of the battle (status, commands, the last command a void names...)
    is ``Service.summary``'s, read from the store's index rather than the whole log."""
    site, battle = long
    service = Service(store=site.store, tournaments=site.tournaments)
    assert window.window(service, battle, FAR).battle == service.summary(battle)
    other = make_site(tmp_path)
    service = Service(store=other.store, tournaments=other.tournaments, key=other.key)
    battle = UUID(service.start("spring", 2, StartBattle(ruleset="gangfight", seed="s")).battle)
    statuses = [window.window(service, battle, None).battle.status]
    assert window.window(service, battle, None).battle == service.summary(battle)
    for _ in range(3):
        service.play(battle, PlayCommand(option=0))
    statuses.append(window.window(service, battle, 2).battle.status)
    assert window.window(service, battle, 2).battle == service.summary(battle)
    service.finish(battle)
    statuses.append(window.window(service, battle, 2).battle.status)
    assert window.window(service, battle, None).battle == service.summary(battle)
    service.seal(battle)
    statuses.append(window.window(service, battle, 2).battle.status)
    assert window.window(service, battle, None).battle == service.summary(battle)
    assert statuses == ["waiting", "playing", "finished", "sealed"]
