"""Playing through the API: dice typed at the table (asked for one roll at a time, nothing
written until the command is complete), refusals that name the field and the rule and write
nothing, the log with citations, the state at any position equal to `bxb at`, verify, what-if,
diff, import, export of a round, the dashboard's statuses, the OpenAPI document, and live
updates by server-sent events."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest
from litestar.testing import TestClient
from typer.testing import CliRunner
from web_helpers import Client, Site, bearer, live_server, played_heard

from blowbyblow.cli.main import app as cli
from blowbyblow.domain.core import CommandIssued
from blowbyblow.replay.battles.whatif import what_if
from blowbyblow.replay.engine.codec import to_builtins
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.store.log import BattleStore
from blowbyblow.web.app import create_app
from blowbyblow.web.tournament import TournamentStore

from bxbtest import tamper

DICE = [4, 3, 5, 2, 6, 1]


def start(client: Client, site: Site, table: int = 1, **body: Any) -> str:
    body.setdefault("ruleset", "necromunda-2023")
    r = client.post(
        f"/api/tournaments/spring/tables/{table}/battles",
        json=body,
        headers=bearer(site.tables[table]),
    )
    assert r.status_code == 201, r.text
    return str(r.json()["battle"])


def play_typed(
    client: Client, site: Site, battle: str, command: dict[str, Any]
) -> tuple[Any, list[Any]]:
    """Play one command, typing each roll only when the rules ask for it; returns the final
    response and every 'needs' answer on the way."""
    dice: list[int] = []
    choices: dict[str, str] = {}
    needs: list[Any] = []
    for _ in range(200):
        r = client.post(
            f"/api/battles/{battle}/commands",
            json={**command, "dice": dice, "choices": choices, "ask": True},
            headers=bearer(site.tables[1]),
        )
        if r.status_code != 200:
            return r, needs
        need = r.json()["need"]
        needs.append(need)
        if need["kind"] == "dice":
            assert need["dice_used"] == len(dice)
            dice += [DICE[(len(dice) + i) % len(DICE)] for i in range(need["n"])]
        else:
            choices[need["key"]] = need["default"]
    raise AssertionError("the command never completed")


def test_typed_dice_are_asked_for_roll_by_roll_and_written_once(site: Site, client: Client) -> None:
    battle = start(client, site)
    version = site.store.version(site.tournaments.battles("spring")[0].battle)
    r, needs = play_typed(client, site, battle, {"option": 0})
    assert r.status_code == 201, r.text
    kinds = {n["kind"] for n in needs}
    assert kinds == {"dice", "choice"}, kinds  # the charge rolls dice and asks step 8
    # nothing was written while the rules were still asking
    played = r.json()
    assert played["status"] == "played"
    assert played["events"][0]["position"] == version + 1
    assert played["version"] == site.store.version(site.tournaments.battles("spring")[0].battle)
    rows = client.get(f"/api/battles/{battle}/log").json()
    rolled = [row for row in rows if row["type"] == "DiceRolled"]
    assert sum(len(row["event"]["values"]) for row in rolled) == sum(
        n["n"] for n in needs if n["kind"] == "dice"
    )
    assert all(row["event"]["source"] == "physical" for row in rolled)
    cited = [row for row in rows if row["rule"]]
    assert cited and all(row["citation"].startswith("Necromunda Core Rulebook") for row in cited)
    assert any(row["modifiers"] for row in cited)  # every modifier, with its rule
    assert any("target_number" in row["numbers"] or "natural" in row["numbers"] for row in cited)
    assert client.get(f"/api/battles/{battle}/verify").json()["ok"] is True


def test_state_at_every_position_is_what_bxb_at_prints(site: Site, client: Client) -> None:
    battle = start(client, site)
    play_typed(client, site, battle, {"option": 0})
    total = client.get(f"/api/battles/{battle}").json()["version"]
    runner = CliRunner()
    for position in (1, 2, total // 2, total):
        at = client.get(f"/api/battles/{battle}/at/{position}").json()
        cli_json = runner.invoke(
            cli, ["--db", site.db, "--log-level", "error", "at", str(position), battle, "--json"]
        )
        assert cli_json.exit_code == 0, cli_json.output
        assert at["state"] == json.loads(cli_json.output)["state"]
        cli_text = runner.invoke(  # wide: the state's lines unwrapped, as the API has them
            cli,
            ["--db", site.db, "--log-level", "error", "at", str(position), battle],
            env={"COLUMNS": "1000"},
        )
        assert at["text"] in cli_text.output
    r = client.get(f"/api/battles/{battle}/at/{total + 1}")
    assert r.status_code == 422 and r.json()["field"] == "position"


def test_a_die_no_face_shows_is_refused_before_its_roll_is_complete(
    site: Site, client: Client
) -> None:
    """A phone typing a roll die by die: a 7 or a -1 typed for a D6 is refused at once (422,
    `dice`), not dropped while the roll is asked for again; a good die is kept."""
    battle = start(client, site, ruleset="gangfight")  # its first roll: 3D6
    before = site.written()
    for bad in (7, -1, 0):
        r = client.post(
            f"/api/battles/{battle}/commands",
            json={"option": 0, "dice": [2, bad]},
            headers=bearer(site.tables[1]),
        )
        assert r.status_code == 422, r.text
        assert r.json()["field"] == "dice"
        assert f"{bad} is not a face of a D6 (1 to 6)" in r.json()["message"]
    r = client.post(
        f"/api/battles/{battle}/commands",
        json={"option": 0, "dice": [2]},
        headers=bearer(site.tables[1]),
    )
    assert r.status_code == 200 and r.json()["need"]["n"] == 3, r.text
    assert site.written() == before


def first_option(client: Client, site: Site, battle: str) -> Callable[..., Any]:
    """A poster of the battle's option 0 by table 1, with the rest of the body as given."""

    def post(**body: Any) -> Any:
        return client.post(
            f"/api/battles/{battle}/commands",
            json={"option": 0, **body},
            headers=bearer(site.tables[1]),
        )

    return post


def test_a_bad_die_typed_past_a_choice_asked_is_refused_once_the_answer_reaches_its_roll(
    site: Site, client: Client
) -> None:
    """With ``ask: true``, a choice the rules ask before the roll a die is typed for is asked
    first (which roll comes next can hang on it); the die is refused once the answer reaches
    its roll. Without ``ask`` the choice takes its default, and the die is refused at once
    (docs/web.md). Nothing is written either way."""
    battle = start(client, site)  # the 2023 charge: 15 dice, then step 8 asked, then a nerve roll
    post = first_option(client, site, battle)

    dice: list[int] = []
    for _ in range(50):
        need = post(dice=dice, ask=True).json()["need"]
        if need["kind"] == "choice":
            break
        dice += [DICE[(len(dice) + i) % len(DICE)] for i in range(need["n"])]
    before = site.written()
    asked = post(dice=[*dice, 7], ask=True)
    assert asked.status_code == 200, asked.text
    assert asked.json()["need"]["kind"] == "choice"
    answer = {need["key"]: need["default"]}
    for body in ({"choices": answer, "ask": True}, {"ask": False}):
        r = post(dice=[*dice, 7], **body)
        assert r.status_code == 422, r.text
        assert r.json()["field"] == "dice"
        assert "7 is not a face of a D6" in r.json()["message"]
    assert site.written() == before


def test_an_answer_to_a_question_never_asked_is_refused_naming_the_questions_asked(
    site: Site, client: Client
) -> None:
    """A choice's answer the command never asks for (a typo of its key, or meant for another
    command) is refused once the command is complete, naming it and the questions asked, as
    ``bxb record`` refuses a scenario's; reviewed or written, nothing is written. Before, it was
    dropped without a word."""
    battle = start(client, site)  # the 2023 charge asks c1/step8
    post = first_option(client, site, battle)

    dice: list[int] = []
    choices: dict[str, str] = {}
    for _ in range(50):
        r = post(dice=dice, choices=choices, ask=True, review=True)
        if r.json()["status"] == "review":
            break
        need = r.json()["need"]
        if need["kind"] == "dice":
            dice += [DICE[(len(dice) + i) % len(DICE)] for i in range(need["n"])]
        else:
            choices[need["key"]] = need["default"]
    assert list(choices) == ["c1/step8"]
    before = site.written()
    for typo in ({"stepp8": "none"}, {"c2/step8": "none"}):
        for body in ({"ask": True}, {"ask": True, "review": True}, {"ask": False}):
            r = post(dice=dice, choices={**choices, **typo}, **body)
            assert r.status_code == 422, r.text
            refused = r.json()
            assert refused["field"] == "choices"
            assert f"{next(iter(typo))!r} never asked" in refused["message"]
            assert "asked: c1/step8" in refused["message"]
    assert site.written() == before
    short = post(dice=dice, choices={"step8": choices["c1/step8"]}, ask=True)  # its short key
    assert short.status_code == 201, short.text


@pytest.mark.parametrize(
    ("body", "status", "field", "rule"),
    [
        ({"option": 0, "dice": [4] * 200}, 422, "dice", "every die typed is one the rules ask for"),
        ({"option": 0, "dice": [7] * 10}, 422, "dice", "dice and choices the rules allow"),
        ({"option": 99}, 422, "option", "an option the rules offer now (GET legal)"),
        ({"option": 0, "picks": {"targets": "nobody"}}, 422, "picks", "a value the option allows"),
        (
            {"command": {"type": "fight", "attacker": 3}},
            422,
            "command.attacker",
            "the command schema of necromunda-2023",
        ),
        (
            {
                "command": {
                    "type": "fight",
                    "attacker": "zia",
                    "weapons": ["laspistol"],
                    "targets": ["krug"],
                }
            },
            422,
            "command",
            "N23",
        ),
        (  # a number Python and the command's type take, and no record can hold
            {
                "command": {
                    "type": "fight",
                    "attacker": "zia",
                    "weapons": ["laspistol"],
                    "allocation": [{"weapon": "laspistol", "target": "krug", "dice": 10**30}],
                }
            },
            422,
            "command",
            "numbers within the bounds a record holds",
        ),
        ({}, 422, "command", "one command: its JSON, or the index of a legal option"),
        ({"option": 0, "version": 1}, 409, "version", "play from the battle as it stands"),
        ({"option": 0, "version": -1}, 400, "version", "the request schema"),
        ({"option": 0, "version": 99}, 409, "version", "play from the battle as it stands"),
        ({"option": "first"}, 400, "option", "the request schema"),
        ({"option": 0, "typo": 1}, 400, "typo", "the request schema"),
        ({"option": 0, "picks": {"targets": 3}}, 400, "picks[...]", "the request schema"),
    ],
)
def test_refusals_name_the_field_and_the_rule_and_write_nothing(  # noqa: PLR0913 - parameters
    site: Site, client: Client, body: dict[str, Any], status: int, field: str, rule: str
) -> None:
    battle = start(client, site)
    play_typed(client, site, battle, {"option": 0})  # version 1 is stale from here on
    before = site.written()
    r = client.post(f"/api/battles/{battle}/commands", json=body, headers=bearer(site.tables[1]))
    assert r.status_code == status, r.text
    error = r.json()
    assert error["field"] == field, error
    assert error["rule"].startswith(rule), error
    assert error["message"] and error["written"] == 0
    assert site.written() == before
    version = body.get("version")
    if version is not None:  # each its own words: stale, ahead, or not a version at all
        said = {1: "someone has played since", 99: "version 99 is ahead of it", -1: ">= 0"}
        assert said[version] in error["message"], error


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"ruleset": "chess"}, "ruleset"),
        ({"setup": {"fighters": 3}}, "setup"),
        ({"rulings": {"no-such-ruling": "x"}}, "rulings"),
        ({"round": 0}, "round"),
        (
            {"commands": [{"type": "charge", "attacker": "krug", "targets": ["vex"]}], "dice": [1]},
            "dice",
        ),
        (  # dice left over once every command is adjudicated: meant for other play
            {
                "commands": [{"type": "charge", "attacker": "krug", "targets": ["vex"]}],
                "dice": [3] * 300,
            },
            "dice",
        ),
        (  # an answer to a question no command asks: refused on `choices`, not `dice`
            {
                "commands": [{"type": "charge", "attacker": "krug", "targets": ["vex"]}],
                "seed": "s",
                "choices": {"stepp8": "none"},
            },
            "choices",
        ),
    ],
)
def test_a_battle_that_cannot_start_writes_nothing(
    site: Site, client: Client, body: dict[str, Any], field: str
) -> None:
    before = site.written()
    r = client.post(
        "/api/tournaments/spring/tables/1/battles",
        json={"ruleset": "necromunda-2023", **body},
        headers=bearer(site.tables[1]),
    )
    assert r.status_code == 422, r.text
    assert r.json()["field"].startswith(field), r.json()
    assert site.written() == before


def test_seeded_battles_roll_their_own_dice_and_sealed_ones_take_no_command(
    site: Site, client: Client
) -> None:
    battle = start(client, site, seed="table-seed")
    r = client.post(
        f"/api/battles/{battle}/commands",
        json={"option": 0, "dice": [3]},
        headers=bearer(site.tables[1]),
    )
    assert r.status_code == 422 and r.json()["rule"] == "a seeded battle rolls its own dice"
    r = client.post(
        f"/api/battles/{battle}/commands", json={"option": 0}, headers=bearer(site.tables[1])
    )
    assert r.status_code == 201
    assert {e["event"]["source"] for e in r.json()["events"] if e["type"] == "DiceRolled"} == {
        "seeded"
    }
    sealed = client.post(f"/api/battles/{battle}/seal", headers=bearer(site.judge))
    assert sealed.status_code == 201, sealed.text
    before = site.written()
    r = client.post(
        f"/api/battles/{battle}/commands", json={"option": 0}, headers=bearer(site.tables[1])
    )
    assert r.status_code == 409 and r.json()["rule"] == "a sealed battle takes no more commands"
    assert site.written() == before
    assert client.get(f"/api/battles/{battle}/verify").json()["ok"] is True


def test_a_command_written_says_what_the_rules_offer_next(site: Site, client: Client) -> None:
    """The 201 carries the commands on offer at the new version, what GET legal answers then,
    so a phone plays on without reading the battle again (issue 25); the page's parts only
    when asked (``page``)."""
    battle = start(client, site, ruleset="gangfight", seed="next-seed")
    for page in (False, True):
        r = client.post(
            f"/api/battles/{battle}/commands",
            json={"option": 0, "page": page},
            headers=bearer(site.tables[1]),
        )
        assert r.status_code == 201, r.text
        played = r.json()
        legal = client.get(f"/api/battles/{battle}/legal").json()
        assert played["next"] == legal and legal["version"] == played["version"]
        assert (played["page"] is not None) is page
    assert played["page"]["receipt"].count(played["receipt"]["signature"]) == 1
    assert len(played["page"]["options"].split('class="option btn"')) == len(legal["options"]) + 1


def test_a_whole_scenario_what_if_diff_export_and_import(
    site: Site, client: Client, tmp_path: Any
) -> None:
    system = get_game_system("necromunda-2023")
    demo = system.demo()
    battle = start(
        client, site, label="demo", seed=demo.seed, commands=[to_builtins(c) for c in demo.commands]
    )
    judge = bearer(site.judge)
    rulings = {"coup-de-grace-effect": "injury-dice"}
    r = client.post(
        f"/api/battles/{battle}/whatif", json={"rulings": rulings, "save": True}, headers=judge
    )
    assert r.status_code == 200, r.text
    wi = r.json()
    expected = what_if(site.store.read(site.tournaments.battles("spring")[0].battle), rulings)
    assert wi["divergence"] == expected.divergence
    assert len(wi["alternative"]) == len(expected.alternative)
    assert wi["saved"]
    diff = client.get(f"/api/diff?a={battle}&b={wi['saved']}").json()
    # compared as `bxb diff` does: the starts differ in the ruling, play where the what-if said
    assert "ruling coup-de-grace-effect: " in " ".join(diff["start"])
    assert diff["divergence"] == expected.divergence
    exported = client.get(f"/api/battles/{battle}/export", headers=judge)
    assert exported.status_code == 200
    # the export imports into another server's store, verified
    from web_helpers import make_site

    other = make_site(tmp_path / "other")
    with TestClient(other.app()) as c2:
        r = c2.post("/api/import", json={"text": exported.text}, headers=bearer(other.judge))
        assert r.status_code == 201, r.text
        assert c2.get(f"/api/battles/{battle}/verify").json()["ok"] is True
        again = c2.post("/api/import", json={"text": exported.text}, headers=bearer(other.judge))
        assert again.status_code == 422 and again.json()["field"] == "text"
        bad = c2.post(
            "/api/import",
            json={"text": exported.text.replace('"hash":"', '"hash":"00', 1)},
            headers=bearer(other.judge),
        )
        assert bad.status_code == 422
    zipped = client.get("/api/tournaments/spring/rounds/1/export", headers=judge)
    assert zipped.status_code == 200
    names = zipfile.ZipFile(io.BytesIO(zipped.content)).namelist()
    assert names == [f"spring-round1-table1-{battle}.jsonl"]
    assert client.get("/api/tournaments/spring/rounds/7/export", headers=judge).status_code == 404


def test_the_dashboard_shows_each_status(site: Site, client: Client) -> None:
    playing = start(client, site, 1, seed="a")
    client.post(
        f"/api/battles/{playing}/commands", json={"option": 0}, headers=bearer(site.tables[1])
    )
    finished = start(client, site, 2, seed="b")
    client.post(
        f"/api/battles/{finished}/commands", json={"option": 0}, headers=bearer(site.tables[2])
    )
    client.post(f"/api/battles/{finished}/finish", headers=bearer(site.tables[2]))
    board = client.get("/api/tournaments/spring").json()
    assert [t["status"] for t in board["tables"]] == ["playing", "finished", "waiting"]
    sealed = client.post("/api/tournaments/spring/seal-finished", headers=bearer(site.judge)).json()
    assert sealed["done"] == [finished]
    # a stored event edited behind the server's back: verify all finds it
    tamper(
        site.db,
        playing,
        3,
        lambda ev: (
            ev.update(values=[1 + (ev.get("values", [1])[0] % 6)])
            if "values" in ev
            else ev.update(rule="forged")
        ),
    )
    result = client.post("/api/tournaments/spring/verify").json()
    assert playing in result["failed"]
    board = client.get("/api/tournaments/spring").json()
    assert [t["status"] for t in board["tables"]] == ["verify failed", "sealed", "waiting"]


def test_the_openapi_document_is_served_from_the_structs(client: Client) -> None:
    doc = client.get("/schema/openapi.json").json()
    assert "/api/battles/{battle}/commands" in doc["paths"]
    schemas = doc["components"]["schemas"]
    assert {"PlayCommand", "PlayResult", "ErrorBody", "StartBattle"} <= set(schemas)
    play = doc["paths"]["/api/battles/{battle}/commands"]["post"]
    assert {"401", "403", "409", "422"} <= set(play["responses"])


def test_live_updates_reach_a_listener_as_events_land(site: Site) -> None:
    with TestClient(site.app()) as c:
        battle = start(c, site, seed="live")
    with live_server(site.app()) as base:
        stream = "/api/tournaments/spring/tables/1/stream"
        heard, r = played_heard(base, stream, battle, site.tables[1])
    assert heard.data(), "no server-sent event after the command was played"
    note = json.loads(heard.data()[0])
    assert note["kind"] == "played" and note["battle"] == battle
    assert note["version"] == r.json()["version"]


def test_a_server_that_kept_a_battle_sees_what_another_wrote_behind_it(
    site: Site, client: Client, seeded_battle: str
) -> None:
    """The server keeps each battle at its head in memory. Another server on the same store
    (a second worker, another machine on PostgreSQL) writes a command behind it: the first
    must read the new head, refuse a command adjudicated from the version it had (409, nothing
    written), adjudicate one sent without a version from the new head, and the battle must
    verify with every command numbered once."""
    table = bearer(site.tables[1])
    seen = client.get(f"/api/battles/{seeded_battle}/legal").json()  # now kept in memory
    other = BattleStore(site.db)
    with TestClient(
        create_app(other, TournamentStore(site.db), key=site.key, reading="open")
    ) as second:
        r = second.post(
            f"/api/battles/{seeded_battle}/commands",
            json={"option": 0, "version": seen["version"]},
            headers=table,
        )
        assert r.status_code == 201, r.text
    behind = other.version(UUID(seeded_battle))
    assert behind > seen["version"]

    now = client.get(f"/api/battles/{seeded_battle}/legal").json()
    assert now["version"] == behind
    r = client.post(
        f"/api/battles/{seeded_battle}/commands",
        json={"option": 0, "version": seen["version"]},
        headers=table,
    )
    assert r.status_code == 409, r.text
    assert site.store.version(UUID(seeded_battle)) == behind  # nothing written

    r = client.post(f"/api/battles/{seeded_battle}/commands", json={"option": 0}, headers=table)
    assert r.status_code == 201, r.text
    assert r.json()["events"][0]["position"] == behind + 1
    events = site.store.read(UUID(seeded_battle))
    numbers = [e.event.index for e in events if isinstance(e.event, CommandIssued)]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) == 3
    verdict = client.get(f"/api/battles/{seeded_battle}/verify").json()
    assert verdict["ok"], verdict
