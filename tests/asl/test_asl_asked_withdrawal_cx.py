"""Version 1.5 of ``asl``: A11.21's CX counter on the withdrawals whose destination is asked
during the CC. A11.21: "Any unit withdrawing during the CCPh ... must enter an adjacent Location
which is Accessible to that Unit under normal APh conditions (even if it requires placement of a
CX counter; 4.72)". That is every withdrawal of the CCPh: Infiltration (A11.22, "may withdraw
from CC/Melee immediately thereafter in the same CCPh") and Ambush Withdrawal (A11.41, "by
immediate withdrawal into an Accessible hex") as well as the announced one (1.4's
``withdrawals[].cx``). The command's ``cx_needed`` says which Locations a unit would enter only
by placing a CX counter; the unit is CX if it withdraws there. Battles recorded by 1.4
(``fixtures/make_1_4_records.py``) verify byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_asl_comprehensive as comprehensive
from asl_helpers import loc, of, one, run, setup, squad

from blowbyblow.domain.asl import events as ev
from blowbyblow.domain.asl.commands import (
    Advance,
    AslCommand,
    Attack,
    CloseCombat,
    CxNeeded,
    Withdrawal,
)
from blowbyblow.domain.asl.setup import Setup
from blowbyblow.domain.system import Scenario
from blowbyblow.replay.engine.registry import get_game_system

from bxbtest import diverges, reads_as_recorded, refused_whole

FIXTURES = Path(__file__).resolve().parent / "fixtures"


# --- Ambush Withdrawal (A11.41): the comprehensive example's G5 ---------------------------------


def g5(hip_gun: bool = False) -> Setup:
    """G5 of the comprehensive example: the concealed German 2-4-7 and the concealed Russian
    4-4-7; G4 a building Location beside it, holding the Russians' HIP AT Gun crew only when
    ``hip_gun``."""
    s = comprehensive.g5()
    kept = [u for u in s.units if hip_gun or u.id != "rcrew"]
    return setup(kept, list(s.locations))


def g5_cc(*needed: CxNeeded) -> CloseCombat:
    return CloseCombat(
        turn=1,
        attacker="German",
        location="G5",
        attacks=[Attack(by=["g247"], targets=["r447"])],
        cx_needed=list(needed),
    )


# the Ambush drs of the example: German 2 (-2 concealed: 0), Russian 5 (-2: 3)
G5_AMBUSH = [2, 5]


@pytest.mark.parametrize("needed", [False, True])
def test_an_ambush_withdrawal_into_a_location_that_needs_a_cx_counter(needed: bool) -> None:
    """A11.41: "A force which has qualified for Ambush has the option to decline CC altogether,
    prior to CC resolution, by immediate withdrawal into an Accessible hex". The 2-4-7 Ambushes
    and withdraws into G4; with ``cx_needed`` G4 is Accessible to it only by placing a CX
    counter (A11.21): it is CX there, and shown so."""
    cc = g5_cc(CxNeeded(unit="g247", to="G4")) if needed else g5_cc()
    played = run(g5(), [cc], G5_AMBUSH, choices={"ambush-withdraw/before/g247": "G4"})
    assert one(played, ev.AmbushDeclared).ambusher == "German"
    assert one(played, ev.Withdrew).kind == "ambush"
    placed = [(e.unit, e.location, e.turn, e.rule) for e in of(played, ev.CXPlaced)]
    assert placed == ([("g247", "G4", 1, "A11.21")] if needed else [])
    assert played.state.units["g247"].location == "G4"
    assert played.state.units["g247"].cx is needed


def test_no_cx_counter_where_the_unit_did_not_go() -> None:
    """``cx_needed`` names G4, but the 2-4-7 withdraws into G6, which needs none: not CX."""
    played = run(
        g5(),
        [g5_cc(CxNeeded(unit="g247", to="G4"))],
        G5_AMBUSH,
        choices={"ambush-withdraw/before/g247": "G6"},
    )
    assert played.state.units["g247"].location == "G6"
    assert not of(played, ev.CXPlaced)
    assert not played.state.units["g247"].cx


def test_no_cx_counter_on_a_unit_eliminated_by_entering() -> None:
    """The comprehensive example's G5: the 2-4-7 withdraws onto the HIP AT Gun in G4. A11.21:
    "If a unit withdraws into a concealed enemy's (not Dummy) Location it is eliminated
    automatically": no CX counter is placed on it."""
    played = run(
        g5(hip_gun=True),
        [g5_cc(CxNeeded(unit="g247", to="G4"))],
        G5_AMBUSH,
        choices={"ambush-withdraw/before/g247": "G4"},
    )
    assert played.state.units["g247"].status == "eliminated"
    assert not of(played, ev.CXPlaced)


# --- Infiltration (A11.22): the comprehensive example's K4 --------------------------------------


def k4() -> Setup:
    """K4 of the comprehensive example, K5 leading on to the building Location K6."""
    s = comprehensive.k4()
    k5_on = [loc("K5", "building", ("K4", "K6")), loc("K6", "building", ("K5",))]
    kept = [x for x in s.locations if x.id != "K5"]
    return setup(list(s.units), [*kept, *k5_on], melee=["K4"])


def k4_cc(*needed: CxNeeded) -> CloseCombat:
    return CloseCombat(
        turn=3,
        attacker="German",
        location="K4",
        withdrawals=[Withdrawal(unit="g81", to="K3")],
        attacks=[
            Attack(by=["g467"], targets=["r447"]),
            Attack(by=["r447", "r527"], targets=["g467", "g81"]),
        ],
        cx_needed=list(needed),
    )


# K4: the German attack's Original 12, the Russian's 6 (a Partial Kill), the 8-1's wound dr 5
K4_DICE = [6, 6, 3, 3, 5]


@pytest.mark.parametrize(("ruling", "rests"), [("next-player-turn", True), ("kept", False)])
def test_an_infiltration_into_a_location_that_needs_a_cx_counter(ruling: str, rests: bool) -> None:
    """A11.22: "Any Infantry/Cavalry unit(s) attacked by an Original 12 CC DR may likewise
    withdraw from CC immediately thereafter". The 4-4-7 attacked by the 12 Infiltrates into K5,
    which it enters only by placing a CX counter: it is CX. Ruling withdrawal-cx: the counter
    goes as the Russian Player Turn 4 begins (its advance to K6), or is kept."""
    commands: list[AslCommand] = [
        k4_cc(CxNeeded(unit="r447", to="K5")),
        Advance(turn=4, attacker="Russian", units=["r447"], to="K6"),
    ]
    played = run(
        k4(),
        commands,
        K4_DICE,
        choices={"infiltrate/1/r447": "K5"},
        rulings={"withdrawal-cx": ruling},
    )
    assert one(played, ev.Infiltrated).to == "K5"
    assert [(e.unit, e.location, e.turn) for e in of(played, ev.CXPlaced)] == [("r447", "K5", 3)]
    assert [(e.units, e.turn) for e in of(played, ev.CXRemoved)] == (
        [(("r447",), 4)] if rests else []
    )
    assert played.state.units["r447"].cx is not rests


def test_an_infiltration_without_cx_needed_places_none() -> None:
    """The same Infiltration with no ``cx_needed`` (every battle before 1.5): no counter."""
    played = run(k4(), [k4_cc()], K4_DICE, choices={"infiltrate/1/r447": "K5"})
    assert one(played, ev.Infiltrated).to == "K5"
    assert not of(played, ev.CXPlaced)
    assert not played.state.units["r447"].cx


# --- refusals: nothing written ------------------------------------------------------------------


def scenario(s: Setup, command: CloseCombat) -> Scenario[Setup, AslCommand]:
    return Scenario(ruleset="asl", label="refused", setup=s, commands=[command], dice=K4_DICE)


def test_cx_needed_into_a_known_enemy_location_is_refused() -> None:
    """A11.21: "The Location withdrawn to cannot be currently occupied by a Known enemy unit":
    no withdrawal goes there, with or without a CX counter. Refused, nothing written."""
    s = k4()
    s = setup([*s.units, squad("g3", "German", "K5", "4-6-7")], list(s.locations), melee=["K4"])
    refused = refused_whole(scenario(s, k4_cc(CxNeeded(unit="r447", to="K5"))))
    assert refused.rule == "A11.21"
    assert "r447 cannot withdraw to 'K5'; possible: K3" in str(refused)


def test_cx_needed_into_a_location_not_adjacent_is_refused() -> None:
    """A11.21: "must enter an adjacent Location": K6 is not beside K4. Refused."""
    refused = refused_whole(scenario(k4(), k4_cc(CxNeeded(unit="r447", to="K6"))))
    assert "r447 cannot withdraw to 'K6'" in str(refused)


def test_cx_needed_for_a_pinned_unit_is_refused() -> None:
    """A11.22: "Provided it has not already been eliminated /captured /pinned"; A11.41: "into an
    Accessible hex (unless pinned)": a pinned unit takes neither withdrawal. Refused."""
    s = k4()
    pinned = [
        squad("r447", "Russian", "K4", "4-4-7", pinned=True) if u.id == "r447" else u
        for u in s.units
    ]
    refused = refused_whole(
        scenario(
            setup(pinned, list(s.locations), melee=["K4"]), k4_cc(CxNeeded(unit="r447", to="K5"))
        )
    )
    assert refused.rule == "A11.22" and "r447 is pinned" in str(refused)


def test_cx_needed_for_a_unit_elsewhere_is_refused() -> None:
    s = k4()
    refused = refused_whole(scenario(s, k4_cc(CxNeeded(unit="nobody", to="K5"))))
    assert "'nobody' is not a unit in K4" in str(refused)


def test_cx_needed_for_an_announced_withdrawal_is_refused() -> None:
    """The 8-1 announced its withdrawal (A11.2): its CX counter is that announcement's ``cx``,
    not a second answer in ``cx_needed``. Refused."""
    refused = refused_whole(scenario(k4(), k4_cc(CxNeeded(unit="g81", to="K3"))))
    assert "g81 announced its withdrawal" in str(refused)


def test_cx_needed_named_twice_is_refused() -> None:
    need = CxNeeded(unit="r447", to="K5")
    refused = refused_whole(scenario(k4(), k4_cc(need, need)))
    assert "r447 to K5 named twice" in str(refused)


# --- battles recorded by 1.4 -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["ambush-withdrawal", "infiltration"])
def test_a_battle_of_1_4_verifies_under_1_5(name: str) -> None:
    """An Ambush Withdrawal and an Infiltration, each followed by later Player Turns, recorded by
    1.4 (which placed no CX counter on them): they verify byte for byte, read with no ruling
    added (1.5 adds none), and under the other withdrawal-cx reading too, for no counter was
    ever placed."""
    assert "1.4" in get_game_system("asl").reads_versions
    assert [r.name for r in get_game_system("asl").rulings if r.since == "1.5"] == []
    events = reads_as_recorded(FIXTURES / f"asl-1.4-{name}.jsonl", "1.4", {})
    kinds = {type(e.event).__name__ for e in events}
    assert ("Infiltrated" if name == "infiltration" else "Withdrew") in kinds
    assert "CXPlaced" not in kinds
    assert not diverges(events, {"withdrawal-cx": "kept"})


def test_a_broken_units_withdrawal_says_its_cx_counter_when_announced() -> None:
    """A11.16: "Broken Infantry in Melee ... must attempt to Withdraw from Melee (11.2)"; A11.21,
    "Any unit withdrawing during the CCPh ... (even if it requires placement of a CX counter)".
    Left unannounced, its destination is asked and it places no counter; announced in
    ``withdrawals`` with ``cx`` it withdraws CX. The broken 4-4-7 in K4's Melee goes to K5."""
    s = k4()
    broken = [
        squad("r447", "Russian", "K4", "4-4-7", broken=True) if u.id == "r447" else u
        for u in s.units
    ]
    cc = CloseCombat(
        turn=3,
        attacker="German",
        location="K4",
        withdrawals=[Withdrawal(unit="r447", to="K5", cx=True)],
        attacks=[Attack(by=["g467"], targets=["r527"]), Attack(by=["r527"], targets=["g467"])],
    )
    played = run(setup(broken, list(s.locations), melee=["K4"]), [cc], [4, 6, 5, 6])
    assert one(played, ev.WithdrawalAttempted).unit == "r447"
    assert [(e.unit, e.location) for e in of(played, ev.CXPlaced)] == [("r447", "K5")]
