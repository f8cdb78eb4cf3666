"""The Player Turn a command between phases belongs to (A11.12), checked by ``legal_moves``
and ``fire`` alike."""

from __future__ import annotations

from blowbyblow.domain.asl.state import State
from blowbyblow.domain.core import RuleViolation


def check_turn(state: State, turn: int, attacker: str) -> None:
    """A11.12: a side of the battle; not a Player Turn gone by; the current one's ATTACKER."""
    if attacker not in state.sides:
        raise RuleViolation("A11.12", f"{attacker!r} is not a side ({', '.join(state.sides)})")
    if turn < state.turn:
        raise RuleViolation("A11.12", f"Player Turn {turn} is before the current {state.turn}")
    if turn == state.turn and state.attacker is not None and attacker != state.attacker:
        raise RuleViolation("A11.12", f"{state.attacker} is the ATTACKER of Player Turn {turn}")
