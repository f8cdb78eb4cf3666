"""A page shows the answer to what was asked last, never an earlier answer that came after it
(docs/web.md). Each test holds one answer back in Chromium (``page.route``: the server answers at
once, the page gets it only when let go), lets a later asking be answered and shown, then lets
the held answer in and checks the page still shows the later one: the setup form of the system
picked last, the check of the value typed last, the setup as saved last (heard on the live
stream, also while the page's own save is on its way or is refused), the dashboard's rows after
the last write, the diff and what-if asked last, the flags said last, the command gone to last, a fork written (not its preview), a roster's last version,
the question after the dice typed last, the join link issued last, the viewer's state of the
position gone to last (the body of an earlier one read after it) and where it stands among the
commands, the battle's family heard last, and on the quick odds page the game picked last, the
odds of the last press, and the commands and odds of the game on screen (not those of the game
left while the next one loaded).
No timing: each wait is on what the page has read (every answer body a page reads is noted by
an init script) or on what it shows."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import httpx
import msgspec
import pytest
from playwright.sync_api import BrowserContext, Locator, Page, Request, Route
from test_setup_forms import Thumb
from test_table_phone import start, tap_command
from web_helpers import CHROMIUM, Site, close_page, live_server, make_site, ready

from blowbyblow.replay.engine.registry import game_systems, get_game_system
from blowbyblow.replay.rosters.files import load_roster
from blowbyblow.replay.rosters.register import RosterRegister
from blowbyblow.web.schemas import PlayCommand, StartBattle
from blowbyblow.web.service import Service

SLUG = "stale"
TABLES = 17
DOCS = Path(__file__).resolve().parents[2] / "docs"

# Every answer body the page reads (bxb.api's json(), the rows' text()), noted once read: the
# page's own code after `await response.json()` has run before the test's next look (a later
# task), so a test waits on this and then reads what the page shows.
READS = """(() => {
  window.bxbRead = [];
  const fetched = window.fetch;
  window.fetch = async (url, init) => {
    const response = await fetched(url, init);
    const body = init && typeof init.body === "string" ? init.body : "";
    for (const how of ["json", "text"]) {
      const read = response[how].bind(response);
      response[how] = () => read().then((value) => {
        window.bxbRead.push({ url: String(url), body });
        return value;
      });
    }
    return response;
  };
})();"""


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, dict[int, str], str]]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)")
    site = make_site(tmp_path_factory.mktemp("stale"))
    site.tournaments.new_tournament(SLUG, "Stale Answers Night")
    made = site.tournaments.add_tables(SLUG, TABLES)
    RosterRegister(site.db).add(SLUG, load_roster(DOCS / "rosters" / "iron-fists.toml"))
    tokens = dict(made.tables)
    tokens[0] = made.judge_token
    with live_server(site.app()) as base:
        yield site, tokens, base


class Held:
    """The first request ``pick`` chooses among those ``pattern`` matches: answered by the
    server when asked (its answer as it was then), given to the page only at ``release``."""

    def __init__(self, page: Page, pattern: str, pick: Callable[[Request], bool]) -> None:
        self.page = page
        self.pick = pick
        self.held: list[tuple[Route, Any]] = []
        page.route(pattern, self._route)

    def _route(self, route: Route) -> None:
        if not self.held and self.pick(route.request):
            self.held.append((route, route.fetch()))
        else:
            route.continue_()

    def asked(self) -> None:
        """Wait until the request is held."""
        deadline = time.monotonic() + 15
        while not self.held:
            if time.monotonic() > deadline:
                raise AssertionError("the page never asked what is to be held back")
            self.page.wait_for_timeout(20)  # Playwright's events are handled meanwhile

    def release(self) -> None:
        route, answer = self.held[0]
        route.fulfill(response=answer)


def reads(page: Page, url_end: str, n: int, body: str = "") -> None:
    """Wait until the page has read ``n`` answers to URLs ending ``url_end`` (asked with a body
    holding ``body``)."""
    page.wait_for_function(
        "([end, body, n]) => window.bxbRead.filter("
        "(r) => r.url.split('?')[0].endsWith(end) && r.body.includes(body)).length >= n",
        arg=[url_end, body, n],
    )


@pytest.fixture
def page(browser: BrowserContext) -> Iterator[Page]:
    """A page noting the answers it reads; closed even when its test fails (a page left open
    keeps its live stream: six of them take every connection Chromium opens to the server)."""
    made = browser.new_page()
    made.add_init_script(READS)
    yield made
    close_page(made)


def opened(page: Page, base: str, token: str) -> None:
    page.goto(f"{base}/join/{token}")  # the token's cookie: a table's phone, or the judge


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_setup_form_is_the_one_of_the_system_picked_last(web: Any, page: Page) -> None:
    _site, tokens, base = web
    opened(page, base, tokens[1])
    first = next(iter(game_systems()))  # the page's first form, asked as it opens
    held = Held(page, f"**/api/rulesets/{first}/form", lambda r: True)
    page.goto(f"{base}/tournaments/{SLUG}/tables/1/setup")
    held.asked()
    page.select_option("#setup-ruleset", "gangfight")  # picked while the first is on its way
    page.wait_for_function("() => document.body.dataset.form === 'gangfight'")
    held.release()
    reads(page, f"/api/rulesets/{first}/form", 1)
    assert page.evaluate("() => document.body.dataset.form") == "gangfight"
    assert page.locator("#setup-ruleset").input_value() == "gangfight"
    assert page.locator("#setup-form > fieldset > legend").first.inner_text() == "gangfight"


def typed_wrong(page: Page, base: str, tokens: dict[int, str], table: int) -> tuple[Locator, Held]:
    """The setup page of ``table``: a Necromunda fighter added, "three" typed as its WS; the
    check of that setup asked and its answer held back. Returns the field, and the answer held."""
    opened(page, base, tokens[table])
    held = Held(page, "**/setup/check", lambda r: '"three"' in (r.post_data or ""))
    page.goto(f"{base}/tournaments/{SLUG}/tables/{table}/setup")
    page.wait_for_selector("#setup-form fieldset")
    page.select_option("#setup-ruleset", "necromunda-2023")
    page.wait_for_function("() => document.body.dataset.form === 'necromunda-2023'")
    page.click("[data-add='fighters']:not([data-choice])")
    Thumb(page).reveal("[data-path='fighters[0].ws']")
    field = page.locator("[data-path='fighters[0].ws']")
    field.fill("three")
    held.asked()
    return field, held


def test_a_check_answered_after_a_later_one_is_not_shown(web: Any, page: Page) -> None:
    _site, tokens, base = web
    field, held = typed_wrong(page, base, tokens, 2)  # checked after a pause: held back
    field.fill("3")  # then mended: its check answered and shown
    reads(page, "/setup/check", 1, '"ws":3')
    error = page.locator("[data-error='fighters[0].ws']")
    shown = error.text_content()
    assert "Expected" not in str(shown)
    held.release()  # the check of "three" comes last
    reads(page, "/setup/check", 1, '"three"')
    assert error.text_content() == shown  # not "Expected `int`, got `str`" beside a 3


def test_the_setup_saved_last_stays_when_an_earlier_one_is_heard_after_it(
    web: Any, page: Page
) -> None:
    _site, tokens, base = web
    table = 3
    opened(page, base, tokens[table])
    pending = f"/api/tournaments/{SLUG}/tables/{table}/setup"
    held = Held(page, f"**{pending}", lambda r: r.method == "GET")
    page.goto(f"{base}{pending.replace('/api', '')}")
    page.wait_for_selector("#setup-form fieldset")
    page.wait_for_selector("#live.on")
    ruleset = "necromunda-2023"
    setup = msgspec.json.decode(msgspec.json.encode(get_game_system(ruleset).demo().setup))
    for revision in (0, 1):  # the other phone saves twice: the page hears each on its stream
        saved = httpx.put(
            f"{base}{pending}",
            json={"ruleset": ruleset, "setup": setup, "revision": revision},
            headers=bearer(tokens[table]),
        )
        assert saved.status_code == 200, saved.text
        if revision == 0:
            held.asked()  # the page asks for revision 1: that answer held back
    page.wait_for_function("() => document.body.dataset.revision === '2'")
    held.release()
    reads(page, pending, 2)
    assert page.evaluate("() => document.body.dataset.revision") == "2"
    assert page.locator("#setup-revision").inner_text() == "revision 2"


def test_the_other_phones_save_heard_while_this_phones_own_is_on_its_way_stays(
    web: Any, page: Page
) -> None:
    """This phone saves; before its answer comes, the other phone saves over it and the page
    hears that on its stream: the page shows the other phone's save (revision 2), not its own
    write's answer (revision 1) that came after it."""
    _site, tokens, base = web
    table = 11
    opened(page, base, tokens[table])
    pending = f"/api/tournaments/{SLUG}/tables/{table}/setup"
    page.goto(f"{base}{pending.replace('/api', '')}")
    page.wait_for_selector("#setup-form fieldset")
    page.wait_for_selector("#live.on")
    ruleset = "necromunda-2023"
    if page.locator("#setup-ruleset").input_value() != ruleset:
        page.select_option("#setup-ruleset", ruleset)
    page.wait_for_function(f"() => document.body.dataset.form === '{ruleset}'")
    held = Held(page, f"**{pending}", lambda r: r.method == "PUT")
    page.click("#setup-save")
    held.asked()  # saved as revision 1; the answer held back
    setup = msgspec.json.decode(msgspec.json.encode(get_game_system(ruleset).demo().setup))
    saved = httpx.put(  # the other phone saves over it
        f"{base}{pending}",
        json={"ruleset": ruleset, "setup": setup, "revision": 1},
        headers=bearer(tokens[table]),
    )
    assert saved.status_code == 200, saved.text
    page.wait_for_function("() => document.body.dataset.revision === '2'")
    held.release()
    reads(page, pending, 1, '"revision":0')  # this phone's own write's answer, read
    assert page.locator("#setup-error").text_content() == ""
    assert page.evaluate("() => document.body.dataset.revision") == "2"
    assert page.locator("#setup-revision").inner_text() == "revision 2"


def test_a_refused_save_keeps_the_other_phones_save_heard_before_it(web: Any, page: Page) -> None:
    """The other phone saves; the page hears it and asks for the setup, that answer held back;
    this phone's own save (of the revision it still shows) is refused meanwhile. The held
    answer, dropped for the save's sake, is asked again: the page shows the other phone's save."""
    _site, tokens, base = web
    table = 17
    opened(page, base, tokens[table])
    pending = f"/api/tournaments/{SLUG}/tables/{table}/setup"
    page.goto(f"{base}{pending.replace('/api', '')}")
    page.wait_for_selector("#setup-form fieldset")
    page.wait_for_selector("#live.on")
    held = Held(page, f"**{pending}", lambda r: r.method == "GET")
    ruleset = "necromunda-2023"
    setup = msgspec.json.decode(msgspec.json.encode(get_game_system(ruleset).demo().setup))
    saved = httpx.put(  # the other phone saves
        f"{base}{pending}",
        json={"ruleset": ruleset, "setup": setup, "revision": 0},
        headers=bearer(tokens[table]),
    )
    assert saved.status_code == 200, saved.text
    held.asked()  # the page asks for revision 1: that answer held back
    page.click("#setup-save")  # of revision 0, as the page still shows it: refused
    page.wait_for_function("() => document.getElementById('setup-error').textContent !== ''")
    held.release()
    reads(page, pending, 2)  # the refusal and the held answer, read
    page.wait_for_function("() => document.body.dataset.revision === '1'")
    assert page.locator("#setup-revision").inner_text() == "revision 1"


def test_the_dashboard_keeps_the_rows_after_the_last_write(web: Any, page: Page) -> None:
    _site, tokens, base = web
    table = 4
    opened(page, base, tokens[0])  # the judge
    held = Held(page, f"**/tournaments/{SLUG}/glance", lambda r: True)
    page.goto(f"{base}/tournaments/{SLUG}")
    page.wait_for_selector("#live.on")
    started = httpx.post(
        f"{base}/api/tournaments/{SLUG}/tables/{table}/battles",
        json={"ruleset": "gangfight", "seed": "stale"},
        headers=bearer(tokens[table]),
    )
    assert started.status_code == 201, started.text
    held.asked()  # the rows as they were once started: held back
    battle = started.json()["battle"]
    played = httpx.post(
        f"{base}/api/battles/{battle}/commands", json={"option": 0}, headers=bearer(tokens[table])
    )
    assert played.status_code == 201, played.text
    page.wait_for_function("() => document.getElementById('glance').dataset.drawn === '1'")
    row = page.locator(f"#glance tr[data-table='{table}']")
    shown = row.inner_text()
    held.release()
    reads(page, f"/tournaments/{SLUG}/glance", 2)
    assert row.inner_text() == shown


def two_battles_and_one_like_the_first(site: Site) -> tuple[str, str, str]:
    """Battles at tables 5, 6 and 7: the one at 6 played as the one at 5, the one at 7 not."""
    service = Service(store=site.store, tournaments=site.tournaments)
    made = []
    for table, seed in ((5, "same"), (6, "same"), (7, "other")):
        started = service.start(SLUG, table, StartBattle(ruleset="necromunda-2023", seed=seed))
        service.play(UUID(started.battle), PlayCommand(option=0))
        made.append(started.battle)
    return made[0], made[1], made[2]


def test_the_viewer_shows_the_diff_asked_last(web: Any, page: Page) -> None:
    site, tokens, base = web
    battle, alike, other = two_battles_and_one_like_the_first(site)
    opened(page, base, tokens[0])
    held = Held(page, "**/api/diff*", lambda r: alike in r.url)
    page.goto(f"{base}/battles/{battle}")
    ready(page)
    page.select_option("#diff-other", alike)
    page.click("#diff-run")
    held.asked()  # "identical": held back
    page.select_option("#diff-other", other)
    page.click("#diff-run")
    page.wait_for_selector("#diff-divergence")
    held.release()
    reads(page, "/api/diff", 2)
    assert page.locator("#diff-divergence").count() == 1
    assert "identical" not in page.locator("#diff-result").inner_text()


def test_the_viewer_shows_the_what_if_run_last(web: Any, page: Page) -> None:
    site, tokens, base = web
    battle = site.tournaments.battles(SLUG, 5)[-1].battle  # the diff's battle
    opened(page, base, tokens[0])
    held = Held(page, "**/whatif", lambda r: '"save":false' in (r.post_data or ""))
    page.goto(f"{base}/battles/{battle}")
    ready(page)
    page.click("#whatif-run")
    held.asked()  # the what-if run and not saved: held back
    page.click("#whatif-save")  # then run and saved as a battle
    page.wait_for_selector("#whatif-saved")
    held.release()
    reads(page, "/whatif", 2)
    assert page.locator("#whatif-saved").count() == 1
    page.locator("#whatif-saved").click()  # the saved what-if opens in the viewer
    page.wait_for_selector("#whatif-form")


def test_a_flag_said_meanwhile_stays_on_its_event(web: Any, page: Page) -> None:
    site, tokens, base = web
    service = Service(store=site.store, tournaments=site.tournaments)
    table = 8
    started = service.start(SLUG, table, StartBattle(ruleset="necromunda-2023", seed="flag"))
    battle = UUID(started.battle)
    service.play(battle, PlayCommand(option=0))
    opened(page, base, tokens[0])
    held = Held(page, f"**/api/battles/{battle}/annotations", lambda r: True)
    page.goto(f"{base}/battles/{battle}")
    ready(page)
    page.wait_for_selector("#live.on")
    held.asked()  # what was said once the page was on screen (nothing yet): held back
    flagged = httpx.post(
        f"{base}/api/battles/{battle}/flags",
        json={"command": 1, "reason": "the save was a 5"},
        headers=bearer(tokens[table]),
    )
    assert flagged.status_code == 201, flagged.text
    about = page.locator("#events .ev .about-CommandFlagged")
    about.first.wait_for()
    held.release()
    reads(page, f"/api/battles/{battle}/annotations", 2)
    assert about.count() == 1, json.dumps(page.evaluate("() => window.bxbRead"))


def test_a_roster_shows_its_last_version_when_an_earlier_edit_is_answered_last(
    web: Any, page: Page
) -> None:
    _site, tokens, base = web
    opened(page, base, tokens[0])
    held = Held(page, "**/rosters/edits", lambda r: '"set"' in (r.post_data or ""))
    page.goto(f"{base}/tournaments/{SLUG}/rosters")
    page.wait_for_selector("section.roster[data-loaded=yes]")
    card = page.locator("section.roster").first
    card.locator(".member").select_option("brak")
    card.locator(".field-name").fill("ws")
    card.locator(".value").fill("5")
    card.locator(".set").click()
    held.asked()  # version 2 (Brak's injury): its answer held back
    card.locator(".recruit").fill("Ulf")
    card.locator(".add").click()  # version 3 (a recruit), answered at once
    page.wait_for_selector("section.roster[data-version='3']")
    held.release()
    reads(page, "/rosters/edits", 2)
    assert card.get_attribute("data-version") == "3"
    assert "Ulf" in card.locator(".members").inner_text()


def battle_of_two_commands(site: Site, table: int) -> UUID:
    service = Service(store=site.store, tournaments=site.tournaments)
    started = service.start(SLUG, table, StartBattle(ruleset="necromunda-2023", seed="two"))
    battle = UUID(started.battle)
    for _ in range(2):
        service.play(battle, PlayCommand(option=0))
    return battle


def test_the_viewer_goes_to_the_command_asked_last(web: Any, page: Page) -> None:
    site, tokens, base = web
    battle = battle_of_two_commands(site, 9)
    second = httpx.get(f"{base}/api/battles/{battle}/step?command=2").json()["position"]
    opened(page, base, tokens[0])
    held = Held(page, "**/step?command=1", lambda r: True)
    page.goto(f"{base}/battles/{battle}/at/1")
    ready(page)
    page.fill("#cmd-number", "1")
    page.click("#cmd-go")
    held.asked()  # command 1's place: held back
    page.fill("#cmd-number", "2")
    page.click("#cmd-go")
    page.wait_for_function(f"() => document.body.dataset.position === '{second}'")
    held.release()
    page.wait_for_function("() => window.bxbRead.some((r) => r.url.endsWith('/step?command=1'))")
    assert page.evaluate("() => document.body.dataset.position") == str(second)


# The body of the first answer to a URL ending with the given path held back after its headers
# came (a large state on a slow line): read only once the test calls window.bxbLetGo().
SLOW_BODY = """((end) => {
  const fetched = window.fetch;
  window.fetch = async (url, init) => {
    const response = await fetched(url, init);
    if (!window.bxbLetGo && String(url).endsWith(end)) {
      const text = response.text.bind(response);
      response.text = () => new Promise((resolve) => { window.bxbLetGo = () => text().then(resolve); });
    }
    return response;
  };
})"""


def test_the_viewer_shows_the_state_of_the_position_gone_to_last(web: Any, page: Page) -> None:
    """The viewer stepped on while the state of the position before had come but not its body:
    that body, read last, is not shown for the position stepped to."""
    site, tokens, base = web
    battle = battle_of_two_commands(site, 14)
    opened(page, base, tokens[0])
    page.add_init_script(f"{SLOW_BODY}({json.dumps(f'/battles/{battle}/at/2/state')})")
    page.goto(f"{base}/battles/{battle}/at/1")
    ready(page)
    page.wait_for_selector("#state-panel[data-position='1']")
    page.keyboard.press("ArrowRight")  # to position 2: its state's body held back
    page.wait_for_function("() => window.bxbLetGo !== undefined")
    page.keyboard.press("ArrowRight")  # then to 3, shown
    page.wait_for_selector("#state-panel[data-position='3']")
    page.evaluate("() => window.bxbLetGo()")
    reads(page, f"/battles/{battle}/at/2/state", 1)
    assert page.locator("#state-panel").get_attribute("data-position") == "3"
    assert page.evaluate("() => document.body.dataset.position") == "3"


def test_the_judges_viewer_says_where_the_position_stepped_to_last_stands(
    web: Any, page: Page
) -> None:
    """The judge's viewer stepped twice: where the first position stands among the commands,
    answered last, is not said of the second."""
    site, tokens, base = web
    battle = battle_of_two_commands(site, 15)
    opened(page, base, tokens[0])
    held = Held(page, f"**/api/battles/{battle}/step?position=2", lambda r: True)
    page.goto(f"{base}/battles/{battle}/at/1")
    ready(page)
    page.wait_for_function("() => document.body.dataset.stepped === '1'")
    page.keyboard.press("ArrowRight")  # to position 2: where it stands, held back
    held.asked()
    page.keyboard.press("ArrowRight")  # then to 3, said
    page.wait_for_function("() => document.body.dataset.stepped === '2'")
    where = page.locator("#cmd-where")
    said = where.inner_text()
    assert said.startswith("Position 3 "), said
    held.release()
    reads(page, f"/api/battles/{battle}/step", 3)
    assert where.inner_text() == said
    assert page.evaluate("() => document.body.dataset.stepped") == "2"


def test_the_judges_viewer_lists_the_family_heard_last(web: Any, page: Page) -> None:
    """The judge's viewer asks for the battle's family as it opens and again when a fork is
    heard: the family as it opened (the battle alone), answered last, does not hide the fork."""
    site, tokens, base = web
    battle = battle_of_two_commands(site, 16)
    opened(page, base, tokens[0])
    held = Held(page, f"**/api/battles/{battle}/family", lambda r: True)
    page.goto(f"{base}/battles/{battle}")
    ready(page)
    page.wait_for_selector("#live.on")
    held.asked()  # the family as the page opened: held back
    forked = httpx.post(
        f"{base}/api/battles/{battle}/fork",
        json={"before": 2, "change": {"kind": "rewind"}, "reason": "command 2 played again"},
        headers=bearer(tokens[0]),
    )
    assert forked.status_code == 201, forked.text
    members = page.locator("#family li")
    page.wait_for_function("() => document.querySelectorAll('#family li').length === 2")
    held.release()
    reads(page, f"/api/battles/{battle}/family", 2)
    assert members.count() == 2


def test_a_fork_written_is_not_hidden_by_its_preview_answered_after_it(
    web: Any, page: Page
) -> None:
    site, tokens, base = web
    battle = battle_of_two_commands(site, 10)
    opened(page, base, tokens[0])
    held = Held(page, "**/fork", lambda r: '"preview":true' in (r.post_data or ""))
    second = httpx.get(f"{base}/api/battles/{battle}/step?command=2").json()["position"]
    page.goto(f"{base}/battles/{battle}/at/{second}")
    ready(page)
    page.wait_for_function("() => document.body.dataset.stepped")
    page.check("input[name=decision][value=rewind]")
    page.fill("#rule-reason", "both players agree to play command 2 again")
    page.click("#fork-preview")
    held.asked()  # the preview: held back
    page.click("#rule-send")  # then the fork written
    page.wait_for_selector("#fork-done")
    held.release()
    reads(page, "/fork", 2)
    assert page.locator("#fork-done").count() == 1
    assert page.locator("#fork-seen").count() == 0


def dice(k: int) -> str:
    """A command's body with ``k`` fours typed, as the page sends it."""
    return '"dice":' + json.dumps([4] * k, separators=(",", ":"))


def test_dice_typed_ahead_are_asked_on_by_the_later_answer(web: Any, page: Page) -> None:
    _site, tokens, base = web
    battle = start(page, base, tokens[11])  # physical dice, typed on the phone
    held = Held(
        page, f"**/api/battles/{battle}/commands", lambda r: '"dice":[]' not in (r.post_data or "")
    )
    tap_command(page)
    assert page.locator("#dice-pad .die").first.is_visible()
    n = page.locator("#dice-slots .slot").count()
    die = page.locator('#dice-pad .die[data-face="4"]')
    for _ in range(n):
        die.tap()
    held.asked()  # the first roll sent: its answer (the next question) held back
    for _ in range(n):
        die.tap()  # the next roll typed ahead of it: sent with both, answered at once
    reads(page, f"/api/battles/{battle}/commands", 1, dice(2 * n))
    shown = """() => ({asked: document.getElementById("need").dataset.asked,
        need: document.getElementById("need-prompt").textContent,
        review: document.getElementById("review").hidden,
        error: document.getElementById("play-error").textContent})"""
    before = page.evaluate(shown)
    held.release()
    reads(page, f"/api/battles/{battle}/commands", 1, dice(n))
    assert page.evaluate(shown) == before  # not the first roll's question again


def test_a_join_link_shown_is_the_one_issued_last(web: Any, page: Page) -> None:
    site, tokens, base = web
    opened(page, base, tokens[0])  # the judge
    held = Held(page, "**/tables/12/token", lambda r: r.method == "POST")
    page.goto(f"{base}/tournaments/{SLUG}")
    page.select_option("#token-table", "12")
    page.click("#token-reissue")
    held.asked()  # the first new token: its answer held back
    page.click("#token-reissue")  # pressed again: a second token, the first revoked
    result = page.locator("#token-result")
    result.filter(has_text="new join link").wait_for()
    shown = result.inner_text()
    held.release()
    reads(page, "/tables/12/token", 2)
    assert result.inner_text() == shown
    [token] = re.findall(r"/join/(\S+)", shown)
    assert site.tournaments.principal(token) is not None  # the link shown works


def test_a_check_of_the_last_game_is_not_shown_on_the_next(web: Any, page: Page) -> None:
    _site, tokens, base = web
    _, held = typed_wrong(page, base, tokens, 13)  # the check of Necromunda's setup: held back
    page.select_option("#setup-ruleset", "gangfight")  # another game picked meanwhile
    page.wait_for_function("() => document.body.dataset.form === 'gangfight'")
    problem = page.locator("#setup-problem")
    shown = problem.text_content()
    held.release()
    reads(page, "/setup/check", 1, '"three"')
    assert problem.text_content() == shown  # not Necromunda's fighters[0] on Gangfight's form


def test_the_odds_of_the_game_left_are_not_shown_under_the_game_picked(
    web: Any, page: Page
) -> None:
    """Quick odds: the game on screen changed and "Work out the odds" pressed while another
    game's form loads. Both are asked after the pick, but their answers are the first game's
    commands and odds: come after the other game's form is drawn, neither is shown under it."""
    _site, _tokens, base = web
    shown, picked = "gangfight", "necromunda-2023"
    page.goto(f"{base}/odds")
    page.select_option("#quick-ruleset", shown)
    page.wait_for_function(f"() => document.body.dataset.form === {json.dumps(shown)}")
    page.wait_for_function("() => document.getElementById('quick-command').options.length > 0")
    loading = Held(page, f"**/api/rulesets/{picked}/quick", lambda r: True)
    page.select_option("#quick-ruleset", picked)
    loading.asked()  # the picked game's form: held back
    offered = Held(page, f"**/api/rulesets/{shown}/quick/options", lambda r: True)
    page.fill("[data-path='fighters[0].profile.att']", "1")  # the first game's setup changed
    offered.asked()  # the commands it allows: held back
    weighed = Held(page, f"**/api/rulesets/{shown}/quick/odds", lambda r: True)
    page.click("#quick-run")  # the odds of the first game's command, pressed meanwhile
    weighed.asked()  # held back in turn
    loading.release()
    page.wait_for_function(f"() => document.body.dataset.form === {json.dumps(picked)}")
    commands = page.locator("#quick-command option").all_inner_texts()
    offered.release()
    weighed.release()
    reads(page, f"/api/rulesets/{shown}/quick/options", 1)
    reads(page, f"/api/rulesets/{shown}/quick/odds", 1)
    assert page.locator("#quick-command option").all_inner_texts() == commands
    assert page.locator("#quick-method").count() == 0, page.locator("#quick-result").inner_text()
    assert page.locator("#quick-result").inner_text() == "Pick a command and work out its odds."


def test_the_quick_odds_form_is_the_one_of_the_game_picked_last(web: Any, page: Page) -> None:
    """The quick odds page loads its first game's setup as it opens; a game picked before that
    answer comes is the one shown when the first answer comes last (it did on a faster
    Chromium)."""
    _site, _tokens, base = web
    first, picked = list(game_systems())[:2]
    held = Held(page, f"**/api/rulesets/{first}/quick", lambda r: True)
    page.goto(f"{base}/odds")
    held.asked()  # the first game's setup: held back
    page.select_option("#quick-ruleset", picked)
    page.wait_for_function(f"() => document.body.dataset.form === {json.dumps(picked)}")
    fields = page.locator("#quick-form [data-path]").count()
    held.release()
    reads(page, f"/api/rulesets/{first}/quick", 1)
    assert page.evaluate("() => document.body.dataset.form") == picked
    assert page.locator("#quick-ruleset").input_value() == picked
    assert page.locator("#quick-form [data-path]").count() == fields
    assert page.locator("#quick-problem").text_content() == ""


def test_the_quick_odds_shown_are_those_of_the_last_press(web: Any, page: Page) -> None:
    """ "Work out the odds" pressed for a fight, then for a move before the fight's answer came:
    the move's odds stay shown when the fight's answer comes last."""
    _site, _tokens, base = web
    page.goto(f"{base}/odds")
    page.select_option("#quick-ruleset", "gangfight")
    page.wait_for_function("() => document.body.dataset.form === 'gangfight'")
    page.wait_for_function("() => document.getElementById('quick-command').options.length > 0")
    offered = httpx.get(f"{base}/api/rulesets/gangfight/quick").json()["options"]
    types = [o["type"] for o in offered]
    fight, move = types.index("fight"), types.index("move")
    odds = "/api/rulesets/gangfight/quick/odds"
    held = Held(page, f"**{odds}", lambda r: f'"option":{fight},' in (r.post_data or ""))
    page.select_option("#quick-command", str(fight))
    page.click("#quick-run")
    held.asked()  # the fight's odds: held back
    page.select_option("#quick-command", str(move))
    page.click("#quick-run")
    method = page.locator("#quick-method")
    method.filter(has_text="Command: move;").wait_for()
    held.release()
    reads(page, odds, 2)
    assert "Command: move;" in (method.text_content() or "")
