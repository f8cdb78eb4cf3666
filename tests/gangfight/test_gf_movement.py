"""Movement inside actions, from the rules text with fixed dice: Charge!, a Slam! or Trample's
approach and follow-through, a Finesse Attack's move (never through another enemy's threat
range), distances to the half inch, a spare weapon beside two, and battles of version 1.0."""

from __future__ import annotations

import pytest
from gf_helpers import VETERAN, model, of_type, one, run, setup, status

from blowbyblow.domain.core import Context, RuleViolation
from blowbyblow.domain.gangfight.commands import (
    Charge,
    Fall,
    Fight,
    FinesseAttack,
    Move,
    Movement,
    Slam,
    Trample,
)
from blowbyblow.domain.gangfight.events import (
    ActionPointsSpent,
    AttackRolled,
    ChargeRolled,
    Disengaged,
    DisengagedTo,
    FallingDamage,
    FreeStrike,
    InThreatRange,
    KnockedBack,
    Moved,
)
from blowbyblow.domain.gangfight.falling import falling_hits
from blowbyblow.domain.gangfight.procedure import procedure
from blowbyblow.domain.gangfight.rulings import RULINGS
from blowbyblow.domain.gangfight.setup import GangfightSetup
from blowbyblow.domain.gangfight.state import gap, initial_state

DEFAULTS = {r.name: r.default for r in RULINGS}


def refused(
    s: GangfightSetup, command: object, rule: str, rulings: dict[str, str] | None = None
) -> str:
    ctx = Context(rulings={**DEFAULTS, **(rulings or {})}, command_index=1)
    with pytest.raises(RuleViolation) as err:
        next(procedure(initial_state(s), command, ctx))  # type: ignore[arg-type]
    assert err.value.rule == rule, err.value
    return err.value.message


# --- Charge! -------------------------------------------------------------------------------------

RAIDER = model("raider", "orcs", mov=4, att=3)
GUARD = model("guard", "humans", defense=4, arm=0, en=4)
SENTRY = model("sentry", "humans", att=3, threat=1)


def test_a_charge_that_reaches_fights_for_free() -> None:
    """Melee Combat: "Close combat begins when a model falls within another model's threat
    range via the result of a Charge! Action". Charge! (Actions and Action Points): MOV dice, 2+
    on open ground, each success one inch more than the normal move; an enemy then in the threat
    range gets a free Fight!.

    MOV 4 rolls 2 1 3 5: three successes, 7" of reach for a target 6" away: base contact, then
    the free Fight! (ATT 3 at DEF 4: 4 5 1, two Wounds; no Armour) with no action point."""
    played = run(
        setup(RAIDER, GUARD, gaps=(("raider", "guard", 6),)),
        [Charge(fighter="raider", target="guard")],
        dice=[2, 1, 3, 5, 4, 5, 1],
    )
    rolled = one(played, ChargeRolled)
    assert (rolled.rule, rolled.test.pool, rolled.test.tn, rolled.test.successes) == (
        "GF Charge!",
        4,
        2,
        3,
    )
    assert (rolled.distance, rolled.reach, rolled.needed, rolled.reached) == (6, 7, 6, True)
    moved = one(played, Moved)
    assert (moved.rule, moved.inches, gap(played.state, "raider", "guard")) == ("GF Charge!", 6, 0)
    hit = one(played, AttackRolled)
    assert (hit.attack, hit.test.successes) == ("fight", 2)
    assert one(played, InThreatRange).rule == "GF Melee 1"
    assert [e.action for e in of_type(played, ActionPointsSpent)] == ["Charge!"]
    assert status(played, "guard").wounds == 2


def test_a_charge_that_falls_short_still_moves_its_full_distance() -> None:
    """Charge!: a failed charge still moves the full distance. In dense terrain (6+) MOV 4
    rolls 1 2 3 4: no success, 4" of reach for a target 7" away: 3" short, outside the 1"
    threat range, so no Fight!."""
    played = run(
        setup(RAIDER, GUARD),
        [Charge(fighter="raider", target="guard", terrain="dense", distance=7)],
        dice=[1, 2, 3, 4],
    )
    rolled = one(played, ChargeRolled)
    assert (rolled.test.tn, rolled.reach, rolled.reached) == (6, 4, False)
    assert (one(played, Moved).inches, gap(played.state, "raider", "guard")) == (4, 3)
    assert of_type(played, AttackRolled) == []


@pytest.mark.parametrize(("terrain", "tn"), [("open", 2), ("light", 4), ("dense", 6)])
def test_the_ground_sets_the_charge_target_number(terrain: str, tn: int) -> None:
    played = run(
        setup(RAIDER, GUARD, gaps=(("raider", "guard", 9),)),
        [Charge(fighter="raider", target="guard", terrain=terrain)],  # type: ignore[arg-type]
        dice=[1, 1, 1, 1],
    )
    assert one(played, ChargeRolled).test.tn == tn


def test_a_charge_leaving_a_threat_range_gives_a_free_strike() -> None:
    """Free Strikes: "A Free Strike occurs when a model moves through the threatened area of an
    enemy model": charging away from the sentry in base contact lets it strike first."""
    s = setup(RAIDER, GUARD, SENTRY, gaps=(("raider", "guard", 4), ("raider", "sentry", 0)))
    played = run(
        s,
        [Charge(fighter="raider", target="guard", to={"sentry": 3})],
        dice=[
            1,
            1,
            1,
            1,
            1,
            1,
            1,
            3,
            3,
            3,
        ],  # the charge roll, the sentry's Free Strike, the Fight!
    )
    assert one(played, FreeStrike).striker == "sentry"
    assert gap(played.state, "raider", "sentry") == 3
    assert gap(played.state, "raider", "guard") == 0


def test_charge_refusals_and_cost() -> None:
    """A charge needs its target in sight, a known distance, and closes on it; its cost is a
    Standard Action or, under ruling charge-action = special, a Special Action."""
    s = setup(RAIDER, GUARD, gaps=(("raider", "guard", 6),))
    refused(s, Charge(fighter="raider", target="guard", line_of_sight=False), "GF Charge!")
    refused(setup(RAIDER, GUARD), Charge(fighter="raider", target="guard"), "GF Charge!")
    refused(s, Charge(fighter="raider", target="guard", to={"guard": 7}), "GF Charge!")
    refused(s, Charge(fighter="raider", target="raider"), "GF Charge!")
    played = run(
        s,
        [Charge(fighter="raider", target="guard")],
        dice=[1] * 4,
        rulings={"charge-action": "special", "special-action-cost": "2"},
    )
    assert one(played, ActionPointsSpent).cost == 2


# --- Slam! and Trample: approach and follow-through ---------------------------------------------

OGRE = model("ogre", "brutes", size="large", mov=6, att=4, threat=1)
KNIGHT = model("knight", "humans", size="large", att=3, arm=0, en=6, defense=3)
REGULAR = model("regular", "humans", defense=4, arm=0, en=3)


def test_a_trample_moves_on_after_its_attacks() -> None:
    """Trample: "Once he has resolved his attacks, he continues to move the rest of his
    movement, as if he had charged." The Ogre (MOV 6) closes 2" on the Regular, tramples it
    (ATT 4 at DEF 4 +1: 5 5 1 1, two Wounds), then goes 4" on, leaving the Knight's threat range
    (its Free Strike: 3 dice at DEF 3, 1 1 1) but not the Regular's: the model trampled has its
    own Free Strike only when the Trample fails."""
    s = setup(OGRE, REGULAR, KNIGHT, gaps=(("ogre", "regular", 2), ("ogre", "knight", 1)))
    trample = Trample(
        attacker="ogre",
        approach=Movement(inches=2, to={"regular": 0, "knight": 1}),
        follow_through=Movement(inches=4, to={"regular": 4, "knight": 5}),
    )
    played = run(s, [trample], dice=[5, 5, 1, 1, 1, 1, 1])
    moves = of_type(played, Moved)
    assert [(m.rule, m.inches) for m in moves] == [("GF Trample", 2), ("GF Trample", 4)]
    assert [f.striker for f in of_type(played, FreeStrike)] == ["knight"]
    assert status(played, "regular").wounds == 2
    assert (gap(played.state, "ogre", "regular"), gap(played.state, "ogre", "knight")) == (4, 5)
    too_far = Trample(
        attacker="ogre",
        approach=Movement(inches=2, to={"regular": 0}),
        follow_through=Movement(inches=5),
    )
    refused(s, too_far, "GF Trample")
    # without the approach nothing smaller is within the Ogre's 1" threat range
    refused(s, Trample(attacker="ogre"), "GF Trample")


def test_a_slam_follows_through_with_the_rest_of_its_movement() -> None:
    """Slam!: "If the model still has movement available to him after making the Slam! Attack,
    he may follow through with the rest of his movement, should he wish to do so." The Ogre
    slams the Knight (ATT 4 at DEF 3: 3 3 1 1, two successes: two Wounds, knocked back 2"), then
    follows through 3" to base contact with it."""
    s = setup(OGRE, KNIGHT, gaps=(("ogre", "knight", 1),))
    slam = Slam(
        attacker="ogre", target="knight", follow_through=Movement(inches=3, to={"knight": 0})
    )
    played = run(s, [slam], dice=[3, 3, 1, 1])
    assert one(played, KnockedBack).gap_after == 3
    moved = one(played, Moved)
    assert (moved.rule, moved.inches) == ("GF Slam!", 3)
    assert gap(played.state, "ogre", "knight") == 0
    assert of_type(played, FreeStrike) == []  # no one else's threat range was left
    refused(
        s, Slam(attacker="ogre", target="knight", follow_through=Movement(inches=7)), "GF Slam!"
    )


def test_a_missed_slam_leaves_no_room_to_follow_through_if_the_free_strike_fells_the_model() -> (
    None
):
    """Slam!: "should the attack miss, the model who was the target of the attack may make a
    Free Strike against the attacker"; a model Incapacitated by it goes no further."""
    frail = model("frail", "brutes", size="large", att=1, arm=0, en=1)
    s = setup(frail, KNIGHT, gaps=(("frail", "knight", 0),))
    slam = Slam(attacker="frail", target="knight", follow_through=Movement(inches=2))
    played = run(s, [slam], dice=[1, 6, 1, 1])
    assert one(played, FreeStrike).striker == "knight"
    assert status(played, "frail").condition == "incapacitated"
    assert of_type(played, Moved) == []


# --- Finesse Attacks: not through another enemy's threat range ---------------------------------

BLADE = model("blade", "humans", att=3)
BRUTE = model("brute", "orcs", defense=4, arm=0, en=6)
OTHER = model("other", "orcs", threat=1)


def test_a_finesse_move_goes_where_it_was_told_when_the_successes_reach() -> None:
    """Finesse Attacks: "instead of applying all of the successful dice to damage, instead that
    is how many inches the model may move from his current position. A model that successfully
    executes a Finesse Attack may not move through another enemy's Threat Range, though can move
    in any direction through the model who he executed the successful attack." Two successes
    (5 5 1): the Blade moves through the Brute to 2" beyond it; the Other stays 4" away."""
    s = setup(BLADE, BRUTE, OTHER, gaps=(("blade", "brute", 0), ("blade", "other", 4)))
    finesse = FinesseAttack(attacker="blade", target="brute", to={"brute": 2}, through=("brute",))
    played = run(s, [finesse], dice=[5, 5, 1])
    moved = one(played, DisengagedTo)
    assert (moved.rule, moved.allowed, moved.needed, moved.moved) == (
        "GF Finesse Attacks",
        2,
        2,
        True,
    )
    assert gap(played.state, "blade", "brute") == 2
    assert of_type(played, FreeStrike) == [] and of_type(played, Disengaged) == []
    short = run(s, [finesse], dice=[5, 1, 1])
    assert (one(short, DisengagedTo).moved, gap(short.state, "blade", "brute")) == (False, 0)


def test_a_finesse_move_may_not_pass_through_another_enemys_threat_range() -> None:
    """ "may not move through another enemy's Threat Range": entering it, leaving it, or naming
    it in ``through`` is refused before anything is rolled."""
    s = setup(BLADE, BRUTE, OTHER, gaps=(("blade", "brute", 0), ("blade", "other", 3)))
    into = FinesseAttack(attacker="blade", target="brute", to={"other": 1})
    assert "other" in refused(s, into, "GF Finesse Attacks")
    past = FinesseAttack(attacker="blade", target="brute", through=("other",))
    refused(s, past, "GF Finesse Attacks")
    engaged = setup(BLADE, BRUTE, OTHER, gaps=(("blade", "brute", 0), ("blade", "other", 1)))
    out = FinesseAttack(attacker="blade", target="brute", to={"other": 3, "brute": 2})
    refused(engaged, out, "GF Finesse Attacks")
    # staying where it is with respect to the other enemy is allowed
    stay = FinesseAttack(attacker="blade", target="brute", to={"brute": 2})
    assert one(run(engaged, [stay], dice=[5, 5, 1]), DisengagedTo).moved


# --- half inches -------------------------------------------------------------------------------


@pytest.mark.parametrize(("fallen", "hits"), [(1.5, 0), (2, 2), (2.5, 2), (3, 2), (3.5, 3)])
def test_a_medium_model_is_one_and_a_half_inches_tall(fallen: float, hits: int) -> None:
    """Falling: "If a model falls further than their model's height (1" for Small Models, 1.5"
    for Medium Models, 2" for Large Models, and 3" for Huge Models), that model will suffer
    1 Damage 4 Hit for each increment they fall afterwards, rounding up." A Medium model falling
    1.5" takes nothing; 2" to 3" two hits; 3.5" three."""
    assert falling_hits(fallen, "medium", "whole-fall") == hits
    played = run(setup(VETERAN), [Fall(fighter="veteran", inches=fallen)], dice=[1] * 4 * hits)
    assert (one(played, FallingDamage).hits, one(played, FallingDamage).inches) == (hits, fallen)


def test_gaps_and_threat_ranges_in_half_inches() -> None:
    """A threat range of 1.5" reaches a model 1.5" away, not one 2" away; a move of 1.5" may
    close a 2" gap to 0.5"."""
    lancer = model("lancer", "humans", threat=1.5)
    brute = model("brute", "orcs", arm=0)
    near = setup(lancer, brute, gaps=(("lancer", "brute", 1.5),))
    played = run(near, [Fight(attacker="lancer", target="brute")], dice=[1, 1, 1])
    assert one(played, InThreatRange).inches == 1.5
    far = setup(lancer, brute, gaps=(("lancer", "brute", 2),))
    refused(far, Fight(attacker="lancer", target="brute"), "GF Melee 1")
    closer = run(far, [Move(fighter="lancer", inches=1.5, to={"brute": 0.5})], dice=[])
    assert gap(closer.state, "lancer", "brute") == 0.5
    refused(far, Move(fighter="lancer", inches=1, to={"brute": 0.5}), "G2 Move")


def test_a_whole_number_of_inches_is_recorded_as_an_integer() -> None:
    """1.5" + 0.5" is recorded as 2, as 1.0 recorded every distance, so the same distance always
    has the same bytes."""
    brute = model("brute", "orcs", arm=0)
    s = setup(VETERAN, brute, gaps=(("veteran", "brute", 1.5),))
    played = run(s, [Move(fighter="veteran", inches=0.5, to={"brute": 2.0})], dice=[])
    recorded = one(played, Moved).gaps[0].inches
    assert recorded == 2 and type(recorded) is int


def test_a_distance_finer_than_half_an_inch_is_refused_with_its_field() -> None:
    import msgspec

    from blowbyblow.domain.gangfight.setup import GangfightSetup as Setup

    raw = {
        "fighters": [
            {
                "id": "a",
                "side": "x",
                "threat": 1.3,
                "profile": dict.fromkeys(
                    ("mov", "att", "mrk", "def", "iv", "wp", "arm", "en", "dam"), 3
                ),
            }
        ]
    }
    with pytest.raises(
        msgspec.ValidationError, match=r"multiple of 0.5 - at `\$.fighters\[0\].threat`"
    ):
        msgspec.convert(raw, Setup)


# --- two weapons and a spare ----------------------------------------------------------------------


@pytest.mark.parametrize(("ruling", "allowed"), [("allowed", True), ("not-allowed", False)])
def test_a_third_hand_weapon_carried(ruling: str, allowed: bool) -> None:
    """Attacking with Two Weapons: "A model attacking with two weapons cannot carry a shield, or
    anything else in their off-hand." A spare axe is not in the off-hand (ruling spare-weapons =
    allowed): two swords still give +1 ATT; under not-allowed it forbids fighting with two."""
    dual = model("dual", "humans", weapons=("sword", "sword", "axe"), att=3)
    brute = model("brute", "orcs", arm=0)
    s = setup(dual, brute, gaps=(("dual", "brute", 0),))
    fight = Fight(attacker="dual", target="brute", weapons=("sword", "sword"))
    if allowed:
        played = run(s, [fight], dice=[1] * 4, rulings={"spare-weapons": ruling})
        assert one(played, AttackRolled).test.pool == 4
    else:
        assert "axe" in refused(s, fight, "GF Two Weapons", {"spare-weapons": ruling})
    shielded = model("dual", "humans", weapons=("sword", "sword", "shield"))
    refused(setup(shielded, brute, gaps=(("dual", "brute", 0),)), fight, "GF Two Weapons")
