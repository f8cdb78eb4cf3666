"""What version 1.0 of the ``asl`` system got wrong, corrected in 1.1: each correction is a
ruling whose ``before`` value re-adjudicates 1.0 exactly, tested both ways with fixed dice."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from asl_helpers import leader, loc, of, one, run, setup, squad

from blowbyblow.domain.asl import events as ev
from blowbyblow.domain.asl.commands import Attack, CloseCombat
from blowbyblow.domain.asl.setup import Setup, VehicleSetup
from blowbyblow.domain.core import Modifier, RuleViolation


def causes(mods: Iterable[Modifier]) -> list[str]:
    return [m.cause for m in mods]


# --- A11.4: Infantry against a lone vehicle -----------------------------------------------------


def lone_tank() -> Setup:
    """A German 4-6-7 has advanced into a woods Location held only by a BU Russian T-34."""
    return setup(
        [squad("g467", "German", "W1", "4-6-7")],
        [loc("W1", "woods")],
        vehicles=[VehicleSetup(id="t34", side="Russian", location="W1", name="T-34", cmg=2)],
    )


def test_a_lone_vehicle_side_makes_its_ambush_dr_and_can_be_ambushed() -> None:
    """A11.4: "Whenever Infantry advance into CC ... in a woods/building hex ... an Ambush can
    conceivably occur", with the drm "+2 Cavalry, Vehicle, or in Pillbox" and "+1 BU or Stunned
    AFV (each)": a side with only a BU AFV there rolls at +3. German dr 3, Russian dr 3 + 3 = 6:
    the German Ambushes (3 is at least three < 6) and attacks the tank at -1."""
    cc = CloseCombat(
        turn=1, attacker="German", location="W1", attacks=[Attack(by=["g467"], targets=["t34"])]
    )
    p = run(lone_tank(), [cc], [3, 3, 4, 4])
    rolled = one(p, ev.AmbushStatusRolled)
    german, russian = rolled.rolls
    assert (german.final, russian.final) == (3, 6)
    assert causes(russian.modifiers) == ["Vehicle", "BU AFV t34"]
    assert rolled.ambusher == "German"
    veh = one(p, ev.VehicleCCResolved)
    assert "Ambush" in causes(veh.modifiers)
    assert (veh.original, veh.final_dr, veh.result) == (8, 7, "none")


def test_a_lone_afv_may_ambush_and_fire_its_sn_before_being_attacked() -> None:
    """A11.622: "An AFV may fire a Nahverteidigungswaffe before being attacked if it qualifies
    as the Ambusher; 11.4". A CX Russian 4-4-7 advanced into a building held only by a BU
    PzIVJ: Russian dr 6 + 1 (CX) = 7, German dr 1 + 2 (Vehicle) + 1 (BU) = 4, at least three
    less: the PzIVJ Ambushes and fires its sN (IFT DR 7 <= Usage 10) with nothing attacked."""
    s = setup(
        [squad("r447", "Russian", "B1", "4-4-7", cx=True)],
        [loc("B1", "building")],
        vehicles=[
            VehicleSetup(
                id="pz", side="German", location="B1", cmg=5, bmg=2, close_defense_usage=10
            )
        ],
    )
    cc = CloseCombat(
        turn=1,
        attacker="Russian",
        location="B1",
        attacks=[Attack(by=["pz"], targets=[], weapons=["sn"])],
    )
    p = run(s, [cc], [6, 1, 3, 4], choices={"mc/1/r447": "pin"})
    rolled = one(p, ev.AmbushStatusRolled)
    assert [(r.side, r.final) for r in rolled.rolls] == [("Russian", 7), ("German", 4)]
    assert rolled.ambusher == "German"
    sn = one(p, ev.CloseDefenseWeaponFired)
    assert (sn.original, sn.effective, sn.targets) == (7, True, ("r447",))
    assert p.state.units["r447"].pinned


def test_the_command_can_force_an_ambush_against_a_lone_vehicle() -> None:
    """The command's ``ambush_possible = true`` (the players say the A11.4 conditions hold) is
    obeyed with a vehicle-only side too; version 1.0 ignored it."""
    s = setup(
        [squad("g467", "German", "O1", "4-6-7")],
        [loc("O1", "open")],
        vehicles=[VehicleSetup(id="t34", side="Russian", location="O1", cmg=2)],
    )
    cc = CloseCombat(turn=1, attacker="German", location="O1", ambush_possible=True)
    p = run(s, [cc], [2, 2])  # German 2, Russian 2 + 3 = 5: the German Ambushes
    assert one(p, ev.AmbushStatusRolled).ambusher == "German"
    p10 = run(s, [cc], [], rulings={"ambush-vehicle-side": "as-1.0"})
    assert not of(p10, ev.AmbushStatusRolled)


def test_as_1_0_a_lone_vehicle_gets_no_ambush_dr() -> None:
    """Ruling ambush-vehicle-side=as-1.0 reproduces version 1.0: no Ambush dr at all."""
    cc = CloseCombat(
        turn=1, attacker="German", location="W1", attacks=[Attack(by=["g467"], targets=["t34"])]
    )
    p = run(lone_tank(), [cc], [4, 4], rulings={"ambush-vehicle-side": "as-1.0"})
    assert not of(p, ev.AmbushStatusRolled)
    assert causes(one(p, ev.VehicleCCResolved).modifiers) == []


# --- Passengers are inside their vehicle (A11.51, A11.622, A11.71) ------------------------------


def carrier_with_passengers() -> Setup:
    """A Mobile, stopped, BU German AFV with an sN carries a 4-6-7 as Passengers; a Russian
    4-4-7 attacks it."""
    return setup(
        [squad("r447", "Russian", "P1", "4-4-7"), squad("g467", "German", "P1", "4-6-7")],
        [loc("P1", "open")],
        vehicles=[
            VehicleSetup(
                id="pz",
                side="German",
                location="P1",
                cmg=5,
                bmg=2,
                close_defense_usage=10,
                passengers=["g467"],
            )
        ],
    )


CARRIER_CC = CloseCombat(
    turn=1,
    attacker="Russian",
    location="P1",
    attacks=[
        Attack(by=["r447"], targets=["pz"]),
        Attack(by=["pz"], targets=[], weapons=["sn"]),
    ],
)


def test_passengers_inside_a_bu_afv_are_no_escort_no_sn_target_and_not_held_in_melee() -> None:
    """A11.51: "+1 DRM ... for every unbroken, unpinned, and armed enemy HS/crew Personnel
    counter (+2 for each such squad) in the CC hex ... unless they are BU": the 4-4-7 attacks
    with no escort DRM. A11.622: the sN "must attack all unarmored units in its Location
    (including friendly Personnel/Vulnerable PRC...)": not the Passengers BU inside it. A11.71:
    "Mobile vehicles and their PRC who survive their initial round of CC are not required to
    remain in Melee": only the 4-4-7, held by the stopped AFV (A11.7), is locked."""
    p = run(carrier_with_passengers(), [CARRIER_CC], [4, 4, 3, 4], choices={"mc/2/r447": "pass"})
    veh = one(p, ev.VehicleCCResolved)
    assert causes(veh.modifiers) == [] and (veh.final_dr, veh.result) == (8, "none")
    assert one(p, ev.CloseDefenseWeaponFired).targets == ("r447",)
    lock = p.state.melee["P1"]
    assert (lock.units, lock.vehicles) == (("r447",), ("pz",))


def test_as_1_0_passengers_were_ordinary_infantry_of_the_location() -> None:
    """Ruling passengers-inside=as-1.0 reproduces version 1.0: +2 for the escorting squad, the
    sN attacks it, and it is locked in Melee."""
    p = run(
        carrier_with_passengers(),
        [CARRIER_CC],
        [4, 4, 3, 4],
        choices={"mc/2/r447": "pass", "mc/2/g467": "pass"},
        rulings={"passengers-inside": "as-1.0"},
    )
    veh = one(p, ev.VehicleCCResolved)
    assert causes(veh.modifiers) == ["escorting g467"] and veh.final_dr == 10
    assert one(p, ev.CloseDefenseWeaponFired).targets == ("r447", "g467")
    assert set(p.state.melee["P1"].units) == {"r447", "g467"}


def test_passengers_of_an_open_topped_vehicle_are_escort_and_sn_targets() -> None:
    """Passengers of an open-topped vehicle are not BU: they count as escort (A11.51), +2 for a
    squad; and stopped Immobile, the vehicle's PRC stay held in Melee (A11.71 frees only a
    Mobile vehicle's)."""
    s = setup(
        [squad("r447", "Russian", "P1", "4-4-7"), squad("g467", "German", "P1", "4-6-7")],
        [loc("P1", "open")],
        vehicles=[
            VehicleSetup(
                id="ht",
                side="German",
                location="P1",
                open_topped=True,
                mobile=False,
                cmg=2,
                passengers=["g467"],
            )
        ],
    )
    cc = CloseCombat(
        turn=1, attacker="Russian", location="P1", attacks=[Attack(by=["r447"], targets=["ht"])]
    )
    p = run(s, [cc], [4, 4])
    veh = one(p, ev.VehicleCCResolved)
    assert causes(veh.modifiers) == [
        "escorting g467",
        "OT/partially armored AFV",
        "Immobile AFV",
    ]
    assert set(p.state.melee["P1"].units) == {"r447", "g467"}


# --- A20.2: berserk units are never captured ----------------------------------------------------


def berserk_defender(*, squad_berserk: bool, leader_berserk: bool = False) -> Setup:
    return setup(
        [
            squad("g467", "German", "A1", "4-6-7"),
            squad("r447", "Russian", "A1", "4-4-7", berserk=squad_berserk),
            leader("rL", "Russian", "A1", "8-1", stacked_on="r447", berserk=leader_berserk),
        ],
        [loc("A1", "open")],
    )


CAPTURE_BERSERK = CloseCombat(
    turn=1,
    attacker="German",
    location="A1",
    attacks=[Attack(by=["g467"], targets=["r447"], capture=True)],
)


def test_a_capture_attempt_on_a_berserk_unit_is_refused() -> None:
    """A20.2: berserk units neither take nor become prisoners; version 1.0 refused only the
    berserk attacker."""
    s = berserk_defender(squad_berserk=True)
    with pytest.raises(RuleViolation, match=r"A20\.2: attack 1: berserk r447 cannot be captured"):
        run(s, [CAPTURE_BERSERK], [])
    p = run(s, [CAPTURE_BERSERK], [1, 1], rulings={"berserk-capture": "as-1.0"})
    assert p.state.prisoners == {"r447": "g467", "rL": "g467"}


def test_a_berserk_smc_defending_with_its_mmc_makes_the_capture_attempt_refused() -> None:
    """A11.14: the SMC defends with the MMC beneath it, so a Capture attempt on that MMC is one
    on the berserk leader too (A20.2)."""
    s = berserk_defender(squad_berserk=False, leader_berserk=True)
    with pytest.raises(RuleViolation, match=r"A20\.2: attack 1: berserk rL"):
        run(s, [CAPTURE_BERSERK], [])
    p = run(berserk_defender(squad_berserk=False), [CAPTURE_BERSERK], [1, 1])
    assert p.state.prisoners == {"r447": "g467", "rL": "g467"}


# --- A11.141: a leader directs the attack of the MMC it defends with ---------------------------


def two_leaders() -> Setup:
    """A German 8-1 and 9-2 with no squad, against a Russian 2-2-7 HS."""
    return setup(
        [
            leader("g81", "German", "A1", "8-1"),
            leader("g92", "German", "A1", "9-2"),
            squad("r227", "Russian", "A1", "2-2-7", kind="hs"),
        ],
        [loc("A1", "open")],
    )


TWO_LEADERS_CC = CloseCombat(
    turn=1,
    attacker="German",
    location="A1",
    attacks=[Attack(by=["g81", "g92"], targets=["r227"])],
)


def test_two_leaders_attacking_without_an_mmc_get_no_leadership_drm() -> None:
    """A11.141: "One leader may direct the CC attack of the MMC it defends with (and any other
    units which join that MMC in a combined CC attack)": with no MMC in the attack, no
    leadership DRM. 2 FP vs 2 is 1-1 (KN 5): an Original 5 is a Partial Kill, not a kill."""
    p = run(two_leaders(), [TWO_LEADERS_CC], [2, 3])
    out = one(p, ev.CloseCombatResolved).outcomes[0]
    assert (out.modifiers, out.final_dr, out.result) == ((), 5, "partial")


def test_not_alone_lets_one_of_two_leaders_direct_as_version_1_0_did() -> None:
    """Ruling leader-direction=not-alone (version 1.0): the 9-2's -2 applies, Final 3 < 5."""
    p = run(two_leaders(), [TWO_LEADERS_CC], [2, 3], rulings={"leader-direction": "not-alone"})
    out = one(p, ev.CloseCombatResolved).outcomes[0]
    assert (causes(out.modifiers), out.final_dr, out.result) == (
        ["leader g92"],
        3,
        "eliminated",
    )
