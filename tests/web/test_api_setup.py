"""A table's setup over HTTP (issue 23): the form of each game system from its setup type, a
field checked with the command line's own words, a setup written only when every field fits,
both sides confirming the revision they saw, and the battle started with exactly that setup
(or by a judge). The template game system (docs/game-system-template) gets a form too."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any
from uuid import UUID

import msgspec
import pytest
import tomlkit
from typer.testing import CliRunner
from web_helpers import Client, Site, bearer

from blowbyblow.cli.main import app as cli
from blowbyblow.domain.core import BattleStarted
from blowbyblow.replay.engine import scenario
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.rosters.files import load_roster
from blowbyblow.replay.rosters.register import RosterRegister
from blowbyblow.web.forms import CheckSetup, check_setup, setup_form, type_at

from bxbtest import RULESET_IDS

SETUP = "/api/tournaments/spring/tables/1/setup"
TEMPLATE = Path(__file__).resolve().parents[2] / "docs" / "game-system-template"


def demo(ruleset: str) -> dict[str, Any]:
    found: dict[str, Any] = msgspec.json.decode(
        msgspec.json.encode(get_game_system(ruleset).demo().setup)
    )
    return found


def _no_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _no_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_no_nulls(v) for v in value]
    return value


def cli_error(tmp_path: Path, ruleset: str, setup: dict[str, Any]) -> str:
    """What `bxb play FILE` says of a setup file with these fields."""
    path = tmp_path / "setup.toml"
    nulls_gone = _no_nulls({"ruleset": ruleset, "label": "x", **setup})  # TOML has no null
    path.write_text(tomlkit.dumps(nulls_gone))
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "db.sqlite"), "play", str(path)])
    assert result.exit_code != 0
    return result.output


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_each_systems_form_comes_from_its_setup_type(client: Client, ruleset: str) -> None:
    r = client.get(f"/api/rulesets/{ruleset}/form")
    assert r.status_code == 200, r.text
    form = r.json()
    schema = get_game_system(ruleset).setup_schema()
    assert form["schema"] == msgspec.json.decode(msgspec.json.encode(schema))
    r = client.post(f"/api/rulesets/{ruleset}/setup/check", json={"setup": demo(ruleset)})
    assert r.json() == {"ok": True, "field": "", "message": "", "field_message": ""}


def test_a_game_system_the_path_names_and_the_server_lacks_is_404(client: Client) -> None:
    """As `/api/rulesets/ID/quick` answers it (before, the form and the check said 422)."""
    for r in (
        client.get("/api/rulesets/chess/form"),
        client.get("/api/rulesets/chess/quick"),
        client.post("/api/rulesets/chess/setup/check", json={"setup": {}}),
    ):
        assert r.status_code == 404, r.text
        assert r.json()["field"] == "ruleset" and "unknown ruleset 'chess'" in r.json()["message"]


def test_lists_come_from_the_game_systems(client: Client) -> None:
    asl = client.get("/api/rulesets/asl/form").json()["choices"]["units[]"]
    by_label = {c["label"]: c["value"] for c in asl}
    assert by_label["squad 4-6-7"]["hs_name"] == "2-4-7"
    assert by_label["leader 9-1"] == {
        "kind": "leader",
        "name": "9-1",
        "morale": 9,
        "leadership": -1,
    }
    assert by_label["leader 6+1"]["leadership"] == 1
    traits = client.get("/api/rulesets/necromunda-2023/form").json()["choices"]
    assert "Melee" in [c["value"] for c in traits["fighters[].weapons[].traits[]"]]


def test_a_field_is_checked_with_the_command_lines_words(client: Client, tmp_path: Path) -> None:
    setup = demo("necromunda-2023")
    setup["fighters"][0]["ws"] = "three"
    said = cli_error(tmp_path, "necromunda-2023", setup)
    r = client.post(
        "/api/rulesets/necromunda-2023/setup/check",
        json={"setup": setup, "field": "fighters[0].ws"},
    )
    found = r.json()
    assert found["field"] == "fighters[0].ws"
    assert found["field_message"] == "setup: fighters[0].ws: Expected `int`, got `str`"
    assert found["message"].removeprefix("setup: ") in said.replace("\n", "")


def test_the_field_typed_is_checked_even_behind_an_earlier_mistake(client: Client) -> None:
    setup = demo("wh40k-2e")
    setup["models"][0]["ws"] = None  # an earlier field still empty
    setup["models"][3]["s"] = 99  # the field being typed, beyond its bounds
    r = client.post(
        "/api/rulesets/wh40k-2e/setup/check", json={"setup": setup, "field": "models[3].s"}
    )
    found = r.json()
    assert found["field"] == "models[0].ws"
    assert found["field_message"].startswith("setup: models[3].s: Expected `int` <=")


def test_a_setup_with_a_field_wrong_is_not_written(site: Site, client: Client) -> None:
    setup = demo("asl")
    setup["units"][1]["morale"] = "seven"
    h = bearer(site.tables[1])
    r = client.put(SETUP, json={"ruleset": "asl", "setup": setup}, headers=h)
    assert r.status_code == 422
    assert r.json()["field"] == "setup.units[1].morale"
    assert client.get(SETUP).json()["draft"] is None
    assert not any(site.written())


def test_both_sides_confirm_the_revision_they_saw_then_it_starts(
    site: Site, client: Client
) -> None:
    h = bearer(site.tables[1])
    setup = demo("necromunda-2023")
    half = dict(setup, fighters=[f for f in setup["fighters"] if f["gang"] == "goliath"])
    r = client.put(SETUP, json={"ruleset": "necromunda-2023", "setup": half}, headers=h)
    assert r.status_code == 200, r.text
    assert r.json()["problem"]  # the Escher not entered yet: nothing to confirm
    r = client.post(f"{SETUP}/confirm", json={"side": "goliath", "revision": 1}, headers=h)
    assert r.status_code == 422
    stale = client.put(SETUP, json={"ruleset": "necromunda-2023", "setup": setup}, headers=h)
    assert stale.status_code == 409  # the phone had not seen revision 1
    r = client.put(
        SETUP, json={"ruleset": "necromunda-2023", "setup": setup, "revision": 1}, headers=h
    )
    pending = r.json()
    assert pending["sides"] == ["goliath", "escher"] and not pending["problem"]
    assert [len(f["units"]) for f in pending["forces"]] == [2, 3]
    r = client.post(f"{SETUP}/confirm", json={"side": "goliath", "revision": 1}, headers=h)
    assert r.status_code == 409  # it has changed since
    r = client.post(f"{SETUP}/confirm", json={"side": "goliath", "revision": 2}, headers=h)
    assert r.json()["confirmed"] == ["goliath"] and r.json()["battle"] is None
    assert not any(site.written())
    r = client.post(f"{SETUP}/confirm", json={"side": "escher", "revision": 2}, headers=h)
    battle = r.json()["battle"]["battle"]
    started = site.store.read(UUID(battle))[0].event
    assert isinstance(started, BattleStarted)
    assert msgspec.json.decode(msgspec.json.encode(started.setup)) == setup
    assert client.get(SETUP).json()["draft"] is None


def test_a_revision_ahead_or_negative_is_not_told_someone_changed_it(
    site: Site, client: Client
) -> None:
    """A revision the setup never had (ahead of it) is said so, not "the other phone changed
    it"; a negative one is refused by the request schema (400, `revision`); nothing written."""
    h = bearer(site.tables[1])
    body = {"ruleset": "gangfight", "setup": demo("gangfight")}
    assert client.put(SETUP, json=body, headers=h).status_code == 200  # revision 1
    ahead = client.put(SETUP, json={**body, "revision": 7}, headers=h)
    assert ahead.status_code == 409 and ahead.json()["field"] == "revision"
    assert "not 7: revision 7 is ahead of it; reload it" in ahead.json()["message"], ahead.text
    stale = client.put(SETUP, json={**body, "revision": 0}, headers=h)
    assert "not 0: the other phone changed it" in stale.json()["message"], stale.text
    confirm = client.post(f"{SETUP}/confirm", json={"side": "humans", "revision": 5}, headers=h)
    assert confirm.status_code == 409 and "revision 5 is ahead of it" in confirm.json()["message"]
    for negative in (
        client.put(SETUP, json={**body, "revision": -1}, headers=h),
        client.post(f"{SETUP}/confirm", json={"side": "humans", "revision": -1}, headers=h),
    ):
        assert negative.status_code == 400 and negative.json()["field"] == "revision"
        assert ">= 0" in negative.json()["message"], negative.text
    assert client.get(SETUP).json()["draft"]["revision"] == 1
    assert not any(site.written())


def test_a_judge_starts_a_setup_not_yet_confirmed(site: Site, client: Client) -> None:
    r = client.put(
        SETUP,
        json={"ruleset": "gangfight", "setup": demo("gangfight")},
        headers=bearer(site.tables[1]),
    )
    assert r.status_code == 200
    r = client.post(f"{SETUP}/start", headers=bearer(site.tables[1]))
    assert r.status_code == 403
    r = client.post(f"{SETUP}/start", headers=bearer(site.judge))
    assert r.status_code == 200, r.text
    assert site.tournaments.battles("spring", 1)[0].battle == UUID(r.json()["battle"]["battle"])


def test_a_sixth_game_system_gets_its_form_for_free(monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(TEMPLATE))
    try:
        duel = importlib.import_module("bxb_duel.system").GAME_SYSTEM
    finally:
        sys.path.remove(str(TEMPLATE))
    # found as its entry point would make it found (tests/core/test_out_of_tree_system.py
    # installs it for real)
    monkeypatch.setattr(
        scenario, "get_game_system", lambda i: duel if i == "duel" else get_game_system(i)
    )
    form = setup_form(duel)
    assert form.schema == duel.setup_schema()
    setup = msgspec.json.decode(msgspec.json.encode(duel.demo().setup))
    assert check_setup(duel, CheckSetup(setup=setup)).ok
    first = next(iter(setup))
    found = check_setup(duel, CheckSetup(setup={**setup, first: 10**30}, field=first))
    assert found.field == first and found.field_message.startswith(f"setup: {first}")


def test_rosters_of_the_register_make_a_tables_setup(site: Site, client: Client) -> None:
    register = RosterRegister(site.db)
    for name in ("iron-fists.toml", "wild-cats.json"):
        register.add("spring", load_roster(TEMPLATE.parent / "rosters" / name))
    kept = client.get("/api/tournaments/spring/rosters").json()
    assert {k["name"] for k in kept} == {"The Iron Fists", "The Wild Cats"}
    picks = [{"player": k["player"], "name": k["name"]} for k in kept]
    h = bearer(site.tables[1])
    r = client.post(f"{SETUP}/rosters", json={"rosters": picks[:1] + picks[:1]}, headers=h)
    assert r.status_code == 422  # the same roster twice: its fighters twice
    r = client.post(
        f"{SETUP}/rosters", json={"rosters": [*picks, {"player": "x", "name": "y"}]}, headers=h
    )
    assert r.status_code == 404
    assert client.get(SETUP).json()["draft"] is None
    everyone = [m["id"] for k in kept for m in k["members"]]
    r = client.post(f"{SETUP}/rosters", json={"rosters": picks, "only": everyone[1:]}, headers=h)
    assert r.status_code == 200, r.text
    fighters = r.json()["draft"]["setup"]["fighters"]
    assert [f["id"] for f in fighters] == everyone[1:]


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_every_listed_choice_names_fields_its_entry_has(ruleset: str) -> None:
    """A choice fills in fields of the setup's own types: none is misnamed, and every value
    given fits its field (a value the rules texts do not give is None, to be typed)."""
    system = get_game_system(ruleset)
    for path, choices in system.setup_choices.items():
        at = path.replace("[]", "[0]")
        assert type_at(system.setup_type, at) is not None, path
        for choice in choices:
            if not isinstance(choice.value, dict):
                msgspec.convert(choice.value, type_at(system.setup_type, at))
                continue
            for field, value in choice.value.items():
                kind = type_at(system.setup_type, f"{at}.{field}")
                assert kind is not None, f"{path} {choice.label}: no field {field}"
                if value is not None:
                    msgspec.convert(value, kind)


def test_asl_support_weapons_and_vehicles_and_40k_weapons_are_listed(client: Client) -> None:
    asl = client.get("/api/rulesets/asl/form").json()["choices"]
    assert "LMG" in [c["value"] for c in asl["units[].sws[]"]]
    vehicles = {c["value"]["name"]: c["value"] for c in asl["vehicles[]"]}
    assert vehicles["T-34/85"]["cmg"] == 4  # A11's example: "4 FP:2 CCV"
    weapons = client.get("/api/rulesets/wh40k-2e/form").json()["choices"]["weapons[]"]
    chainsword = next(c["value"] for c in weapons if c["label"] == "chainsword")
    assert (chainsword["strength"], chainsword["save_modifier"], chainsword["parry"]) == (
        4,
        -1,
        True,
    )


def test_a_value_the_rules_texts_do_not_give_is_typed(client: Client) -> None:
    """The PzIVJ's sN Usage Number is in no text here: picked from the list, it is empty, and
    the setup names the field until the player types it."""
    setup = demo("asl")
    pick = next(
        c.value
        for c in get_game_system("asl").setup_choices["vehicles[]"]
        if c.value["name"] == "PzIVJ"
    )
    setup["vehicles"] = [{"id": "t1", "side": setup["sides"][1], "location": "X3", **pick}]
    found = client.post("/api/rulesets/asl/setup/check", json={"setup": setup}).json()
    assert found["field"] == "vehicles[0].close_defense_usage"
    setup["vehicles"][0]["close_defense_usage"] = 8
    found = client.post("/api/rulesets/asl/setup/check", json={"setup": setup}).json()
    assert found["ok"], found


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_the_form_offers_every_ruling_with_its_default(client: Client, ruleset: str) -> None:
    system = get_game_system(ruleset)
    offered = client.get(f"/api/rulesets/{ruleset}/form").json()["rulings"]
    assert [r["name"] for r in offered] == [r.name for r in system.rulings]
    for shown, ruling in zip(offered, system.rulings, strict=True):
        assert shown["default"] == ruling.default and shown["choices"] == list(ruling.choices)
        assert shown["summary"] == ruling.summary and shown["note"] == ruling.note
        assert shown["citation"] == system.rulebook.cite(ruling.rule)
