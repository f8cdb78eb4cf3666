"""What version 1.2 of both Necromunda systems adds: how a Hit roll passes, the last reading
version 1.1 fixed, made the ruling hit-natural-six. A battle recorded by 1.1
(``fixtures/make_1_1_records.py``) verifies byte for byte; a what-if under the other reading
diverges."""

from __future__ import annotations

from pathlib import Path

import pytest
from necro_helpers import Fight, fighter, of, run, setup

from blowbyblow.domain.necromunda import events as ev
from blowbyblow.replay.engine.registry import get_game_system

from bxbtest import diverges, reads_as_recorded

BOTH = ("necromunda-2023", "necromunda-legacy")
FIXTURES = Path(__file__).resolve().parent / "fixtures"

# a (WS 5+) turns to face b (-1) and suffers c's interference (-1)
BESET = setup(
    [
        fighter("a", "g", ws=5, vision=[]),
        fighter("b", "e", vision=["a"]),
        fighter("c", "e", vision=["a"]),
    ],
    [("a", "b"), ("a", "c")],
)
FIGHT = Fight(attacker="a", weapons=("knife",), targets=("b",), turn_to_face=["b", "c"])


@pytest.mark.parametrize("ruleset", BOTH)
def test_version_1_2(ruleset: str) -> None:
    system = get_game_system(ruleset)
    assert (system.version, system.reads_versions) == ("1.2", ("1.0", "1.1"))
    assert [(r.name, r.before) for r in system.rulings if r.since == "1.2"] == [
        ("hit-natural-six", "as-modified")
    ]


@pytest.mark.parametrize("ruleset", BOTH)
@pytest.mark.parametrize(("ruling", "hit"), [("as-modified", False), ("always-hits", True)])
def test_a_natural_six_brought_below_the_weapon_skill(ruleset: str, ruling: str, hit: bool) -> None:
    """Step 5: "A Hit roll is a Weapon Skill test made against the WS of the attacking
    fighter" (older rules: "Make a Weapon Skill test for the attacker with each Attack dice");
    "Hit rolls may be modified by +1 for each assist ... or by -1 for each enemy fighter also
    Engaging the attacker"; step 1: turning to face "causes a -1 modifier". a's natural 6, -1
    turned and -1 interference, is 4 against WS 5+: as-modified (1.1) a miss; always-hits: a
    hit, said in the note. b and c react with a 1 each (a natural 1 always misses)."""
    dice = [6, 1, 1] if not hit else [6, 3, 1, 1, 1]
    played = run(BESET, [FIGHT], dice, ruleset=ruleset, rulings={"hit-natural-six": ruling})
    first = of(played, ev.HitRolled)[0]
    assert (first.natural, first.total, first.target_number, first.hit) == (6, 4, 5, hit)
    assert first.note == ("natural 6 always hits (ruling hit-natural-six)" if hit else "")


@pytest.mark.parametrize("ruleset", BOTH)
def test_a_natural_one_misses_under_both_readings(ruleset: str) -> None:
    """ "If, when making a close combat attack, the Hit roll is a natural 1, the attack
    automatically misses, regardless of any modifiers that may apply": WS 3+ with two assists
    (+2), a natural 1 is 3 and still misses (b turns and reacts with a 1)."""
    s = setup(
        [
            fighter("a", "g", vision=["b"]),
            fighter("f1", "g", vision=["b"]),
            fighter("f2", "g", vision=["b"]),
            fighter("b", "e", vision=[]),
        ],
        [("a", "b"), ("f1", "b"), ("f2", "b")],
    )
    for ruling in ("as-modified", "always-hits"):
        played = run(
            s,
            [Fight(attacker="a", weapons=("knife",), targets=("b",))],
            [1, 1],
            ruleset=ruleset,
            rulings={"hit-natural-six": ruling},
        )
        first = of(played, ev.HitRolled)[0]
        assert (first.total, first.hit, first.note) == (3, False, "natural 1 always misses")


@pytest.mark.parametrize("ruleset", BOTH)
def test_a_battle_of_1_1_verifies_under_1_2_and_the_other_reading_changes_it(ruleset: str) -> None:
    """The battle above as 1.1 recorded it: it re-adjudicates byte for byte with 1.1's reading;
    a what-if with always-hits goes otherwise (a's 6 hits, and the wound roll it needs was
    never rolled)."""
    events = reads_as_recorded(
        FIXTURES / f"{ruleset}-1.1-natural-six.jsonl", "1.1", {"hit-natural-six": "as-modified"}
    )
    assert diverges(events, {"hit-natural-six": "always-hits"})
