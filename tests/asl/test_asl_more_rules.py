"""Rules of A11 version 1.0 left out: the capture of vehicles and Passengers (A11.52), carrying
limits on withdrawal (A11.21), the Disrupted exemption (A11.16), the Cavalry and Pillbox Ambush
drm (A11.4), Infiltration after a 12 as the K4 example reads it (A11.22, a ruling)."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec
import pytest
from asl_helpers import hs, leader, loc, of, one, run, setup, squad

from blowbyblow.domain.asl import events as ev
from blowbyblow.domain.asl.ambush import ambush_drms
from blowbyblow.domain.asl.commands import Attack, CloseCombat, Withdrawal
from blowbyblow.domain.asl.setup import Setup, VehicleSetup
from blowbyblow.domain.asl.state import initial_state
from blowbyblow.domain.core import Modifier, RuleViolation


def causes(mods: Iterable[Modifier]) -> list[str]:
    return [m.cause for m in mods]


# --- A11.52: capture of a vehicle -----------------------------------------------------------------


def truck(*, escort: bool = False, passengers: bool = False) -> Setup:
    """A Russian truck (unarmored, no MG: unarmed) stopped in A1 with a German 4-6-7."""
    units = [squad("g467", "German", "A1", "4-6-7")]
    if escort or passengers:
        units.append(hs("r227", "Russian", "A1", "2-2-7"))
    return setup(
        units,
        [loc("A1", "open")],
        vehicles=[
            VehicleSetup(
                id="truck",
                side="Russian",
                location="A1",
                afv=False,
                armored=False,
                passengers=["r227"] if passengers else [],
            )
        ],
    )


IDLE = CloseCombat(turn=1, attacker="German", location="A1")


def test_an_unarmed_stopped_vehicle_alone_with_enemy_infantry_is_captured() -> None:
    """A11.52: "An unarmed, stopped/non-Motion vehicle without Personnel Escort is captured
    instantly in any CCPh in which it is alone with opposing Infantry." Version 1.0 did not
    cover it (ruling unarmed-vehicle-capture=as-1.0)."""
    p = run(truck(), [IDLE], [])
    captured = one(p, ev.VehicleCaptured)
    assert (captured.vehicle, captured.by, captured.rule) == ("truck", "German", "A11.52")
    truck_now = p.state.vehicles["truck"]
    assert (truck_now.status, truck_now.side) == ("captured", "German")
    assert not of(run(truck(escort=True), [IDLE], []), ev.VehicleCaptured)
    assert not of(
        run(truck(), [IDLE], [], rulings={"unarmed-vehicle-capture": "as-1.0"}),
        ev.VehicleCaptured,
    )


def test_the_passengers_of_an_unarmored_stationary_vehicle_are_captured_and_it_with_them() -> None:
    """A11.52: "The attacker must engage these Passengers in normal Infantry vs Infantry CC, but
    is eligible for both a -2 DRM for his attacks vs these Passengers and a +2 DRM in defending
    against attacks from those Passengers. This -2 DRM is combined with the +1 DRM for
    attempting to capture these Passengers in CC." "If all the Passengers are captured, so is
    the vehicle." 4 vs 2 is 2-1 (KN 7): Original 7 - 2 + 1 = 6 captures the HS."""
    cc = CloseCombat(
        turn=1,
        attacker="German",
        location="A1",
        attacks=[Attack(by=["g467"], targets=["r227"], capture=True)],
    )
    p = run(truck(passengers=True), [cc], [3, 4])
    out = one(p, ev.CloseCombatResolved).outcomes[0]
    assert causes(out.modifiers) == ["capturing Passengers", "Capture attempt"]
    assert (out.final_dr, out.result) == (6, "captured")
    assert p.state.prisoners == {"r227": "g467"}
    assert one(p, ev.VehicleCaptured).cause == "all its Passengers are captured"
    assert p.state.vehicles["truck"].status == "captured"


def test_passengers_attack_their_would_be_captors_at_plus_2() -> None:
    """A11.52: the Passengers' attack on the German is at +2. The German attacks first (A11.31,
    the non-vehicular side): Original 9 - 1 = 8 > 7, no effect; the HS attacks back at 1-2
    (KN 4): Original 3 + 2 = 5, no effect; the truck stays Russian."""
    cc = CloseCombat(
        turn=1,
        attacker="German",
        location="A1",
        attacks=[
            Attack(by=["g467"], targets=["r227"], capture=True),
            Attack(by=["r227"], targets=["g467"]),
        ],
    )
    p = run(truck(passengers=True), [cc], [4, 5, 1, 2])
    german, passengers = of(p, ev.CloseCombatResolved)
    assert (german.outcomes[0].final_dr, german.outcomes[0].result) == (8, "none")
    assert causes(passengers.outcomes[0].modifiers) == ["Passengers attacking"]
    assert (passengers.column, passengers.outcomes[0].final_dr) == ("1-2", 5)
    assert not of(p, ev.VehicleCaptured)


@pytest.mark.parametrize(
    ("attack", "rule"),
    [
        (Attack(by=["g467"], targets=["r227"]), "A11.611"),  # not a Capture attempt
        (Attack(by=["g467"], targets=["truck"], capture=True), "A11.52"),
    ],
)
def test_passengers_only_by_capture_and_no_capture_attempt_on_the_vehicle(
    attack: Attack, rule: str
) -> None:
    """A11.611: "All other PRC cannot be attacked separately in CC [EXC: capturing Passengers;
    11.52]"."""
    with pytest.raises(RuleViolation) as err:
        run(
            truck(passengers=True),
            [CloseCombat(turn=1, attacker="German", location="A1", attacks=[attack])],
            [],
        )
    assert err.value.rule == rule


def test_passengers_of_an_armored_vehicle_are_never_captured_apart() -> None:
    """A11.52 concerns an unarmored stationary vehicle; an armored one's Passengers share its
    fate (A11.611)."""
    s = setup(
        [squad("g467", "German", "A1", "4-6-7"), hs("r227", "Russian", "A1", "2-2-7")],
        [loc("A1", "open")],
        vehicles=[VehicleSetup(id="ht", side="Russian", location="A1", cmg=2, passengers=["r227"])],
    )
    cc = CloseCombat(
        turn=1,
        attacker="German",
        location="A1",
        attacks=[Attack(by=["g467"], targets=["r227"], capture=True)],
    )
    with pytest.raises(RuleViolation, match=r"A11\.611"):
        run(s, [cc], [])


# --- A11.21: carrying only up to the IPC on withdrawal -------------------------------------------


def melee_with_heavy_sw() -> Setup:
    """K4 in Melee: a German 4-6-7 carrying an MMG (4 PP) and an LMG (2 PP, as the scenario
    gives them), a Russian 4-4-7."""
    s = setup(
        [
            squad("g1", "German", "K4", "4-6-7", sws=["MMG", "LMG"]),
            squad("r1", "Russian", "K4", "4-4-7"),
        ],
        [loc("K3", "building", ("K4",)), loc("K4", "building", ("K3",))],
        melee=["K4"],
    )
    return msgspec.structs.replace(s, sw_portage={"MMG": 4, "LMG": 2})


def test_a_withdrawing_unit_carries_only_its_ipc() -> None:
    """A11.21: "Any unit withdrawing during the CCPh may carry only <= its IPC": the squad (IPC
    3) carrying 6 PP leaves the MMG (the player's choice) in K4 and withdraws with the LMG."""
    cc = CloseCombat(
        turn=1, attacker="German", location="K4", withdrawals=[Withdrawal(unit="g1", to="K3")]
    )
    p = run(melee_with_heavy_sw(), [cc], [], choices={"carry/melee/g1/0": "MMG"})
    dropped = one(p, ev.SupportWeaponDropped)
    assert (dropped.rule, dropped.sw, dropped.location) == ("A11.21", "MMG", "K4")
    assert p.state.units["g1"].sws == ["LMG"] and p.state.units["g1"].location == "K3"


def test_without_portage_points_nothing_is_left_behind() -> None:
    """A SW whose Portage Points the setup does not give weighs nothing (as in version 1.0)."""
    s = msgspec.structs.replace(melee_with_heavy_sw(), sw_portage={})
    cc = CloseCombat(
        turn=1, attacker="German", location="K4", withdrawals=[Withdrawal(unit="g1", to="K3")]
    )
    p = run(s, [cc], [])
    assert not of(p, ev.SupportWeaponDropped)
    assert p.state.units["g1"].sws == ["MMG", "LMG"]


# --- A11.16: the Disrupted exemption ------------------------------------------------------------


def test_a_broken_disrupted_unit_in_melee_need_not_withdraw_and_does_not_fail_to_rout() -> None:
    """A11.16: "Broken Infantry in Melee may not rout during the RtPh, but must attempt to
    Withdraw from Melee (11.2) unless Disrupted or guarding prisoners. Any other broken unit
    unable to withdraw from Melee is eliminated at the end of that CCPh for Failure to Rout."
    The same broken, pinned 2-2-7 that Fails to Rout in J2 stays when Disrupted."""
    s = setup(
        [
            hs("g338", "German", "J2", "3-3-8", kind="squad"),
            hs("r227", "Russian", "J2", "2-2-7", broken=True, pinned=True, disrupted=True),
        ],
        [loc("J2", "building", ("I3",)), loc("I3", "open", ("J2",))],
        melee=["J2"],
    )
    p = run(s, [CloseCombat(turn=1, attacker="German", location="J2")], [])
    assert not of(p, ev.FailureToRout) and not of(p, ev.WithdrawalAttempted)
    assert p.state.units["r227"].status == "active"
    assert "r227" in p.state.melee["J2"].units


# --- A11.4: the Cavalry and Pillbox drm ---------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "with_vehicle", "expected"),
    [
        ({"cavalry": True}, False, ["Cavalry"]),
        ({"in_pillbox": True}, False, ["in Pillbox"]),
        ({"cavalry": True, "in_pillbox": True}, True, ["Vehicle", "BU AFV t"]),
    ],
)
def test_cavalry_and_pillbox_add_two_to_the_ambush_dr_once(
    flags: dict[str, bool], with_vehicle: bool, expected: list[str]
) -> None:
    """A11.4 drm: "+2 Cavalry, Vehicle, or in Pillbox": one row, without the "(each)" of the
    +1 rows, so +2 once however many of them apply."""
    s = setup(
        [squad("r1", "Russian", "A1", "4-4-7", **flags), squad("g1", "German", "A1", "4-6-7")],
        [loc("A1", "woods")],
        vehicles=[VehicleSetup(id="t", side="Russian", location="A1")] if with_vehicle else [],
    )
    mods = ambush_drms(initial_state(s), "A1", "Russian", -2)
    assert causes(mods) == expected
    assert sum(m.value for m in mods if m.value == 2) == 2


# --- A11.22 after a 12: the K4 example's "either or both squads" (ruling) ------------------------


def k4() -> Setup:
    return setup(
        [
            squad("g467", "German", "K4", "4-6-7"),
            leader("g81", "German", "K4", "8-1", stacked_on="g467"),
            squad("r447", "Russian", "K4", "4-4-7"),
            squad("r527", "Russian", "K4", "5-2-7"),
        ],
        [
            loc("K4", "building", ("K3", "K5")),
            loc("K3", "building", ("K4",)),
            loc("K5", "building", ("K4",)),
        ],
        melee=["K4"],
    )


K4_CC = CloseCombat(
    turn=3,
    attacker="German",
    location="K4",
    withdrawals=[Withdrawal(unit="g81", to="K3")],
    attacks=[
        Attack(by=["g467"], targets=["r447"]),
        Attack(by=["r447", "r527"], targets=["g467", "g81"]),
    ],
)


def test_k4_either_or_both_squads_may_withdraw_after_the_12_under_attacked_side() -> None:
    """The K4 example: "The German rolls an Original 12 CC DR resulting in no effect other than
    Infiltration for the Russian, who can now choose to Withdraw either or both squads before
    making an attack", though the German attacked only the 4-4-7. Ruling
    infiltration-on-12=attacked-side: both withdraw, and their attack is forfeited."""
    choices = {"infiltrate/1/r447": "K5", "infiltrate/1/r527": "K5"}
    p = run(k4(), [K4_CC], [6, 6], choices=choices, rulings={"infiltration-on-12": "attacked-side"})
    assert [i.unit for i in of(p, ev.Infiltrated)] == ["r447", "r527"]
    assert one(p, ev.AttackForfeited).attack == 2


def test_by_default_only_the_unit_attacked_by_the_12_may_withdraw() -> None:
    """A11.22: "Any Infantry/Cavalry unit(s) attacked by an Original 12 CC DR may likewise
    withdraw": the 5-2-7 was not attacked, it is not asked and attacks (1-1, Original 6)."""
    choices = {"infiltrate/1/r447": "K5"}
    p = run(k4(), [K4_CC], [6, 6, 3, 3, 5], choices=choices)
    assert [i.unit for i in of(p, ev.Infiltrated)] == ["r447"]
    assert not [c for c in p.events if getattr(c, "key", "").endswith("r527")]


def test_cavalry_surviving_cc_is_not_held_in_melee() -> None:
    """A11.71: "Cavalry, cyclists, skiers, Mobile vehicles and their PRC who survive their
    initial round of CC are not required to remain in Melee." Both attacks miss; only Infantry
    of both sides would be locked, and the Russian cavalry is not."""
    s = setup(
        [squad("g1", "German", "A1", "4-6-7"), squad("r1", "Russian", "A1", "4-4-7", cavalry=True)],
        [loc("A1", "open")],
    )
    cc = CloseCombat(
        turn=1,
        attacker="German",
        location="A1",
        attacks=[Attack(by=["g1"], targets=["r1"]), Attack(by=["r1"], targets=["g1"])],
    )
    p = run(s, [cc], [6, 6, 6, 6])
    assert "A1" not in p.state.melee and not of(p, ev.MeleeLocked)
