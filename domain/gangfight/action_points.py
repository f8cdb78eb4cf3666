"""Action Points (Actions and Action Points): a model's pool per turn is its IV (ruling
action-points: the formula is unconfirmed); Standard Actions cost 1, Special Actions cost per
ruling special-action-cost, Free Strikes are free actions. Whether Charge!, Shoot!, an Area of
Effect attack and Reload are Standard or Special is each a ruling (``action_cost``)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from blowbyblow.domain.core import Context, RuleViolation, Ruling, Step, emit
from blowbyblow.domain.gangfight.events import ActionPointsSpent, TurnStarted
from blowbyblow.domain.gangfight.rulings import ACTION_POINTS, SPECIAL_ACTION_COST
from blowbyblow.domain.gangfight.state import GangfightState, status

RULE = "G2 Action Points"
STANDARD = 1


def special_cost(ctx: Context) -> int:
    return int(ctx.ruling(SPECIAL_ACTION_COST))


def action_cost(ctx: Context, kind: Ruling) -> int:
    """What an action whose kind is the ruling ``kind`` costs: a Standard Action, or a
    Special Action (ruling special-action-cost)."""
    return STANDARD if ctx.ruling(kind) == "standard" else special_cost(ctx)


def affords(state: GangfightState, ctx: Context, fid: str, cost: int) -> bool:
    """Has the model the action points an action of ``cost`` needs (ruling action-points)?"""
    return ctx.ruling(ACTION_POINTS) == "untracked" or status(state, fid).ap >= cost


def check_points(state: GangfightState, ctx: Context, fid: str, cost: int) -> None:
    """Refuse an action the model has no points left for (before anything is rolled)."""
    if not affords(state, ctx, fid, cost):
        have = status(state, fid).ap
        raise RuleViolation(RULE, f"{fid} has {have} action point(s) left; this costs {cost}")


def spend(
    state: GangfightState, ctx: Context, fid: str, action: str, cost: int
) -> Generator[Step, Any, GangfightState]:
    if ctx.ruling(ACTION_POINTS) == "untracked" or cost == 0:
        return state
    have = status(state, fid).ap
    return (
        yield from emit(
            ActionPointsSpent(
                rule=RULE, fighter=fid, action=action, cost=cost, before=have, after=have - cost
            ),
            GangfightState,
        )
    )


def new_turn(state: GangfightState, ctx: Context) -> Generator[Step, Any, GangfightState]:
    """A new turn: each model still in the fight has IV action points again; an Incapacitated
    model cannot generate Action Points (Combat, Incapacitation)."""
    return (yield from emit(TurnStarted(rule=RULE, turn=state.turn + 1), GangfightState))


def check_can_act(state: GangfightState, fid: str) -> None:
    """Who may take an action. Combat, Incapacitation: an Incapacitated model cannot perform
    actions; Combat, Knocked Down: a Prone model must stand up before any other action."""
    s = status(state, fid)
    if s.condition != "active":
        raise RuleViolation("GF Incapacitation", f"{fid} is {s.condition} and cannot act")
    if s.prone:
        raise RuleViolation(
            "GF Knocked Down", f"{fid} is Prone and must spend an action point to stand up first"
        )
