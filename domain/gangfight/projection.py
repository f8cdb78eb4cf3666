"""Gangfight folds: fighter status (wounds, action points, Prone, Incapacitated, Dead) and the
Melee locks (the gaps between models), each given the event types it reads (``FOLDS``),
composed into ``evolve``, which ignores every other event; ``view`` and ``describe_state``: the state as a front end shows it."""

from __future__ import annotations

import msgspec

from blowbyblow.domain.core import Event
from blowbyblow.domain.gangfight.events import (
    ActionPointsSpent,
    Disengaged,
    DisengagedTo,
    Incapacitated,
    Killed,
    KnockedBack,
    KnockedDown,
    MarksmanshipRolled,
    Moved,
    StoodUp,
    TurnStarted,
    WeaponReloaded,
    WoundsApplied,
)
from blowbyblow.domain.gangfight.state import (
    FighterStatus,
    GangfightState,
    Gap,
    fighter,
    replace_fighter,
    set_gap,
    status,
    weapon,
)
from blowbyblow.domain.system import (
    Concern,
    LockView,
    Stat,
    StateView,
    UnitView,
    fold_by_event_type,
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


def evolve_weapons(state: GangfightState, event: Event) -> GangfightState:
    """Which ranged weapons are loaded: firing one that must be reloaded unloads it (Ranged
    Combat: "a model must have a loaded weapon"); Reload loads it again."""
    match event:
        case MarksmanshipRolled() if weapon(state, event.weapon).reload:
            s = status(state, event.shooter)
            return replace_fighter(
                state, msgspec.structs.replace(s, fired=(*s.fired, event.weapon))
            )
        case WeaponReloaded():
            s = status(state, event.fighter)
            fired = list(s.fired)
            fired.remove(event.weapon)
            return replace_fighter(state, msgspec.structs.replace(s, fired=tuple(fired)))
    return state


def evolve_locks(state: GangfightState, event: Event) -> GangfightState:
    """The gaps between models, i.e. who is within whose threat range."""
    match event:
        case KnockedBack():
            return set_gap(state, event.fighter, event.by, event.gap_after)
        case Disengaged():
            return set_gap(state, event.fighter, event.from_fighter, event.gap_after)
        case Moved() | DisengagedTo():
            for g in event.gaps:
                state = set_gap(state, g.a, g.b, g.inches)
            return state
    return state


FOLDS = (
    Concern(
        evolve_status,
        reads=(
            WoundsApplied,
            Incapacitated,
            Killed,
            KnockedDown,
            StoodUp,
            ActionPointsSpent,
            TurnStarted,
        ),
    ),
    Concern(evolve_weapons, reads=(MarksmanshipRolled, WeaponReloaded)),
    Concern(evolve_locks, reads=(KnockedBack, Disengaged, Moved, DisengagedTo)),
)

evolve = fold_by_event_type(*FOLDS)


# --- the state as a front end shows it ----------------------------------------------------------


def status_words(s: FighterStatus) -> str:
    """Standing or Prone while in the fight (Knocked Down); Incapacitated (a token) or Dead."""
    return s.posture if s.condition == "active" else s.condition


def unit_view(state: GangfightState, s: FighterStatus) -> UnitView:
    f = fighter(state, s.id)
    en = f.profile.en
    flags = (s.condition,) if s.condition != "active" else ("prone",) if s.prone else ()
    return UnitView(
        id=f.id,
        name=f.name or f.id,
        side=f.side,
        status=status_words(s),
        stats=(
            Stat(name="wounds", value=f"{s.wounds}/{en}"),
            Stat(name="EN left", value=str(en - s.wounds)),
            Stat(name="action points", value=str(s.ap)),
            Stat(name="size", value=f.size),
            Stat(name="threat range", value=f'{f.threat}"'),
            *((Stat(name="unloaded", value=", ".join(s.fired)),) if s.fired else ()),
        ),
        flags=flags,
    )


def threatening(state: GangfightState, g: Gap) -> tuple[str, ...]:
    """The ends of a gap whose threat range covers it."""
    return tuple(m for m in (g.a, g.b) if g.inches <= fighter(state, m).threat)


def is_lock(state: GangfightState, g: Gap) -> bool:
    """Two opposing models in the fight, one within the other's threat range: in combat "until a
    model moves out of that model's Threat range, or one of the models is incapacitated"
    (Combat, Melee Combat)."""
    return (
        fighter(state, g.a).side != fighter(state, g.b).side
        and status(state, g.a).condition == status(state, g.b).condition == "active"
        and bool(threatening(state, g))
    )


def lock_view(state: GangfightState, g: Gap) -> LockView:
    return LockView(
        kind="threat range",
        members=(g.a, g.b),
        detail=f'{g.inches}" apart; within the threat range of {" and ".join(threatening(state, g))}',
    )


def view(state: GangfightState) -> StateView:
    """Every model with its side, Standing/Prone or Incapacitated/Dead, wounds of EN, action
    points; the threat-range locks between opposing models; the other gaps as notes."""
    sides = tuple(dict.fromkeys(f.side for f in state.setup.fighters))
    locks = tuple(lock_view(state, g) for g in state.gaps if is_lock(state, g))
    notes = tuple(f'{g.a} - {g.b}: {g.inches}" apart' for g in state.gaps if not is_lock(state, g))
    return StateView(
        sides=sides,
        units=tuple(unit_view(state, s) for s in state.fighters),
        locks=locks,
        phase=f"turn {state.turn}",
        notes=notes,
    )


def describe_state(state: GangfightState) -> str:
    lines = [f"Gangfight, turn {state.turn}"]
    for s in state.fighters:
        f = fighter(state, s.id)
        p = f.profile
        posture = ", Prone" if s.prone else ""
        posture += f"; unloaded: {', '.join(s.fired)}" if s.fired else ""
        lines.append(
            f"  {s.id} ({f.name or f.id}; {f.side}, {f.size}): {s.condition}{posture}; "
            f"wounds {s.wounds}/EN {p.en} ({p.en - s.wounds} left); AP {s.ap}; "
            f'ATT {p.att} DEF {p.defense} ARM {p.arm} DAM {p.dam}; threat {f.threat}"'
        )
    if state.gaps:
        lines.append("  gaps (inches between bases; * = within a threat range):")
        for g in state.gaps:
            locked = bool(threatening(state, g))
            lines.append(f'    {g.a} - {g.b}: {g.inches}"{" *" if locked else ""}')
    return "\n".join(lines)
