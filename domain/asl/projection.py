"""ASL Close Combat folds: unit status, concealment, prisoners and their guards, Melee locks per
Location, vehicles and the CCPh bookkeeping. Pure; events it does not know are ignored."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from blowbyblow.domain.asl import events as ev
from blowbyblow.domain.asl.units import MeleeLock, State, UnitState

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


def evolve_phase(state: State, event: Any) -> State:
    if isinstance(event, ev.CloseCombatPhaseBegun):
        if event.turn != state.turn:
            state = replace(
                state,
                turn=event.turn,
                attacker=event.attacker,
                resolved=(),
                phase_attackers=(),
                phase_targets=(),
            )
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


def evolve_units(state: State, event: Any) -> State:
    if isinstance(event, ev.DummyRemoved):
        return _unit(state, event.unit, status="removed")
    if isinstance(event, ev.ConcealmentRevealed):
        u = state.units.get(event.unit)
        if u is not None and u.hidden:  # A11.19: a HIP unit is placed on board under a "?"
            return _unit(state, event.unit, hidden=False, concealed=True)
        return state
    if isinstance(event, ev.ConcealmentLost):
        return _unit(state, event.unit, concealed=False, hidden=False)
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
    if isinstance(event, ev.PAATCTaken) and not event.passed:
        changes: dict[str, Any] = {"pinned": True}
        if event.back_to is not None:
            changes["location"] = event.back_to
            changes["street_fighting_from"] = None
        return _unit(state, event.unit, **changes)
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


FOLDS: tuple[Callable[[State, Any], State], ...] = (
    evolve_phase,
    evolve_units,
    evolve_prisoners,
    evolve_vehicles,
    evolve_melee,
)


def evolve(state: State, event: Any) -> State:
    for fold in FOLDS:
        state = fold(state, event)
    return state


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
