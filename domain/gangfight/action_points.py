"""Action Points (FACTS G2/G3; the per-turn formula is unconfirmed: ruling action-points).
Standard Actions cost 1; Special Actions cost per ruling special-action-cost; Free Strikes
are free."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from blowbyblow.domain.core import Context, RuleViolation, Step, emit
from blowbyblow.domain.gangfight.events import ActionPointsSpent, TurnStarted
from blowbyblow.domain.gangfight.rulings import ACTION_POINTS, SPECIAL_ACTION_COST
from blowbyblow.domain.gangfight.state import GangfightState, status

RULE = "G2 Action Points"
STANDARD = 1


def special_cost(rulings: Mapping[str, str]) -> int:
    return int(rulings[SPECIAL_ACTION_COST.name])


def check_points(state: GangfightState, fid: str, cost: int, rulings: Mapping[str, str]) -> None:
    """Refuse an action the model has no points left for (before anything is rolled)."""
    if rulings[ACTION_POINTS.name] == "untracked":
        return
    have = status(state, fid).ap
    if have < cost:
        raise RuleViolation(RULE, f"{fid} has {have} action point(s) left; this costs {cost}")


def spend(
    state: GangfightState, ctx: Context, fid: str, action: str, cost: int
) -> Generator[Step, Any, GangfightState]:
    if ctx.rulings[ACTION_POINTS.name] == "untracked" or cost == 0:
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
    model cannot generate Action Points (GF Incapacitation)."""
    return (yield from emit(TurnStarted(rule=RULE, turn=state.turn + 1), GangfightState))
