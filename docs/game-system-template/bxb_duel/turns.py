"""D1 The duel: whose turn it is (D1.2), Guard (D1.3), Down and rising (D1.4)."""

from __future__ import annotations

from blowbyblow.domain.core import RuleViolation, emit

from bxb_duel.commands import DuelCommand, Guard, Rise, Strike
from bxb_duel.events import GuardLowered, GuardTaken, Rose, TurnPassed
from bxb_duel.state import DuelState, Steps


def actor(command: DuelCommand) -> str:
    """The fighter who gives ``command``."""
    return command.attacker if isinstance(command, Strike) else command.fighter


def check_turn(state: DuelState, command: DuelCommand) -> None:
    """D1.2, D1.4, D4.1: the fighter whose turn it is acts, a fighter that is Down only rises,
    and nobody acts once the duel is over. Raises RuleViolation before anything is rolled."""
    if state.over:
        raise RuleViolation("D4.1", f"the duel is over: {state.winner} has won")
    who = actor(command)
    if who not in state.fighters:
        raise RuleViolation("D1.1", f"there is no fighter {who!r}")
    if who != state.active:
        raise RuleViolation("D1.2", f"it is {state.active}'s turn, not {who}'s")
    if state.fighters[who].status == "down" and not isinstance(command, Rise):
        raise RuleViolation("D1.4", f"{who} is Down and can do nothing but rise")


def take_guard(state: DuelState, command: Guard) -> Steps:
    """D1.3: the fighter is on Guard until the start of its next turn."""
    return (yield from emit(GuardTaken(rule="D1.3", fighter=command.fighter), DuelState))


def rise(state: DuelState, command: Rise) -> Steps:
    """D1.4: a fighter that is Down gets up."""
    if state.fighters[command.fighter].status != "down":
        raise RuleViolation("D1.4", f"{command.fighter} is not Down")
    return (yield from emit(Rose(rule="D1.4", fighter=command.fighter), DuelState))


def pass_turn(state: DuelState) -> Steps:
    """D1.2: the turn passes to the other fighter; its Guard, if any, ends (D1.3). Nothing
    happens once the duel is over (D4.1)."""
    if state.over:
        return state
    nxt = state.opponent(state.active)
    state = yield from emit(TurnPassed(rule="D1.2", turn=state.turn + 1, fighter=nxt), DuelState)
    if state.fighters[nxt].guarding:
        state = yield from emit(GuardLowered(rule="D1.3", fighter=nxt), DuelState)
    return state
