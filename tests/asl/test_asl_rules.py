"""Single rules of A11: the CCT, validations, modifiers, special cases."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import pytest
from asl_helpers import hs, leader, loc, of, one, run, setup, squad

from blowbyblow.domain.asl import events as ev
from blowbyblow.domain.asl.ambush import ambush_drms
from blowbyblow.domain.asl.cct import CCT, kill_number, odds_column, result_of
from blowbyblow.domain.asl.commands import Attack, CloseCombat, Withdrawal
from blowbyblow.domain.asl.legal import validate
from blowbyblow.domain.asl.setup import Setup, UnitSetup, VehicleSetup
from blowbyblow.domain.asl.state import initial_state
from blowbyblow.domain.core import Context, Modifier, RuleViolation


def cc(*attacks: Attack, **kw: Any) -> CloseCombat:
    kw.setdefault("turn", 1)
    kw.setdefault("attacker", "German")
    kw.setdefault("location", "A1")
    return CloseCombat(attacks=list(attacks), **kw)


def causes(mods: Iterable[Modifier]) -> list[str]:
    return [m.cause for m in mods]


# --- the CCT (A11.11) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("att", "dfn", "column"),
    [
        (12, 4, "3-1"),
        (7, 4, "3-2"),
        (11, 2, "4-1"),
        (4, 15, "1-4"),
        (12, 12, "1-1"),
        (8, 4, "2-1"),
        (4, 8, "1-2"),
        (5, 16, "1-4"),
        (1, 8, "1-8"),
        (1, 5, "1-6"),
        (1, 7, "1-8"),
        (1, 9, "<1-8"),
        (1, 10, "<1-8"),
        (10, 1, "10-1"),
        (12, 1, ">10-1"),
        (9, 1, "8-1"),
        (7, 1, "6-1"),
    ],
)
def test_odds_round_down(att: int, dfn: int, column: str) -> None:
    assert odds_column(Fraction(att), Fraction(dfn), "beyond")[0] == column


def test_kill_numbers_of_the_cct_and_red_is_black_plus_two() -> None:
    assert [kn for _, _, kn in CCT] == list(range(14))
    assert kill_number(5, red=True) == 7 and kill_number(5, red=False) == 5
    assert [result_of(d, 5) for d in (4, 5, 6)] == ["eliminated", "partial", "none"]


@pytest.mark.parametrize(
    ("ruling", "column", "kn"), [("beyond", ">10-1", 13), ("round-down", "10-1", 12)]
)
def test_odds_just_above_10_to_1_ruling(ruling: str, column: str, kn: int) -> None:
    assert odds_column(Fraction(21), Fraction(2), ruling) == (column, kn)


def test_odds_column_is_the_highest_column_the_ratio_reaches() -> None:
    """The CCT read as printed (the highest column whose lowest ratio the FP ratio reaches) for
    halved and quartered strengths on either side, either ruling above 10-1, and a defense of 0."""
    strengths = sorted({Fraction(n, d) for n in range(0, 49) for d in (1, 2, 4)})
    for attack in strengths:
        for defense in strengths:
            for ruling in ("beyond", "round-down"):
                if defense <= 0 or (ruling == "beyond" and attack / defense > 10):
                    expected = (CCT[-1][0], CCT[-1][2])
                else:
                    reached = [(name, kn) for name, low, kn in CCT if attack / defense >= low]
                    expected = reached[-1]
                assert odds_column(attack, defense, ruling) == expected, (attack, defense)


# --- validation (nothing is written) ------------------------------------------------------------


def two_on_two() -> Setup:
    return setup(
        [
            squad("g1", "German", "A1", "4-6-7"),
            leader("gL", "German", "A1", "8-1", stacked_on="g1"),
            squad("g2", "German", "A1", "4-6-7", broken=True),
            squad("r1", "Russian", "A1", "4-4-7"),
            squad("r2", "Russian", "A1", "4-4-7"),
        ],
        [loc("A1", "open", ("A2",)), loc("A2", "open", ("A1",))],
    )


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        (cc(Attack(by=["g1"], targets=["r1"]), Attack(by=["g1"], targets=["r2"])), "A11.12"),
        (cc(Attack(by=["g1"], targets=["r1"]), Attack(by=["gL"], targets=["r1"])), "A11.14"),
        (cc(Attack(by=["g1"], targets=["r1"]), Attack(by=["r2"], targets=["r1"])), "A11.1"),
        (cc(Attack(by=["g2"], targets=["r1"])), "A11.16"),
        (cc(Attack(by=["r1"], targets=["gL"])), "A11.14"),
        (cc(Attack(by=["gL"], targets=["r1"])), "A11.14"),
        (
            cc(
                Attack(by=["g1"], targets=["r1"]),
                Attack(by=["r2"], targets=["g1"]),
                Attack(by=["r1"], targets=["g1"]),
            ),
            "A11.12",
        ),
        (cc(withdrawals=[Withdrawal(unit="g1", to="A2")]), "A11.2"),
        (cc(Attack(by=["g1"], targets=["zz"])), "A11.1"),
        (cc(location="Q9"), "A11.1"),
    ],
)
def test_illegal_commands_are_refused(command: CloseCombat, rule: str) -> None:
    from blowbyblow.replay.engine.registry import get_game_system

    state = initial_state(two_on_two())
    ctx = Context(rulings=get_game_system("asl").resolve_rulings({}), command_index=0)
    with pytest.raises(RuleViolation) as err:
        validate(state, command, ctx)
    assert err.value.rule == rule


def test_solo_smc_attack_when_announced_defends_alone_without_leadership_drm() -> None:
    p = run(
        two_on_two(),
        [cc(Attack(by=["gL"], targets=["r1"]), Attack(by=["r2"], targets=["gL"]), solo=["gL"])],
        [3, 3, 6, 6],
    )
    odds = of(p, ev.OddsCalculated)
    assert (odds[0].attack_fp, odds[0].column) == ("1", "1-4")
    assert (odds[1].attack_fp, odds[1].defense_fp) == ("4", "1")
    first = of(p, ev.CloseCombatResolved)[0]
    assert first.outcomes[0].modifiers == ()


def test_same_location_twice_in_a_player_turn_and_earlier_turn_refused() -> None:
    s = two_on_two()
    p = run(s, [cc(Attack(by=["g1"], targets=["r1"]))], [6, 6])
    ctx = Context(rulings=p.ruleset.resolve_rulings({}), command_index=0)
    with pytest.raises(RuleViolation, match="already resolved"):
        validate(p.state, cc(), ctx)
    with pytest.raises(RuleViolation, match="before"):
        validate(p.state, cc(turn=0), ctx)


# --- modifiers ----------------------------------------------------------------------------------


def test_pinned_attacker_halved_cx_both_ways_and_pinned_leader_cannot_direct() -> None:
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7", pinned=True, cx=True),
            leader("gL", "German", "A1", "8-1", stacked_on="g1", pinned=True),
            squad("r1", "Russian", "A1", "4-4-7", cx=True),
        ],
        [loc("A1")],
    )
    p = run(s, [cc(Attack(by=["g1", "gL"], targets=["r1"]))], [6, 6])
    odds = one(p, ev.OddsCalculated)
    assert odds.attack_fp == "2.5" and len(odds.halvings) == 2
    mods = one(p, ev.CloseCombatResolved).outcomes[0].modifiers
    assert causes(mods) == ["CX attacker", "CX target"]


def test_hand_to_hand_ruling_uses_red_kill_numbers() -> None:
    s = two_on_two()
    attack = Attack(by=["g1", "gL"], targets=["r1"], hth=True)
    for ruling, kn in (("never", 5), ("declared", 7), ("always", 7)):
        p = run(s, [cc(attack)], [6, 6], rulings={"hand-to-hand": ruling})
        odds = one(p, ev.OddsCalculated)
        assert odds.kill_number == kn
        assert odds.kn_color == ("black" if ruling == "never" else "red")


def test_capture_drm_applies_per_defender() -> None:
    """A20.22 EX: 1-2 (KN 4), Original 3: the Inexperienced 4-2-6 (-1, Final 2) is captured;
    the 4-4-7 (+1, Final 4 = KN) gives up one HS."""
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7"),
            squad("r426", "Russian", "A1", "4-2-6", inexperienced=True),
            squad("r447", "Russian", "A1", "4-4-7"),
        ],
        [loc("A1")],
    )
    p = run(s, [cc(Attack(by=["g1"], targets=["r426", "r447"], capture=True))], [1, 2])
    res = one(p, ev.CloseCombatResolved)
    assert [(o.final_dr, o.result) for o in res.outcomes] == [
        (2, "captured"),
        (4, "partial-capture"),
    ]
    assert p.state.prisoners == {"r426": "g1", "r447-prisoner": "g1"}
    assert p.state.units["r447"].kind == "hs"
    assert p.state.melee["A1"].units == ("g1", "r447")


def test_sw_of_eliminated_unit_lost_on_colored_1_and_low_dr_else_dropped() -> None:
    s = setup(
        [
            squad("g1", "German", "A1", "6-2-8"),
            squad("r1", "Russian", "A1", "4-4-7", sws=["LMG", "DC"]),
        ],
        [loc("A1")],
    )
    # 6 vs 4 = 3-2 (KN 6); colored 1 + white 2 = 3: eliminated; SW drs 5 (< 6: lost), 6 (kept)
    p = run(s, [cc(Attack(by=["g1"], targets=["r1"]))], [1, 2, 5, 6])
    assert [e.sw for e in of(p, ev.SupportWeaponLost)] == ["LMG"]
    assert [e.sw for e in of(p, ev.SupportWeaponDropped)] == ["DC"]
    p = run(
        s,
        [cc(Attack(by=["g1"], targets=["r1"]))],
        [1, 2, 5, 6],
        rulings={"sw-loss-dr": "at-most-kn"},
    )
    assert [e.sw for e in of(p, ev.SupportWeaponLost)] == ["LMG", "DC"]
    p = run(s, [cc(Attack(by=["g1"], targets=["r1"]))], [2, 1])
    assert not of(p, ev.SupportWeaponLost) and len(of(p, ev.SupportWeaponDropped)) == 2


def test_dummy_removed_before_designation() -> None:
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7"),
            UnitSetup(id="rd", side="Russian", kind="squad", location="A1", dummy=True),
            squad("r1", "Russian", "A1", "4-4-7", concealed=True),
        ],
        [loc("A1", "woods")],
    )
    p = run(s, [cc(Attack(by=["g1"], targets=["r1"]))], [3, 3, 6, 6])
    assert one(p, ev.DummyRemoved).unit == "rd"
    assert one(p, ev.ConcealmentRevealed).unit == "r1"
    assert p.state.units["rd"].status == "removed"


def test_ambush_drm_table() -> None:
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7", cx=True, berserk=True, pinned=True, lax=True),
            squad("g2", "German", "A1", "4-6-7", broken=True, stealthy=True, concealed=True),
            leader("gL", "German", "A1", "9-2", pinned=True),
            leader("gM", "German", "A1", "8-1"),
            leader("rL", "Russian", "A1", "9-2"),
        ],
        [loc("A1", "woods")],
        vehicles=[VehicleSetup(id="v", side="German", location="A1", stunned=True)],
    )
    state = initial_state(s)
    german = ambush_drms(state, "A1", "German", -2)
    assert {m.cause: m.value for m in german} == {
        "Vehicle": 2,
        "BU AFV v": 1,
        "Stunned AFV v": 1,
        "CX": 1,
        "Lax": 1,
        "broken": 1,
        "pinned": 1,
        "berserk": 1,
        "Stealthy": -1,
        "Concealed": -2,
        "leader gM": -1,
    }
    assert ambush_drms(state, "A1", "Russian", -2) == ()  # a leader alone gets no drm


def test_ambush_takes_precedence_over_vehicle_sequence() -> None:
    """A11.34 EX: an Ambush in a hex with a vehicle: the Ambusher resolves all its attacks first."""
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7"),
            squad("g2", "German", "A1", "4-6-7"),
            squad("r1", "Russian", "A1", "4-4-7"),
            squad("r2", "Russian", "A1", "4-4-7"),
        ],
        [loc("A1", "woods")],
        vehicles=[VehicleSetup(id="v", side="Russian", location="A1", cmg=4)],
    )
    command = cc(
        Attack(by=["r1"], targets=["g1"]),
        Attack(by=["g1"], targets=["r1"]),
        Attack(by=["g2"], targets=["r2"]),
    )
    p = run(s, [command], [1, 6, 6, 5, 6, 5, 6, 5])
    assert one(p, ev.AmbushDeclared).ambusher == "German"
    assert [d.attack for d in of(p, ev.AttackDesignated)] == [2, 3, 1]
    p = run(s, [command], [3, 1, 6, 5, 6, 5, 6, 5])
    assert [d.attack for d in of(p, ev.AttackDesignated)] == [2, 1, 3]  # vehicle: alternate


def test_withdrawal_into_concealed_enemy_location_is_fatal_and_reveals_by_random_selection() -> (
    None
):
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7"),
            squad("r1", "Russian", "A1", "4-4-7"),
            squad("r2", "Russian", "A2", "4-4-7", concealed=True),
            squad("r3", "Russian", "A2", "4-4-7", concealed=True),
        ],
        [loc("A1", "open", ("A2",)), loc("A2", "woods", ("A1",))],
        melee=["A1"],
    )
    p = run(s, [cc(withdrawals=[Withdrawal(unit="g1", to="A2")])], [2, 5])
    assert p.state.units["g1"].status == "eliminated"
    assert one(p, ev.RandomSelectionRolled).selected == ("r3",)
    assert p.state.units["r2"].concealed and not p.state.units["r3"].concealed
    assert "A1" not in p.state.melee


def test_withdrawal_refused_into_known_enemy_and_smc_withdrawing_with_mmc_defends_with_it() -> None:
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7"),
            leader("gL", "German", "A1", "8-1", stacked_on="g1"),
            squad("r1", "Russian", "A1", "6-2-8"),
            squad("r2", "Russian", "A3", "4-4-7"),
        ],
        [loc("A1", "open", ("A2", "A3")), loc("A2", "woods", ("A1",)), loc("A3", "open", ("A1",))],
        melee=["A1"],
    )
    with pytest.raises(RuleViolation, match=r"A11\.21"):
        run(s, [cc(withdrawals=[Withdrawal(unit="g1", to="A3")])], [])
    command = cc(
        Attack(by=["r1"], targets=["g1"]),
        withdrawals=[
            Withdrawal(unit="g1", to="A2"),
            Withdrawal(unit="gL", to="A2", with_unit="g1"),
        ],
    )
    p = run(s, [command], [5, 6])
    res = one(p, ev.CloseCombatResolved)
    assert [o.unit for o in res.outcomes] == ["g1", "gL"]
    assert [sum(m.value for m in o.modifiers) for o in res.outcomes] == [-2, -2]
    assert p.state.units["g1"].location == "A2" and p.state.units["gL"].location == "A2"
    assert "A1" not in p.state.melee


def test_infiltration_on_original_2_lets_the_attacker_withdraw() -> None:
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7"),
            squad("r1", "Russian", "A1", "4-4-7"),
            squad("r2", "Russian", "A1", "4-4-7"),
        ],
        [loc("A1", "open", ("A2",)), loc("A2", "open", ("A1",))],
    )
    p = run(
        s,
        [cc(Attack(by=["g1"], targets=["r1"]), Attack(by=["r2"], targets=["g1"]))],
        [1, 1],
        choices={"infiltrate/1/g1": "A2"},
    )
    assert one(p, ev.Infiltrated).unit == "g1"
    assert p.state.units["r1"].status == "eliminated"
    assert one(p, ev.AttackForfeited).attack == 2  # gone before the DEFENDER's attack


def test_unlikely_kill_on_original_2() -> None:
    """A HS of Inexperienced (CCV 3 - 1 = 2) vs a vehicle in Motion (+2): only an Original 2
    gives a chance; the subsequent dr 2 eliminates it (A11.501)."""
    s = setup(
        [hs("g1", "German", "A1", "2-4-7", inexperienced=True)],
        [loc("A1")],
        vehicles=[VehicleSetup(id="v", side="Russian", location="A1", cmg=2, motion=True)],
    )
    p = run(s, [cc(Attack(by=["g1"], targets=["v"]))], [1, 1, 2])
    veh = one(p, ev.VehicleCCResolved)
    assert veh.ccv == 2 and causes(veh.modifiers) == ["Motion/non-stopped vehicle"]
    assert (veh.final_dr, veh.result) == (4, "none")
    assert one(p, ev.UnlikelyKillRolled).result == "eliminated"
    assert p.state.vehicles["v"].status == "wreck"


def test_original_2_that_burns_stays_burning_and_crew_small_arms_random_selection() -> None:
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7", inexperienced=True),
            leader("gL", "German", "A1", "8-0", stacked_on="g1"),
        ],
        [loc("A1")],
        vehicles=[VehicleSetup(id="v", side="Russian", location="A1", cmg=2, motion=True)],
    )
    p = run(s, [cc(Attack(by=["g1", "gL"], targets=["v"]))], [1, 1, 2])
    assert one(p, ev.VehicleCCResolved).result == "burning"  # Original 2 <= half of CCV 5
    assert one(p, ev.UnlikelyKillRolled).result == "burning"
    p = run(s, [cc(Attack(by=["g1", "gL"], targets=["v"]))], [6, 6, 4, 4, 2])
    assert one(p, ev.RandomSelectionRolled).selected == ("g1", "gL")
    assert p.state.units["g1"].kind == "hs" and p.state.units["gL"].wounded


def test_escorts_no_mg_unarmored_and_ot_drms_vs_vehicle() -> None:
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7"),
            squad("r1", "Russian", "A1", "4-4-7"),
            hs("r2", "Russian", "A1", "2-4-7"),
        ],
        [loc("A1")],
        vehicles=[
            VehicleSetup(id="t", side="Russian", location="A1", armored=False, afv=False),
            VehicleSetup(
                id="o", side="Russian", location="A1", open_topped=True, cmg=2, mobile=False
            ),
        ],
    )
    p = run(s, [cc(Attack(by=["g1"], targets=["t"]), ambush_possible=False)], [6, 6])
    assert {m.cause: m.value for m in one(p, ev.VehicleCCResolved).modifiers} == {
        "unarmored vehicle": -3,
        "no manned MG": -1,
        "escorting r1": 2,
        "escorting r2": 1,
    }
    p = run(s, [cc(Attack(by=["g1"], targets=["o"]), ambush_possible=False)], [6, 6])
    assert {m.cause: m.value for m in one(p, ev.VehicleCCResolved).modifiers} == {
        "escorting r1": 2,
        "escorting r2": 1,
        "OT/partially armored AFV": -2,
        "Immobile AFV": -1,
    }


def test_ambush_drm_count_ruling_per_unit() -> None:
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7", cx=True),
            squad("g2", "German", "A1", "4-6-7", cx=True),
            squad("r1", "Russian", "A1", "4-4-7"),
        ],
        [loc("A1", "woods")],
    )
    state = initial_state(s)
    assert [m.value for m in ambush_drms(state, "A1", "German", -2)] == [1]
    assert [m.value for m in ambush_drms(state, "A1", "German", -2, per_unit=True)] == [2]


def test_hidden_unit_is_placed_under_a_concealment_counter_at_start_of_ccph() -> None:
    s = setup(
        [squad("g1", "German", "A1", "4-6-7"), squad("r1", "Russian", "A1", "4-4-7", hidden=True)],
        [loc("A1", "open")],
    )
    p = run(s, [cc(ambush_possible=False)], [])
    r1 = p.state.units["r1"]
    assert (r1.hidden, r1.concealed) == (False, True)
    assert "A1" not in p.state.melee


def test_passengers_cannot_be_singled_out() -> None:
    s = setup(
        [squad("g1", "German", "A1", "4-6-7"), squad("r1", "Russian", "A1", "4-4-7")],
        [loc("A1")],
        vehicles=[
            VehicleSetup(id="ht", side="Russian", location="A1", armored=False, passengers=["r1"])
        ],
    )
    with pytest.raises(RuleViolation, match="Passenger"):
        run(s, [cc(Attack(by=["g1"], targets=["r1"]))], [])
    p = run(s, [cc(Attack(by=["g1"], targets=["ht"]), ambush_possible=False)], [1, 2])
    assert p.state.vehicles["ht"].status != "active"
    assert p.state.units["r1"].status == "eliminated"  # PRC share the vehicle's fate (A11.611)


@pytest.mark.parametrize(
    ("attacks", "columns"),
    [
        ([(["g1", "g2", "g3"], ["r1", "r2", "r3"])], ["1-1"]),
        ([(["g1", "g2", "g3"], ["r1"])], ["3-1"]),
        ([(["g1"], ["r1"]), (["g2"], ["r2"]), (["g3"], ["r3"])], ["1-1", "1-1", "1-1"]),
        ([(["g1", "g2"], ["r1"]), (["g3"], ["r2", "r3"])], ["2-1", "1-2"]),
        ([(["g1", "g2"], ["r1"]), (["g3"], ["r2"])], ["2-1", "1-1"]),
    ],
)
def test_a11_12_example_ways_to_divide_the_attacks(
    attacks: list[tuple[list[str], list[str]]], columns: list[str]
) -> None:
    """A11.12 EX: three 4-FP squads a side, five ways to divide the CC."""
    s = setup(
        [squad(f"g{i}", "German", "A1", "4-6-7") for i in (1, 2, 3)]
        + [squad(f"r{i}", "Russian", "A1", "4-4-7") for i in (1, 2, 3)],
        [loc("A1")],
    )
    command = cc(*[Attack(by=b, targets=t) for b, t in attacks])
    p = run(s, [command], [6, 6] * len(attacks))
    assert [o.column for o in of(p, ev.OddsCalculated)] == columns


def test_riders_attacked_separately_minus_one_and_plus_one_when_attacking() -> None:
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7"),
            squad("g2", "German", "A1", "4-6-7"),
            hs("r1", "Russian", "A1", "2-4-7"),
            squad("r2", "Russian", "A1", "4-4-7"),
        ],
        [loc("A1")],
        vehicles=[VehicleSetup(id="t", side="Russian", location="A1", cmg=2, riders=["r1"])],
    )
    p = run(
        s,
        [
            cc(
                Attack(by=["g1"], targets=["r1"]),
                Attack(by=["r1"], targets=["g2"]),
                ambush_possible=False,
            )
        ],
        [6, 5, 6, 5],
    )
    first, second = of(p, ev.CloseCombatResolved)
    assert causes(first.outcomes[0].modifiers) == ["Rider defending"]
    assert causes(second.outcomes[0].modifiers) == ["Rider attacking"]


def test_defender_ccv_of_the_pziv_example_choices() -> None:
    """A11.622 EX: 1-1 (5-5) vs squad B, 1-2 (5-10) vs B and C, 1-2 (5-6) vs A and the leader,
    1-4 (5-16) vs all four."""
    from blowbyblow.domain.asl.resolution import defender_ccv

    s = setup(
        [
            squad("rA", "Russian", "P1", "4-4-7"),
            leader("rL", "Russian", "P1", "8-1", stacked_on="rA"),
            squad("rB", "Russian", "P1", "4-4-7"),
            squad("rC", "Russian", "P1", "4-4-7"),
        ],
        [loc("P1")],
    )
    state = initial_state(s)
    assert defender_ccv(state, ("rB",)) == 5
    assert defender_ccv(state, ("rB", "rC")) == 10
    assert defender_ccv(state, ("rA", "rL")) == 6
    assert defender_ccv(state, ("rA", "rB", "rC", "rL")) == 16


def test_two_units_withdrawing_count_neither_as_standing() -> None:
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7"),
            squad("g2", "German", "A1", "4-6-7"),
            squad("g3", "German", "A1", "4-6-7"),
            squad("r1", "Russian", "A1", "4-4-7"),
        ],
        [loc("A1", "open", ("A2",)), loc("A2", "woods", ("A1",))],
        melee=["A1"],
    )
    p = run(
        s, [cc(withdrawals=[Withdrawal(unit="g1", to="A2"), Withdrawal(unit="g2", to="A2")])], []
    )
    assert [(w.standing, w.drm) for w in of(p, ev.WithdrawalAttempted)] == [(1, -1), (1, -1)]
    assert p.state.melee["A1"].units == ("g3", "r1")


def test_known_smc_does_not_defend_with_a_concealed_mmc() -> None:
    """A11.14 EXC: a Known SMC never defends with a concealed unit: each is its own target."""
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7", concealed=True),
            leader("gL", "German", "A1", "8-1", stacked_on="g1"),
            squad("r1", "Russian", "A1", "4-4-7"),
            squad("r2", "Russian", "A1", "4-4-7"),
        ],
        [loc("A1")],
    )
    p = run(
        s,
        [
            cc(
                Attack(by=["r1"], targets=["g1"]),
                Attack(by=["r2"], targets=["gL"]),
                ambush_possible=False,
            )
        ],
        [6, 6, 6, 6],
    )
    first, second = of(p, ev.OddsCalculated)
    assert (first.attack_fp, first.defense_fp) == ("2", "4")  # halved vs the concealed squad
    assert (second.attack_fp, second.defense_fp, second.column) == ("4", "1", "4-1")
