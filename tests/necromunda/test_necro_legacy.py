"""necromunda-legacy: the older close-combat rules, sharing the 2023 procedure and differing
where the books differ. Driven by listed dice; the same scenarios played under both rulesets."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from necro_helpers import (
    PISTOL,
    Barricade,
    Charge,
    Engagement,
    Fight,
    fighter,
    load_scenario,
    of,
    one,
    one_against_two,
    run,
    setup,
    vehicle_and_interferer,
)
from necro_random import Battle, battles, check_battle

from blowbyblow.domain.core import ChoiceMade, RuleViolation
from blowbyblow.domain.necromunda import events as ev
from blowbyblow.domain.necromunda.state import OUT_OF_ACTION, PRONE_PINNED
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play

SCENARIOS = Path(__file__).resolve().parents[2] / "cli" / "scenarios"
LEGACY = "necromunda-legacy"


def mods(e: ev.HitRolled) -> list[tuple[int, str]]:
    return [(m.value, m.cause) for m in e.modifiers]


def test_legacy_demo_shows_every_step() -> None:
    played = play(get_game_system(LEGACY).demo())
    es = played.events
    kinds = {type(e).__name__ for e in es}
    assert es[0].ruleset == LEGACY  # type: ignore[attr-defined]
    assert {"Charged", "AssistClaimed", "InterferenceApplied", "InjuryRolled"} <= kinds
    assert {"ReactionAttacksBegun", "AmmoChecked", "NerveTested"} <= kinds
    assert any(isinstance(e, ev.WeaponsChosen) and len(e.weapons) == 2 for e in es)
    assert any(isinstance(e, ev.SaveRolled) and e.saved for e in es)
    assert any(isinstance(e, ev.HitRolled) and e.hit and e.attacker == "lia" for e in es)
    assert "CoupDeGrace" in kinds or "Consolidated" in kinds
    # YAQ: no second Nerve test for Zia when the free Coup de Grace finishes Lia
    assert [e.cause for e in es if isinstance(e, ev.NerveTested) and e.fighter == "zia"] == [
        "lia was Seriously Injured"
    ]
    skipped = [e for e in es if isinstance(e, ev.NerveTestSkipped)]
    assert [(e.fighter, e.cause) for e in skipped] == [("zia", "lia went Out of Action")]
    assert all(e.rule.startswith("N17 ") for e in es if isinstance(e, ev.RuleEvent))  # type: ignore[attr-defined]


def test_same_scenario_file_under_both_rulesets_shows_the_differences() -> None:
    """cli/scenarios/necromunda-2023.toml recorded under each ruleset, same seed: the same dice
    (keyed by roll), different rules. Grax charges Prone & Pinned Nyx, unseen, across a low pipe."""
    n23 = play(load_scenario(SCENARIOS / "necromunda-2023.toml", "necromunda-2023"))
    old = play(load_scenario(SCENARIOS / "necromunda-2023.toml", LEGACY))
    assert n23.events[0].ruleset == "necromunda-2023"  # type: ignore[attr-defined]
    assert old.events[0].ruleset == LEGACY  # type: ignore[attr-defined]
    first_n23 = next(e for e in n23.events if isinstance(e, ev.HitRolled))
    first_old = next(e for e in old.events if isinstance(e, ev.HitRolled))
    assert first_n23.natural == first_old.natural  # same die, same key
    # 2023: -1 for the free Fight after charging a fighter out of line of sight; no barricade
    # modifier. Older rules: -1 for attacking through a barricade; nothing for line of sight.
    assert mods(first_n23) == [(-1, "free Fight after charging out of line of sight")]
    assert mods(first_old) == [(-1, "attacking through a barricade (pipe)")]
    # 2023: the charged Prone & Pinned fighter counts as having turned to face
    assert any(isinstance(e, ev.TurnedToFace) and e.counted for e in n23.events)
    assert not any(isinstance(e, ev.TurnedToFace) and e.counted for e in old.events)
    # older rules: the stub gun rolls its Firepower dice for ammo
    assert of(old, ev.AmmoChecked) and not of(n23, ev.AmmoChecked)
    rules_n23 = {e.rule.split()[0] for e in n23.events if isinstance(e, ev.RuleEvent)}  # type: ignore[attr-defined]
    rules_old = {e.rule.split()[0] for e in old.events if isinstance(e, ev.RuleEvent)}  # type: ignore[attr-defined]
    assert (rules_n23, rules_old) == ({"N23"}, {"N17"})


def test_legacy_scenario_file_plays() -> None:
    scenario = load_scenario(SCENARIOS / "necromunda-legacy.toml")
    assert scenario.ruleset == LEGACY
    played = play(scenario)
    assert of(played, ev.Charged)


def test_barricade_and_vehicle_modifiers() -> None:
    low = Barricade(id="low", width=0.5)
    s = setup(
        [fighter("a", "g", vision=["b"]), fighter("b", "e", vision=["a"])],
        [Engagement(a="a", b="b", across="low")],
        [low],
    )
    cmd = Fight(attacker="a", targets=("b",))
    old = run(s, [cmd], [3, 1, 1], ruleset=LEGACY)
    assert mods(of(old, ev.HitRolled)[0]) == [(-1, "attacking through a barricade (low)")]
    assert not of(old, ev.HitRolled)[0].hit
    n23 = run(s, [cmd], [3, 1, 1])
    assert mods(of(n23, ev.HitRolled)[0]) == [] and of(n23, ev.HitRolled)[0].hit
    # a vehicle: +1, and no interference at all under the older rules
    sv = vehicle_and_interferer()
    cmd = Fight(attacker="a", targets=("v",))
    assert mods(of(run(sv, [cmd], [6, 1, 1], ruleset=LEGACY), ev.HitRolled)[0]) == [
        (1, "attacking a vehicle")
    ]
    assert sorted(mods(of(run(sv, [cmd], [6, 1, 1]), ev.HitRolled)[0])) == [
        (-1, "interference by i"),
        (1, "attacking a vehicle"),
    ]


def test_assists_exclude_helpers_engaged_with_any_other_enemy() -> None:
    """2023: 'not engaged with any other fighters from the same gang as the target'; older:
    'not Engaged with any other enemy fighters'. A helper also fighting a third gang differs."""
    s = setup(
        [
            fighter("a", "g", vision=["t"]),
            fighter("h", "g"),
            fighter("x", "z"),
            fighter("t", "e", vision=["a"]),
        ],
        [("a", "t"), ("h", "t"), ("h", "x")],
    )
    cmd = Fight(attacker="a", targets=("t",))
    assert [
        e.assisting for e in of(run(s, [cmd], [1, 1]), ev.AssistClaimed) if e.attacker == "a"
    ] == ["h"]
    assert [
        e for e in of(run(s, [cmd], [1, 1], ruleset=LEGACY), ev.AssistClaimed) if e.attacker == "a"
    ] == []


def test_reaction_target_ruling_n17_improved() -> None:
    """r reacts to a; it also engages c (in its arc). Main text: the player may pick c. The N17
    improved variant: Reaction attacks must target the attacker."""
    s = setup(
        [
            fighter("a", "g", vision=["r"]),
            fighter("c", "g"),
            fighter("r", "e", vision=["a", "c"]),
        ],
        [("a", "r"), ("c", "r")],
    )
    cmd = Fight(attacker="a", targets=("r",))
    free = run(s, [cmd], [1, 1], ruleset=LEGACY, choices={"react/r/target": "c"})
    asked = [c for c in of(free, ChoiceMade) if c.key == "c1/react/r/target"]
    assert asked and asked[0].options == ("a", "c")
    assert [h.target for h in of(free, ev.HitRolled) if h.attacker == "r"] == ["c"]
    strict = run(
        s,
        [cmd],
        [1, 1],
        ruleset=LEGACY,
        choices={"react/r/target": "c"},
        rulings={"reaction-target": "attacker-only"},
    )
    assert not [c for c in of(strict, ChoiceMade) if c.key == "c1/react/r/target"]
    assert [h.target for h in of(strict, ev.HitRolled) if h.attacker == "r"] == ["a"]
    # when the attacker is not in the reactor's arc and it does not turn: no Reaction attacks
    s2 = setup(
        [fighter("a", "g", vision=["r"]), fighter("c", "g"), fighter("r", "e", vision=["c"])],
        [("a", "r"), ("c", "r")],
    )
    none = run(
        s2,
        [cmd],
        [1],
        ruleset=LEGACY,
        rulings={"reaction-target": "attacker-only"},
        choices={"react/r/turn": "do-not-turn"},
    )
    assert "must target the attacker" in one(none, ev.ReactionForgone).reason


def test_step8_conditions_differ() -> None:
    """a engaged with b and c; b goes Out of Action, c Seriously Injured. 2023: only consolidate
    (not every enemy is Seriously Injured). Older: no longer Engaged, so Coup de Grace on c too."""
    s, cmd = one_against_two()
    dice = [
        4,
        4,
        4,
        6,
        4,
        4,
    ]  # hits (each -1 interference), b: wound, OOA; c: wound, Serious Injury
    n23 = run(s, [cmd], dice, rulings={"nerve-tests": "off"})
    assert next(c for c in of(n23, ChoiceMade) if c.key == "c1/step8").options == (
        "consolidate",
        "none",
    )
    old = run(s, [cmd], dice, ruleset=LEGACY, rulings={"nerve-tests": "off"})
    assert next(c for c in of(old, ChoiceMade) if c.key == "c1/step8").options == (
        "coup-de-grace",
        "consolidate",
        "none",
    )
    assert one(old, ev.CoupDeGrace).target == "c"
    assert old.state.fighters["c"].status == OUT_OF_ACTION


def test_yaq_no_second_nerve_test_after_a_free_coup_de_grace() -> None:
    s = setup(
        [fighter("a", "g", vision=["b"]), fighter("b", "e", vision=["a"]), fighter("f", "e", cl=6)],
        [("a", "b")],
        within_3=[("b", "f")],
    )
    cmd = Fight(attacker="a", targets=("b",))
    # hit 3, wound 4, injury 4 (Serious Injury): f's Nerve test 3+4 = 7 (passed); then the free
    # Coup de Grace takes b Out of Action.
    old = run(s, [cmd], [3, 4, 4, 3, 4], ruleset=LEGACY)
    assert len(of(old, ev.NerveTested)) == 1
    skipped = one(old, ev.NerveTestSkipped)
    assert (skipped.fighter, skipped.rule) == ("f", "N17 CC 8 YAQ")
    # 2023 (no such note): f tests again for b going Out of Action
    n23 = run(s, [cmd], [3, 4, 4, 3, 4, 5, 5])
    assert [t.cause for t in of(n23, ev.NerveTested)] == [
        "b was Seriously Injured",
        "b went Out of Action",
    ]
    # the ruling off: as written
    again = run(
        s,
        [cmd],
        [3, 4, 4, 3, 4, 5, 5],
        ruleset=LEGACY,
        rulings={"nerve-after-coup-de-grace": "test"},
    )
    assert len(of(again, ev.NerveTested)) == 2


def test_pistols_roll_firepower_dice_for_ammo() -> None:
    s = setup(
        [fighter("a", "g", weapons=[PISTOL], vision=["b"]), fighter("b", "e", vision=["a"])],
        [("a", "b")],
    )
    cmd = Fight(attacker="a", weapons=("pistol",), targets=("b",))
    # hit roll 1 (a miss); Firepower dice 6 = the ammo symbol; Ammo check 3 < 4+: out of ammo;
    # b reacts with a 1
    played = run(s, [cmd], [1, 6, 3, 1], ruleset=LEGACY)
    check = one(played, ev.AmmoChecked)
    assert (check.firepower_natural, check.ammo_symbol, check.natural, check.out_of_ammo) == (
        6,
        True,
        3,
        True,
    )
    assert played.state.fighters["a"].weapon("pistol").out_of_ammo
    with pytest.raises(RuleViolation, match="out of ammo"):
        run(s, [cmd, cmd], [1, 6, 3, 1, 1, 1], ruleset=LEGACY)
    # a passed Ammo check, and the 2023 rules (no Firepower dice in close combat)
    ok = run(s, [cmd], [1, 6, 5, 1], ruleset=LEGACY)
    assert not one(ok, ev.AmmoChecked).out_of_ammo
    assert of(run(s, [cmd], [1, 1]), ev.AmmoChecked) == []


def test_charged_prone_fighter_and_out_of_sight_under_the_older_rules() -> None:
    s = setup([fighter("a", "g", vision=[]), fighter("b", "e", status=PRONE_PINNED, vision=[])], [])
    cmd = Charge(attacker="a", targets=["b"], out_of_sight=("b",))
    # free Fight: 2 dice (2, 2: misses, no -1 for line of sight); b stands up, does not count as
    # having turned, so it is asked to turn (yes): -1; it hits on a 6, fails to wound on a 1
    old = run(s, [cmd], [2, 2, 6, 1], ruleset=LEGACY)
    assert [mods(h) for h in of(old, ev.HitRolled) if h.attacker == "a"] == [[], []]
    assert any(c.key == "c1/react/b/turn" for c in of(old, ChoiceMade))
    turned = one(old, ev.TurnedToFace)
    assert (turned.fighter, turned.counted) == ("b", False)
    b_hit = next(h for h in of(old, ev.HitRolled) if h.attacker == "b")
    assert mods(b_hit) == [(-1, "turned to face")]
    changed = next(e for e in of(old, ev.StatusChanged) if e.fighter == "b")
    assert changed.rule == "N17 Charge (errata)"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(battles(LEGACY))
def test_random_legacy_battles_replay_to_the_live_state(data: Battle) -> None:
    check_battle(LEGACY, data)


def test_one_setup_type_for_both() -> None:
    a, b = get_game_system("necromunda-2023"), get_game_system(LEGACY)
    assert a.setup_type is b.setup_type and a.command_types == b.command_types
    assert a.state_type is b.state_type
    demo = msgspec.structs.replace(b.demo(), ruleset="necromunda-2023", rulings={})
    assert play(demo).events[0].ruleset == "necromunda-2023"  # type: ignore[attr-defined]
