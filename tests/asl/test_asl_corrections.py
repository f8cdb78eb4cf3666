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
