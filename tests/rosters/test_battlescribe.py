"""BattleScribe rosters (replay/rosters/battlescribe.py): real exported files, and files in the
BSData catalogues' structure, mapped onto the setups; what cannot be mapped named one line each;
hostile or wrong input of every kind refused in one line naming the element, nothing kept."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.roster import RosterError, setup_from_rosters
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.rosters.battlescribe import MAX_BYTES, import_battlescribe

from roster_helpers import shipped_rosters

FILES = Path(__file__).resolve().parent / "files" / "battlescribe"
runner = CliRunner()


def _read(name: str) -> bytes:
    return (FILES / name).read_bytes()


@pytest.mark.parametrize(
    ("name", "edition"),
    [("a40kc-test.ros", "8th Edition"), ("a40kc-spacemarines.ros", "9th Edition")],
)
def test_real_rosters_of_later_40k_editions_are_refused_for_2nd_edition(
    name: str, edition: str
) -> None:
    with pytest.raises(
        RosterError, match=rf"Warhammer 40,000 {edition}'>: expected a Warhammer 40k 2nd"
    ):
        import_battlescribe(_read(name), name, "wh40k-2e", "Cy")
    with pytest.raises(RosterError, match="expected a Necromunda roster"):
        import_battlescribe(_read(name), name, "necromunda-2023", "Cy")


@pytest.mark.parametrize("name", ["necromunda-goliath.ros", "necromunda-goliath.rosz"])
def test_a_necromunda_gang_maps_each_fighter_and_names_the_rest(name: str) -> None:
    imported = import_battlescribe(_read(name), name, "necromunda-2023", "Cy")
    roster = imported.roster
    assert (roster.name, roster.player) == ("The Iron Fists", "Cy")
    grax, brak, bully, bully_2 = roster.forces["fighters"]
    assert grax == {
        "id": "grax-ironhide",
        "name": "Grax Ironhide",
        "m": 4, "ws": 3, "s": 4, "t": 5, "w": 3, "a": 2,
        "ld": 5, "cl": 4, "wil": 5, "int": 6, "save": 5,
        "weapons": [
            {"id": "power-hammer", "name": "Power hammer", "s_bonus": 1, "ap": -1, "d": 2,
             "traits": ["Melee", "Power"]},
            {"id": "stub-gun", "name": "Stub gun", "s": 3, "traits": ["Plentiful", "Sidearm"],
             "ammo": 4},
        ],
        "skills": ["Headbutt"],
    }  # fmt: skip
    assert [w["name"] for w in brak["weapons"]] == ["Two-handed hammer"]
    assert brak["weapons"][0]["s_bonus"] == 2
    assert (bully["id"], bully_2["id"]) == ("bully", "bully-2")  # number="2": two fighters
    assert "save" not in bully  # Sv "-": no armour
    assert imported.unmapped == (
        "force 'Gang': rule 'Gang Tactics' not mapped",
        "'Stash' (upgrade): not a fighter or model; not mapped",
        "'Gang Headquarters' (upgrade): not a fighter or model; not mapped",
        "Grax Ironhide: 'Respirator' (Wargear) not mapped",
        "Grax Ironhide: 'Eye Injury' (Injury) not mapped",
        "Brak: weapon 'Grenade launcher (frag)': damage 'D3' (dice) is not a damage this setup "
        "takes",
    )
    assert roster.notes == [f"not mapped: {line}" for line in imported.unmapped]
    assert len(imported.mapped) == 4


def test_a_2nd_edition_army_maps_models_weapons_and_armour() -> None:
    name = "wh40k-2e-ultramarines.ros"
    imported = import_battlescribe(_read(name), name, "wh40k-2e", "Ana")
    models = imported.roster.forces["models"]
    assert [(m["id"], m["ws"], m["i"], m.get("a", 1), m["save"]) for m in models] == [
        ("sergeant-varro", 5, 5, 2, 3),
        ("space-marine", 4, 4, 1, 3),
        ("space-marine-2", 4, 4, 1, 3),
        ("space-marine-3", 4, 4, 1, 3),
    ]
    assert models[0]["weapons"] == ["chainsword", "bolt-pistol", "frag-grenades"]
    weapons = {w["id"]: w for w in imported.roster.forces["weapons"]}
    assert weapons["chainsword"] == {
        "id": "chainsword", "name": "Chainsword", "strength": 4, "save_modifier": -1,
        "parry": True,
    }  # fmt: skip
    assert weapons["bolter"]["close_combat"] is False  # no Close Combat rule
    assert imported.unmapped == (
        "Sergeant Varro: rule 'And They Shall Know No Fear' not mapped",
        "Sergeant Varro: 'Bionics' (Wargear) not mapped",
    )
    # the army meets another at a table
    system = get_game_system("wh40k-2e")
    setup = setup_from_rosters(system, [imported.roster, shipped_rosters("wh40k-2e")[1]])
    assert len(setup.models) == 4 + 3


def _zipped(*members: tuple[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for member, data in members:
            z.writestr(member, data)
    return out.getvalue()


GOLIATH = (FILES / "necromunda-goliath.ros").read_bytes()
LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE roster [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
<roster name="&b;" gameSystemName="Necromunda"/>"""
EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE roster [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<roster name="&x;" gameSystemName="Necromunda"/>"""


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (GOLIATH[:5000], "not well-formed XML: .*line"),
        (LAUGHS, "refused: .*(DTD|entit)"),
        (EXTERNAL, "refused: .*(DTD|entit)"),
        (b"\x89PNG\r\n\x1a\n....", "neither BattleScribe XML .* nor a zipped roster"),
        (b'{"ruleset": "necromunda-2023"}', "neither BattleScribe XML"),
        (b"<gameSystem/>", r"<gameSystem> is not a BattleScribe <roster>"),
        (b"x" * (MAX_BYTES + 1), "larger than 4 MiB"),
        (_zipped(("bomb.ros", b"<" + b" " * (MAX_BYTES + 10))), "unzips to more than 4 MiB"),
        (_zipped(("a.ros", GOLIATH), ("b.ros", GOLIATH)), "one .ros file, not a.ros, b.ros"),
        (b"PK\x03\x04 broken", "not a readable zipped roster"),
        (
            GOLIATH.replace(b'"WS" typeId="b63f-b3e0-0943-d7a9">3+<', b'"WS" typeId="x">13+<', 1),
            r"force 'Gang' selection 'Grax Ironhide' profile 'Forge Boss'.WS: '13\+' is not a "
            r"target number from 2\+ to 12\+",
        ),
        (
            GOLIATH.replace(b">-1</characteristic>", b">+2</characteristic>", 1),
            r"Grax Ironhide: weapon 'Power hammer'.AP: '\+2' is not a whole number from -10 to 0",
        ),
        (
            GOLIATH.replace(
                b'gameSystemName="Necromunda Gang War"', b'gameSystemName="Age of Sigmar"'
            ),
            "<roster gameSystemName='Age of Sigmar'>: expected a Necromunda roster",
        ),
        (
            b'<roster xmlns="http://www.battlescribe.net/schema/rosterSchema" '
            b'gameSystemName="Necromunda"><forces/></roster>',
            "no fighter or model in it could be mapped onto necromunda-2023",
        ),
        (
            GOLIATH.replace(b'number="2" type="model"', b'number="1000000" type="model"'),
            r"selection 'Bully' number='1000000': expected 1 to 200 models in all",
        ),
        (
            GOLIATH.replace(b'number="2" type="model"', b'number="two" type="model"'),
            r"selection 'Bully' number='two': expected 1 to 200",
        ),
    ],
)
def test_bad_input_is_one_error_naming_the_element(raw: bytes, message: str) -> None:
    with pytest.raises(RosterError, match=message) as caught:
        import_battlescribe(raw, "gang.ros", "necromunda-2023", "Cy")
    assert "\n" not in str(caught.value)


def test_a_game_without_battlescribe_data_is_said_so() -> None:
    with pytest.raises(RosterError, match="asl has no BattleScribe data to import"):
        import_battlescribe(GOLIATH, "gang.ros", "asl", "Cy")


def test_bxb_roster_import_says_what_was_not_mapped_and_keeps_it(tmp_path: Path) -> None:
    db = str(tmp_path / "store.sqlite")
    assert runner.invoke(app, ["--db", db, "tournament", "new", "spring"]).exit_code == 0
    result = runner.invoke(
        app,
        ["--db", db, "roster", "import", str(FILES / "necromunda-goliath.rosz"), "-t", "spring",
         "--ruleset", "necromunda-2023", "--player", "Cy"],
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        "kept 'The Iron Fists' (Cy) for spring, version 1: 4 fighters (necromunda-2023)\n"
    )
    said = result.stderr.splitlines()
    assert said[0] == "not mapped: force 'Gang': rule 'Gang Tactics' not mapped"
    assert len(said) == 6
    refused = runner.invoke(
        app,
        ["--db", db, "roster", "import", str(FILES / "a40kc-test.ros"), "-t", "spring",
         "--ruleset", "wh40k-2e", "--player", "Bo"],
    )  # fmt: skip
    assert refused.exit_code == 1
    assert refused.stderr.startswith("error: ") and refused.stderr.count("\n") == 1
    listed = runner.invoke(app, ["--db", db, "roster", "list"]).stdout.splitlines()
    assert listed == ["spring  Cy  'The Iron Fists'  necromunda-2023  v1  4 fighters"]
    needs = runner.invoke(app, ["--db", db, "roster", "import", str(FILES / "a40kc-test.ros"),
                                "-t", "spring"])  # fmt: skip
    assert needs.exit_code == 2 and "needs --ruleset" in needs.stderr


def test_a_battlescribe_gang_meets_a_roster_file_at_a_new_table(tmp_path: Path) -> None:
    from blowbyblow.replay.engine.scenario import load_scenario

    setup = tmp_path / "table.toml"
    result = runner.invoke(
        app,
        ["--db", str(tmp_path / "s.sqlite"), "new", "--ruleset", "necromunda-2023", "--roster",
         str(FILES / "necromunda-goliath.rosz"), "--roster",
         str(FILES.parents[3] / "docs" / "rosters" / "wild-cats.json"), "--only", "grax-ironhide",
         "--only", "nyx", "-o", str(setup)],
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "not mapped: Grax Ironhide: 'Eye Injury' (Injury) not mapped" in result.stderr
    loaded = load_scenario(setup, needs_actions=False)
    assert [(f.id, f.gang) for f in loaded.setup.fighters] == [
        ("grax-ironhide", "the-iron-fists"),
        ("nyx", "the-wild-cats"),
    ]
    assert loaded.commands == []
