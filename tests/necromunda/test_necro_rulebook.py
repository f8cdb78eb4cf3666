"""Citations: every rule reference an event or a ruling carries reads as a section of the
system's own rulebook, and nothing cites anything but the published books."""

from __future__ import annotations

import re

import pytest
from necro_helpers import (
    SCENARIOS,
    Engagement,
    NecroScenario,
    Vehicle,
    fighter,
    load_scenario,
    setup,
)

from blowbyblow.domain.core import RuleEvent
from blowbyblow.domain.necromunda.commands import GrantedAttack, LeaveEngagement, NecromundaCommand
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play

SYSTEMS = ("necromunda-2023", "necromunda-legacy")
# a file of the repository's surroundings, or a source key of it ("N3"; the books are N17, N23)
NOT_A_CITATION = re.compile(r"FACTS|seed|shared/|\[[UCS]\]|\bN([1-9]|1[01])\b")


@pytest.mark.parametrize("ruleset_id", SYSTEMS)
def test_every_ruling_cites_a_section_of_its_book(ruleset_id: str) -> None:
    rs = get_game_system(ruleset_id)
    for ruling in rs.rulings:
        assert rs.rulebook.section(ruling.rule) != ruling.rule, ruling.name
        assert ruling.note, ruling.name
        for text in (ruling.summary, ruling.note, ruling.rule, rs.rulebook.cite(ruling.rule)):
            assert not NOT_A_CITATION.search(text.replace(ruling.rule, "")), (ruling.name, text)
    assert not NOT_A_CITATION.search(rs.rulebook.title + rs.title)


@pytest.mark.parametrize("ruleset_id", SYSTEMS)
def test_unconfirmed_values_say_so(ruleset_id: str) -> None:
    rs = get_game_system(ruleset_id)
    unconfirmed = {r.name for r in rs.rulings if r.note.startswith("unconfirmed:")}
    assert {"vehicle-location-faces"} <= unconfirmed
    if ruleset_id == "necromunda-legacy":
        assert {"firepower-ammo-face", "wound-chart", "flesh-wound-effect"} <= unconfirmed
    else:
        assert "coup-de-grace-effect" in unconfirmed


@pytest.mark.parametrize("ruleset_id", SYSTEMS)
def test_every_rule_an_event_cites_reads_as_a_section(ruleset_id: str) -> None:
    rs = get_game_system(ruleset_id)
    rules: set[str] = set()
    for scenario in (rs.demo(), load_scenario(SCENARIOS / "necromunda-2023.toml", ruleset_id)):
        rules |= {e.rule for e in play(scenario).events if isinstance(e, RuleEvent)}
    assert len(rules) > 15
    for rule in rules:
        assert rs.rulebook.section(rule) != rule, rule


@pytest.mark.parametrize("ruleset_id", SYSTEMS)
def test_the_rules_the_1_1_commands_cite_read_as_sections(ruleset_id: str) -> None:
    """A vehicle leaving engagement (Location dice applied, a friend's Nerve test when it is
    Wrecked) and an attack a skill grants: every rule they cite is a section of the book."""
    rs = get_game_system(ruleset_id)
    s = setup(
        [
            fighter("a", "g", i=2, vision=["v", "b"], skills=["Counter-attack"]),
            fighter("b", "e", vision=["a"]),
            fighter("v", "e", weapons=[], vehicle=Vehicle(**{**_HULL, "hull_points": 1})),
            fighter("d", "e"),
        ],
        [Engagement(a="a", b="v", facing="front"), Engagement(a="a", b="b")],
        within_6=[["v", "d"]],
    )
    commands: list[NecromundaCommand] = [
        LeaveEngagement(vehicle="v"),
        GrantedAttack(attacker="a", granted_by="Counter-attack"),
    ]
    played = play(
        NecroScenario(
            ruleset=ruleset_id, label="t", setup=s, commands=commands, dice=[6] * 9 + [1] * 20
        )
    )
    kinds = {type(e).__name__ for e in played.events}
    assert {
        "VehicleLeavesEngagement",
        "InitiativeTested",
        "VehicleDamaged",
        "AttackGranted",
    } <= kinds
    assert "NerveTested" in kinds
    for rule in {e.rule for e in played.events if isinstance(e, RuleEvent)}:
        assert rs.rulebook.section(rule) != rule, rule


_HULL = {"toughness_front": 3, "toughness_side": 3, "toughness_rear": 3, "hull_points": 1}


def test_sections_in_words() -> None:
    n23 = get_game_system("necromunda-2023").rulebook
    old = get_game_system("necromunda-legacy").rulebook
    assert (
        n23.cite("N23 CC 5")
        == "Necromunda Core Rulebook (2023), Close Combat, step 5 (Make Hit Rolls)"
    )
    assert n23.section("N23 Resolve Hits 1") == "Resolving Hits, step 1 (Wound Roll)"
    assert old.section("N17 CC 2") == "Close Combat, step 2 (Pick Weapons)"
    assert old.section("N17 CC 7 improved").endswith("box: N17 (improved version)")
    # a reference of the other book, or none it knows, reads as written
    assert n23.section("N17 CC 5") == "N17 CC 5" and old.section("A11.4") == "A11.4"
