"""The roster format (domain/roster.py, replay/rosters/files.py): a shipped scenario's sides,
kept as rosters and brought back to a table, give the scenario's own fighters; a roster that
does not fit its game system is refused with the entry and field named."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from blowbyblow.domain.roster import (
    Roster,
    RosterError,
    check_roster,
    roster_keys,
    setup_data,
    setup_from_rosters,
)
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.scenario import load_scenario
from blowbyblow.replay.rosters.files import read_roster, write_roster

from roster_helpers import SCENARIOS, SHIPPED, shipped_rosters


@pytest.mark.parametrize("ruleset", sorted(SHIPPED))
def test_every_system_declares_where_a_roster_goes(ruleset: str) -> None:
    system = get_game_system(ruleset)
    assert system.roster is not None
    fields = set(msgspec.structs.fields(system.setup_type) and system.setup_type.__struct_fields__)
    assert set(roster_keys(system)) <= fields


@pytest.mark.parametrize("ruleset", sorted(SHIPPED))
@pytest.mark.parametrize("kind", ["toml", "json"])
def test_a_roster_file_reads_back_to_the_same_roster(ruleset: str, kind: Any) -> None:
    for roster in shipped_rosters(ruleset):
        text = write_roster(roster, kind)
        assert read_roster(text.encode(), f"mine.{kind}") == roster


def _members(ruleset: str, setup: Any) -> dict[str, dict[str, Any]]:
    """Each fighter, model or unit of a setup by id, without its side (renamed at a table)."""
    shape = get_game_system(ruleset).roster
    assert shape is not None
    data = msgspec.to_builtins(setup)
    return {
        m["id"]: {k: v for k, v in m.items() if k != shape.side_field}
        for key in shape.members
        for m in data.get(key, [])
    }


@pytest.mark.parametrize("ruleset", sorted(SHIPPED))
def test_rosters_at_a_table_field_the_scenarios_own_fighters(ruleset: str) -> None:
    system = get_game_system(ruleset)
    shipped = load_scenario(SCENARIOS / SHIPPED[ruleset], ruleset).setup
    rosters = shipped_rosters(ruleset)
    assert len(rosters) == 2
    setup = setup_from_rosters(system, rosters)
    assert _members(ruleset, setup) == _members(ruleset, shipped)
    shape = system.roster
    assert shape is not None
    sides = {getattr(m, shape.side_field) for k in shape.members for m in getattr(setup, k)}
    assert len(sides) == 2  # each roster is a side of its own
    for shared, _ in shape.shared:  # the profiles the fighters carry come with them
        assert sorted(msgspec.to_builtins(getattr(setup, shared)), key=str) == sorted(
            msgspec.to_builtins(getattr(shipped, shared)), key=str
        )


def test_only_the_fighters_picked_take_part() -> None:
    system = get_game_system("wh40k-2e")
    rosters = shipped_rosters("wh40k-2e")
    first, second = (r.forces["models"][0]["id"] for r in rosters)
    setup = setup_from_rosters(system, rosters, only=[first, second])
    assert [m.id for m in setup.models] == [first, second]
    named = {w for m in setup.models for w in m.weapons}
    assert {w.id for w in setup.weapons} == named  # no weapon nobody carries
    with pytest.raises(RosterError, match="only: no roster has 'nobody'"):
        setup_data(system, rosters, only=[first, "nobody"])


def test_a_necromunda_gang_brings_its_name_and_tactics() -> None:
    system = get_game_system("necromunda-2023")
    goliath, escher = shipped_rosters("necromunda-2023")
    goliath = msgspec.structs.replace(goliath, side={"tactics": ["Overwhelming Force"]})
    setup = setup_from_rosters(system, [goliath, escher])
    assert [(g.name, g.tactics) for g in setup.gangs] == [
        (goliath.name, ["Overwhelming Force"]),
        (escher.name, []),
    ]


def test_asl_units_stand_in_locations_the_setup_lists() -> None:
    system = get_game_system("asl")
    setup = setup_from_rosters(system, shipped_rosters("asl"))
    assert {u.location for u in setup.units} <= {loc.id for loc in setup.locations}


def _bad(roster: Roster, **forces: Any) -> Roster:
    return msgspec.structs.replace(roster, forces={**roster.forces, **forces})


def test_what_does_not_fit_is_named() -> None:
    system = get_game_system("necromunda-2023")
    gang = shipped_rosters("necromunda-2023")[0]
    fighter = gang.forces["fighters"][0]
    cases = [
        (_bad(gang, gangs=[{"id": "x"}]), "gangs: a necromunda-2023 roster holds fighters"),
        (_bad(gang, fighters=[{**fighter, "ws": 13}]), r"fighters\[0\]\.ws: Expected `int` <= 12"),
        (_bad(gang, fighters=[{**fighter, "gang": "x"}]), r"fighters\[0\]\.gang: .*leave gang out"),
        (_bad(gang, fighters=[fighter, fighter]), r"fighters\[1\]\.id: .* is given twice"),
        (_bad(gang, fighters=[]), "fighters: the roster has no one in it"),
        (_bad(gang, fighters=[fighter] * 201), "fighters: 201 entries; expected at most 200"),
        (msgspec.structs.replace(gang, ruleset="asl"), "the roster is for 'asl'"),
    ]
    for roster, message in cases:
        with pytest.raises(RosterError, match=message):
            check_roster(system, roster)


def test_a_weapon_named_but_not_given_is_named() -> None:
    system = get_game_system("wh40k-2e")
    army = shipped_rosters("wh40k-2e")[0]
    model = {**army.forces["models"][0], "weapons": ["lascannon"]}
    with pytest.raises(
        RosterError, match=r"models\[0\] \(.*\)\.weapons: no weapons entry 'lascannon'"
    ):
        check_roster(system, _bad(army, models=[model]))


def test_two_rosters_with_the_same_fighter_id_are_refused_at_the_table() -> None:
    system = get_game_system("necromunda-2023")
    goliath, escher = shipped_rosters("necromunda-2023")
    twin = _bad(escher, fighters=[*escher.forces["fighters"], goliath.forces["fighters"][0]])
    with pytest.raises(RosterError, match=r"is in .House Goliath. .* rename one"):
        setup_from_rosters(system, [goliath, twin])


def test_two_rosters_differing_on_one_weapon_id_are_refused_at_the_table() -> None:
    system = get_game_system("wh40k-2e")
    first, second = shipped_rosters("wh40k-2e")
    weapon = first.forces["weapons"][0]
    model = {**second.forces["models"][0], "weapons": [weapon["id"]]}
    other = {**weapon, "strength": 9}
    second = _bad(second, models=[model], weapons=[*second.forces.get("weapons", []), other])
    with pytest.raises(RosterError, match=f"weapons: '{weapon['id']}' differs between"):
        setup_from_rosters(system, [first, second])


@pytest.mark.parametrize(
    ("raw", "name", "message"),
    [
        (b"ruleset = ", "a.toml", "a.toml: not valid TOML"),
        (b"[1, 2]", "a.json", "a.json: expected a table of roster keys"),
        (b'{"ruleset": "asl"', "a.json", "a.json: not valid JSON"),
        (b"\xff\xfe", "a.toml", "a.toml: not UTF-8 text"),
        (b"x" * (1024 * 1024 + 1), "a.toml", "larger than 1024 KiB"),
        (b'ruleset = "chess"\nname = "a"\nplayer = "b"', "a.toml", "chess"),
        (b'ruleset = "asl"\nplayer = "b"', "a.toml", "a.toml: roster: .*`name`"),
        (
            b'ruleset = "asl"\nname = ""\nplayer = "b"',
            "a.toml",
            r"a.toml: name: Expected `str` of length >= 1",
        ),
        (
            b'ruleset = "asl"\nname = "a"\nplayer = "b"\nunits = 3',
            "a.toml",
            r"a.toml: units: expected a list of tables \(\[\[units\]\]\)",
        ),
    ],
)
def test_a_roster_file_that_does_not_fit_gets_one_error(
    raw: bytes, name: str, message: str
) -> None:
    with pytest.raises(RosterError, match=message):
        read_roster(raw, name)
