"""The comprehensive example of A11 (hexes F4, G3, G5, H3, I5, J2, K4), the A11.622 PzIVJ
example and the PzIVH paragraph, driven with the dice the text names."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from asl_helpers import hs, leader, loc, of, one, run, setup, squad

from blowbyblow.domain.asl import events as ev
from blowbyblow.domain.asl.commands import Attack, CloseCombat, ExtraDrm, Withdrawal
from blowbyblow.domain.asl.setup import Setup, UnitSetup, VehicleSetup
from blowbyblow.domain.core import Modifier, RuleViolation


def causes(mods: Iterable[Modifier]) -> list[str]:
    return [m.cause for m in mods]


# --- F4: 9-2 and 4-6-7 Street Fight the T-34 from F3, onto the Wire -------------------------


def test_f4_street_fighting_atmm_eliminates_t34_and_wire_keeps_them() -> None:
    s = setup(
        [
            squad("g467", "German", "F4", "4-6-7", street_fighting_from="F3"),
            leader("g92", "German", "F4", "9-2", stacked_on="g467", street_fighting_from="F3"),
        ],
        # "ADJACENT to a building hex on both sides of that road" (A11.8): F3 and, across, G4
        [
            loc("F3", "building", ("F4",)),
            loc("F4", "road", ("F3", "G4"), wire=True, road_sides=[["F3"], ["G4"]]),
            loc("G4", "building", ("F4",)),
        ],
        vehicles=[VehicleSetup(id="t34", side="Russian", location="F4", name="T-34", cmg=2)],
    )
    cc = CloseCombat(
        turn=1,
        attacker="German",
        location="F4",
        attacks=[
            Attack(
                by=["g467", "g92"],
                targets=["t34"],
                atmm="g467",
                extra=[ExtraDrm(value=1, cause="Wire", rule="B26.41")],
            )
        ],
    )
    p = run(s, [cc], [3, 4, 5])  # ATMM Original 3; CC Original 9
    atmm = one(p, ev.ATMMChecked)
    assert (atmm.original, atmm.result) == (3, "atmm")
    assert one(p, ev.CCVCalculated).ccv == 6
    res = one(p, ev.VehicleCCResolved)
    assert sorted(causes(res.modifiers)) == sorted(
        ["Street Fighting Ambush", "ATMM", "leader g92", "Wire"]
    )
    assert sum(m.value for m in res.modifiers) == -5
    assert (res.original, res.final_dr, res.result) == (9, 4, "eliminated")
    assert p.state.vehicles["t34"].status == "wreck"
    assert p.state.units["g467"].location == "F4" and p.state.units["g92"].location == "F4"
    assert not of(p, ev.AmbushStatusRolled)


# --- G3: capture attempt vs the Inexperienced 4-2-6 -------------------------------------------


def g3() -> Setup:
    return setup(
        [
            squad("g467", "German", "G3", "4-6-7"),
            squad("r426", "Russian", "G3", "4-2-6", inexperienced=True),
        ],
        [loc("G3", "building", ("G2",)), loc("G2", "building", ("G3",))],
    )


G3_CC = CloseCombat(
    turn=1,
    attacker="German",
    location="G3",
    attacks=[
        Attack(by=["g467"], targets=["r426"], capture=True),
        Attack(by=["r426"], targets=["g467"]),
    ],
)


def test_g3_no_ambush_capture_of_one_hs_then_melee() -> None:
    p = run(g3(), [G3_CC], [2, 3, 3, 3, 4, 5])
    rolls = one(p, ev.AmbushStatusRolled).rolls
    assert [(r.side, r.final) for r in rolls] == [("German", 2), ("Russian", 4)]
    assert causes(rolls[1].modifiers) == ["Lax"]
    assert one(p, ev.AmbushStatusRolled).ambusher is None
    res = of(p, ev.CloseCombatResolved)
    assert (res[0].column, res[0].kill_number) == ("1-1", 5)
    assert causes(res[0].outcomes[0].modifiers) == ["Capture vs Inexperienced"]
    assert (res[0].outcomes[0].final_dr, res[0].outcomes[0].result) == (5, "partial-capture")
    assert (res[1].outcomes[0].final_dr, res[1].outcomes[0].result) == (9, "none")
    assert p.state.units["r426"].name == "2-2-6"
    assert p.state.prisoners == {"r426-prisoner": "g467"}
    assert p.state.units["r426-prisoner"].status == "captured"
    assert p.state.melee["G3"].units == ("g467", "r426")


def test_g3_russian_4_eliminates_the_467_so_no_capture() -> None:
    p = run(g3(), [G3_CC], [2, 3, 3, 3, 2, 2])
    assert p.state.units["g467"].status == "eliminated"
    voided = one(p, ev.CaptureVoided)
    assert voided.unit == "r426-prisoner"
    assert p.state.prisoners == {}
    assert p.state.units["r426"].name == "4-2-6" and p.state.units["r426"].kind == "squad"


def test_g3_reduced_467_still_captures() -> None:
    p = run(g3(), [G3_CC], [2, 3, 3, 3, 2, 3])
    assert p.state.units["g467"].name == "2-4-7"
    assert p.state.prisoners == {"r426-prisoner": "g467"}
    assert not of(p, ev.CaptureVoided)


def test_g3_capture_voided_ruling_never() -> None:
    p = run(g3(), [G3_CC], [2, 3, 3, 3, 2, 2], rulings={"capture-voided": "never"})
    assert p.state.prisoners == {"r426-prisoner": "g467"}


# --- G5: concealed 2-4-7 Ambushes the concealed 4-4-7 and withdraws onto a HIP AT Gun -------


def g5() -> Setup:
    return setup(
        [
            hs("g247", "German", "G5", "2-4-7", concealed=True),
            squad("r447", "Russian", "G5", "4-4-7", concealed=True),
            hs("rcrew", "Russian", "G4", "2-2-8", kind="crew", hidden=True, sws=["AT Gun"]),
        ],
        [
            loc("G5", "open", ("G4", "G6")),
            loc("G4", "building", ("G5",)),
            loc("G6", "open", ("G5",)),
        ],
    )


def test_g5_ambush_withdrawal_into_hip_gun() -> None:
    cc = CloseCombat(
        turn=1, attacker="German", location="G5", attacks=[Attack(by=["g247"], targets=["r447"])]
    )
    p = run(g5(), [cc], [2, 5], choices={"ambush-withdraw/before/g247": "G4"})
    rolls = one(p, ev.AmbushStatusRolled).rolls
    assert [(r.final, causes(r.modifiers)) for r in rolls] == [
        (0, ["Concealed"]),
        (3, ["Concealed"]),
    ]
    amb = one(p, ev.AmbushDeclared)
    assert (amb.ambusher, amb.ambushed) == ("German", "Russian")
    assert not p.state.units["r447"].concealed
    assert p.state.units["g247"].status == "eliminated"
    assert not p.state.units["rcrew"].hidden
    # the 2-4-7 withdrew before CC: its attack is forfeited, no CC DR was made
    assert one(p, ev.AttackForfeited).attack == 1
    assert not of(p, ev.CCAttackRolled)
    assert "G5" not in p.state.melee


def test_g5_if_it_attacks_at_1_2_with_ambush_and_keeps_concealment_when_eliminating() -> None:
    cc = CloseCombat(
        turn=1, attacker="German", location="G5", attacks=[Attack(by=["g247"], targets=["r447"])]
    )
    p = run(g5(), [cc], [2, 5, 1, 1])
    odds = one(p, ev.OddsCalculated)
    assert (odds.column, odds.kill_number) == ("1-2", 4)
    assert causes(one(p, ev.CloseCombatResolved).outcomes[0].modifiers) == ["Ambush"]
    assert p.state.units["r447"].status == "eliminated"
    assert p.state.units["g247"].concealed


def test_g5_ambusher_failing_loses_concealment_and_is_attacked_back_at_2_1_plus_1() -> None:
    cc = CloseCombat(
        turn=1,
        attacker="German",
        location="G5",
        attacks=[Attack(by=["g247"], targets=["r447"]), Attack(by=["r447"], targets=["g247"])],
    )
    p = run(g5(), [cc], [2, 5, 5, 6, 5, 6])
    assert not p.state.units["g247"].concealed
    second = of(p, ev.OddsCalculated)[1]
    assert (second.attack_fp, second.defense_fp, second.column) == ("4", "2", "2-1")
    assert causes(of(p, ev.CloseCombatResolved)[1].outcomes[0].modifiers) == [
        "target has Ambush status"
    ]


# --- H3: the 5-4-8 and Hero advance into a woods hex with a PzV in Bypass ---------------------


def test_h3_sequence() -> None:
    s = setup(
        [
            squad("g548", "German", "H3", "5-4-8"),
            UnitSetup(
                id="ghero",
                side="German",
                kind="hero",
                name="1-4-9",
                fp=1,
                morale=9,
                location="H3",
                stacked_on="g548",
            ),
            squad("r628", "Russian", "H3", "6-2-8"),
            squad("r447", "Russian", "H3", "4-4-7"),
        ],
        [
            loc("H3", "woods", ("H2", "H4")),
            loc("H2", "woods", ("H3",)),
            loc("H4", "woods", ("H3",)),
        ],
        vehicles=[
            VehicleSetup(
                id="pzv",
                side="German",
                location="H3",
                name="PzV",
                cmg=5,
                bmg=2,
                bypass=True,
                close_defense_usage=10,
            )
        ],
    )
    cc = CloseCombat(
        turn=1,
        attacker="German",
        location="H3",
        attacks=[
            Attack(by=["r628"], targets=["g548"]),
            Attack(by=["r447"], targets=["pzv"]),
            Attack(by=["g548", "ghero"], targets=["r628"]),
            Attack(by=["pzv"], targets=[], weapons=["sn"]),
            Attack(by=["pzv"], targets=["r447"], weapons=["cmg"]),
        ],
    )
    p = run(
        s,
        [cc],
        [3, 3, 4, 4, 1, 1, 3, 3, 3, 4, 6, 6],
        choices={"infiltrate/3/g548": "H2", "infiltrate/3/ghero": "H2", "infiltrate/5/r447": "H4"},
    )
    rolls = one(p, ev.AmbushStatusRolled)
    german = rolls.rolls[0]
    assert german.final == 5 and sorted(causes(german.modifiers)) == sorted(
        ["Vehicle", "BU AFV pzv", "Stealthy"]
    )
    assert rolls.rolls[1].final == 3 and rolls.ambusher is None
    order = [d.attack for d in of(p, ev.AttackDesignated)]
    assert order == [1, 3, 2, 4, 5]  # the Russian (non-vehicular) first, then alternating
    res = of(p, ev.CloseCombatResolved)
    assert (res[0].column, res[0].outcomes[0].final_dr, res[0].outcomes[0].result) == (
        "1-1",
        8,
        "none",
    )
    assert causes(res[1].outcomes[0].modifiers) == ["hero ghero"]
    assert res[1].outcomes[0].result == "eliminated"
    assert [i.unit for i in of(p, ev.Infiltrated)] == ["g548", "ghero", "r447"]
    veh = one(p, ev.VehicleCCResolved)
    assert causes(veh.modifiers) == ["Street Fighting Ambush"]
    assert (veh.ccv, veh.original, veh.result) == (5, 6, "immobilized")
    sn = one(p, ev.CloseDefenseWeaponFired)
    assert (sn.original, sn.effective, sn.targets) == (7, True, ("r447",))
    cmg = res[2]
    assert (cmg.column, cmg.original) == ("1-1", 12)
    assert causes(cmg.outcomes[0].modifiers) == ["Street Fighting Ambush"]
    assert not p.state.vehicles["pzv"].mobile
    assert "H3" not in p.state.melee


# --- I5: the Fanatic 5-4-8 Street Fights the CE T-34/85 --------------------------------------


def test_i5_atmm_pins_crew_small_arms_and_melee_with_vehicle() -> None:
    s = setup(
        [squad("g548", "German", "I5", "5-4-8", fanatic=True, street_fighting_from="J4")],
        [
            loc("I5", "road", ("J4", "H5"), road_sides=[["J4"], ["H5"]]),
            loc("J4", "building", ("I5",)),
            loc("H5", "building", ("I5",)),
        ],
        vehicles=[
            VehicleSetup(id="t3485", side="Russian", location="I5", name="T-34/85", ce=True, cmg=4)
        ],
    )
    cc = CloseCombat(
        turn=1,
        attacker="German",
        location="I5",
        attacks=[
            Attack(by=["g548"], targets=["t3485"], atmm="g548"),
            Attack(by=["t3485"], targets=["g548"]),
        ],
    )
    p = run(s, [cc], [6, 6, 6, 4, 5])
    assert one(p, ev.ATMMChecked).result == "pinned"
    assert one(p, ev.CCVCalculated).ccv == 4
    veh = one(p, ev.VehicleCCResolved)
    assert sorted(causes(veh.modifiers)) == ["CE AFV", "Street Fighting Ambush"]
    assert (veh.original, veh.final_dr, veh.result) == (12, 10, "none")
    assert p.state.units["g548"].name == "2-3-8"
    odds = one(p, ev.OddsCalculated)
    assert (odds.attack_fp, odds.defense_fp, odds.column) == ("4", "2", "2-1")
    out = one(p, ev.CloseCombatResolved).outcomes[0]
    assert causes(out.modifiers) == ["Street Fighting Ambush"] and out.final_dr == 10
    assert p.state.units["g548"].location == "I5"  # pinned: cannot return to J4
    assert p.state.melee["I5"].units == ("g548",)
    assert p.state.melee["I5"].vehicles == ("t3485",)


# --- J2: the concealed 3-3-8 Ambushes the broken 2-2-7 ---------------------------------------


def j2() -> Setup:
    return setup(
        [
            hs("g338", "German", "J2", "3-3-8", kind="squad", concealed=True),
            hs("r227", "Russian", "J2", "2-2-7", broken=True),
        ],
        [
            loc("J2", "building", ("I3", "K2")),
            loc("I3", "open", ("J2",)),
            loc("K2", "building", ("J2",)),
        ],
    )


def test_j2_ambush_of_broken_unit_then_forced_withdrawal_from_melee() -> None:
    turn1 = CloseCombat(
        turn=1, attacker="German", location="J2", attacks=[Attack(by=["g338"], targets=["r227"])]
    )
    turn2 = CloseCombat(
        turn=2, attacker="Russian", location="J2", attacks=[Attack(by=["g338"], targets=["r227"])]
    )
    # both Original Ambush drs 3 (the text's number is lost); CC Original 11; next turn 6+6
    p = run(j2(), [turn1, turn2], [3, 3, 5, 6, 6, 6])
    rolls = one(p, ev.AmbushStatusRolled).rolls
    assert [(r.side, r.final) for r in rolls] == [("German", 1), ("Russian", 4)]
    assert one(p, ev.AmbushDeclared).ambusher == "German"
    first = of(p, ev.CloseCombatResolved)[0]
    assert (first.column, first.kill_number) == ("3-2", 6)
    assert sorted(causes(first.outcomes[0].modifiers)) == ["Ambush", "broken target"]
    assert first.outcomes[0].final_dr == 8 and first.outcomes[0].result == "none"
    lost = [e for e in of(p, ev.ConcealmentLost) if e.unit == "g338"]
    assert lost and lost[0].rule == "A11.4"
    assert one(p, ev.MeleeLocked).units == ("g338", "r227")
    w = one(p, ev.WithdrawalAttempted)
    assert (w.unit, w.forced, w.drm) == ("r227", True, -2)
    second = of(p, ev.CloseCombatResolved)[1]
    assert sum(m.value for m in second.outcomes[0].modifiers) == -4
    assert p.state.units["r227"].location == "I3"
    assert "J2" not in p.state.melee


def test_broken_unit_in_melee_unable_to_withdraw_fails_to_rout() -> None:
    s = setup(
        [
            hs("g338", "German", "J2", "3-3-8", kind="squad"),
            hs("r227", "Russian", "J2", "2-2-7", broken=True, pinned=True),
        ],
        [loc("J2", "building", ("I3",)), loc("I3", "open", ("J2",))],
        melee=["J2"],
    )
    p = run(s, [CloseCombat(turn=1, attacker="German", location="J2")], [])
    assert one(p, ev.FailureToRout).unit == "r227"
    assert p.state.units["r227"].status == "eliminated"
    assert "J2" not in p.state.melee


# --- K4: Melee; the 8-1 withdraws covered by the 4-6-7 ----------------------------------------


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


def test_k4_withdrawal_infiltration_and_mortal_wound() -> None:
    p = run(k4(), [K4_CC], [6, 6, 3, 3, 5], choices={"infiltrate/1/r447": "K5"})
    assert not of(p, ev.AmbushStatusRolled)  # Melee: no Ambush
    w = one(p, ev.WithdrawalAttempted)
    assert (w.unit, w.standing, w.drm) == ("g81", 1, -1)
    res = of(p, ev.CloseCombatResolved)
    assert (res[0].column, res[0].original, res[0].outcomes[0].result) == ("1-1", 12, "none")
    assert one(p, ev.Infiltrated).unit == "r447"
    assert p.state.units["r447"].location == "K5"
    odds = of(p, ev.OddsCalculated)[1]
    assert (odds.attack_fp, odds.defense_fp, odds.column) == ("5", "5", "1-1")
    g467, g81 = res[1].outcomes
    assert (g467.final_dr, g467.result) == (6, "none")
    assert (g81.final_dr, g81.result) == (5, "partial")
    wound = one(p, ev.WoundSeverityRolled)
    assert (wound.original, wound.result) == (5, "killed")
    assert p.state.units["g81"].status == "eliminated"
    cont = one(p, ev.MeleeContinued)
    assert cont.units == ("g467", "r527") and cont.since == 0


def test_k4_without_infiltration_the_russians_attack_at_3_2() -> None:
    p = run(k4(), [K4_CC], [6, 6, 5, 5])
    odds = of(p, ev.OddsCalculated)[1]
    assert (odds.attack_fp, odds.defense_fp, odds.column) == ("9", "5", "3-2")


# --- A11.622 EX: three 4-4-7 and an 8-1 vs a BU PzIVJ ------------------------------------------


def pz4j() -> Setup:
    return setup(
        [
            squad("rA", "Russian", "P1", "4-4-7"),
            leader("rL", "Russian", "P1", "8-1", stacked_on="rA"),
            squad("rB", "Russian", "P1", "4-4-7"),
            squad("rC", "Russian", "P1", "4-4-7"),
        ],
        [loc("P1", "open")],
        vehicles=[
            VehicleSetup(
                id="pz",
                side="German",
                location="P1",
                name="PzIVJ",
                cmg=5,
                bmg=2,
                close_defense_usage=10,
            )
        ],
    )


PZ4J_CC = CloseCombat(
    turn=1,
    attacker="Russian",
    location="P1",
    attacks=[
        Attack(by=["rA", "rL"], targets=["pz"]),
        Attack(by=["pz"], targets=[], weapons=["sn"]),
        Attack(by=["rB"], targets=["pz"]),
        Attack(by=["pz"], targets=["rA", "rB", "rC"], weapons=["cmg"]),
    ],
)


def test_pziv_example() -> None:
    p = run(
        pz4j(),
        [PZ4J_CC],
        [3, 4, 3, 4, 3, 4, 2, 3, 5, 3, 5, 2],
        choices={"mc/2/rL": "break", "mc/2/rA": "break", "mc/2/rC": "break"},
    )
    v1, v2 = of(p, ev.VehicleCCResolved)
    assert of(p, ev.CCVCalculated)[0].ccv == 6
    assert causes(v1.modifiers) == ["leader rL"] and v1.result == "immobilized"
    assert causes(v2.modifiers) == ["Immobile AFV"] and (v2.final_dr, v2.result) == (6, "none")
    assert one(p, ev.CloseDefenseWeaponFired).effective
    odds = one(p, ev.OddsCalculated)
    assert (odds.attack_fp, odds.defense_fp, odds.column, odds.kill_number) == ("5", "16", "1-4", 3)
    res = {o.unit: o for o in one(p, ev.CloseCombatResolved).outcomes}
    assert {u for u, o in res.items() if o.result == "partial"} == {"rA", "rC", "rL"}
    assert res["rB"].result == "none"
    assert one(p, ev.RandomSelectionRolled).selected == ("rA", "rL")
    assert p.state.units["rA"].kind == "hs" and p.state.units["rC"].kind == "squad"
    assert p.state.units["rL"].wounded
    assert set(p.state.melee["P1"].units) == {"rA", "rB", "rC", "rL"}
    assert p.state.melee["P1"].vehicles == ("pz",)


@pytest.mark.parametrize(
    ("dice", "ruling", "result"),
    [
        ((1, 2), "original", "burning"),
        ((2, 2), "original", "eliminated"),
        ((2, 2), "final", "burning"),
        ((3, 3), "original", "eliminated"),
        ((3, 4), "original", "immobilized"),
    ],
)
def test_pziv_first_attack_thresholds_and_burn_ruling(
    dice: tuple[int, int], ruling: str, result: str
) -> None:
    """Immobilized on an Original 7, eliminated on 6, burns on an Original <= 3 (ruling
    burn-dr=original); judged on the Final DR an Original 4 (Final 3) would burn too."""
    cc = CloseCombat(
        turn=1, attacker="Russian", location="P1", attacks=[Attack(by=["rA", "rL"], targets=["pz"])]
    )
    p = run(pz4j(), [cc], list(dice), rulings={"burn-dr": ruling})
    assert one(p, ev.VehicleCCResolved).result == result


# --- the PzIVH paragraph: a concealed 4-4-7 and a PzIVH ----------------------------------------


def pz4h() -> Setup:
    return setup(
        [squad("r447", "Russian", "L5", "4-4-7", concealed=True)],
        [loc("L5", "building")],
        vehicles=[VehicleSetup(id="pzh", side="German", location="L5", name="PzIVH", cmg=5, bmg=2)],
    )


def test_pzivh_both_attack_no_effect_melee_counter_but_vehicle_not_held() -> None:
    cc = CloseCombat(
        turn=1,
        attacker="German",
        location="L5",
        ambush_possible=False,
        attacks=[Attack(by=["r447"], targets=["pzh"]), Attack(by=["pzh"], targets=["r447"])],
    )
    p = run(pz4h(), [cc], [3, 4, 3, 4])
    veh = one(p, ev.VehicleCCResolved)
    assert (veh.ccv, veh.modifiers, veh.result) == (5, (), "none")
    odds = one(p, ev.OddsCalculated)
    assert (odds.attack_fp, odds.defense_fp, odds.column) == ("5", "5", "1-1")
    assert one(p, ev.CloseCombatResolved).outcomes[0].modifiers == ()
    assert p.state.melee["L5"].units == ("r447",)
    assert p.state.melee["L5"].vehicles == ("pzh",)


def test_pzivh_concealed_squad_declines_keeps_concealment_and_is_not_held() -> None:
    cc = CloseCombat(
        turn=1,
        attacker="German",
        location="L5",
        ambush_possible=False,
        attacks=[Attack(by=["pzh"], targets=["r447"])],
    )
    p = run(pz4h(), [cc], [3, 4])
    odds = one(p, ev.OddsCalculated)
    assert (odds.attack_fp, odds.defense_fp, odds.column) == ("2.5", "5", "1-2")
    assert p.state.units["r447"].concealed
    assert "L5" not in p.state.melee


def test_pziv_example_paatc_aided_by_the_leader() -> None:
    """Each squad, aided by the 8-1, advances on a PAATC DR < 8 (Final <= Morale 7); a failed
    one (Original 9) pins the squad, which stays where it was."""
    from blowbyblow.domain.asl.commands import Paatc

    cc = CloseCombat(
        turn=1,
        attacker="Russian",
        location="P1",
        paatc=[
            Paatc(unit="rA", from_location="P0"),
            Paatc(unit="rB", from_location="P0"),
            Paatc(unit="rC", from_location="P0"),
        ],
    )
    s = pz4j()
    s = type(s)(
        sides=s.sides,
        locations=[*s.locations, loc("P0", "open", ("P1",))],
        units=s.units,
        vehicles=s.vehicles,
    )
    p = run(s, [cc], [4, 4, 3, 4, 5, 4])
    checks = of(p, ev.PAATCTaken)
    assert [(c.original, c.final, c.passed) for c in checks] == [
        (8, 7, True),
        (7, 6, True),
        (9, 8, False),
    ]
    assert causes(checks[0].modifiers) == ["leader rL"]
    assert p.state.units["rC"].location == "P0" and p.state.units["rC"].pinned


def test_f4_paatc_original_8_modified_by_the_9_2() -> None:
    from blowbyblow.domain.asl.commands import Paatc

    s = setup(
        [
            squad("g467", "German", "F4", "4-6-7", street_fighting_from="F3"),
            leader("g92", "German", "F4", "9-2", stacked_on="g467", street_fighting_from="F3"),
        ],
        # "ADJACENT to a building hex on both sides of that road" (A11.8): F3 and, across, G4
        [
            loc("F3", "building", ("F4",)),
            loc("F4", "road", ("F3", "G4"), wire=True, road_sides=[["F3"], ["G4"]]),
            loc("G4", "building", ("F4",)),
        ],
        vehicles=[VehicleSetup(id="t34", side="Russian", location="F4", name="T-34", cmg=2)],
    )
    cc = CloseCombat(
        turn=1, attacker="German", location="F4", paatc=[Paatc(unit="g467", from_location="F3")]
    )
    p = run(s, [cc], [4, 4])
    check = one(p, ev.PAATCTaken)
    assert (check.original, check.final, check.passed) == (8, 6, True)
    with pytest.raises(RuleViolation, match="exempt"):
        run(
            s,
            [
                CloseCombat(
                    turn=1,
                    attacker="German",
                    location="F4",
                    paatc=[Paatc(unit="g92", from_location="F3")],
                )
            ],
            [],
        )


def test_prisoners_attack_their_captor_first_by_default() -> None:
    """A11.33: "Prisoners attempting to eliminate their captor may resolve all of their CC
    attacks first (20.55)." After G3, the HS Prisoner attacks its guard before anything else in
    the next CCPh (the default of prisoner-attacks since 1.1); the guard eliminated, it is
    released, and the guard's own attack is forfeited. Under not-allowed it may not attack."""
    turn2 = CloseCombat(
        turn=2,
        attacker="Russian",
        location="G3",
        attacks=[
            Attack(by=["g467"], targets=["r426"]),
            Attack(by=["r426-prisoner"], targets=["g467"]),
        ],
    )
    with pytest.raises(RuleViolation, match=r"A20\.55"):
        run(
            g3(),
            [G3_CC, turn2],
            [2, 3, 3, 3, 4, 5, 1, 1],
            rulings={"prisoner-attacks": "not-allowed"},
        )
    p = run(g3(), [G3_CC, turn2], [2, 3, 3, 3, 4, 5, 1, 1])
    designated = [d for d in of(p, ev.AttackDesignated) if d.sequence == "prisoners"]
    assert [d.attack for d in designated] == [2]
    odds = of(p, ev.OddsCalculated)[-1]
    assert (odds.attack_fp, odds.defense_fp, odds.column) == ("2", "4", "1-2")
    assert p.state.units["g467"].status == "eliminated"
    assert one(p, ev.PrisonerReleased).unit == "r426-prisoner"
    assert p.state.units["r426-prisoner"].status == "active" and p.state.prisoners == {}
    assert of(p, ev.AttackForfeited)[-1].attack == 1
    assert "G3" not in p.state.melee
