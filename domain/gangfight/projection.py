"""Gangfight folds: fighter status (wounds, action points, Prone, Incapacitated, Dead) and the
Melee locks (the gaps between models). ``evolve`` ignores every event it does not know."""

from __future__ import annotations

import msgspec

from blowbyblow.domain.core import Event
from blowbyblow.domain.gangfight.events import (
    ActionPointsSpent,
    Disengaged,
    Incapacitated,
    Killed,
    KnockedBack,
    KnockedDown,
    Moved,
    StoodUp,
    TurnStarted,
    WoundsApplied,
)
from blowbyblow.domain.gangfight.state import (
    GangfightState,
    fighter,
    replace_fighter,
    set_gap,
    status,
)


def evolve_status(state: GangfightState, event: Event) -> GangfightState:
    """Wounds, action points, posture and condition of each model."""
    match event:
        case WoundsApplied():
            s = status(state, event.fighter)
            return replace_fighter(state, msgspec.structs.replace(s, wounds=event.after))
        case Incapacitated():
            s = status(state, event.fighter)
            return replace_fighter(
                state, msgspec.structs.replace(s, condition="incapacitated", ap=0, prone=False)
            )
        case Killed():
            s = status(state, event.fighter)
            return replace_fighter(state, msgspec.structs.replace(s, condition="dead", ap=0))
        case KnockedDown():
            s = status(state, event.fighter)
            return replace_fighter(state, msgspec.structs.replace(s, prone=True))
        case StoodUp():
            s = status(state, event.fighter)
            return replace_fighter(state, msgspec.structs.replace(s, prone=False))
        case ActionPointsSpent():
            s = status(state, event.fighter)
            return replace_fighter(state, msgspec.structs.replace(s, ap=event.after))
        case TurnStarted():
            return msgspec.structs.replace(
                state,
                turn=event.turn,
                fighters=tuple(
                    msgspec.structs.replace(
                        s,
                        ap=fighter(state, s.id).profile.iv if s.condition == "active" else 0,
                    )
                    for s in state.fighters
                ),
            )
    return state


def evolve_locks(state: GangfightState, event: Event) -> GangfightState:
    """The gaps between models, i.e. who is within whose threat range."""
    match event:
        case KnockedBack():
            return set_gap(state, event.fighter, event.by, event.gap_after)
        case Disengaged():
            return set_gap(state, event.fighter, event.from_fighter, event.gap_after)
        case Moved():
            for g in event.gaps:
                state = set_gap(state, g.a, g.b, g.inches)
            return state
    return state


def evolve(state: GangfightState, event: Event) -> GangfightState:
    return evolve_locks(evolve_status(state, event), event)
