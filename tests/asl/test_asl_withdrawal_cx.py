"""Version 1.4 of ``asl``: A11.21's CX counter on withdrawal. "Any unit withdrawing during the
CCPh ... must enter an adjacent Location which is Accessible to that Unit under normal APh
conditions (even if it requires placement of a CX counter; 4.72)." A withdrawal announced with
``cx`` places one; the unit is then CX (A4.51's DRM and A11.4's "+1 CX" Ambush drm) until its
side's next Player Turn begins (ruling withdrawal-cx). A battle recorded by 1.3
(``fixtures/make_1_3_records.py``) verifies byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest
from asl_helpers import loc, of, one, run, setup, squad

from blowbyblow.domain.asl import events as ev
from blowbyblow.domain.asl.commands import Advance, AslCommand, Attack, CloseCombat, Withdrawal
from blowbyblow.domain.asl.projection import view
from blowbyblow.domain.asl.rulings import RULINGS
from blowbyblow.domain.asl.setup import Setup
from blowbyblow.domain.core import RuleViolation

from bxbtest import diverges, reads_as_recorded

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def k4_and_k3() -> Setup:
    """Two German squads and a Russian one in Melee in the building Location K4; K3 and K5
    are the building Locations beside it, a Russian squad in K2 beside K3."""
    return setup(
        [
            squad("ga", "German", "K4", "4-4-7"),
            squad("gb", "German", "K4", "4-4-7"),
            squad("r", "Russian", "K4", "4-4-7"),
            squad("r2", "Russian", "K2", "4-4-7"),
        ],
        [
            loc("K4", "building", ("K3", "K5")),
            loc("K3", "building", ("K4", "K2")),
            loc("K5", "building", ("K4",)),
            loc("K2", "building", ("K3",)),
        ],
        melee=["K4"],
    )


def withdraw(cx: bool) -> CloseCombat:
    return CloseCombat(
        turn=3,
        attacker="German",
        location="K4",
        withdrawals=[Withdrawal(unit="ga", to="K3", cx=cx)],
        attacks=[Attack(by=["gb"], targets=["r"]), Attack(by=["r"], targets=["ga"])],
    )


def melee_k4(turn: int, attacker: str) -> CloseCombat:
    first, second = ("gb", "r") if attacker == "German" else ("r", "gb")
    return CloseCombat(
        turn=turn,
        attacker=attacker,
        location="K4",
        attacks=[Attack(by=[first], targets=[second]), Attack(by=[second], targets=[first])],
    )


# every CC DR 4+6 or 5+6: no effect at 1-1 (Kill Number 5)
NO_EFFECT = [4, 6, 5, 6]


@pytest.mark.parametrize("cx", [False, True])
def test_a_withdrawal_that_needs_a_cx_counter(cx: bool) -> None:
    """The 4-4-7 ga withdraws from the Melee in K4 (-2, +1 for gb standing: -1 to the Russian's
    DR 11, no effect) into K3. With ``cx`` it places a CX counter there: it is CX, shown so."""
    played = run(k4_and_k3(), [withdraw(cx)], NO_EFFECT)
    assert one(played, ev.Withdrew).to == "K3"
    placed = of(played, ev.CXPlaced)
    assert [(e.unit, e.location, e.turn, e.rule) for e in placed] == (
        [("ga", "K3", 3, "A11.21")] if cx else []
    )
    assert played.state.units["ga"].cx is cx
    flags = next(u for u in view(played.state).units if u.id == "ga").flags
    assert ("CX" in flags) is cx


def test_the_cx_unit_is_attacked_at_minus_one_and_ambushes_at_plus_one() -> None:
    """Player Turn 4, the Russian's: r2 advances from K2 into K3 (a building: "Whenever Infantry
    advance into CC ... in a woods/building hex ... an Ambush can conceivably occur"). The CX
    4-4-7 adds "+1 CX" to its Ambush dr (A11.4; 3 against 3, no Ambush), and r2's attack on it
    takes -1 (A4.51: the DR 11 is 10); its own attack on r2 takes +1 as a CX attacker."""
    commands: list[AslCommand] = [
        withdraw(True),
        Advance(turn=4, attacker="Russian", units=["r2"], to="K3"),
        CloseCombat(
            turn=4,
            attacker="Russian",
            location="K3",
            attacks=[Attack(by=["r2"], targets=["ga"]), Attack(by=["ga"], targets=["r2"])],
        ),
    ]
    played = run(k4_and_k3(), commands, [*NO_EFFECT, 3, 2, 5, 6, 5, 6])
    ambush = one(played, ev.AmbushStatusRolled)
    german = next(r for r in ambush.rolls if r.side == "German")
    assert [m.cause for m in german.modifiers] == ["CX"]
    on_ga, by_ga = of(played, ev.CloseCombatResolved)[-2:]
    assert [(m.cause, m.value) for m in on_ga.outcomes[0].modifiers] == [("CX target", -1)]
    assert on_ga.outcomes[0].final_dr == 10
    # and ga's own attack takes +1 as a CX attacker (A4.51)
    assert ("CX attacker", 1) in [(m.cause, m.value) for m in by_ga.outcomes[0].modifiers]


@pytest.mark.parametrize(("ruling", "rests"), [("next-player-turn", True), ("kept", False)])
def test_the_counter_is_removed_as_its_sides_next_player_turn_begins(
    ruling: str, rests: bool
) -> None:
    """Ruling withdrawal-cx. next-player-turn: ga keeps its CX counter through the Russian's
    Player Turn 4 and loses it as the German Player Turn 5 begins (before its CC in K4); kept:
    it stays CX."""
    commands = [withdraw(True), melee_k4(4, "Russian"), melee_k4(5, "German")]
    played = run(k4_and_k3(), commands, NO_EFFECT * 3, rulings={"withdrawal-cx": ruling})
    removed = of(played, ev.CXRemoved)
    assert [(e.units, e.turn) for e in removed] == ([(("ga",), 5)] if rests else [])
    assert played.state.units["ga"].cx is not rests
    if rests:
        names = [type(e).__name__ for e in played.events]
        # removed first thing in Player Turn 5, before its CC begins
        at = names.index("CXRemoved")
        begun = played.events[at + 1]
        assert isinstance(begun, ev.CloseCombatPhaseBegun) and begun.turn == 5


def test_a_withdrawal_into_a_known_enemy_location_is_refused_cx_or_not() -> None:
    """A11.21: "The Location withdrawn to cannot be currently occupied by a Known enemy unit",
    whatever the CX counter: refused, nothing played."""
    s = k4_and_k3()
    s = setup(
        [*s.units, squad("r3", "Russian", "K5", "4-4-7")],
        list(s.locations),
        melee=["K4"],
    )
    command = CloseCombat(
        turn=3,
        attacker="German",
        location="K4",
        withdrawals=[Withdrawal(unit="ga", to="K5", cx=True)],
        attacks=[Attack(by=["gb"], targets=["r"])],
    )
    with pytest.raises(RuleViolation, match="ga cannot withdraw to 'K5'; possible: K3"):
        run(s, [command], NO_EFFECT)


def test_a_battle_of_1_3_verifies_under_1_4() -> None:
    """A withdrawal from a Melee and two more Player Turns, recorded by 1.3 (which placed no CX
    counter): it re-adjudicates byte for byte with withdrawal-cx at its before value, and under
    the other reading too, for no counter was ever placed (no divergence where none should
    be)."""
    assert [(r.name, r.before) for r in RULINGS if r.since == "1.4"] == [
        ("withdrawal-cx", "next-player-turn")
    ]
    events = reads_as_recorded(
        FIXTURES / "asl-1.3-melee-withdrawal.jsonl", "1.3", {"withdrawal-cx": "next-player-turn"}
    )
    assert not diverges(events, {"withdrawal-cx": "kept"})
