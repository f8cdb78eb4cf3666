"""The setup forms in a real browser at a phone's size (issue 23): for every game system two
phones set up a battle from nothing through the one form engine (each enters its own side's
force, field by field, as a player would: the values of the system's demo setup), both
confirm, and the battle is played two commands on the table page. A field typed wrong shows
the command line's error and nothing is written. The screenshots in docs/web.md are taken here
(docs/images/setup-*.png); the taps each setup takes are counted."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import msgspec
import pytest
from playwright.sync_api import BrowserContext, Page, sync_playwright
from screenshots import IMAGES
from test_browser import answer_until_played, probe
from web_helpers import CHROMIUM, Site, close_page, live_server, make_site, phone

from blowbyblow.domain.core import BattleStarted, CommandIssued
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.rosters.battlescribe import import_battlescribe
from blowbyblow.replay.rosters.files import load_roster
from blowbyblow.replay.rosters.register import RosterRegister
from blowbyblow.web.service import Service
from blowbyblow.web.tablesetup import TableSetups

from bxbtest import RULESET_IDS

DOCS = Path(__file__).resolve().parents[2] / "docs"
ROSTER_FILES = Path(__file__).resolve().parents[1] / "rosters" / "files"
TAPS: dict[str, int] = {}  # taps each system's setup took, both phones together


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, dict[str, str], str]]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)")
    site = make_site(tmp_path_factory.mktemp("setup"))
    site.tournaments.new_tournament("forms", "Forms Night")
    made = site.tournaments.add_tables("forms", len(RULESET_IDS) + 2)
    tokens = {rid: token for rid, (_, token) in zip(RULESET_IDS, made.tables, strict=False)}
    tokens["wrong"] = made.tables[-2][1]
    tokens["rosters"] = made.tables[-1][1]
    with live_server(site.app()) as base:
        yield site, tokens, base


@pytest.fixture(scope="module")
def phones(web: Any) -> Iterator[tuple[BrowserContext, BrowserContext]]:
    with sync_playwright() as p:
        a, b = phone(p), phone(p)
        yield a, b
        a.close()
        b.close()


def leaves(value: Any, at: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        return {k: v for key, sub in value.items() for k, v in leaves(sub, f"{at}.{key}").items()}
    if isinstance(value, list | tuple):
        return {k: v for n, sub in enumerate(value) for k, v in leaves(sub, f"{at}[{n}]").items()}
    return {at: value}


def differences(a: Any, b: Any) -> int:
    """How many fields differ between two entries (a thumb copies the nearest one)."""
    la, lb = leaves(a), leaves(b)
    return sum(la.get(k) != lb.get(k) for k in set(la) | set(lb))


class Thumb:
    """A player's thumb on the form: every tap counted (a field typed into is one tap)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.taps = 0

    def tap(self, selector: str) -> None:
        self.page.locator(selector).first.click()
        self.taps += 1

    def reveal(self, selector: str) -> None:
        """Open the "more (defaults)" fold a field is in, as a thumb would."""
        found = self.page.locator(selector).first
        if not found.is_visible():
            fold = found.locator("xpath=ancestor::details[1]/summary")
            fold.click()
            self.taps += 1

    def enter(self, value: Any, path: str) -> None:
        page = self.page
        q = json.dumps(path)
        if isinstance(value, dict) and page.locator(f"[data-path={q}][data-json]").count():
            self.enter_scalar(value, path)  # a table of free keys: typed as JSON
        elif isinstance(value, dict):
            toggle = f"[data-toggle={q}]"
            if page.locator(toggle).count() and not page.locator(toggle).first.is_checked():
                self.reveal(toggle)
                self.tap(toggle)
            for key, sub in value.items():
                self.enter(sub, f"{path}.{key}" if path else key)
        elif isinstance(value, list | tuple):
            self.enter_list(list(value), path)
        elif value is None:
            return  # the form's blank for an optional field is none
        else:
            self.enter_scalar(value, path)

    def enter_list(self, value: list[Any], path: str, *, append: bool = False) -> None:
        page = self.page
        q = json.dumps(path)
        if page.locator(f"[data-object={q}][data-tuple]").count():
            for k, v in enumerate(value):  # a pair: one field per place
                self.enter_scalar(v, f"{path}[{k}]")
            return
        chips = page.locator(f"[data-chip={q}]")
        if chips.count() or page.locator(f"[data-path={q}][data-list]").count():
            wanted = {str(v) for v in value}  # a list of values: chips, and others typed
            for n in range(chips.count()):
                chip = chips.nth(n)
                on = "on" in (chip.get_attribute("class") or "")
                if on != (chip.get_attribute("data-value") in wanted):
                    self.reveal(f"[data-chip={q}]")
                    chip.click()
                    self.taps += 1
            listed = {chips.nth(n).get_attribute("data-value") for n in range(chips.count())}
            free = [str(v) for v in value if str(v) not in listed]
            if page.locator(f"[data-path={q}][data-list]").count():
                self.enter_scalar(", ".join(free), path)
            return
        # the entries this phone shows (not the other side's), by their paths in the setup
        shown = page.locator(f"fieldset[data-list={q}] > [data-object]")
        paths = [str(shown.nth(n).get_attribute("data-object")) for n in range(shown.count())]
        have = 0 if append else len(paths)  # else: the entries there are changed in place
        for extra in reversed(paths[len(value) :] if not append else []):
            self.tap(f"[data-remove={json.dumps(extra)}]")
        made: list[str] = []
        for i, item in enumerate(value):
            like = min(range(i), key=lambda k: differences(value[k], item), default=None)
            if i < have:
                made.append(paths[i])  # already there
            else:
                if like is not None and differences(value[like], item) * 2 < len(leaves(item)):
                    self.tap(f"[data-copy={json.dumps(made[like])}]")
                else:
                    self.reveal(f"[data-add={q}]")
                    self.tap(f"[data-add={q}]:not([data-choice])")
                page.wait_for_function(
                    "([q, n]) => document.querySelectorAll(`fieldset[data-list=${q}] > "
                    "[data-object]`).length === n",
                    arg=[q, len(paths) + len(made) + 1 - (0 if append else have)],
                )
                made.append(str(shown.last.get_attribute("data-object")))
            self.enter(item, made[-1])

    def enter_scalar(self, value: Any, path: str) -> None:
        page = self.page
        sel = f"[data-path={json.dumps(path)}]"
        if not page.locator(sel).count():
            raise AssertionError(f"the form has no field {path}")
        self.reveal(sel)
        field = page.locator(sel).first
        kind = field.evaluate("e => e.tagName + (e.type || '')")
        if kind == "INPUTcheckbox":
            if field.is_checked() != bool(value):
                self.tap(sel)
        elif kind.startswith("SELECT"):
            if field.input_value() != str(value):
                field.select_option(str(value))
                self.taps += 1
        else:
            text = (
                json.dumps(value, separators=(",", ":")) if isinstance(value, dict) else str(value)
            )
            if field.input_value() != text:
                field.fill(text)
                self.taps += 1


def target(ruleset: str) -> dict[str, Any]:
    """What the players enter: the system's demo setup; for Necromunda 2023 a typical fight,
    two gangs of five (the demo's two Goliaths and three Escher, with more of the same
    fighters: Brak's brothers, Lia's sisters)."""
    setup: dict[str, Any] = msgspec.json.decode(
        msgspec.json.encode(get_game_system(ruleset).demo().setup)
    )
    if ruleset == "necromunda-2023":
        by_id = {f["id"]: f for f in setup["fighters"]}
        more = [dict(by_id["brak"], id=f"brak-{n}", name=f"Brak {n}") for n in (2, 3, 4)]
        more += [dict(by_id["lia"], id=f"lia-{n}", name=f"Lia {n}") for n in (2, 3)]
        setup["fighters"] += more
    return setup


def halves(ruleset: str) -> tuple[list[str], dict[str, Any], dict[str, list[Any]]]:
    """The setup as two players enter it, each on the phone that took their side: the first
    side's part (everything but the second side's own: its members, its entry in the list of
    sides) and the second side's own, by setup field (its entry in the list of sides first)."""
    system = get_game_system(ruleset)
    assert system.roster is not None
    setup = target(ruleset)
    sides = list(system.view(system.initial_state(system.demo().setup)).sides)
    side_field, listed = system.roster.side_field, system.roster.sides
    first = dict(setup)
    second: dict[str, list[Any]] = {}
    if listed:

        def second_side(e: Any) -> bool:
            return bool((e["id"] if isinstance(e, dict) else e) == sides[1])

        first[listed] = [e for e in setup[listed] if not second_side(e)]
        own = [e for e in setup[listed] if second_side(e)]
        if any(isinstance(e, dict) for e in own):  # a side's name alone: taking it adds it
            second[listed] = own
    for member in system.roster.members:
        first[member] = [m for m in setup[member] if m[side_field] != sides[1]]
        second[member] = [m for m in setup[member] if m[side_field] == sides[1]]
    return sides, first, second


def take_side(thumb: Thumb, side: str) -> None:
    """The phone enters one side: its name typed (or picked), one tap to take it."""
    thumb.page.fill("#my-side", side)
    thumb.taps += 1
    thumb.tap("#take-side")
    thumb.page.wait_for_function(f"() => document.body.dataset.side === {json.dumps(side)}")


def play_two_commands(page: Page, site: Site, battle: UUID) -> None:
    """Two commands on the table page, each die typed on the big buttons; then verify."""
    rolled: list[int] = []
    for _ in range(2):
        before = probe(page)
        page.locator("#options .option").first.click()
        if page.locator("#play-option").count():
            page.click("#play-option")
        answer_until_played(page, before, rolled, shot=False)
    events = site.store.read(battle)
    assert sum(isinstance(e.event, CommandIssued) for e in events) == 2
    report = verify_battle(site.store, battle)
    assert report.ok, report.problem


def rulings_changed(page: Page, ruleset: str) -> dict[str, str]:
    """For the Necromunda before 2023 (N17) battle, phone A sets the first ruling the system
    has to a value other than its default, as an event would (not counted as a tap of the
    typical fight); the others stay at their defaults. Returns the rulings set."""
    if ruleset != "necromunda-legacy":
        return {}
    ruling = next(r for r in get_game_system(ruleset).rulings if len(r.choices) > 1)
    value = next(c for c in ruling.choices if c != ruling.default)
    page.click("#terms-box > summary")
    page.select_option(f"[data-ruling={json.dumps(ruling.name)}]", value)
    page.locator("#terms-box").scroll_into_view_if_needed()
    page.screenshot(path=str(IMAGES / "setup-rulings.png"))
    return {ruling.name: value}


def wait_checked(page: Page) -> None:
    """Wait until the check of the last edit is answered (it is asked 200 ms after the last
    key): setup.js notes the last check asked and the last answered on the form."""
    page.wait_for_function(
        "() => { const f = document.getElementById('setup-form');"
        " return (f.dataset.asked || '0') === (f.dataset.checked || '0'); }"
    )


def save(page: Page, revision: int) -> None:
    wait_checked(page)
    page.click("#setup-save")
    page.wait_for_function(
        f"() => document.body.dataset.revision === '{revision}' || "
        "document.getElementById('setup-error').textContent !== ''"
    )
    assert page.locator("#setup-error").text_content() == ""


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_two_phones_set_up_confirm_and_play(web: Any, phones: Any, ruleset: str) -> None:
    site, tokens, base = web
    a, b = (ctx.new_page() for ctx in phones)
    for page in (a, b):
        page.goto(f"{base}/join/{tokens[ruleset]}")
        page.click("#setup-link")
        page.wait_for_selector("#setup-form fieldset")
    sides, first, second = halves(ruleset)

    # each phone takes its side; phone A picks the game and enters its side and the table
    thumb_a, thumb_b = Thumb(a), Thumb(b)
    take_side(thumb_a, sides[0])
    take_side(thumb_b, sides[1])
    if a.locator("#setup-ruleset").input_value() != ruleset:
        a.select_option("#setup-ruleset", ruleset)
        thumb_a.taps += 1
        a.wait_for_function(f"() => document.body.dataset.form === '{ruleset}'")
    thumb_a.enter(first, "")
    if ruleset == "necromunda-2023":
        a.screenshot(path=str(IMAGES / "setup-form.png"))
    rulings = rulings_changed(a, ruleset)
    save(a, 1)
    thumb_a.taps += 1

    # phone B hears of A's revision on the table's live stream, enters its own force, saves
    b.wait_for_function("() => document.body.dataset.revision === '1'")
    b.wait_for_function(f"() => document.body.dataset.form === '{ruleset}'")
    if ruleset == "necromunda-2023":  # B's phone: its side taken, A's part heard live
        IMAGES.mkdir(parents=True, exist_ok=True)
        b.screenshot(path=str(IMAGES / "setup-side.png"))
    shape = get_game_system(ruleset).roster
    for field, entries in second.items():  # its entry in the list of sides, then its members
        thumb_b.enter_list(entries, field, append=bool(shape and field in shape.members))
    save(b, 2)
    thumb_b.taps += 1
    a.wait_for_function("() => document.body.dataset.revision === '2'")

    # each phone shows the other's force as entered; each confirms
    members = get_game_system(ruleset).roster
    assert members is not None
    theirs = {sides[1]: sum(len(second[m]) for m in members.members)}
    theirs[sides[0]] = sum(len(first[m]) for m in members.members)
    for page, other in ((a, sides[1]), (b, sides[0])):
        force = page.locator(f".force[data-side={json.dumps(other)}] li")
        assert force.count() == theirs[other], page.locator("#setup-waiting").text_content()
    if ruleset == "necromunda-2023":
        b.locator("#forces-box").scroll_into_view_if_needed()
        b.screenshot(path=str(IMAGES / "setup-confirm.png"))
    # each phone confirms only its own side: the other's is theirs to confirm
    assert not a.locator(f".confirm[data-side={json.dumps(sides[1])}]").count()
    thumb_a.tap(f".confirm[data-side={json.dumps(sides[0])}]")
    b.wait_for_selector(f"[data-waiting={json.dumps(sides[0])}]:has-text('confirmed')")
    assert not site.tournaments.battles("forms", RULESET_IDS.index(ruleset) + 1)  # not yet
    thumb_b.tap(f".confirm[data-side={json.dumps(sides[1])}]")
    TAPS[ruleset] = thumb_a.taps + thumb_b.taps

    # the battle starts with exactly the setup both saw, and both phones go to the table
    for page in (a, b):
        page.wait_for_selector("#battle-label, #setup-error:not(:empty)")
        assert page.locator("#battle-label").count(), page.locator("#setup-error").text_content()
    battle = UUID(a.evaluate("() => document.body.dataset.battle"))
    events = site.store.read(battle)
    started = events[0].event
    assert isinstance(started, BattleStarted)
    system = get_game_system(ruleset)
    assert started.rulings == system.resolve_rulings(rulings)  # as picked on phone A
    entered = msgspec.json.decode(msgspec.json.encode(started.setup))
    demo = target(ruleset)
    for member in system.roster.members if system.roster else ():
        key = "id"
        assert sorted(m[key] for m in entered[member]) == sorted(m[key] for m in demo[member])
        by_id = {m[key]: m for m in demo[member]}
        for m in entered[member]:
            assert m == by_id[m[key]]
    assert {
        k: v
        for k, v in entered.items()
        if k not in (system.roster.members if system.roster else ())
    } == {
        k: v for k, v in demo.items() if k not in (system.roster.members if system.roster else ())
    }

    play_two_commands(a, site, battle)  # on the table page, dice typed on phone A
    if ruleset == RULESET_IDS[-1]:
        print("taps to set up each battle:", TAPS)
    close_page(a)
    close_page(b)


def test_a_field_typed_wrong_shows_its_error_and_nothing_is_written(web: Any, phones: Any) -> None:
    site, tokens, base = web
    page = phones[0].new_page()
    page.goto(f"{base}/join/{tokens['wrong']}")
    page.click("#setup-link")
    page.select_option("#setup-ruleset", "necromunda-2023")
    page.wait_for_function("() => document.body.dataset.form === 'necromunda-2023'")
    page.click("[data-add='fighters']:not([data-choice])")
    Thumb(page).reveal("[data-path='fighters[0].ws']")
    page.fill("[data-path='fighters[0].ws']", "three")
    error = page.locator("[data-error='fighters[0].ws']")
    error.wait_for(state="visible")
    page.wait_for_function(
        "() => document.querySelector(\"[data-error='fighters[0].ws']\").textContent !== ''"
    )
    # the command line's words for the same mistake in a setup file
    assert error.text_content() == "setup: fighters[0].ws: Expected `int`, got `str`"
    page.screenshot(path=str(IMAGES / "setup-error.png"))
    page.click("#setup-save")
    page.wait_for_function("() => document.getElementById('setup-error').textContent !== ''")
    assert "fighters[0]" in str(page.locator("#setup-error").text_content())
    table = len(RULESET_IDS) + 1  # the register: no pending setup, no battle at this table
    setups = TableSetups(Service(store=site.store, tournaments=site.tournaments))
    assert setups.pending("forms", table).draft is None
    assert not site.tournaments.battles("forms", table)
    close_page(page)


def test_a_battlescribe_roster_is_picked_at_a_table_and_played(web: Any, phones: Any) -> None:
    site, tokens, base = web
    register = RosterRegister(site.db)
    raw = (ROSTER_FILES / "battlescribe" / "necromunda-goliath.rosz").read_bytes()
    imported = import_battlescribe(raw, "necromunda-goliath.rosz", "necromunda-2023", "Cy")
    register.add("forms", imported.roster)
    register.add("forms", load_roster(DOCS / "rosters" / "wild-cats.json"))
    page = phones[0].new_page()
    page.goto(f"{base}/join/{tokens['rosters']}")
    page.click("#setup-link")
    page.wait_for_selector("#roster-a option:nth-child(3)", state="attached")
    options = page.locator("#roster-a option").all_text_contents()
    goliaths = next(i for i, o in enumerate(options) if "Iron Fists" in o) - 1
    cats = next(i for i, o in enumerate(options) if "Wild Cats" in o) - 1
    page.select_option("#roster-a", str(goliaths))
    page.select_option("#roster-b", str(cats))
    ticks = page.locator("[data-member]")
    members = [str(ticks.nth(n).get_attribute("data-member")) for n in range(ticks.count())]
    left_out = members[-1]
    page.locator(f"[data-member={json.dumps(left_out)}]").uncheck()
    page.click("#use-rosters")
    page.wait_for_function("() => document.body.dataset.revision === '1'")
    page.wait_for_selector(".confirm")
    for side in page.locator(".confirm").all():
        side.click()
    page.wait_for_selector("#battle-label")
    battle = UUID(page.evaluate("() => document.body.dataset.battle"))
    started = site.store.read(battle)[0].event
    assert isinstance(started, BattleStarted)
    ids = [f.id for f in started.setup.fighters]
    assert ids == [m for m in members if m != left_out]  # the roster's fighters, one left out
    assert imported.roster.forces["fighters"][0]["id"] in ids
    play_two_commands(page, site, battle)
    close_page(page)
