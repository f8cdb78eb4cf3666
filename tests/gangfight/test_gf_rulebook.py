"""Citations: every reference an event or a ruling carries reads as a section of the published
Gangfight rules, and no ruling points anywhere else."""

from __future__ import annotations

import pytest

from blowbyblow.domain.core import RuleEvent, Ruling
from blowbyblow.domain.gangfight.rulebook import RULEBOOK
from blowbyblow.domain.gangfight.rulings import RULINGS
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play

# Every reference the rules emit (events and refusals).
REFERENCES = [
    *(f"GF Melee {n}" for n in range(1, 7)),
    "GF Incapacitation",
    "GF Power Attacks",
    "GF Finesse Attacks",
    "GF Two Weapons",
    "GF Falling",
    "GF Free Strikes",
    "GF Slam!",
    "GF Trample",
    "GF Knocked Down",
    "G2 Action Points",
    "G2 Move",
    *(f"GF Ranged {n}" for n in range(1, 10)),
    "GF Ranged Combat",
    "GF Area of Effect",
    "GF Direct Area of Effect",
    "GF Indirect Area of Effect",
    "GF Cover",
    "GF Soft Cover",
    "GF Hard Cover",
    "GF Charge!",
    "GF Reload",
]


@pytest.mark.parametrize("rule", REFERENCES)
def test_every_reference_reads_as_a_section(rule: str) -> None:
    words = RULEBOOK.section(rule)
    assert words != rule
    assert "GF" not in words and "G2" not in words
    assert words.startswith(("Combat, ", "Actions and Action Points"))


def test_sections_in_words() -> None:
    assert RULEBOOK.section("G2 Move") == "Actions and Action Points, Move"
    assert RULEBOOK.section("GF Trample") == "Combat, Slam! (the Trample paragraphs)"
    assert RULEBOOK.section("GF Two Weapons") == "Combat, Attacking with Two Weapons"
    assert RULEBOOK.cite("GF Melee 4").startswith(
        "Gangfight rules (gangfightgames.com), Combat, Melee Combat, step 4 (the Armour roll"
    )
    assert RULEBOOK.section("GF Melee 7") == "GF Melee 7"  # no such step: as written
    assert RULEBOOK.section("GF Ranged 9") == (
        "Combat, Ranged Combat, step 9 (the rest off Endurance; 0 or less is Incapacitated)"
    )
    assert RULEBOOK.section("GF Ranged 10") == "GF Ranged 10"
    assert RULEBOOK.section("GF Soft Cover") == "Combat, Cover, Soft Cover"
    assert RULEBOOK.section("GF Charge!") == "Actions and Action Points, Charge!"


def test_every_event_of_the_example_scenario_cites_a_known_reference() -> None:
    """The example scenario (melee, shooting, an Area of Effect, a charge) cites only the
    references above."""
    from test_gf_scenario import SCENARIO, load

    played = play(load(SCENARIO))
    cited = {e.rule for e in played.events if isinstance(e, RuleEvent)}
    assert cited <= set(REFERENCES), cited - set(REFERENCES)
    assert {"GF Ranged 2", "GF Charge!", "GF Indirect Area of Effect"} <= cited


def test_the_demo_cites_only_known_references() -> None:
    played = play(get_game_system("gangfight").demo())
    cited = {e.rule for e in played.events if isinstance(e, RuleEvent)}
    assert cited <= set(REFERENCES)
    assert "G2 Move" in cited


@pytest.mark.parametrize("ruling", RULINGS, ids=lambda r: r.name)
def test_rulings_cite_the_rules_and_say_why(ruling: Ruling) -> None:
    assert RULEBOOK.section(ruling.rule) != ruling.rule
    assert ruling.note
    for text in (ruling.summary, ruling.note, ruling.rule):
        for forbidden in ("FACTS", "seed", "shared/", "[U]", "[S]"):
            assert forbidden not in text, (ruling.name, forbidden)


def test_unconfirmed_values_say_so() -> None:
    unconfirmed = {r.name for r in RULINGS if r.note.startswith("unconfirmed:")}
    assert unconfirmed == {
        "action-points",
        "special-action-cost",
        "dodge-tn",
        "charge-action",
        "shoot-action",
        "area-action",
        "reload-action",
        "charge-within-reach",
    }
