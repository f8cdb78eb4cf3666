"""The fold: ``evolve(state, event)`` makes the next state from one event, one small fold per
concern (turns, guard, wounds) composed; ``view`` and ``describe_state`` show a state.

The engine runs the same fold live (after each step a procedure emits), in verification and in
every read-back, so it must be pure: no dice, no clock, nothing but the event.
"""

from __future__ import annotations

import msgspec
from blowbyblow.domain.core import Event
from blowbyblow.domain.system import (
    Concern,
    LockView,
    Stat,
    StateView,
    UnitView,
    fold_by_event_type,
)

from bxb_duel.events import (
    GuardLowered,
    GuardTaken,
    KnockedDown,
    OutOfAction,
    Rose,
    TurnPassed,
    WoundsLost,
)
from bxb_duel.setup import Fighter
from bxb_duel.state import DuelState, FighterState, Status


def _with_fighter(state: DuelState, fighter: str, new: FighterState) -> DuelState:
    return msgspec.structs.replace(state, fighters={**state.fighters, fighter: new})


def _turns(state: DuelState, event: Event) -> DuelState:
    if isinstance(event, TurnPassed):
        return msgspec.structs.replace(state, turn=event.turn, active=event.fighter)
    return state


def _guard(state: DuelState, event: Event) -> DuelState:
    if isinstance(event, GuardTaken | GuardLowered):
        old = state.fighters[event.fighter]
        guarding = isinstance(event, GuardTaken)
        return _with_fighter(state, event.fighter, msgspec.structs.replace(old, guarding=guarding))
    return state


def _wounds(state: DuelState, event: Event) -> DuelState:
    match event:
        case WoundsLost(fighter=fighter, left=left):
            new = msgspec.structs.replace(state.fighters[fighter], wounds=left)
        case KnockedDown(fighter=fighter):
            new = msgspec.structs.replace(state.fighters[fighter], status="down")
        case Rose(fighter=fighter):
            new = msgspec.structs.replace(state.fighters[fighter], status="standing")
        case OutOfAction(fighter=fighter, by=winner):
            out = FighterState(wounds=0, status="out-of-action")
            return msgspec.structs.replace(_with_fighter(state, fighter, out), winner=winner)
        case _:
            return state
    return _with_fighter(state, fighter, new)


# copy me: one fold per concern, each given only the event types it reads; any other event (the
# engine's own: dice, choices) leaves the state alone at the cost of one dictionary lookup.
FOLDS = (
    Concern(_turns, reads=(TurnPassed,)),
    Concern(_guard, reads=(GuardTaken, GuardLowered)),
    Concern(_wounds, reads=(WoundsLost, KnockedDown, Rose, OutOfAction)),
)

evolve = fold_by_event_type(*FOLDS)


# --- what a front end shows ---------------------------------------------------------------

STATUS_WORDS: dict[Status, str] = {
    "standing": "standing",
    "down": "Down",
    "out-of-action": "out of action",
}


def _unit(state: DuelState, profile: Fighter) -> UnitView:
    fighter = state.fighters[profile.id]
    flags = [
        flag
        for flag, on in (
            ("on guard", fighter.guarding),
            ("to act", profile.id == state.active and not state.over),
            ("winner", profile.id == state.winner),
        )
        if on
    ]
    return UnitView(
        id=profile.id,
        name=profile.name,
        side=profile.side,
        status=STATUS_WORDS[fighter.status],
        stats=(
            Stat(name="wounds", value=f"{fighter.wounds}/{profile.wounds}"),
            Stat(name="skill", value=f"+{profile.skill}"),
            Stat(name="defence", value=str(profile.defence)),
        ),
        flags=tuple(flags),
    )


def view(state: DuelState) -> StateView:
    """Both fighters with their status, wounds and guard; the duel that holds them; whose turn."""
    fighters = state.setup.fighters
    if state.over:
        phase = f"the duel is over: {state.profile(state.winner).name} has won"
        locks: tuple[LockView, ...] = ()
    else:
        phase = f"turn {state.turn}: {state.profile(state.active).name} to act"
        locks = (LockView(kind="duel", members=tuple(f.id for f in fighters)),)
    return StateView(
        sides=tuple(f.side for f in fighters),
        units=tuple(_unit(state, f) for f in fighters),
        locks=locks,
        phase=phase,
    )


def describe_state(state: DuelState) -> str:
    """The state in a few lines of text (``bxb at``)."""
    shown = view(state)
    lines = [shown.phase[0].upper() + shown.phase[1:]]
    for unit in shown.units:
        stats = ", ".join(f"{s.name} {s.value}" for s in unit.stats)
        flags = f" ({', '.join(unit.flags)})" if unit.flags else ""
        lines.append(f"  {unit.id} ({unit.side}): {unit.status}, {stats}{flags}")
    return "\n".join(lines)
