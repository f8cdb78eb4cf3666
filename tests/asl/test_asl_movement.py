"""Between phases: units advancing (A4.7) or moving into a Location decide Ambush (A11.4) and
reinforce a Melee (A11.15); a Mobile vehicle and its PRC leave a Melee (A11.71); stacks are
re-arranged before CC (A11.14); Infantry attack a moving vehicle with Reaction Fire (A11.8)."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from asl_helpers import hs, leader, loc, names, of, one, run, setup, squad

from blowbyblow.domain.asl import events as ev
from blowbyblow.domain.asl.commands import (
    Advance,
    AslCommand,
    Attack,
    CloseCombat,
    Move,
    ReactionFire,
    Restack,
)
from blowbyblow.domain.asl.setup import Setup, VehicleSetup
from blowbyblow.domain.core import Modifier, RuleViolation


def causes(mods: Iterable[Modifier]) -> list[str]:
    return [m.cause for m in mods]


# --- Ambush from how units arrived (A11.4) -------------------------------------------------------


def woods_and_open() -> Setup:
    """Germans in A0 next to a woods W1 and an open O1, each held by a Russian 4-4-7, and an
    empty E0."""
    return setup(
        [
            squad("g1", "German", "A0", "4-6-7"),
            squad("r1", "Russian", "W1", "4-4-7"),
            squad("r2", "Russian", "O1", "4-4-7"),
        ],
        [
            loc("A0", "open", ("W1", "O1", "E0")),
            loc("W1", "woods", ("A0",)),
            loc("O1", "open", ("A0",)),
            loc("E0", "open", ("A0",)),
        ],
    )


def test_infantry_advancing_into_cc_in_woods_may_ambush() -> None:
    """A11.4: "Whenever Infantry advance into CC (unless reinforcing a Melee) in a woods/
    building hex ... an Ambush can conceivably occur. Prior to declaring CC attacks, both
    players make one dr." The 4-6-7 advances into W1: drs 4 and 4, no Ambush."""
    commands: list[AslCommand] = [
        Advance(turn=1, attacker="German", units=["g1"], to="W1"),
        CloseCombat(turn=1, attacker="German", location="W1"),
    ]
    p = run(woods_and_open(), commands, [4, 4])
    advanced = one(p, ev.Advanced)
    assert (advanced.unit, advanced.came_from, advanced.to, advanced.reinforcing) == (
        "g1",
        "A0",
        "W1",
        False,
    )
    assert one(p, ev.AmbushStatusRolled).ambusher is None
    assert p.state.units["g1"].location == "W1"


def test_infantry_advancing_into_open_ground_against_known_units_makes_no_ambush_dr() -> None:
    """A11.4: Open Ground, nobody concealed: no Ambush can occur."""
    commands: list[AslCommand] = [
        Advance(turn=1, attacker="German", units=["g1"], to="O1"),
        CloseCombat(turn=1, attacker="German", location="O1"),
    ]
    p = run(woods_and_open(), commands, [])
    assert not of(p, ev.AmbushStatusRolled)


def pz4h_moving_in() -> Setup:
    """The A11 comprehensive example's PzIVH paragraph: the PzIVH enters the concealed 4-4-7's
    building Location in its MPh."""
    return setup(
        [squad("r447", "Russian", "L5", "4-4-7", concealed=True)],
        [loc("L4", "road", ("L5",)), loc("L5", "building", ("L4",))],
        vehicles=[VehicleSetup(id="pzh", side="German", location="L4", name="PzIVH", cmg=5, bmg=2)],
    )


def test_an_afv_that_moved_in_brings_no_ambush() -> None:
    """The PzIVH paragraph: the PzIVH "entered its Location in the MPh"; no Infantry advanced
    into CC, so no Ambush dr (A11.4), and "The 4-4-7 now attacks the PzIVH first in sequential
    CC with a CCV of 5 with zero DRM. ... The Original CC DR of 7 has no effect The AFV then
    attacks the squad at 1:1 odds (5 FP CMG vs 5 CCV) with zero DRM, but has no effect with an
    Original CC DR of 7. A Melee counter is placed ..., although a vehicle cannot be held in
    Melee." Without the move recorded, a concealed unit and a lone AFV would make Ambush drs."""
    commands: list[AslCommand] = [
        Move(turn=1, attacker="German", units=["pzh"], to="L5"),
        CloseCombat(
            turn=1,
            attacker="German",
            location="L5",
            attacks=[Attack(by=["r447"], targets=["pzh"]), Attack(by=["pzh"], targets=["r447"])],
        ),
    ]
    p = run(pz4h_moving_in(), commands, [3, 4, 3, 4])
    assert one(p, ev.Moved).rule == "A4"
    assert not of(p, ev.AmbushStatusRolled)
    veh = one(p, ev.VehicleCCResolved)
    assert (veh.ccv, veh.modifiers, veh.original, veh.result) == (5, (), 7, "none")
    odds = one(p, ev.OddsCalculated)
    assert (odds.attack_fp, odds.defense_fp, odds.column) == ("5", "5", "1-1")
    assert (p.state.melee["L5"].units, p.state.melee["L5"].vehicles) == (("r447",), ("pzh",))


def test_infantry_may_not_move_into_an_enemy_location_in_the_mph() -> None:
    """Infantry enter an enemy's Location by advancing into CC in the APh (A4.7); Infantry OVR
    (A4.152) is not covered."""
    with pytest.raises(RuleViolation, match=r"A4\.152"):
        run(woods_and_open(), [Move(turn=1, attacker="German", units=["g1"], to="W1")], [])


def test_movement_follows_the_player_turn() -> None:
    """The MPh comes before the APh and both before the CCPh; the DEFENDER does not advance."""
    with pytest.raises(RuleViolation, match=r"A4\.7: the APh of Player Turn 1 has begun"):
        run(
            woods_and_open(),
            [
                Advance(turn=1, attacker="German", units=["g1"], to="O1"),
                Move(turn=1, attacker="German", units=["g1"], to="A0"),
            ],
            [],
        )
    with pytest.raises(RuleViolation, match="the CCPh of Player Turn 1 has begun"):
        run(
            woods_and_open(),
            [
                Advance(turn=1, attacker="German", units=["g1"], to="O1"),
                CloseCombat(turn=1, attacker="German", location="O1"),
                Advance(turn=1, attacker="German", units=["g1"], to="A0"),
            ],
            [],
        )
    with pytest.raises(RuleViolation, match="is not a unit of German"):
        run(woods_and_open(), [Advance(turn=1, attacker="German", units=["r1"], to="A0")], [])


# --- reinforcing a Melee (A11.15) ----------------------------------------------------------------


def melee_in_k4() -> Setup:
    """K4 in Melee: a German 4-6-7 and a Russian 4-4-7; a German 4-6-7 and a concealed 2-4-7
    next door in K3."""
    return setup(
        [
            squad("g1", "German", "K4", "4-6-7"),
            squad("r1", "Russian", "K4", "4-4-7"),
            squad("g2", "German", "K3", "4-6-7"),
            hs("g3", "German", "K3", "2-4-7", concealed=True),
        ],
        [loc("K3", "building", ("K4",)), loc("K4", "building", ("K3",))],
        melee=["K4"],
    )


def test_units_advancing_into_a_melee_reinforce_it_with_no_ambush_and_must_engage() -> None:
    """A11.15: "New units may advance into a Melee hex but must engage in CC (though a
    concealed unit may elect not to attack in an attempt to retain its concealment)"; A11.4:
    no Ambush when "reinforcing a Melee". The Known 4-6-7 must attack; the concealed 2-4-7 may
    decline, keeps its "?" and is not locked in Melee."""
    advance = Advance(turn=1, attacker="German", units=["g2", "g3"], to="K4")
    idle = CloseCombat(turn=1, attacker="German", location="K4")
    with pytest.raises(RuleViolation, match=r"A11\.15: g2 advanced into the Melee in K4"):
        run(melee_in_k4(), [advance, idle], [])
    fight = CloseCombat(
        turn=1,
        attacker="German",
        location="K4",
        attacks=[Attack(by=["g1", "g2"], targets=["r1"])],
    )
    p = run(melee_in_k4(), [advance, fight], [5, 5])
    assert [(a.unit, a.reinforcing, a.rule) for a in of(p, ev.Advanced)] == [
        ("g2", True, "A11.15"),
        ("g3", True, "A11.15"),
    ]
    assert not of(p, ev.AmbushStatusRolled)
    assert one(p, ev.OddsCalculated).column == "2-1"
    assert set(p.state.melee["K4"].units) == {"g1", "g2", "r1"}
    assert p.state.units["g3"].concealed


def test_a_unit_locked_in_melee_leaves_only_by_withdrawal() -> None:
    """A11.15: units locked in Melee "may not leave that Location ... except as part of CC"."""
    with pytest.raises(RuleViolation, match=r"A11\.15: g1 is locked in Melee"):
        run(melee_in_k4(), [Advance(turn=1, attacker="German", units=["g1"], to="K3")], [])


# --- PAATC on advancing (A11.6) -----------------------------------------------------------------


def pz4j_next_door() -> Setup:
    """The A11.622 EX: three Russian 4-4-7 and an 8-1 next to the BU PzIVJ's Open Ground hex."""
    return setup(
        [
            squad("rA", "Russian", "P0", "4-4-7"),
            leader("rL", "Russian", "P0", "8-1", stacked_on="rA"),
            squad("rB", "Russian", "P0", "4-4-7"),
            squad("rC", "Russian", "P0", "4-4-7"),
        ],
        [loc("P0", "open", ("P1",)), loc("P1", "open", ("P0",))],
        vehicles=[
            VehicleSetup(
                id="pz", side="German", location="P1", cmg=5, bmg=2, close_defense_usage=10
            )
        ],
    )


def test_advancing_into_an_afv_location_each_squad_takes_its_paatc_aided_by_the_leader() -> None:
    """A11.622 EX: "Each squad (aided by the leader) makes a DR < 8 for their PAATC (11.6)
    enabling all four units to advance into the German AFV's hex during that APh." A11.6:
    "SMC ... are exempt from PAATC"; failure "causes the unit to become pinned". rA and rB roll
    7 (Final 6), rC rolls 9 (Final 8 > 7): pinned, it stays in P0."""
    advance = Advance(turn=1, attacker="Russian", units=["rA", "rL", "rB", "rC"], to="P1")
    p = run(pz4j_next_door(), [advance], [3, 4, 3, 4, 4, 5])
    checks = of(p, ev.PAATCTaken)
    assert [(c.unit, c.original, c.final, c.passed) for c in checks] == [
        ("rA", 7, 6, True),
        ("rB", 7, 6, True),
        ("rC", 9, 8, False),
    ]
    assert causes(checks[0].modifiers) == ["leader rL"]
    assert [a.unit for a in of(p, ev.Advanced)] == ["rA", "rL", "rB"]
    assert p.state.units["rC"].location == "P0" and p.state.units["rC"].pinned
    assert p.state.units["rL"].stacked_on == "rA"


# --- A11.71: a Mobile vehicle and its PRC leave a Melee ------------------------------------------


def tank_holding_melee(*, with_infantry: bool) -> Setup:
    """The PzIVJ EX's end: the stopped, Mobile PzIVJ holds the Russians in P1 in Melee."""
    units = [squad("rB", "Russian", "P1", "4-4-7"), squad("gP", "German", "P1", "4-6-7")]
    if with_infantry:
        units.append(squad("g1", "German", "P1", "4-6-7"))
    return setup(
        units,
        [loc("P1", "open", ("P2",)), loc("P2", "open", ("P1",))],
        vehicles=[
            VehicleSetup(id="pz", side="German", location="P1", cmg=5, bmg=2, passengers=["gP"])
        ],
        melee=["P1"],
    )


def test_a_mobile_vehicle_leaving_with_its_passengers_frees_the_enemy_from_melee() -> None:
    """A11.7: "A Mobile AFV is never held in Melee and may move out of a CC hex normally in its
    MPh." A11.71: "Mobile vehicles and their PRC ... are not required to remain in Melee ...
    Should no friendly unit remain behind to keep the enemy in Melee, those enemy units are
    freed from Melee"."""
    p = run(
        tank_holding_melee(with_infantry=False),
        [Move(turn=1, attacker="German", units=["pz"], to="P2")],
        [],
    )
    moved = one(p, ev.Moved)
    assert (moved.rule, moved.carries) == ("A11.71", ("gP",))
    assert p.state.units["gP"].location == "P2"
    freed = one(p, ev.MeleeFreed)
    assert (freed.rule, freed.location, freed.freed) == ("A11.71", "P1", ("rB",))
    assert "P1" not in p.state.melee


def test_a_friendly_unit_staying_behind_keeps_the_melee() -> None:
    """A11.71: "he must declare whether any units will remain behind to preserve the Melee"."""
    p = run(
        tank_holding_melee(with_infantry=True),
        [Move(turn=1, attacker="German", units=["pz"], to="P2")],
        [],
    )
    assert not of(p, ev.MeleeFreed)
    lock = p.state.melee["P1"]
    assert "pz" not in lock.vehicles and {"rB", "g1"} <= set(lock.units)


def test_passengers_who_unload_stay_in_the_melee() -> None:
    """A11.71: "These units have the choice of dismounting during their next MPh and remaining
    in Melee without their prior handicap"."""
    s = tank_holding_melee(with_infantry=False)
    p = run(s, [Move(turn=1, attacker="German", units=["gP"], to="P1")], [])
    assert one(p, ev.Moved).kind == "unload"
    assert p.state.vehicles["pz"].passengers == []
    assert "gP" in p.state.melee["P1"].units
    with pytest.raises(RuleViolation, match=r"A11\.71"):
        run(s, [Move(turn=1, attacker="German", units=["gP"], to="P2")], [])


# --- A11.14: re-arranging a stack before CC -----------------------------------------------------


def two_squads_and_a_leader(*, b_concealed: bool = False) -> Setup:
    return setup(
        [
            squad("ga", "German", "A1", "4-6-7"),
            squad("gb", "German", "A1", "4-6-7", concealed=b_concealed),
            leader("gL", "German", "A1", "8-1", stacked_on="ga"),
            squad("r1", "Russian", "A1", "4-4-7"),
            squad("r2", "Russian", "A1", "4-4-7"),
        ],
        [loc("A1", "open")],
    )


def test_restacking_changes_the_mmc_a_leader_attacks_and_defends_with() -> None:
    """A11.14: "The player is free to rearrange his stack in a CC hex so as to change the MMC
    that a SMC is paired with, but he must do so prior to both sides' declaration of CC attacks
    in that Location." After the 8-1 moves onto gb, it attacks with gb (-1 leadership) and is
    attacked with it: 4 vs 5 is 1-2."""
    restack = Restack(turn=1, attacker="German", unit="gL", onto="gb")
    cc = CloseCombat(
        turn=1,
        attacker="German",
        location="A1",
        attacks=[
            Attack(by=["gb", "gL"], targets=["r1"]),
            Attack(by=["r2"], targets=["gb"]),
        ],
    )
    p = run(two_squads_and_a_leader(), [restack, cc], [6, 6, 6, 6])
    assert one(p, ev.Restacked).onto == "gb"
    attacks = of(p, ev.AttackDesignated)
    assert attacks[1].targets == ("gb", "gL")
    outcomes = of(p, ev.CloseCombatResolved)
    assert causes(outcomes[0].outcomes[0].modifiers) == ["leader gL"]
    with pytest.raises(RuleViolation, match=r"A11\.14: attack 1: gL must attack with the MMC"):
        old = CloseCombat(
            turn=1,
            attacker="German",
            location="A1",
            attacks=[Attack(by=["ga", "gL"], targets=["r1"])],
        )
        run(two_squads_and_a_leader(), [restack, old], [6, 6])


def test_a_known_leader_restacked_onto_a_concealed_squad_costs_it_its_concealment() -> None:
    """A11.14 EXC: "A Known SMC may never defend with a concealed unit unless that unit forfeits
    its concealment so as to defend with the Known SMC"."""
    restack = Restack(turn=1, attacker="German", unit="gL", onto="gb")
    p = run(two_squads_and_a_leader(b_concealed=True), [restack], [])
    lost = one(p, ev.ConcealmentLost)
    assert (lost.unit, lost.rule) == ("gb", "A11.14")
    assert names(p.events)[-2:] == ["ConcealmentLost", "Restacked"]
    assert not p.state.units["gb"].concealed and p.state.units["gL"].stacked_on == "gb"


def test_no_restacking_once_the_location_cc_is_resolved() -> None:
    with pytest.raises(RuleViolation, match=r"A11\.14: CC in A1 is resolved"):
        run(
            two_squads_and_a_leader(),
            [
                CloseCombat(turn=1, attacker="German", location="A1"),
                Restack(turn=1, attacker="German", unit="gL", onto="gb"),
            ],
            [],
        )


# --- A11.8 Reaction Fire ------------------------------------------------------------------------


def street() -> Setup:
    """A Russian 4-4-7 in the K5 building, ADJACENT to the road L5 the PzIVH drives along; the
    M5 building is across the road (A11.8: "a building hex on both sides of that road")."""
    return setup(
        [squad("r447", "Russian", "K5", "4-4-7")],
        [
            loc("K5", "building", ("L5",)),
            loc("M5", "building", ("L5",)),
            loc("L5", "road", ("K5", "L4", "M5"), road_sides=[["K5"], ["M5"]]),
            loc("L4", "road", ("L5",)),
        ],
        vehicles=[VehicleSetup(id="pzh", side="German", location="L4", name="PzIVH", cmg=5, bmg=2)],
    )


def test_street_fighting_reaction_fire_from_the_building_at_plus_1() -> None:
    """The A11 comprehensive example: "The 4-4-7 which Withdraw from K4 to K5 could also attack
    the PzIVH on its Start MP using Street Fighting CC Reaction Fire (D7.211) with DRM of +1 (-1
    Street Fighting Ambush, +2 Non-Stopped)." A11.8: "The unit(s) would be moved onto the
    vehicles in the road hex to make their CC attack(s) and following any CC attack returned to
    the same Locations they came from"; "Normal PAATC requirements (11.6) apply". PAATC 6 <= 7;
    CC DR 4 + 1 = 5 = CCV 5: the PzIVH is Immobilized."""
    commands: list[AslCommand] = [
        Move(turn=1, attacker="German", units=["pzh"], to="L5"),
        ReactionFire(turn=1, attacker="German", vehicle="pzh", by=["r447"]),
    ]
    p = run(street(), commands, [3, 3, 2, 2])
    assert one(p, ev.PAATCTaken).passed
    assert one(p, ev.ReactionFireDeclared).came_from == "K5"
    veh = one(p, ev.VehicleCCResolved)
    assert sorted(causes(veh.modifiers)) == ["Street Fighting Ambush", "non-stopped vehicle"]
    assert (veh.rule, veh.ccv, veh.final_dr, veh.result) == ("A11.8", 5, 5, "immobilized")
    assert [e.kind for e in of(p, ev.Moved)] == ["move", "street-fighting"]
    back = one(p, ev.Withdrew)
    assert (back.kind, back.to, back.rule) == ("street-fighting", "K5", "A11.8")
    assert p.state.units["r447"].location == "K5"
    assert not p.state.vehicles["pzh"].mobile
    with pytest.raises(RuleViolation, match=r"A11\.8: r447 has made its Reaction Fire"):
        run(street(), [*commands, commands[1]], [3, 3, 2, 2])


def test_reaction_fire_has_no_attack_back_and_crew_small_arms_still_applies() -> None:
    """A11.8: "the vehicle may not attack back; i.e., it has no CC attack options during
    Reaction Fire (although Crew Small Arms still applies; 11.621)": an Original 12 Reduces the
    4-4-7, which returns to K5 as a HS."""
    commands: list[AslCommand] = [
        Move(turn=1, attacker="German", units=["pzh"], to="L5"),
        ReactionFire(turn=1, attacker="German", vehicle="pzh", by=["r447"]),
    ]
    p = run(street(), commands, [3, 3, 6, 6])
    assert one(p, ev.VehicleCCResolved).result == "none"
    assert one(p, ev.CasualtyReduced).unit == "r447"
    assert not of(p, ev.AttackDesignated)
    assert p.state.units["r447"].kind == "hs" and p.state.units["r447"].location == "K5"


def test_a_start_mp_frees_the_infantry_the_afv_held_and_cc_reaction_fire_is_at_plus_2() -> None:
    """The PzIVH paragraph: "If in the PzIV's next MPh it expends a Start MP, the 4-4-7 will no
    longer be held in Melee and could conduct a CC Reaction Fire ... attack, with a +2 DRM for
    the AFV being Non-Stopped." The AFV was there already: no PAATC."""
    s = setup(
        [squad("r447", "Russian", "L5", "4-4-7")],
        [loc("L5", "building")],
        vehicles=[VehicleSetup(id="pzh", side="German", location="L5", name="PzIVH", cmg=5, bmg=2)],
        melee=["L5"],
    )
    p = run(s, [ReactionFire(turn=1, attacker="German", vehicle="pzh", by=["r447"])], [3, 3])
    freed = one(p, ev.MeleeFreed)
    assert (freed.rule, freed.freed) == ("A11.7", ("r447",))
    assert not of(p, ev.PAATCTaken)
    veh = one(p, ev.VehicleCCResolved)
    assert causes(veh.modifiers) == ["non-stopped vehicle"] and veh.final_dr == 8
    assert "L5" not in p.state.melee


def test_reaction_fire_needs_a_building_next_to_the_road() -> None:
    """A11.8: "Any vehicle in a road hex and ADJACENT to a building hex"."""
    s = setup(
        [squad("r447", "Russian", "W5", "4-4-7")],
        [loc("W5", "woods", ("L5",)), loc("L5", "road", ("W5",))],
        vehicles=[VehicleSetup(id="pzh", side="German", location="L5", cmg=5)],
    )
    with pytest.raises(RuleViolation, match=r"A11\.8: Reaction Fire from W5"):
        run(s, [ReactionFire(turn=1, attacker="German", vehicle="pzh", by=["r447"])], [])


# --- what a front end is offered and shown -------------------------------------------------------


def test_advances_and_moves_are_offered_and_built() -> None:
    """Before the first CCPh either side's Player Turn 1 may begin: each free unit may advance
    into an adjacent Location (A4.7) and move into one free of enemy units (A4.152)."""
    from test_asl_view_legal import RULESET, assert_offers_are_legal

    state = RULESET.initial_state(woods_and_open())
    offered = RULESET.legal_commands(state, RULESET.resolve_rulings({}))
    advance = next(o for o in offered if o.type == "advance" and o.fields["attacker"] == "German")
    assert (advance.actor, advance.options) == ("g1", {"to": ("W1", "O1", "E0")})
    built = RULESET.build_command(advance, {"to": "O1"})
    assert built == Advance(turn=1, attacker="German", units=["g1"], to="O1")
    moves = [o for o in offered if o.type == "move"]
    assert [(o.actor, o.options["to"]) for o in moves] == [("g1", ("E0",))]
    russian = [o for o in offered if o.type == "advance" and o.side == "Russian"]
    assert {(o.actor, o.options["to"]) for o in russian} == {("r1", ("A0",)), ("r2", ("A0",))}
    assert_offers_are_legal(state)


def test_a_melee_reinforced_offers_cc_with_the_units_that_must_engage() -> None:
    """A11.15: the option of each side carries the reinforcing 4-6-7 (``attacks.with``): the
    ATTACKER's picked attacker joins it; the DEFENDER's option has it attack of its own."""
    from test_asl_view_legal import RULESET, assert_offers_are_legal

    p = run(melee_in_k4(), [Advance(turn=1, attacker="German", units=["g2", "g3"], to="K4")], [])
    offered = [
        o
        for o in RULESET.legal_commands(p.state, RULESET.resolve_rulings({}))
        if o.type == "closecombat"
    ]
    german, russian = offered
    assert german.fields["attacks.with"] == "g2" and "attacks.with_target" not in german.fields
    assert russian.fields["attacks.with"] == "g2" and russian.fields["attacks.with_target"] == "r1"
    assert RULESET.build_command(german).attacks == [Attack(by=["g1", "g2"], targets=["r1"])]
    assert RULESET.build_command(russian).attacks == [
        Attack(by=["g2"], targets=["r1"]),
        Attack(by=["r1"], targets=["g1"]),
    ]
    assert_offers_are_legal(p.state)
    shown = {u.id: u.flags for u in RULESET.view(p.state).units}
    assert {"advanced", "reinforcing the Melee"} <= set(shown["g2"])


def test_reaction_fire_and_restacking_are_offered() -> None:
    from test_asl_view_legal import RULESET, assert_offers_are_legal

    p = run(street(), [Move(turn=1, attacker="German", units=["pzh"], to="L5")], [])
    offered = RULESET.legal_commands(p.state, RULESET.resolve_rulings({}))
    fire = [o for o in offered if o.type == "reactionfire"]
    assert [(o.side, o.fields["vehicle"], o.fields["by"]) for o in fire] == [
        ("Russian", "pzh", "r447")
    ]
    assert "moved" in next(u for u in RULESET.view(p.state).units if u.id == "pzh").flags
    assert_offers_are_legal(p.state)
    state = RULESET.initial_state(two_squads_and_a_leader())
    restack = [
        o for o in RULESET.legal_commands(state, RULESET.resolve_rulings({})) if o.type == "restack"
    ]
    assert [(o.actor, o.options) for o in restack if o.fields["attacker"] == "German"] == [
        ("gL", {"onto": ("gb",)})
    ]
