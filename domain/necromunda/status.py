"""Status changes and what follows from them (Necromunda Core Rulebook (2023), Status): a
fighter that goes Out of Action (or a vehicle that is Wrecked) leaves every engagement; every
Standing fighter's secondary status (Active or Engaged) follows the engagement graph; a fighter
Seriously Injured or taken Out of Action, or a vehicle Wrecked, makes its friends test their
nerve."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any, NamedTuple

from blowbyblow.domain.core import Step
from blowbyblow.domain.necromunda.combat import Attack, emit
from blowbyblow.domain.necromunda.events import EngagementEnded, StatusChanged
from blowbyblow.domain.necromunda.nerve import nerve_tests
from blowbyblow.domain.necromunda.rulings import NERVE_WRECKED_VEHICLE
from blowbyblow.domain.necromunda.state import (
    OUT_OF_ACTION,
    SERIOUSLY_INJURED,
    WRECKED,
    NecromundaState,
    Status,
    secondary_statuses,
)


class Because(NamedTuple):
    """Why a status changes: the cause in words and the rule that applies."""

    cause: str
    rule: str


def resync_events(state: NecromundaState, cause: str, rule: str) -> list[StatusChanged]:
    """Standing fighters become Standing & Engaged or Standing & Active as the engagement graph
    and the statuses of their enemies change."""
    return [
        StatusChanged(
            rule=rule, fighter=fid, before=state.fighters[fid].status, after=want, cause=cause
        )
        for fid, want in secondary_statuses(state).items()
    ]


def resync_statuses(
    state: NecromundaState, cause: str, rule: str
) -> Generator[Step, Any, NecromundaState]:
    """Emit :func:`resync_events`."""
    for event in resync_events(state, cause, rule):
        state = yield from emit(event)
    return state


def end_contact(
    state: NecromundaState, fighter: str, others: Sequence[str], rule: str, reason: str
) -> Generator[Step, Any, NecromundaState]:
    """The fighter leaves base contact with each of ``others``."""
    for other in others:
        state = yield from emit(
            EngagementEnded(rule=rule, a=min(fighter, other), b=max(fighter, other), reason=reason)
        )
    return state


def set_status(
    at: Attack, state: NecromundaState, fighter: str, after: Status, because: Because
) -> Generator[Step, Any, NecromundaState]:
    """The fighter's status becomes ``after``: it leaves every engagement if it is out of the
    fight, the others' Active/Engaged statuses follow, and its friends test their nerve."""
    before = state.fighters[fighter].status
    if before == after:
        return state
    rule = because.rule
    state = yield from emit(
        StatusChanged(rule=rule, fighter=fighter, before=before, after=after, cause=because.cause)
    )
    if after in (OUT_OF_ACTION, WRECKED):
        state = yield from end_contact(
            state, fighter, state.linked(fighter), rule, f"{fighter} is {after}"
        )
    state = yield from resync_statuses(state, f"{fighter} is {after}", rule)
    if _nerve_cause(at, after):
        state = yield from nerve_tests(at, state, fighter, after)
    return state


def _nerve_cause(at: Attack, after: Status) -> bool:
    """A fighter Seriously Injured or taken Out of Action; a vehicle Wrecked (ruling
    ``nerve-wrecked-vehicle``)."""
    if after == WRECKED:
        return at.ctx.ruling(NERVE_WRECKED_VEHICLE) == "test"
    return after in (SERIOUSLY_INJURED, OUT_OF_ACTION)
