"""The fold of both Necromunda systems and what a front end shows of a state.

``evolve`` composes one fold per concern, each given only the event types it reads (``FOLDS``):
fighter status (Standing & Active / Standing & Engaged / Prone & Pinned / Prone & Seriously
Injured / Out of Action, Broken, wounds left, flesh wounds, ammunition), the engagement graph,
and who is in whose vision arc. It is pure: it never mutates
the state it is given (dicts are copied on write), and it ignores events it does not know (the
core's DiceRolled, ChoiceMade, ...).

``view`` gives the state as a :class:`~blowbyblow.domain.system.StateView`; ``describe_state``
in words."""

from __future__ import annotations

from msgspec.structs import replace

from blowbyblow.domain.core import CommandIssued, Event
from blowbyblow.domain.necromunda.events import (
    AmmoChecked,
    BrokenChanged,
    DamageInflicted,
    EngagementEnded,
    EngagementFormed,
    FightDeclared,
    FleshWoundSuffered,
    StatusChanged,
    TurnedToFace,
    VehicleDamaged,
    VisionChanged,
)
from blowbyblow.domain.necromunda.state import (
    OUT_OF_ACTION,
    FighterState,
    Link,
    NecromundaState,
    engaged_with,
    make_link,
)
from blowbyblow.domain.system import (
    Concern,
    LockView,
    Stat,
    StateView,
    UnitView,
    fold_by_event_type,
)


def _with_fighter(state: NecromundaState, fighter: FighterState) -> NecromundaState:
    fighters = dict(state.fighters)
    fighters[fighter.id] = fighter
    return replace(state, fighters=fighters)


def evolve_status(state: NecromundaState, event: Event) -> NecromundaState:
    """Fighter status, Broken, wounds (a vehicle's Hull Points and the Locations hit), flesh
    wounds, ammunition."""
    if isinstance(event, StatusChanged):
        f = replace(state.fighters[event.fighter], status=event.after)
        if event.after == OUT_OF_ACTION:
            # Out of Action, it makes no Reaction attacks: the "counts as turned" mark goes too.
            f = replace(f, counts_as_turned=False)
        return _with_fighter(state, f)
    if isinstance(event, DamageInflicted):
        return _with_fighter(
            state, replace(state.fighters[event.target], wounds=event.wounds_after)
        )
    if isinstance(event, VehicleDamaged):
        v = state.fighters[event.vehicle]
        assert v.vehicle is not None
        hit = replace(v.vehicle, locations_hit=(*v.vehicle.locations_hit, event.location))
        return _with_fighter(state, replace(v, wounds=event.hull_points_after, vehicle=hit))
    if isinstance(event, FleshWoundSuffered):
        return _with_fighter(
            state, replace(state.fighters[event.fighter], flesh_wounds=event.flesh_wounds)
        )
    if isinstance(event, BrokenChanged):
        return _with_fighter(state, replace(state.fighters[event.fighter], broken=event.broken))
    if isinstance(event, AmmoChecked) and event.out_of_ammo:
        f = state.fighters[event.fighter]
        weapons = tuple(
            replace(w, out_of_ammo=True) if w.id == event.weapon else w for w in f.weapons
        )
        return _with_fighter(state, replace(f, weapons=weapons))
    return state


def evolve_engagement(state: NecromundaState, event: Event) -> NecromundaState:
    """The engagement graph (base contact, across barricades, within 1" of a vehicle)."""
    if isinstance(event, EngagementFormed):
        link = make_link(event.a, event.b, event.across, event.facing)
        links = [lk for lk in state.links if (lk.a, lk.b) != (link.a, link.b)]
        links.append(link)
        return replace(state, links=tuple(sorted(links, key=lambda lk: (lk.a, lk.b))))
    if isinstance(event, EngagementEnded):
        a, b = sorted((event.a, event.b))
        return replace(state, links=tuple(lk for lk in state.links if (lk.a, lk.b) != (a, b)))
    return state


def evolve_vision(state: NecromundaState, event: Event) -> NecromundaState:
    """Who is in whose vision arc; the "counts as having turned to face" mark of a fighter
    charged while Prone & Pinned, which lasts until its Reaction attacks or the next command."""
    if isinstance(event, VisionChanged | TurnedToFace):
        vision = dict(state.vision)
        vision[event.fighter] = tuple(event.in_arc)
        state = replace(state, vision=vision)
        if isinstance(event, TurnedToFace) and event.counted:
            state = _with_fighter(
                state, replace(state.fighters[event.fighter], counts_as_turned=True)
            )
        return state
    if isinstance(event, FightDeclared) and event.kind == "reaction":
        f = state.fighters[event.fighter]
        return (
            _with_fighter(state, replace(f, counts_as_turned=False))
            if f.counts_as_turned
            else state
        )
    if isinstance(event, CommandIssued):
        fighters = {
            fid: (replace(f, counts_as_turned=False) if f.counts_as_turned else f)
            for fid, f in state.fighters.items()
        }
        return replace(state, fighters=fighters, commands=state.commands + 1)
    return state


FOLDS = (
    Concern(
        evolve_status,
        reads=(
            StatusChanged,
            DamageInflicted,
            VehicleDamaged,
            FleshWoundSuffered,
            BrokenChanged,
            AmmoChecked,
        ),
    ),
    Concern(evolve_engagement, reads=(EngagementFormed, EngagementEnded)),
    Concern(evolve_vision, reads=(VisionChanged, TurnedToFace, FightDeclared, CommandIssued)),
)

evolve = fold_by_event_type(*FOLDS)


def describe_state(state: NecromundaState) -> str:
    lines: list[str] = []
    gangs: dict[str, list[FighterState]] = {}
    for f in state.fighters.values():
        gangs.setdefault(f.gang, []).append(f)
    for gang, members in gangs.items():
        lines.append(f"Gang {gang}:")
        for f in members:
            extra: list[str] = []
            if f.broken:
                extra.append("Broken")
            if f.vehicle is not None:
                extra.append(f"hull points {f.wounds}/{f.vehicle.hull_points}")
                if f.vehicle.locations_hit:
                    extra.append("Locations hit: " + ", ".join(f.vehicle.locations_hit))
            else:
                extra.append(f"wounds {f.wounds}/{f.w}")
                extra.append(f"flesh wounds {f.flesh_wounds}")
                extra.append(f"T {f.toughness}" + (f" (of {f.t})" if f.flesh_wounds else ""))
            out = [w.id for w in f.weapons if w.out_of_ammo]
            if out:
                extra.append("out of ammo: " + ", ".join(out))
            arc = state.vision.get(f.id, ())
            extra.append("sees " + (", ".join(arc) if arc else "no one"))
            lines.append(f"  {f.label} [{f.id}]: {f.status}; " + "; ".join(extra))
    lines.append("Engagements:")
    if not state.links:
        lines.append("  none")
    for lk in state.links:
        how = ""
        if lk.across:
            how = f' across {lk.across} ({state.barricades.get(lk.across, 0) / 10:g}" wide)'
        if lk.facing:
            how += f" (vehicle facing: {lk.facing})"
        lines.append(f"  {lk.a} - {lk.b}{how}")
    return "\n".join(lines)


# --- what a front end shows ------------------------------------------------------------------


def view(state: NecromundaState) -> StateView:
    """Every fighter and vehicle with its gang, status, figures and marks; every contact (who is
    Engaged with whom, across which barricade, against which facing of a vehicle); friends
    within 3" of each other (they test their nerve for each other)."""
    return StateView(
        sides=tuple(dict.fromkeys(f.gang for f in state.fighters.values())),
        units=tuple(_unit_view(state, f) for f in state.fighters.values()),
        locks=tuple(_lock_view(state, lk) for lk in state.links),
        phase=f"close combat, after {state.commands} command(s)",
        notes=(
            *(f'{a} and {b} are within 3" of each other' for a, b in state.within_3),
            *(f'{a} and {b} are within 6" of each other' for a, b in state.within_6),
        ),
    )


def _unit_view(state: NecromundaState, f: FighterState) -> UnitView:
    arc = state.vision.get(f.id, ())
    stats: list[Stat] = []
    flags: list[str] = []
    if f.vehicle is not None:
        v = f.vehicle
        stats.append(Stat(name="hull points", value=f"{f.wounds}/{v.hull_points}"))
        stats.append(
            Stat(
                name="toughness",
                value=f"front {v.toughness_front}, side {v.toughness_side}, rear {v.toughness_rear}",
            )
        )
        if v.locations_hit:
            stats.append(Stat(name="locations hit", value=", ".join(v.locations_hit)))
        flags.append("vehicle")
    else:
        toughness = f"{f.toughness}" + (f" (of {f.t})" if f.flesh_wounds else "")
        stats.append(Stat(name="wounds", value=f"{f.wounds}/{f.w}"))
        stats.append(Stat(name="toughness", value=toughness))
        stats.append(Stat(name="flesh wounds", value=str(f.flesh_wounds)))
        stats.append(Stat(name="WS", value=f"{f.ws}+"))
        stats.append(Stat(name="attacks", value=str(f.a)))
        stats.append(Stat(name="cool", value=f"{f.cl}+"))
    if f.weapons:
        stats.append(
            Stat(
                name="weapons",
                value=", ".join(
                    w.id + (" (out of ammo)" if w.out_of_ammo else "") for w in f.weapons
                ),
            )
        )
    stats.append(Stat(name="vision arc", value=", ".join(arc) if arc else "no one"))
    if f.broken:
        flags.append("Broken")
    if f.counts_as_turned:
        flags.append("counts as turned to face")
    if f.mounted:
        flags.append("Mounted")
    if f.skills or state.tactics.get(f.gang):
        granted = (*f.skills, *state.tactics.get(f.gang, ()))
        stats.append(Stat(name="attacks outside the sequence", value=", ".join(granted)))
    flags.extend(f"{w.id} out of ammo" for w in f.weapons if w.out_of_ammo)
    return UnitView(
        id=f.id,
        name=f.label,
        side=f.gang,
        status=f.status,
        stats=tuple(stats),
        flags=tuple(flags),
    )


def _lock_view(state: NecromundaState, lk: Link) -> LockView:
    """Engaged: both Standing enemies in base contact (or across a barricade under 1" wide).
    A fighter within 1" of a vehicle may attack it but is not Engaged with it. Otherwise the two
    are only in contact (one is Seriously Injured, or a wide barricade lies between them)."""
    details: list[str] = []
    if lk.across:
        details.append(f'across {lk.across} ({state.barricades.get(lk.across, 0) / 10:g}" wide)')
    if lk.facing:
        details.append(f"vehicle facing: {lk.facing}")
    if state.fighters[lk.a].is_vehicle or state.fighters[lk.b].is_vehicle:
        kind = 'within 1" of a vehicle'
    elif lk.b in engaged_with(state, lk.a):
        kind = "engaged"
    else:
        kind = "in contact"
    return LockView(kind=kind, members=(lk.a, lk.b), detail="; ".join(details))


# --- read models -----------------------------------------------------------------------------


def fighter_status(state: NecromundaState) -> dict[str, dict[str, object]]:
    """Per fighter: status, Broken, wounds left, flesh wounds, Toughness after flesh wounds."""
    return {
        f.id: {
            "status": f.status,
            "broken": f.broken,
            "wounds": f.wounds,
            "flesh_wounds": f.flesh_wounds,
            "toughness": f.toughness if f.vehicle is None else None,
        }
        for f in state.fighters.values()
    }


def engagement_graph(state: NecromundaState) -> dict[str, list[str]]:
    """Who is in contact with whom (both directions), in setup order."""
    return {fid: state.linked(fid) for fid in state.fighters}


def vision_arcs(state: NecromundaState) -> dict[str, list[str]]:
    """Who is in whose vision arc."""
    return {fid: list(state.vision.get(fid, ())) for fid in state.fighters}
