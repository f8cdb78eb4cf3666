"""ASL Close Combat folds: unit status, concealment, prisoners and their guards, Melee locks per
Location, vehicles and the CCPh bookkeeping (``evolve``, each concern given the event types it
reads, ``FOLDS``; pure, events it does not know are ignored); the state as a front end shows it (``view``) and in words (``describe_state``)."""

from __future__ import annotations

from typing import Any

import msgspec

from blowbyblow.domain.asl import events as ev
from blowbyblow.domain.asl.setup import cc_fp, is_unarmed, leadership_drm
from blowbyblow.domain.asl.state import (
    Arrival,
    MeleeLock,
    State,
    UnitState,
    VehicleState,
    active,
)
from blowbyblow.domain.system import (
    Concern,
    LockView,
    PrisonerView,
    Stat,
    StateView,
    UnitView,
    fold_by_event_type,
)

replace = msgspec.structs.replace


def _unit(state: State, unit_id: str, **changes: Any) -> State:
    u = state.units.get(unit_id)
    if u is None:
        return state
    return replace(state, units={**state.units, unit_id: replace(u, **changes)})


def _drop_from_melee(state: State, unit_id: str) -> dict[str, MeleeLock]:
    melee = {}
    for loc, lock in state.melee.items():
        melee[loc] = replace(lock, units=tuple(x for x in lock.units if x != unit_id))
    return melee


# --- the CCPh bookkeeping ---------------------------------------------------------------------


def enter_turn(state: State, turn: int, attacker: str) -> State:
    """A new Player Turn (its ATTACKER named): nothing resolved, attacked, arrived or fired yet."""
    if turn == state.turn:
        return state
    return replace(
        state,
        turn=turn,
        attacker=attacker,
        resolved=(),
        phase_attackers=(),
        phase_targets=(),
        arrivals={},
        fired=(),
    )


BETWEEN_PHASES = (
    ev.Advanced,
    ev.Moved,
    ev.Restacked,
    ev.ReactionFireDeclared,
    ev.MeleeFiredOn,
)


def evolve_phase(state: State, event: Any) -> State:
    if isinstance(event, BETWEEN_PHASES):
        state = enter_turn(state, event.turn, event.attacker)
        if isinstance(event, ev.ReactionFireDeclared):
            state = replace(state, fired=(*state.fired, *event.by))
        return state
    if isinstance(event, ev.CloseCombatPhaseBegun):
        state = enter_turn(state, event.turn, event.attacker)
        return replace(state, current=event.location, ambusher=None, withdrawing={})
    if isinstance(event, ev.AmbushDeclared):
        return replace(state, ambusher=event.ambusher)
    if isinstance(event, ev.WithdrawalAttempted):
        return replace(state, withdrawing={**state.withdrawing, event.unit: event.to})
    if isinstance(event, ev.AttackDesignated):
        targets = state.phase_targets
        if not event.vs_vehicle and all(a in state.units for a in event.attackers):
            targets = targets + tuple(t for t in event.targets if t not in targets)
        return replace(
            state, phase_attackers=state.phase_attackers + event.attackers, phase_targets=targets
        )
    if isinstance(event, ev.CloseCombatEnded):
        return replace(
            state,
            resolved=(*state.resolved, event.location),
            current=None,
            ambusher=None,
            withdrawing={},
        )
    return state


# --- unit status and concealment --------------------------------------------------------------


def evolve_concealment(state: State, event: Any) -> State:
    if isinstance(event, ev.DummyRemoved):
        return _unit(state, event.unit, status="removed")
    if isinstance(event, ev.ConcealmentRevealed):
        u = state.units.get(event.unit)
        if u is not None and u.hidden:  # A11.19: a HIP unit is placed on board under a "?"
            return _unit(state, event.unit, hidden=False, concealed=True)
        return state
    if isinstance(event, ev.ConcealmentLost):
        return _unit(state, event.unit, concealed=False, hidden=False)
    return state


def evolve_movement(state: State, event: Any) -> State:
    """A unit leaves the CC Location (A11.2, A11.22, A11.41, A11.8), or stays out of it after a
    failed PAATC (A11.6)."""
    if isinstance(event, ev.Withdrew | ev.Infiltrated):
        u = state.units.get(event.unit)
        if u is None:
            return state
        keeps = isinstance(event, ev.Withdrew) and event.keeps_concealment
        state = replace(state, melee=_drop_from_melee(state, event.unit))
        withdrawing = {k: v for k, v in state.withdrawing.items() if k != event.unit}
        state = replace(state, withdrawing=withdrawing)
        return _unit(
            state,
            event.unit,
            location=event.to,
            concealed=u.concealed and keeps,
            street_fighting_from=None,
        )
    if isinstance(event, ev.PAATCTaken) and not event.passed:
        changes: dict[str, Any] = {"pinned": True}
        if event.back_to is not None:
            changes["location"] = event.back_to
            changes["street_fighting_from"] = None
        return _unit(state, event.unit, **changes)
    return state


def _drop_from_locks(state: State, unit_id: str) -> dict[str, MeleeLock]:
    melee = {}
    for loc, lock in state.melee.items():
        melee[loc] = replace(
            lock,
            units=tuple(x for x in lock.units if x != unit_id),
            vehicles=tuple(x for x in lock.vehicles if x != unit_id),
        )
    return melee


def _arrive(state: State, unit_id: str, arrival: Arrival) -> State:
    state = replace(
        state,
        melee=_drop_from_locks(state, unit_id),
        arrivals={**state.arrivals, unit_id: arrival},
    )
    v = state.vehicles.get(unit_id)
    if v is not None:
        return replace(
            state, vehicles={**state.vehicles, unit_id: replace(v, location=arrival.location)}
        )
    return _unit(state, unit_id, location=arrival.location, street_fighting_from=None)


def _unload(state: State, unit_id: str) -> State:
    """A11.71: the unit leaves its vehicle and stays in its Location, in its Melee if any."""
    vehicles = {
        vid: replace(
            v,
            passengers=[p for p in v.passengers if p != unit_id],
            riders=[r for r in v.riders if r != unit_id],
        )
        for vid, v in state.vehicles.items()
    }
    state = replace(state, vehicles=vehicles)
    u = state.units[unit_id]
    lock = state.melee.get(u.location)
    if lock is not None and unit_id not in lock.units:
        lock = replace(lock, units=(*lock.units, unit_id))
        state = replace(state, melee={**state.melee, u.location: lock})
    return state


def evolve_arrivals(state: State, event: Any) -> State:
    """Units and vehicles entering a Location between phases (A4.7, A11.15, A11.71, A11.8),
    re-arranged stacks (A11.14) and Melee no longer held (A11.7, A11.71)."""
    if isinstance(event, ev.Advanced):
        arrival = Arrival(
            how="advanced",
            location=event.to,
            came_from=event.came_from,
            reinforcing=event.reinforcing,
        )
        return _arrive(state, event.unit, arrival)
    if isinstance(event, ev.Moved):
        if event.kind == "unload":
            return _unload(state, event.unit)
        if event.kind == "street-fighting":
            return _unit(state, event.unit, location=event.to, street_fighting_from=event.came_from)
        arrival = Arrival(how="moved", location=event.to, came_from=event.came_from)
        for uid in (event.unit, *event.carries):
            state = _arrive(state, uid, arrival)
        return state
    if isinstance(event, ev.MeleeFreed):
        return replace(state, melee={k: v for k, v in state.melee.items() if k != event.location})
    if isinstance(event, ev.Restacked):
        return _unit(state, event.unit, stacked_on=event.onto)
    if isinstance(event, ev.VehicleCaptured):
        v = state.vehicles[event.vehicle]
        captured = replace(v, status="captured", side=event.by)
        return replace(state, vehicles={**state.vehicles, v.id: captured})
    return state


def evolve_units(state: State, event: Any) -> State:
    """Casualties, eliminations, status changes and Support Weapons."""
    if isinstance(event, ev.CasualtyReduced):
        return _unit(state, event.unit, kind=event.to_kind, name=event.to_name, fp=event.to_fp)
    if isinstance(event, ev.WoundSeverityRolled) and event.result == "wounded":
        return _unit(state, event.unit, wounded=True)
    if isinstance(event, ev.UnitEliminated):
        state = replace(
            state,
            melee=_drop_from_melee(state, event.unit),
            prisoners={k: v for k, v in state.prisoners.items() if k != event.unit},
        )
        return _unit(state, event.unit, status="eliminated")
    if isinstance(event, ev.FailureToRout):
        state = replace(state, melee=_drop_from_melee(state, event.unit))
        return _unit(state, event.unit, status="eliminated")
    if isinstance(event, ev.UnitStatusChanged):
        return _unit(state, event.unit, broken=event.broken, pinned=event.pinned)
    if isinstance(event, ev.SupportWeaponLost | ev.SupportWeaponDropped):
        u = state.units.get(event.unit)
        if u is None:
            return state
        return _unit(state, event.unit, sws=[s for s in u.sws if s != event.sw])
    return state


# --- prisoners and their guards (A20.22) ------------------------------------------------------


def evolve_prisoners(state: State, event: Any) -> State:
    if isinstance(event, ev.UnitCaptured):
        units = dict(state.units)
        if event.created is not None:
            units[event.created.id] = event.created
        else:
            units[event.unit] = replace(
                units[event.unit], status="captured", guard=event.guard, concealed=False
            )
        state = replace(
            state, units=units, melee=_drop_from_melee(replace(state, units=units), event.unit)
        )
        return replace(state, prisoners={**state.prisoners, event.unit: event.guard})
    if isinstance(event, ev.PrisonerReleased):
        prisoners = {k: v for k, v in state.prisoners.items() if k != event.unit}
        state = replace(state, prisoners=prisoners)
        return _unit(state, event.unit, status="active", guard=None)
    if isinstance(event, ev.CaptureVoided):
        prisoners = {k: v for k, v in state.prisoners.items() if k != event.unit}
        units = dict(state.units)
        if event.restored is not None:
            units.pop(event.unit, None)
            units[event.restored.id] = event.restored
        elif event.unit in units:
            units[event.unit] = replace(units[event.unit], status="active", guard=None)
        return replace(state, units=units, prisoners=prisoners)
    return state


# --- vehicles ---------------------------------------------------------------------------------


def evolve_vehicles(state: State, event: Any) -> State:
    if isinstance(event, ev.VehicleImmobilized):
        v = state.vehicles[event.vehicle]
        return replace(state, vehicles={**state.vehicles, v.id: replace(v, mobile=False)})
    if isinstance(event, ev.VehicleEliminated):
        v = state.vehicles[event.vehicle]
        status = "burning-wreck" if event.burning else "wreck"
        return replace(state, vehicles={**state.vehicles, v.id: replace(v, status=status)})
    return state


# --- Melee locks per Location (A11.15) --------------------------------------------------------


def evolve_melee(state: State, event: Any) -> State:
    if isinstance(event, ev.MeleeLocked | ev.MeleeContinued):
        lock = MeleeLock(since=event.since, units=event.units, vehicles=event.vehicles)
        return replace(state, melee={**state.melee, event.location: lock})
    if isinstance(event, ev.MeleeEnded):
        return replace(state, melee={k: v for k, v in state.melee.items() if k != event.location})
    return state


def evolve_cx(state: State, event: Any) -> State:
    """CX counters a withdrawal placed (A11.21) and their removal (ruling withdrawal-cx)."""
    if isinstance(event, ev.CXPlaced):
        state = _unit(state, event.unit, cx=True)
        return replace(state, cx_placed={**state.cx_placed, event.unit: event.turn})
    if isinstance(event, ev.CXRemoved):
        for uid in event.units:
            state = _unit(state, uid, cx=False)
        left = {u: t for u, t in state.cx_placed.items() if u not in event.units}
        return replace(state, cx_placed=left)
    return state


FOLDS = (
    Concern(
        evolve_phase,
        reads=(
            *BETWEEN_PHASES,
            ev.CloseCombatPhaseBegun,
            ev.AmbushDeclared,
            ev.WithdrawalAttempted,
            ev.AttackDesignated,
            ev.CloseCombatEnded,
        ),
    ),
    Concern(
        evolve_concealment, reads=(ev.DummyRemoved, ev.ConcealmentRevealed, ev.ConcealmentLost)
    ),
    Concern(evolve_movement, reads=(ev.Withdrew, ev.Infiltrated, ev.PAATCTaken)),
    Concern(
        evolve_units,
        reads=(
            ev.CasualtyReduced,
            ev.WoundSeverityRolled,
            ev.UnitEliminated,
            ev.FailureToRout,
            ev.UnitStatusChanged,
            ev.SupportWeaponLost,
            ev.SupportWeaponDropped,
        ),
    ),
    Concern(evolve_prisoners, reads=(ev.UnitCaptured, ev.PrisonerReleased, ev.CaptureVoided)),
    Concern(evolve_vehicles, reads=(ev.VehicleImmobilized, ev.VehicleEliminated)),
    Concern(evolve_melee, reads=(ev.MeleeLocked, ev.MeleeContinued, ev.MeleeEnded)),
    Concern(
        evolve_arrivals,
        reads=(ev.Advanced, ev.Moved, ev.MeleeFreed, ev.Restacked, ev.VehicleCaptured),
    ),
    Concern(evolve_cx, reads=(ev.CXPlaced, ev.CXRemoved)),
)

# Each event goes to the concerns that read its type, in the order above (an Advanced closes
# the last phase, then places the unit).
evolve = fold_by_event_type(*FOLDS)


def prisoners_of(state: State) -> dict[str, list[str]]:
    """Guard id -> the prisoners it guards (a read model of A20.22)."""
    out: dict[str, list[str]] = {}
    for prisoner, guard in state.prisoners.items():
        out.setdefault(guard, []).append(prisoner)
    return out


def unit_line(u: UnitState) -> str:
    flags = [
        f
        for f, on in (
            ("broken", u.broken),
            ("pinned", u.pinned),
            ("berserk", u.berserk),
            ("CX", u.cx),
            ("wounded", u.wounded),
            ("?", u.concealed),
            ("HIP", u.hidden),
        )
        if on
    ]
    extra = f" [{', '.join(flags)}]" if flags else ""
    return f"{u.id} {u.name or u.kind} ({u.side}, {u.kind}){extra}"


# --- the state in words -----------------------------------------------------------------------


def describe_state(state: State) -> str:
    if state.attacker is None:
        head = "ASL Close Combat - before the first CCPh"
    else:
        head = f"ASL Close Combat - Player Turn {state.turn}, ATTACKER {state.attacker}"
    lines = [head]
    for loc in state.locations.values():
        lines += _describe_location(state, loc.id)
    concealed = [u.id for u in state.units.values() if u.status == "active" and u.concealed]
    lines.append(f"Concealed: {', '.join(concealed) or 'none'}")
    prisoners = prisoners_of(state)
    if prisoners:
        lines.append(
            "Prisoners: " + "; ".join(f"{g} guards {', '.join(p)}" for g, p in prisoners.items())
        )
    gone = [
        f"{u.id} ({u.status})"
        for u in state.units.values()
        if u.status not in ("active", "captured")
    ]
    if gone:
        lines.append(f"Out of play: {', '.join(gone)}")
    return "\n".join(lines)


def _describe_location(state: State, location: str) -> list[str]:
    loc = state.locations[location]
    units = [u for u in state.units.values() if u.location == loc.id and u.status == "active"]
    vehicles = [v for v in state.vehicles.values() if v.location == loc.id]
    lock = state.melee.get(loc.id)
    if not units and not vehicles and lock is None:
        return []
    head = f"{loc.id} ({loc.terrain})"
    if lock is not None:
        held = ", ".join(lock.units)
        by = f"; held by {', '.join(lock.vehicles)}" if lock.vehicles else ""
        head += f"  MELEE since Player Turn {lock.since}: {held}{by}"
    lines = [head]
    for u in units:
        guard = f" PRISONER of {u.guard}" if u.guard else ""
        lines.append(f"  {unit_line(u)}{guard}")
    for v in vehicles:
        lines.append(f"  {v.id} {v.name} ({v.side}, vehicle) [{', '.join(_vehicle_bits(v))}]")
    return lines


def _vehicle_bits(v: VehicleState) -> list[str]:
    return [
        b
        for b, on in (
            ("CE" if v.ce else "BU", v.afv),
            ("Immobile", not v.mobile),
            ("Motion", v.motion),
            (v.status, v.status != "active"),
        )
        if on
    ]


# --- the state as a front end shows it --------------------------------------------------------

KIND_WORDS: dict[str, str] = {
    "squad": "squad",
    "hs": "half-squad",
    "crew": "crew",
    "leader": "leader",
    "hero": "hero",
}


def view(state: State) -> StateView:
    """Units (Personnel, then vehicles) with their Location, side, status in ASL's words, figures
    and flags; a Melee lock per Location (A11.15); concealment (A11.19); prisoners and their
    guards (A20.22); the Player Turn and its ATTACKER."""
    in_melee = {uid for lock in state.melee.values() for uid in (*lock.units, *lock.vehicles)}
    units = [_unit_view(state, u, u.id in in_melee) for u in state.units.values()]
    units += [_vehicle_view(state, v, v.id in in_melee) for v in state.vehicles.values()]
    return StateView(
        sides=state.sides,
        units=tuple(units),
        locks=tuple(_melee_view(loc, lock) for loc, lock in state.melee.items()),
        concealed=tuple(
            u.id for u in state.units.values() if active(u) and (u.concealed or u.hidden)
        ),
        prisoners=tuple(PrisonerView(prisoner=p, captor=g) for p, g in state.prisoners.items()),
        phase=_phase_words(state),
        notes=_notes(state),
    )


def unit_status(u: UnitState) -> str:
    """A unit's status in ASL's words: Good Order, broken or pinned while it is in play;
    prisoner, eliminated or removed (a Dummy) when it is not."""
    if u.status == "captured":
        return "prisoner"
    if u.status == "removed":
        return "removed (Dummy)"
    if u.status == "eliminated":
        return "eliminated"
    if u.broken:
        return "broken"
    if u.pinned:
        return "pinned"
    return "Good Order"


def vehicle_status(v: VehicleState) -> str:
    if v.status == "captured":
        return "captured"
    if v.status == "burning-wreck":
        return "burning wreck"
    if v.status == "wreck":
        return "wreck"
    return "Mobile" if v.mobile else "Immobilized"


def _unit_flags(state: State, u: UnitState, in_melee: bool) -> tuple[str, ...]:
    marks = (
        ("broken", u.broken),
        ("pinned", u.pinned),
        ("berserk", u.berserk),
        ("CX", u.cx),
        ("wounded", u.wounded),
        ("concealed", u.concealed),
        ("HIP", u.hidden),
        ("Dummy", u.dummy),
        ("Inexperienced", u.inexperienced),
        ("Lax", u.lax),
        ("Stealthy", u.stealthy),
        ("Fanatic", u.fanatic),
        ("Assault Engineer", u.assault_engineer),
        ("Street Fighting", u.street_fighting_from is not None),
        ("in Melee", in_melee),
        ("withdrawing", u.id in state.withdrawing),
        ("prisoner", u.status == "captured"),
        ("guarding prisoners", u.id in state.prisoners.values()),
        ("Disrupted", u.disrupted),
        ("Cavalry", u.cavalry),
        ("cyclist", u.cyclist),
        ("skier", u.skier),
        ("in pillbox", u.in_pillbox),
        *_arrival_marks(state, u.id),
        ("Reaction Fire made", u.id in state.fired),
    )
    return tuple(mark for mark, on in marks if on)


def _arrival_marks(state: State, uid: str) -> tuple[tuple[str, bool], ...]:
    """How it came this Player Turn: advanced (A4.7), reinforcing a Melee (A11.15) or moved."""
    arrival = state.arrivals.get(uid)
    if arrival is None:
        return ()
    return (
        ("advanced", arrival.how == "advanced"),
        ("reinforcing the Melee", arrival.reinforcing),
        ("moved", arrival.how == "moved"),
    )


def _unit_view(state: State, u: UnitState, in_melee: bool) -> UnitView:
    stats = [Stat(name="kind", value=KIND_WORDS[u.kind]), Stat(name="CC FP", value=str(cc_fp(u)))]
    stats.append(Stat(name="Morale", value=str(u.morale)))
    if u.kind == "leader":
        stats.append(Stat(name="leadership", value=f"{leadership_drm(u):+d}"))
    if u.sws:
        stats.append(Stat(name="SW", value=", ".join(u.sws)))
    if u.stacked_on is not None:
        stats.append(Stat(name="stacked on", value=u.stacked_on))
    if u.guard is not None:
        stats.append(Stat(name="guarded by", value=u.guard))
    return UnitView(
        id=u.id,
        name=u.name or u.kind,
        side=u.side,
        status=unit_status(u),
        stats=tuple(stats),
        flags=_unit_flags(state, u, in_melee),
        location=u.location,
    )


def _vehicle_view(state: State, v: VehicleState, holds_melee: bool) -> UnitView:
    figures = (("CMG", v.cmg), ("AAMG", v.aamg), ("RMG", v.rmg), ("BMG", v.bmg))
    stats = [Stat(name=name, value=str(fp)) for name, fp in figures if fp]
    if v.close_defense_usage:
        stats.append(Stat(name="sN usage", value=str(v.close_defense_usage)))
    if v.passengers:
        stats.append(Stat(name="passengers", value=", ".join(v.passengers)))
    if v.riders:
        stats.append(Stat(name="riders", value=", ".join(v.riders)))
    marks = (
        ("vehicle", True),
        ("AFV", v.afv),
        ("CE" if v.ce else "BU", v.afv),
        ("Motion", v.motion),
        ("unarmored", not v.armored),
        ("open-topped", v.open_topped),
        ("abandoned", v.abandoned),
        ("shocked", v.shocked),
        ("stunned", v.stunned),
        ("Bypass", v.bypass),
        ("holds Melee", holds_melee),
        ("moved", v.id in state.arrivals),
        ("unarmed", is_unarmed(v)),
    )
    return UnitView(
        id=v.id,
        name=v.name or v.id,
        side=v.side,
        status=vehicle_status(v),
        stats=tuple(stats),
        flags=tuple(mark for mark, on in marks if on),
        location=v.location,
    )


def _melee_view(location: str, lock: MeleeLock) -> LockView:
    held_by = f"; held by {', '.join(lock.vehicles)} (A11.7)" if lock.vehicles else ""
    return LockView(
        kind="melee",
        members=(*lock.units, *lock.vehicles),
        detail=f"{location}: in Melee since Player Turn {lock.since}{held_by}",
    )


def _phase_words(state: State) -> str:
    if state.attacker is None:
        return "before the first CCPh"
    words = f"Player Turn {state.turn}: ATTACKER {state.attacker}"
    defender = next((s for s in state.sides if s != state.attacker), "")
    return f"{words}, DEFENDER {defender}"


def _notes(state: State) -> tuple[str, ...]:
    notes: list[str] = []
    if state.resolved:
        notes.append(f"CC resolved this Player Turn in: {', '.join(state.resolved)}")
    if state.current is not None:
        notes.append(f"CC being resolved in {state.current}")
    if state.ambusher is not None:
        notes.append(f"{state.ambusher} has Ambush status")
    return tuple(notes)
