"""N23 CC 1-5: turn to face, weapons, attack dice, targets, hit rolls and every hit modifier,
driven by listed dice."""

from __future__ import annotations

import pytest
from necro_helpers import (
    AXE,
    CLUB,
    KNIFE,
    MAUL,
    PISTOL,
    PISTOL2,
    RIFLE,
    Allocation,
    Charge,
    Fight,
    fighter,
    of,
    one,
    one_against_two,
    run,
    setup,
)

from blowbyblow.domain.core import ChoiceMade, RuleViolation
from blowbyblow.domain.necromunda.events import (
    AssistClaimed,
    AttackDiceAllocated,
    HitRolled,
    InterferenceApplied,
    ReactionAttacksBegun,
    StatusChanged,
    TurnedToFace,
    WeaponDice,
    WeaponsChosen,
    WoundRolled,
)
from blowbyblow.domain.necromunda.state import OUT_OF_ACTION, PRONE_PINNED, STANDING_ENGAGED


def mods(e: HitRolled) -> list[int]:
    return [m.value for m in e.modifiers]


def test_seed_example_broken_and_turn_to_face_is_minus_3() -> None:
    """N23 CC 1: 'if a fighter that is Broken turns to face before making a Reaction attack, they
    will suffer a -3 modifier to their Hit rolls'."""
    s = setup(
        [fighter("a", "g", vision=["b"]), fighter("b", "e", broken=True, vision=[])],
        [("a", "b")],
    )
    # a: one hit roll (2, a miss); b reacts: turns to face (asked, default yes), rolls a 5.
    played = run(s, [Fight(attacker="a", targets=("b",))], [2, 5])
    turned = one(played, TurnedToFace)
    assert turned.fighter == "b" and not turned.counted
    reaction = [h for h in of(played, HitRolled) if h.attacker == "b"]
    assert len(reaction) == 1
    assert sorted(mods(reaction[0])) == [-2, -1]
    assert sum(mods(reaction[0])) == -3
    assert reaction[0].total == 2 and not reaction[0].hit


def test_broken_penalty_only_on_reaction_attacks() -> None:
    s = setup(
        [fighter("a", "g", vision=["b"]), fighter("b", "e", vision=["a"], broken=True)],
        [("a", "b")],
    )
    # a Broken fighter does not Fight (it must Run for Cover)
    with pytest.raises(RuleViolation, match="Broken"):
        run(s, [Fight(attacker="b", targets=("a",))], [6, 6])
    # reacting without turning (a is in its arc): only the -2
    played = run(s, [Fight(attacker="a", targets=("b",))], [2, 6, 1])
    reaction = next(h for h in of(played, HitRolled) if h.attacker == "b")
    assert mods(reaction) == [-2] and reaction.total == 4 and reaction.hit


def test_turn_to_face_is_minus_1_and_needed_for_targets_outside_the_arc() -> None:
    s = setup([fighter("a", "g", vision=[]), fighter("b", "e", vision=["a"])], [("a", "b")])
    with pytest.raises(RuleViolation, match="CC 4"):
        run(s, [Fight(attacker="a", targets=("b",))], [6])
    played = run(s, [Fight(attacker="a", targets=("b",), turn_to_face=["b"])], [4, 1, 1])
    first = of(played, HitRolled)[0]
    assert first.attacker == "a" and mods(first) == [-1]
    assert first.total == 3 and first.hit
    assert played.state.vision["a"] == ("b",)


def test_natural_1_always_misses_whatever_the_modifiers() -> None:
    s = setup(
        [
            fighter("a", "g", ws=2, vision=["t"]),
            fighter("h1", "g"),
            fighter("h2", "g"),
            fighter("t", "e", vision=["a"]),
        ],
        [("a", "t"), ("h1", "t"), ("h2", "t")],
    )
    played = run(s, [Fight(attacker="a", targets=("t",))], [1, 1])
    hit = of(played, HitRolled)[0]
    assert mods(hit) == [1, 1]
    assert hit.natural == 1 and hit.total == 3 and hit.total >= hit.target_number
    assert not hit.hit


def test_assists_and_interference_by_the_seeds_exact_definitions() -> None:
    """Assist: a friend engaged with the target and not with any other fighter of the target's
    gang. Interference: an enemy (not the target) engaged with the attacker and not with any
    other fighter of the attacker's gang."""
    s = setup(
        [
            fighter("a", "g", vision=["t"]),
            fighter("h1", "g"),  # engaged with t only: assists
            fighter("h2", "g"),  # also engaged with t2 of the target's gang: no assist
            fighter("h3", "g"),  # also engaged with x of a third gang: still assists (N23)
            fighter("h4", "g"),
            fighter("t", "e", vision=["a"]),
            fighter("t2", "e"),
            fighter("x", "z"),
            fighter("i1", "e", vision=["a"]),  # engaged with a only: interferes
            fighter("i2", "e", vision=["a"]),  # also engaged with h4 of a's gang: no interference
            fighter("i3", "z", vision=["a"]),  # a third gang, engaged with a only: interferes
        ],
        [
            ("a", "t"),
            ("h1", "t"),
            ("h2", "t"),
            ("h2", "t2"),
            ("h3", "t"),
            ("h3", "x"),
            ("a", "i1"),
            ("a", "i2"),
            ("i2", "h4"),
            ("a", "i3"),
        ],
    )
    played = run(s, [Fight(attacker="a", targets=("t",))], [4] + [1] * 12)
    assert {e.assisting for e in of(played, AssistClaimed) if e.attacker == "a"} == {"h1", "h3"}
    assert {e.interfering for e in of(played, InterferenceApplied) if e.attacker == "a"} == {
        "i1",
        "i3",
    }
    # in t's Reaction attacks on a, i1 (engaged with a only) assists t
    assert {e.assisting for e in of(played, AssistClaimed) if e.attacker == "t"} == {"i1"}
    hit = of(played, HitRolled)[0]
    assert sorted(mods(hit)) == [-1, -1, 1, 1] and hit.total == 4
    # every enemy still Standing & Engaged with the attacker makes Reaction attacks
    begun = one(played, ReactionAttacksBegun)
    assert set(begun.reactors) == {"t", "i1", "i2", "i3"}


def test_modifiers_are_cumulative() -> None:
    s = setup(
        [
            fighter("a", "g", vision=[]),
            fighter("h", "g"),
            fighter("t", "e", vision=["a"]),
            fighter("i", "e", vision=["a"]),
            fighter("j", "e", vision=["a"]),
        ],
        [("a", "t"), ("h", "t"), ("a", "i"), ("a", "j")],
    )
    played = run(s, [Fight(attacker="a", targets=("t",), turn_to_face=["t"])], [5] + [1] * 10)
    hit = of(played, HitRolled)[0]
    assert sorted(mods(hit)) == [-1, -1, -1, 1]  # turned, two interferences, one assist
    assert hit.total == 3 and hit.hit


def test_charging_a_prone_pinned_fighter() -> None:
    """It becomes Standing & Engaged and counts as having turned to face for its Reaction
    attacks (ruling charged-prone-reaction=counts-as-turned)."""
    s = setup([fighter("a", "g", vision=[]), fighter("b", "e", status=PRONE_PINNED, vision=[])], [])
    cmd = Charge(attacker="a", targets=["b"])
    # free Fight: A1 +1 charging = 2 dice, both miss; b reacts (no question, counts as turned): 6
    played = run(s, [cmd], [2, 2, 6, 1])
    changed = next(e for e in of(played, StatusChanged) if e.fighter == "b")
    assert (changed.before, changed.after) == (PRONE_PINNED, STANDING_ENGAGED)
    assert one(played, TurnedToFace).counted
    assert not [c for c in of(played, ChoiceMade) if c.key.endswith("react/b/turn")]
    reaction = next(h for h in of(played, HitRolled) if h.attacker == "b")
    assert mods(reaction) == [-1] and reaction.total == 5 and reaction.hit
    # the mark is used up by its Reaction attacks
    assert not played.state.fighters["b"].counts_as_turned
    # the other reading: the charger is in its arc but no -1
    other = run(s, [cmd], [2, 2, 6, 1], rulings={"charged-prone-reaction": "faces-only"})
    assert mods(next(h for h in of(other, HitRolled) if h.attacker == "b")) == []


def test_a_charged_prone_fighter_taken_out_of_action_keeps_no_mark() -> None:
    """A charged Prone & Pinned fighter "counts as having turned to face" for its Reaction
    attacks; taken Out of Action by the free Fight, it makes none, and the mark goes with it."""
    s = setup([fighter("a", "g", vision=[]), fighter("b", "e", status=PRONE_PINNED, vision=[])], [])
    # free Fight: 2 dice hit (6, 6), wound on 6, no save; one Injury die 6: Out of Action
    played = run(s, [Charge(attacker="a", targets=["b"])], [6, 6, 6, 6, 6, 6, 6, 6])
    b = played.state.fighters["b"]
    assert b.status == OUT_OF_ACTION
    assert one(played, TurnedToFace).counted
    assert not b.counts_as_turned


def test_free_fight_after_charging_out_of_sight_is_minus_1_once() -> None:
    s = setup([fighter("a", "g", vision=[]), fighter("b", "e", vision=["a"])], [])
    played = run(
        s,
        [
            Charge(attacker="a", targets=["b"], out_of_sight=("b",)),
            Fight(attacker="a", targets=("b",)),
        ],
        [3, 3, 1, 3, 1, 1],
    )
    first = [h for h in of(played, HitRolled) if h.attacker == "a"]
    assert [mods(h) for h in first] == [[-1], [-1], []]
    assert [h.hit for h in first] == [False, False, True]
    # the charger's +1 Attack die for charging, only on the free Fight
    dice = [e for e in of(played, AttackDiceAllocated) if e.fighter == "a"]
    assert [d.total for d in dice] == [2, 1]
    assert [m.cause for m in dice[0].modifiers] == ["charging"]


def test_choose_weapons_limits() -> None:
    s = setup(
        [
            fighter("a", "g", weapons=[KNIFE, AXE, PISTOL, MAUL, RIFLE], vision=["b"]),
            fighter("b", "e", vision=["a"]),
        ],
        [("a", "b")],
    )
    for weapons, match in [
        (("knife", "axe", "pistol"), "at most two"),
        (("maul", "knife"), "Unwieldy"),
        (("rifle",), "neither the Melee nor the Sidearm"),
        (("sword",), "no weapon"),
    ]:
        with pytest.raises(RuleViolation, match=match):
            run(s, [Fight(attacker="a", weapons=weapons, targets=("b",))], [6] * 10)
    played = run(s, [Fight(attacker="a", weapons=("maul",), targets=("b",))], [1, 1])
    assert of(played, WeaponsChosen)[0].weapons == ["maul"]


def test_unarmed_attacks_use_unmodified_strength_no_ap_damage_1() -> None:
    s = setup(
        [fighter("a", "g", s=5, weapons=[], vision=["b"]), fighter("b", "e", save=4, vision=[])],
        [("a", "b")],
    )
    # hit 4, wound 3 (S5 vs T3: 3+), save 3 (fails: no AP), injury 1 (Flesh Wound); b reacts:
    # asked to turn (yes), its knife misses on a 1.
    played = run(s, [Fight(attacker="a", targets=("b",))], [4, 3, 3, 1, 1])
    assert next(e.weapons for e in of(played, WeaponsChosen)) == ["unarmed"]
    wound = next(w for w in of(played, WoundRolled) if w.attacker == "a")
    assert (wound.strength, wound.target_number, wound.wounded) == (5, 3, True)


def test_attack_dice_dual_weapons_charging_and_pistols_at_close_quarters() -> None:
    a = fighter("a", "g", a=2, weapons=[KNIFE, PISTOL, AXE, PISTOL2], vision=[])
    s = setup([a, fighter("b", "e", vision=["a"])], [])
    played = run(s, [Charge(attacker="a", targets=["b"], weapons=("knife", "pistol"))], [1] * 12)
    alloc = next(e for e in of(played, AttackDiceAllocated) if e.fighter == "a")
    assert alloc.total == 4
    assert [m.cause for m in alloc.modifiers] == ["dual weapons", "charging"]
    assert alloc.split == [WeaponDice(weapon="knife", dice=3), WeaponDice(weapon="pistol", dice=1)]
    # two Sidearms: one die each, the rest unarmed
    a3 = fighter("a", "g", a=3, weapons=[PISTOL, PISTOL2], vision=["b"])
    s2 = setup([a3, fighter("b", "e", vision=["a"])], [("a", "b")])
    played = run(s2, [Fight(attacker="a", weapons=("pistol", "pistol2"), targets=("b",))], [1] * 12)
    alloc = next(e for e in of(played, AttackDiceAllocated) if e.fighter == "a")
    assert [(d.weapon, d.dice) for d in alloc.split] == [
        ("pistol", 1),
        ("pistol2", 1),
        ("unarmed", 2),
    ]
    # a Sidearm takes at most one die
    with pytest.raises(RuleViolation, match="split"):
        run(
            s2,
            [
                Fight(
                    attacker="a",
                    weapons=("pistol",),
                    allocation=(Allocation(weapon="pistol", target="b", dice=3),),
                )
            ],
            [1] * 12,
        )


def test_the_player_picks_the_odd_die() -> None:
    a = fighter("a", "g", a=2, weapons=[KNIFE, CLUB], vision=["b"])
    s = setup([a, fighter("b", "e", vision=["a"])], [("a", "b")])
    cmd = Fight(attacker="a", weapons=("knife", "club"), targets=("b",))
    played = run(s, [cmd], [1] * 12)  # asked; the default is the first weapon
    asked = [c for c in of(played, ChoiceMade) if c.key == "c1/odd-die"]
    assert asked and asked[0].options == ("knife", "club")
    alloc = next(e for e in of(played, AttackDiceAllocated) if e.fighter == "a")
    assert [(d.weapon, d.dice) for d in alloc.split] == [("knife", 2), ("club", 1)]
    played = run(s, [cmd], [1] * 12, choices={"odd-die": "club"})
    alloc = next(e for e in of(played, AttackDiceAllocated) if e.fighter == "a")
    assert alloc.odd_die == "club"
    assert [(d.weapon, d.dice) for d in alloc.split] == [("knife", 1), ("club", 2)]
    # given in the command: no question
    played = run(
        s,
        [Fight(attacker="a", weapons=("knife", "club"), targets=("b",), odd_die="club")],
        [1] * 12,
    )
    assert not [c for c in of(played, ChoiceMade) if c.key == "c1/odd-die"]


def test_split_between_targets() -> None:
    s, cmd = one_against_two()
    played = run(s, [cmd], [1] * 12)
    a_hits = [h for h in of(played, HitRolled) if h.attacker == "a"]
    assert [h.target for h in a_hits] == ["b", "c"]
    # each target sees the other as interference
    assert {
        (e.target, e.interfering) for e in of(played, InterferenceApplied) if e.attacker == "a"
    } == {
        ("b", "c"),
        ("c", "b"),
    }
    with pytest.raises(RuleViolation, match="allocation"):
        run(s, [Fight(attacker="a", targets=("b", "c"))], [1] * 12)
