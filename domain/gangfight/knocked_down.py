"""Knocked Down (Combat): a model knocked down is Prone; Prone models always have a Defense
Value of 2; a Prone model must spend an Action Point to stand up before any other action."""

from __future__ import annotations

from blowbyblow.domain.core import Context, Modifier, RuleViolation, emit
from blowbyblow.domain.gangfight.action_points import STANDARD, check_points, spend
from blowbyblow.domain.gangfight.commands import StandUp
from blowbyblow.domain.gangfight.events import StoodUp
from blowbyblow.domain.gangfight.rulings import PRONE_DEFENCE, TOKEN_DEFENCE
from blowbyblow.domain.gangfight.state import GangfightState, Gen, fighter, status

RULE = "GF Knocked Down"


def defence(
    state: GangfightState, ctx: Context, target: str, modifiers: tuple[Modifier, ...]
) -> tuple[int, tuple[Modifier, ...]]:
    """The target's DEF and its modifiers: a Prone model's DEF is 2 (ruling prone-defence:
    whether other DEF modifiers still apply); an Incapacitation token's is the model's, or 2
    with no modifier (ruling token-defence)."""
    base = fighter(state, target).profile.defense
    token = status(state, target).condition == "incapacitated"
    if token and ctx.ruling(TOKEN_DEFENCE) == "2":
        cause = "Incapacitation token: DEF 2"
        return base, (
            Modifier(value=2 - base, cause=cause, rule="GF Incapacitation (ruling token-defence)"),
        )
    if not status(state, target).prone:
        return base, modifiers
    prone = Modifier(value=2 - base, cause="Prone: DEF 2", rule=RULE)
    if ctx.ruling(PRONE_DEFENCE) == "always-2":
        return base, (prone,)
    return base, (prone, *modifiers)


def stand_up(state: GangfightState, ctx: Context, command: StandUp) -> Gen:
    """A Prone model MUST spend an Action Point to stand up."""
    fid = command.fighter
    s = status(state, fid)
    if s.condition != "active":
        raise RuleViolation("GF Incapacitation", f"{fid} is {s.condition} and cannot act")
    if not s.prone:
        raise RuleViolation(RULE, f"{fid} is not Prone")
    check_points(state, ctx, fid, STANDARD)
    state = yield from spend(state, ctx, fid, "stand up", STANDARD)
    return (yield from emit(StoodUp(rule=RULE, fighter=fid), GangfightState))
