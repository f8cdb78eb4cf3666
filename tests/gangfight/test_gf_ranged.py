"""Ranged Combat, Cover and Area of Effect Attacks (Combat page), each from its rules text with
fixed dice. The table gives what it sees (line of sight, distances, cover) in the command."""

from __future__ import annotations

import pytest
from gf_helpers import model, of_type, one, run, setup, status

from blowbyblow.domain.core import Context, RuleViolation
from blowbyblow.domain.gangfight.commands import AreaAttack, Cover, Reload, Shoot
from blowbyblow.domain.gangfight.events import (
    ActionPointsSpent,
    AreaCovered,
    ArmourRolled,
    CoverChecked,
    DodgeRolled,
    Incapacitated,
    MarksmanshipRolled,
    TargetInSight,
    WeaponReloaded,
    WoundsApplied,
    WoundsInflicted,
    WoundsNegated,
)
from blowbyblow.domain.gangfight.procedure import procedure
from blowbyblow.domain.gangfight.projection import view
from blowbyblow.domain.gangfight.ranged import range_modifiers
from blowbyblow.domain.gangfight.rulings import RULINGS
from blowbyblow.domain.gangfight.state import initial_state

DEFAULTS = {r.name: r.default for r in RULINGS}

# A Human Regular with a pistol (range 6") and another with a crossbow that must be reloaded
# (range 10", +1 DAM); an Orc Brave to shoot at.
GUNNER = model("gunner", "humans", weapons=("pistol",), mrk=3)
BOWMAN = model("bowman", "humans", weapons=("crossbow",), mrk=3)
ORC = model("orc", "orcs", defense=4, arm=3, en=4)


def refused(s: object, command: object, rule: str, rulings: dict[str, str] | None = None) -> str:
    """``command`` is refused in the setup's first state, citing ``rule``; returns the message."""
    ctx = Context(rulings={**DEFAULTS, **(rulings or {})}, command_index=1)
    with pytest.raises(RuleViolation) as err:
        next(procedure(initial_state(s), command, ctx))  # type: ignore[arg-type]
    assert err.value.rule == rule, err.value
    return err.value.message


# --- Ranged Combat, steps 1 to 9 ------------------------------------------------------------------


def test_a_shot_at_point_blank_range_runs_the_nine_steps() -> None:
    """Ranged Combat: "1. Check to see if the model you are rolling to attack is within your
    model's Line of Sight." "You roll as many dice as you have in your Marksmanship attribute,
    with the Target Number being your opponent's Defense attribute." "4. If your target is within
    Short Range (ie. the weapons range or less), you can add +1 die to your Marksmanship for
    being within Point Blank Range." Steps 6 to 9: Wounds, Armour against DAM, Endurance.

    MRK 3 +1 at 4" with a 6" pistol: 4 dice at DEF 4+ roll 5 4 2 1, two Wounds; the Orc's ARM 3
    against DAM 4 rolls 4 1 1, negating one; one comes off its EN 4."""
    played = run(
        setup(GUNNER, ORC, gaps=(("gunner", "orc", 4),)),
        [Shoot(shooter="gunner", target="orc")],
        dice=[5, 4, 2, 1, 4, 1, 1],
    )
    sight = one(played, TargetInSight)
    assert (sight.rule, sight.inches, sight.weapon, sight.weapon_range) == (
        "GF Ranged 1",
        4,
        "pistol",
        6,
    )
    shot = one(played, MarksmanshipRolled).test
    assert one(played, MarksmanshipRolled).rule == "GF Ranged 2"
    assert (shot.pool_base, shot.pool, shot.tn, shot.natural, shot.successes) == (
        3,
        4,
        4,
        (5, 4, 2, 1),
        2,
    )
    assert [(m.value, m.rule) for m in shot.pool_modifiers] == [(1, "GF Ranged 4")]
    assert (one(played, WoundsInflicted).rule, one(played, WoundsInflicted).wounds) == (
        "GF Ranged 6",
        2,
    )
    armour = one(played, ArmourRolled)
    assert (armour.rule, armour.test.pool, armour.test.tn, armour.test.successes) == (
        "GF Ranged 7",
        3,
        4,
        1,
    )
    assert one(played, WoundsNegated).rule == "GF Ranged 8"
    applied = one(played, WoundsApplied)
    assert (applied.rule, applied.wounds, applied.en_left) == ("GF Ranged 9", 1, 3)
    assert one(played, ActionPointsSpent).action == "Shoot!"


@pytest.mark.parametrize(
    ("distance", "dice"),
    [(6, 1), (6.5, 0), (11.5, 0), (12, -1), (17.5, -1), (18, -2), (24, -3)],
)
def test_long_range_costs_a_die_per_six_inches_beyond_the_weapons_range(
    distance: float, dice: int
) -> None:
    """Ranged Combat step 5: "If your target is within Long Range (ie. 6" or more of your
    weapon's range) from your model, you must subtract 1 die from your Marksmanship, and you lose
    an additional die for each additional increment of 6"." With a 6" pistol: Point Blank to 6",
    nothing until 12", then -1, -2 from 18"..."""
    mods = range_modifiers(distance, 6)
    assert sum(m.value for m in mods) == dice
    assert all(m.rule == ("GF Ranged 4" if dice > 0 else "GF Ranged 5") for m in mods)


def test_a_shot_at_long_range_in_play() -> None:
    """Step 5 in play: 18" with a 6" pistol is two 6" increments beyond it, -2 dice: MRK 3
    rolls one die."""
    played = run(
        setup(GUNNER, ORC),
        [Shoot(shooter="gunner", target="orc", distance=18)],
        dice=[6, 1, 1, 1],
    )
    shot = one(played, MarksmanshipRolled).test
    assert (shot.pool, shot.dice, shot.successes, shot.criticals) == (1, 1, 1, 1)
    assert one(played, TargetInSight).inches == 18


@pytest.mark.parametrize(("ruling", "dice"), [("dice-rolled", 3), ("marksmanship", 4)])
def test_at_most_three_dice_at_a_target_in_close_combat(ruling: str, dice: int) -> None:
    """Ranged Combat step 3: "If your target is within close combat, you can only roll a maximum
    of 3 dice to hit with, even if your Marksmanship attribute is higher than 3." MRK 5 at Point
    Blank at an Orc in base contact with the shooter's friend: 3 dice (ruling
    shooting-into-combat = dice-rolled), or MRK counted as 3, then +1 (marksmanship)."""
    marksman = model("marksman", "humans", weapons=("pistol",), mrk=5)
    friend = model("friend", "humans")
    s = setup(marksman, friend, ORC, gaps=(("marksman", "orc", 5), ("friend", "orc", 0)))
    played = run(
        s,
        [Shoot(shooter="marksman", target="orc")],
        dice=[1] * dice,
        rulings={"shooting-into-combat": ruling},
    )
    shot = one(played, MarksmanshipRolled).test
    assert shot.pool == shot.dice == dice
    assert "GF Ranged 3" in [m.rule for m in shot.pool_modifiers]
    # the same shot at an Orc no one is fighting: MRK 5 +1
    alone = setup(marksman, friend, ORC, gaps=(("marksman", "orc", 5), ("friend", "orc", 3)))
    free = run(alone, [Shoot(shooter="marksman", target="orc")], dice=[1] * 6)
    assert one(free, MarksmanshipRolled).test.pool == 6


@pytest.mark.parametrize(("ruling", "allowed"), [("any-model", False), ("enemies-only", True)])
def test_a_shooter_with_a_model_in_its_threat_range_cannot_shoot(
    ruling: str, allowed: bool
) -> None:
    """Ranged Combat: "To make a ranged attack, a model must have a loaded weapon, and cannot
    have any models in their Threat range." An enemy always stops it; a friend does as written
    (ruling shooter-threat-range)."""
    friend = model("friend", "humans")
    near_enemy = setup(GUNNER, ORC, gaps=(("gunner", "orc", 1),))
    shot = Shoot(shooter="gunner", target="orc")
    for value in ("any-model", "enemies-only"):
        refused(near_enemy, shot, "GF Ranged Combat", {"shooter-threat-range": value})
    near_friend = setup(GUNNER, friend, ORC, gaps=(("gunner", "friend", 0), ("gunner", "orc", 4)))
    if allowed:
        played = run(near_friend, [shot], dice=[1] * 4, rulings={"shooter-threat-range": ruling})
        assert one(played, MarksmanshipRolled).shooter == "gunner"
    else:
        message = refused(near_friend, shot, "GF Ranged Combat", {"shooter-threat-range": ruling})
        assert "friend" in message


def test_line_of_sight_and_distance_come_from_the_table() -> None:
    """Step 1: the target must be within the model's Line of Sight; how far it is comes from its
    gap, or from the table when no gap records it (and the two must agree)."""
    s = setup(GUNNER, ORC, gaps=(("gunner", "orc", 4),))
    refused(s, Shoot(shooter="gunner", target="orc", line_of_sight=False), "GF Ranged 1")
    refused(s, Shoot(shooter="gunner", target="orc", distance=5), "GF Ranged 1")
    refused(setup(GUNNER, ORC), Shoot(shooter="gunner", target="orc"), "GF Ranged 1")
    refused(s, Shoot(shooter="gunner", target="gunner"), "GF Ranged 1")
    no_gun = model("brawler", "humans", weapons=("sword",))
    refused(
        setup(no_gun, ORC), Shoot(shooter="brawler", target="orc", distance=4), "GF Ranged Combat"
    )


def test_within_range_ruling_refuses_a_target_beyond_the_weapons_range() -> None:
    """Step 2, "If the model you are attacking is within the threat range of the weapon", taken
    as a limit (ruling ranged-range = within-range): no shot beyond 6" with a pistol."""
    far = Shoot(shooter="gunner", target="orc", distance=7)
    refused(setup(GUNNER, ORC), far, "GF Ranged 2", {"ranged-range": "within-range"})
    played = run(setup(GUNNER, ORC), [far], dice=[1] * 3)  # long-range: no modifier at 7"
    assert one(played, MarksmanshipRolled).test.pool == 3


def test_a_fired_weapon_must_be_reloaded_and_adds_its_damage() -> None:
    """Ranged Combat: "a model must have a loaded weapon"; step 7: the Armour roll's Target
    Number is "your modified Damage attribute" (the crossbow's +1: DAM 5). Once fired, the
    crossbow is unloaded until a Reload action."""
    s = setup(BOWMAN, ORC, gaps=(("bowman", "orc", 8),))
    shot = Shoot(shooter="bowman", target="orc")
    played = run(
        s,
        [shot, Reload(fighter="bowman", weapon="crossbow"), shot],
        dice=[4] * 4 + [1] * 3 + [1] * 4,
    )
    armour = of_type(played, ArmourRolled)[0]
    assert (armour.test.tn_base, armour.test.tn) == (4, 5)
    assert one(played, WeaponReloaded).rule == "GF Reload"
    assert len(of_type(played, MarksmanshipRolled)) == 2
    fired = run(s, [shot], dice=[1] * 4)
    assert status(fired, "bowman").fired == ("crossbow",)
    stats = {x.name: x.value for x in view(fired.state).units[0].stats}
    assert stats["unloaded"] == "crossbow"
    ctx = Context(rulings=DEFAULTS, command_index=2)
    with pytest.raises(RuleViolation, match="not loaded") as err:
        next(procedure(fired.state, shot, ctx))
    assert err.value.rule == "GF Ranged Combat"
    with pytest.raises(RuleViolation, match="is loaded"):
        next(procedure(initial_state(s), Reload(fighter="bowman", weapon="crossbow"), ctx))


def test_a_ranged_hit_that_incapacitates_cites_step_9() -> None:
    """Step 9: "If the amount is 0 or less, your model is now incapacitated"."""
    weak = model("weak", "orcs", en=1, arm=0)
    played = run(
        setup(GUNNER, weak), [Shoot(shooter="gunner", target="weak", distance=3)], dice=[6, 1, 1, 1]
    )
    assert one(played, Incapacitated).rule == "GF Ranged 9"


# --- Cover -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "armour", "rule"), [("soft", 1, "GF Soft Cover"), ("hard", 2, "GF Hard Cover")]
)
def test_cover_adds_defense_and_armour(kind: str, armour: int, rule: str) -> None:
    """Soft Cover: "When you are against soft cover (within 3"), you gain +1 to your Defense
    attribute, and +1 to your Armour attribute." Hard Cover: "that model gains +1 to their
    Defense attribute, and +2 to their Armour attribute." The Orc 2" from the obstacle: DEF 5,
    and ARM 3 +1 or +2."""
    played = run(
        setup(GUNNER, ORC, gaps=(("gunner", "orc", 4),)),
        [Shoot(shooter="gunner", target="orc", cover=Cover(kind=kind, inches=2))],  # type: ignore[arg-type]
        dice=[5, 5, 1, 1, *([1] * (3 + armour))],
    )
    checked = one(played, CoverChecked)
    assert (checked.rule, checked.benefit, checked.defense, checked.armour) == (
        rule,
        True,
        1,
        armour,
    )
    shot = one(played, MarksmanshipRolled).test
    assert (shot.tn, [m.rule for m in shot.tn_modifiers]) == (5, [rule])
    assert one(played, ArmourRolled).test.pool == 3 + armour


@pytest.mark.parametrize(("inches", "covers_half"), [(3.5, True), (1, False)])
def test_cover_too_far_or_too_low_gives_nothing(inches: float, covers_half: bool) -> None:
    """Cover: "You can only benefit from cover if you are within 3" of an obstacle" and "the
    obstacle or piece of terrain must at least cover 1/2 of the model's volume"."""
    cover = Cover(kind="hard", inches=inches, covers_half=covers_half)
    played = run(
        setup(GUNNER, ORC, gaps=(("gunner", "orc", 4),)),
        [Shoot(shooter="gunner", target="orc", cover=cover)],
        dice=[1, 1, 1, 1],
    )
    checked = one(played, CoverChecked)
    assert (checked.rule, checked.benefit, checked.defense, checked.armour) == (
        "GF Cover",
        False,
        0,
        0,
    )
    assert one(played, MarksmanshipRolled).test.tn == 4


# --- Area of Effect --------------------------------------------------------------------------------

DRAGON = model("dragon", "wyrms", size="huge", weapons=("breath",), mrk=4, dam=5)
KNIGHT_A = model("knight-a", "humans", iv=3, arm=3, en=4)
KNIGHT_B = model("knight-b", "humans", iv=4, arm=3, en=4)
KNIGHT_C = model("knight-c", "humans", iv=3, arm=3, en=4)


def test_direct_area_of_effect_the_dragons_fire() -> None:
    """Direct Area of Effect: "if a dragon is breathing fire at a target 8" away and scores 3
    successes with the roll to hit, the line is 3" in width. Any model caught under that area is
    potentially hit by the flames! The targets of the attack must then make and Opposed
    Initiative Value Test. If they gain more successes in the roll than the target scored on
    their roll to hit, they manage to dodge the attack completely. For each success they get, it
    reduces the damage of the attack by 1, if they don't completely dodge the attack."

    MRK 4 +1 at 8" (the breath's range): 5 5 5 1 1, three successes, a 3" line: knight-b 1.5"
    from it is under it, knight-c 2" away is not. knight-a (the target) dodges with 5 5 1: two,
    not more than three, so 3 - 2 = 1 Wound, not negated by its Armour 1 1 1. knight-b rolls
    4 5 6 6: four successes, more than three: dodged."""
    played = run(
        setup(DRAGON, KNIGHT_A, KNIGHT_B, KNIGHT_C, gaps=(("dragon", "knight-a", 8),)),
        [AreaAttack(attacker="dragon", target="knight-a", near={"knight-b": 1.5, "knight-c": 2})],
        dice=[5, 5, 5, 1, 1, 5, 5, 1, 1, 1, 1, 4, 5, 6, 6],
    )
    sight = one(played, TargetInSight)
    assert (sight.rule, sight.inches) == ("GF Area of Effect", 8)
    roll = one(played, MarksmanshipRolled)
    assert (roll.rule, roll.test.pool, roll.test.successes) == ("GF Direct Area of Effect", 5, 3)
    area = one(played, AreaCovered)
    assert (area.area, area.size, area.caught, area.clear) == (
        "direct",
        3,
        ("knight-a", "knight-b"),
        ("knight-c",),
    )
    dodges = {d.fighter: d for d in of_type(played, DodgeRolled)}
    a, b = dodges["knight-a"], dodges["knight-b"]
    assert (a.test.pool, a.test.tn, a.test.successes, a.dodged, a.reduction) == (3, 4, 2, False, 2)
    assert (b.test.successes, b.dodged) == (4, True)
    inflicted = one(played, WoundsInflicted)
    assert (inflicted.rule, inflicted.target, inflicted.successes, inflicted.wounds) == (
        "GF Direct Area of Effect",
        "knight-a",
        3,
        1,
    )
    assert one(played, ArmourRolled).test.tn == 5  # the dragon's DAM
    assert [status(played, k).wounds for k in ("knight-a", "knight-b", "knight-c")] == [1, 0, 0]


def test_indirect_area_of_effect_the_grenade() -> None:
    """Indirect Area of Effect: "for each success scored increases the radius by 1". "if a
    grenade is thrown at a target, and the attacker has 3 successes, everyone within 3" of the
    targeted model is potentially hit." At 3" from the target a model is caught, at 3.5" not."""
    thrower = model("thrower", "orcs", weapons=("grenade",), mrk=3)
    played = run(
        setup(thrower, KNIGHT_A, KNIGHT_B, KNIGHT_C, gaps=(("thrower", "knight-a", 5),)),
        [AreaAttack(attacker="thrower", target="knight-a", near={"knight-b": 3, "knight-c": 3.5})],
        dice=[6, 6, 6, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    )
    area = one(played, AreaCovered)
    assert (area.rule, area.area, area.size, area.caught, area.clear) == (
        "GF Indirect Area of Effect",
        "indirect",
        3,
        ("knight-a", "knight-b"),
        ("knight-c",),
    )
    assert [status(played, k).wounds for k in ("knight-a", "knight-b", "knight-c")] == [3, 3, 0]
    assert status(played, "thrower").fired == ("grenade",)


def test_dodge_reduces_damage_ruling_lowers_the_armour_target_number() -> None:
    """ "For each success they get, it reduces the damage of the attack by 1": under ruling
    dodge-reduces = damage each success takes 1 off the Armour roll's Target Number (the
    dragon's DAM 5) and every hit is a Wound."""
    played = run(
        setup(DRAGON, KNIGHT_A, gaps=(("dragon", "knight-a", 8),)),
        [AreaAttack(attacker="dragon", target="knight-a")],
        dice=[5, 5, 5, 1, 1, 5, 5, 1, 1, 1, 1],
        rulings={"dodge-reduces": "damage"},
    )
    assert one(played, WoundsInflicted).wounds == 3
    armour = one(played, ArmourRolled).test
    assert (armour.tn_base, armour.tn) == (5, 3)
    assert armour.tn_modifiers[-1].cause == "dodge successes"


@pytest.mark.parametrize(("ruling", "wounds", "tn"), [("wounds", 0, 5), ("damage", 3, 2)])
def test_as_many_dodge_successes_as_hits_do_not_dodge(ruling: str, wounds: int, tn: int) -> None:
    """ "If they gain more successes in the roll than the target scored on their roll to hit,
    they manage to dodge the attack completely": three against three is not more, so the model
    is hit, its damage reduced by 3 (ruling dodge-reduces: the Wounds to none, or the dragon's
    DAM 5 to a TN of 2)."""
    played = run(
        setup(DRAGON, KNIGHT_A, gaps=(("dragon", "knight-a", 8),)),
        [AreaAttack(attacker="dragon", target="knight-a")],
        dice=[5, 5, 5, 1, 1, 6, 5, 4, 1, 1, 1],
        rulings={"dodge-reduces": ruling},
    )
    dodge = one(played, DodgeRolled)
    assert (dodge.hits, dodge.test.successes, dodge.dodged, dodge.reduction) == (3, 3, False, 3)
    assert one(played, WoundsInflicted).wounds == wounds
    armour = of_type(played, ArmourRolled)
    assert [a.test.tn for a in armour] == ([tn] if wounds else [])


def test_an_area_of_effect_that_scores_nothing_hits_no_one() -> None:
    played = run(
        setup(DRAGON, KNIGHT_A, KNIGHT_B, gaps=(("dragon", "knight-a", 8),)),
        [AreaAttack(attacker="dragon", target="knight-a", near={"knight-b": 0})],
        dice=[1, 2, 3, 1, 2],
    )
    area = one(played, AreaCovered)
    assert (area.caught, area.clear) == ((), ("knight-b",))
    assert of_type(played, DodgeRolled) == []


def test_area_of_effect_refusals() -> None:
    """The target must be in range and sight like any ranged attack; the models near it are
    other models, at no negative distance; an area weapon is needed."""
    s = setup(DRAGON, KNIGHT_A, KNIGHT_B, gaps=(("dragon", "knight-a", 8),))
    refused(
        s, AreaAttack(attacker="dragon", target="knight-a", near={"dragon": 1}), "GF Area of Effect"
    )
    refused(
        s,
        AreaAttack(attacker="dragon", target="knight-a", near={"knight-b": -1}),
        "GF Area of Effect",
    )
    refused(
        s,
        AreaAttack(attacker="dragon", target="knight-a", cover={"knight-b": Cover(kind="soft")}),
        "GF Area of Effect",
    )
    refused(s, AreaAttack(attacker="dragon", target="knight-a", line_of_sight=False), "GF Ranged 1")
    refused(
        setup(GUNNER, ORC, gaps=(("gunner", "orc", 4),)),
        AreaAttack(attacker="gunner", target="orc"),
        "GF Ranged Combat",
    )
    refused(s, Shoot(shooter="dragon", target="knight-a"), "GF Ranged Combat")


def test_a_model_caught_gets_its_cover_for_armour() -> None:
    """Cover for a model caught by the blast: +2 ARM behind hard cover once it fails to dodge."""
    played = run(
        setup(DRAGON, KNIGHT_A, KNIGHT_B, gaps=(("dragon", "knight-a", 8),)),
        [
            AreaAttack(
                attacker="dragon",
                target="knight-a",
                near={"knight-b": 0.5},
                cover={"knight-b": Cover(kind="hard", inches=1)},
            )
        ],
        # 5 dice to hit, knight-a's dodge (3) and Armour (3), knight-b's dodge (4) and Armour (5)
        dice=[6, 1, 1, 1, 1, *([1] * 15)],
    )
    assert [c.fighter for c in of_type(played, CoverChecked)] == ["knight-b"]
    pools = {a.fighter: a.test.pool for a in of_type(played, ArmourRolled)}
    assert pools == {"knight-a": 3, "knight-b": 5}
    # the 0.5" model is under a 1" line (half a inch either side)
    assert one(played, AreaCovered).caught == ("knight-a", "knight-b")


@pytest.mark.parametrize(("ruling", "dice"), [("applies", 5), ("not-applied", 4)])
def test_the_point_blank_die_of_an_area_of_effect_attack_is_a_ruling(
    ruling: str, dice: int
) -> None:
    """Area of Effect: "a special sort of ranged attack ... This target must be in range of your
    attack"; Ranged step 4: "If your target is within Short Range (ie. the weapons range or
    less), you can add +1 die to your Marksmanship for being within Point Blank Range." With
    area-point-blank=applies (1.1's reading) the dragon's MRK 4 rolls 5 dice at 8"; with
    not-applied, the Area of Effect roll "to hit with their ability or weapon" is its MRK 4."""
    played = run(
        setup(DRAGON, KNIGHT_A, gaps=(("dragon", "knight-a", 8),)),
        [AreaAttack(attacker="dragon", target="knight-a")],
        dice=[1] * 12,
        rulings={"area-point-blank": ruling},
    )
    roll = one(played, MarksmanshipRolled)
    assert roll.test.pool == dice
    assert ("Point Blank Range" in [m.cause for m in roll.test.pool_modifiers]) is (
        ruling == "applies"
    )
