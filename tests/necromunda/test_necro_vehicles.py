"""Vehicles in close combat, version 1.1: a vehicle moving out of engagement (Initiative tests,
then Reaction attacks on it), the extra Location dice applied to the Damage, and the Nerve tests
of a vehicle's friends when it is Wrecked. Worked examples with listed dice."""

from __future__ import annotations

import pytest
from necro_helpers import (
    SCENARIOS,
    VEHICLE,
    Engagement,
    Fight,
    fighter,
    load_scenario,
    of,
    one,
    run,
    setup,
)

from blowbyblow.domain.core import ChoiceMade, RuleViolation, RulingError, SetupError
from blowbyblow.domain.necromunda import events as ev
from blowbyblow.domain.necromunda.commands import LeaveEngagement
from blowbyblow.domain.necromunda.legal import legal_commands
from blowbyblow.domain.necromunda.projection import view
from blowbyblow.domain.necromunda.setup import NecromundaSetup, Vehicle, validate_setup
from blowbyblow.domain.necromunda.state import (
    MOBILE,
    PRONE_PINNED,
    STANDING_ACTIVE,
    WRECKED,
    initial_state,
)
from blowbyblow.replay.engine.script import play

BOTH = ("necromunda-2023", "necromunda-legacy")


_V = {"toughness_front": 6, "toughness_side": 5, "toughness_rear": 4, "hull_points": 2}


def left_behind(hull_points: int = 2) -> NecromundaSetup:
    """Vehicle v (rear T4, front T6, side T5) with a (I 4+, sees v) at its rear, b (I 3+, does
    not see v) at its front and p (Prone & Pinned) at its side; d, of v's gang, is within 6" of
    it."""
    return setup(
        [
            fighter("a", "g", i=4, vision=["v"]),
            fighter("b", "g", i=3, vision=[]),
            fighter("p", "g", status=PRONE_PINNED),
            fighter("v", "e", weapons=[], vehicle=Vehicle(**{**_V, "hull_points": hull_points})),
            fighter("d", "e", cl=7),
        ],
        [
            Engagement(a="a", b="v", facing="rear"),
            Engagement(a="b", b="v", facing="front"),
            Engagement(a="p", b="v", facing="side"),
        ],
        within_6=[["v", "d"]],
    )


@pytest.mark.parametrize("ruleset", BOTH)
def test_a_vehicle_moving_out_of_engagement_is_attacked_by_those_who_pass_initiative(
    ruleset: str,
) -> None:
    """Close Combat, box Attacking Vehicles: "A vehicle never counts as being engaged and may
    freely move out of engagement range of enemy fighters, however when it does those fighters
    may make an Initiative test, and can make Reaction attacks against the vehicle if they
    pass." (The rules before 2023 are silent; ruling vehicle-leaving-engagement assumes the
    same.)"""
    # a: Initiative 4 (passes 4+); its Reaction attack: hit 3 (+1 vehicle = 4, WS 3+), wound 5
    # (S3 vs rear T4: 5+), no save, Location dice 1 and 6 (Body, Engine; Body by default).
    # b: Initiative 2 (fails 3+). p: Prone, makes no test.
    played = run(left_behind(), [LeaveEngagement(vehicle="v")], [4, 3, 5, 1, 6, 2], ruleset=ruleset)
    leaving = one(played, ev.VehicleLeavesEngagement)
    assert (leaving.vehicle, leaving.fighters, leaving.attacks) == ("v", ["a", "b", "p"], True)
    tests = {
        t.fighter: (t.natural, t.target_number, t.passed) for t in of(played, ev.InitiativeTested)
    }
    assert tests == {"a": (4, 4, True), "b": (2, 3, False)}
    (declared,) = of(played, ev.FightDeclared)
    assert (declared.fighter, declared.kind) == ("a", "reaction")
    hit = one(played, ev.HitRolled)
    assert (hit.target, hit.total, hit.hit) == ("v", 4, True)
    assert [m.cause for m in hit.modifiers] == ["attacking a vehicle"]
    damaged = one(played, ev.VehicleDamaged)
    assert (damaged.location, damaged.hull_points_before, damaged.hull_points_after) == (
        "Body",
        2,
        1,
    )
    assert one(played, ev.ReactionForgone).fighter == "p"
    # then it is gone: no fighter is within 1" of it, all stay Standing & Active
    ended = {(e.a, e.b) for e in of(played, ev.EngagementEnded)}
    assert ended == {("a", "v"), ("b", "v"), ("p", "v")}
    assert played.state.links == ()
    assert played.state.fighters["v"].status == MOBILE
    assert played.state.fighters["a"].status == STANDING_ACTIVE
    assert played.state.fighters["p"].status == PRONE_PINNED


def test_a_reactor_that_does_not_see_the_vehicle_turns_to_face_it() -> None:
    """Reaction attacks follow steps 1-6: b, passing its Initiative, turns to face the vehicle
    (-1) before attacking it."""
    # a fails (1); b passes (5), turns (asked, default yes), hit 3 -1 +1 = 3: hits (WS 3+);
    # wound 1 fails; p makes no test.
    played = run(left_behind(), [LeaveEngagement(vehicle="v")], [1, 5, 3, 1])
    assert one(played, ev.TurnedToFace).fighter == "b"
    hit = one(played, ev.HitRolled)
    assert sorted(m.value for m in hit.modifiers) == [-1, 1] and hit.hit
    assert "c1/react/b/turn" in {c.key for c in of(played, ChoiceMade)}


def test_a_vehicle_wrecked_as_it_leaves_stays_and_its_friends_test_their_nerve() -> None:
    """A vehicle Wrecked by the Reaction attacks does not move on: its contacts end as it is
    Wrecked, no one else tests. Nerve Tests: a friendly vehicle Wrecked within 6" is a cause of
    a Nerve test (ruling nerve-wrecked-vehicle): d, within 6" of v, tests 2D6 against its Cool."""
    # a: Initiative 6, hit 6, wound 6, Location 2 and 2 (Body): its one Hull Point gone,
    # Wrecked. d's Nerve test: 3 + 3 = 6 against Cool 7+: fails, Broken.
    played = run(left_behind(hull_points=1), [LeaveEngagement(vehicle="v")], [6, 6, 6, 2, 2, 3, 3])
    assert played.state.fighters["v"].status == WRECKED
    assert [t.fighter for t in of(played, ev.InitiativeTested)] == ["a"]
    nerve = one(played, ev.NerveTested)
    assert (nerve.fighter, nerve.cause, nerve.total, nerve.passed) == (
        "d",
        "friendly vehicle v was Wrecked",
        6,
        False,
    )
    assert played.state.fighters["d"].broken
    # version 1.0 tested no one
    old = run(
        left_behind(hull_points=1),
        [LeaveEngagement(vehicle="v")],
        [6, 6, 6, 2, 2, 3, 3],
        rulings={"nerve-wrecked-vehicle": "as-1.0"},
    )
    assert of(old, ev.NerveTested) == [] and not old.state.fighters["d"].broken


def test_the_older_rules_ruling_lets_the_vehicle_simply_leave() -> None:
    played = run(
        left_behind(),
        [LeaveEngagement(vehicle="v")],
        [],
        ruleset="necromunda-legacy",
        rulings={"vehicle-leaving-engagement": "no-attacks"},
    )
    assert not one(played, ev.VehicleLeavesEngagement).attacks
    assert of(played, ev.InitiativeTested) == [] and played.state.links == ()
    with pytest.raises(RulingError, match="vehicle-leaving-engagement"):
        run(left_behind(), [], [], rulings={"vehicle-leaving-engagement": "no-attacks"})


def test_who_may_leave_engagement() -> None:
    s = left_behind()
    with pytest.raises(RuleViolation, match="not a vehicle"):
        run(s, [LeaveEngagement(vehicle="a")], [])
    alone = setup([fighter("v", "e", weapons=[], vehicle=VEHICLE), fighter("a", "g")])
    with pytest.raises(RuleViolation, match='within 1" of no enemy'):
        run(alone, [LeaveEngagement(vehicle="v")], [])
    state = initial_state(s)
    (offer,) = [o for o in legal_commands(state, {}) if o.type == "leave-engagement"]
    assert (offer.actor, offer.side, offer.fields) == ("v", "e", {"vehicle": "v"})
    assert not [o for o in legal_commands(initial_state(alone), {}) if o.actor == "v"]


def test_the_extra_location_dice_is_applied() -> None:
    """Close Combat, box Attacking Vehicles: "A fighter Engaging a vehicle in close combat may
    roll an additional Location dice, choosing one result to apply and discarding the
    other(s)." The Damage goes to the chosen Location, which the vehicle keeps."""
    s = setup(
        [fighter("a", "g", vision=["v"]), fighter("v", "e", save=5, weapons=[], vehicle=VEHICLE)],
        [Engagement(a="a", b="v", facing="rear")],
    )
    # hit 4, wound 6, save 2 fails (5+), Location 1 and 6: Body or Engine; the player picks Engine
    played = run(
        s,
        [Fight(attacker="a", targets=("v",))],
        [4, 6, 2, 1, 6],
        choices={"location-choice/1": "Engine"},
    )
    order = [type(e).__name__ for e in played.events if type(e).__name__ in _ORDER]
    assert order == ["WoundRolled", "SaveRolled", "LocationRolled", "VehicleDamaged"]
    assert one(played, ev.LocationRolled).chosen == "Engine"
    damaged = one(played, ev.VehicleDamaged)
    assert (damaged.location, damaged.damage, damaged.hull_points_after) == ("Engine", 1, 1)
    v = played.state.fighters["v"]
    assert v.vehicle is not None and v.vehicle.locations_hit == ("Engine",)
    (unit,) = [u for u in view(played.state).units if u.id == "v"]
    assert ("locations hit", "Engine") in {(st.name, st.value) for st in unit.stats}
    # a saved wound damages no Location: none is rolled
    saved = run(s, [Fight(attacker="a", targets=("v",))], [4, 6, 5])
    assert of(saved, ev.LocationRolled) == [] and one(saved, ev.SaveRolled).saved
    # version 1.0: rolled before the save, applied to nothing (DamageInflicted, no Location kept)
    old = run(
        s,
        [Fight(attacker="a", targets=("v",))],
        [4, 6, 1, 6, 2],
        choices={"location-choice/1": "Engine"},
        rulings={"vehicle-location": "as-1.0"},
    )
    order = [type(e).__name__ for e in old.events if type(e).__name__ in _ORDER]
    assert order == ["WoundRolled", "LocationRolled", "SaveRolled", "DamageInflicted"]
    ov = old.state.fighters["v"]
    assert ov.vehicle is not None and ov.vehicle.locations_hit == () and ov.wounds == 1


_ORDER = {"WoundRolled", "SaveRolled", "LocationRolled", "VehicleDamaged", "DamageInflicted"}


def test_within_6_pairs_a_vehicle_with_a_friend() -> None:
    s = left_behind()
    validate_setup(s)
    for bad, why in (
        ([["a", "b"]], "one vehicle and one fighter"),
        ([["v", "a"]], "enemies"),
        ([["v", "x"]], "two known ids"),
    ):
        with pytest.raises(SetupError, match=why):
            validate_setup(setup(list(s.fighters), list(s.engagements), within_6=bad))


@pytest.mark.parametrize("ruleset", BOTH)
def test_the_vehicles_scenario_file(ruleset: str) -> None:
    """cli/scenarios/necromunda-2023-vehicles.toml, as the CLI loads it, under either book."""
    played = play(load_scenario(SCENARIOS / "necromunda-2023-vehicles.toml", ruleset))
    assert one(played, ev.AttackGranted).granted_by == "Counter-attack"
    tests = [(t.fighter, t.passed) for t in of(played, ev.InitiativeTested)]
    assert tests == [("krug", False), ("ruk", True)]
    assert one(played, ev.VehicleDamaged).location == "Engine"
    assert played.state.fighters["buggy"].status == WRECKED
    nerve = one(played, ev.NerveTested)
    assert (nerve.fighter, nerve.passed) == ("lia", True)
