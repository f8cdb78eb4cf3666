"""Helpers shared by the CC rule modules: who is where, who defends with whom (A11.14), where a
unit may withdraw to (A11.21)."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from blowbyblow.domain.asl.commands import Attack, ExtraDrm
from blowbyblow.domain.asl.units import (
    State,
    UnitState,
    VehicleState,
    active,
    is_mmc,
    is_smc,
    known,
    leadership_drm,
    units_in,
    vehicles_in,
)
from blowbyblow.domain.core import Modifier


class Designation(msgspec.Struct, frozen=True, kw_only=True):
    """An attack as the procedure handles it (numbered in command order)."""

    number: int
    side: str
    attackers: tuple[str, ...]
    targets: tuple[str, ...]
    leader: str | None
    capture: bool
    hth: bool
    atmm: str | None
    weapons: tuple[str, ...]
    extra: tuple[ExtraDrm, ...]
    vs_vehicle: bool
    by_vehicle: bool
    by_prisoners: bool = False


def side_of(state: State, unit_id: str) -> str:
    if unit_id in state.units:
        return state.units[unit_id].side
    return state.vehicles[unit_id].side


def designation(
    state: State, number: int, attack: Attack, expanded: tuple[str, ...]
) -> Designation:
    by_vehicle = attack.by[0] in state.vehicles
    vs_vehicle = any(t in state.vehicles for t in attack.targets)
    return Designation(
        number=number,
        side=side_of(state, attack.by[0]),
        attackers=tuple(attack.by),
        targets=expanded,
        leader=attack.leader,
        capture=attack.capture,
        hth=attack.hth,
        atmm=attack.atmm,
        weapons=tuple(attack.weapons),
        extra=tuple(attack.extra),
        vs_vehicle=vs_vehicle,
        by_vehicle=by_vehicle,
        by_prisoners=all(is_prisoner(state, b) for b in attack.by),
    )


def is_prisoner(state: State, unit_id: str) -> bool:
    u = state.units.get(unit_id)
    return u is not None and u.status == "captured" and u.guard is not None


def expand_targets(
    state: State,
    location: str,
    targets: list[str],
    solo: set[str],
    withdrawing: dict[str, str | None],
) -> tuple[str, ...]:
    """A11.14/A11.2: an MMC is attacked together with the SMC stacked on it (unless the SMC
    attacks solo or withdraws without it); an SMC withdrawing with an MMC defends with it."""
    out = list(targets)
    for t in targets:
        u = state.units.get(t)
        if u is None or not is_mmc(u):
            continue
        for s in units_in(state, location, u.side):
            if not is_smc(s) or s.id in out or s.id in solo:
                continue
            # A Known SMC never defends with a concealed unit, nor vice versa (A11.14 EXC).
            paired = s.stacked_on == t and (s.concealed or s.hidden) == (u.concealed or u.hidden)
            if s.id in withdrawing:
                paired = withdrawing[s.id] == t
            elif t in withdrawing:
                paired = False
            if paired:
                out.append(s.id)
    return tuple(out)


def enemy_known_in(state: State, location: str, side: str) -> bool:
    if any(known(u) and u.side != side for u in units_in(state, location)):
        return True
    return any(v.side != side for v in vehicles_in(state, location))


def destinations(state: State, unit: UnitState, location: str) -> tuple[str, ...]:
    """A11.21: adjacent Locations (from the setup) not occupied by a Known enemy unit."""
    loc = state.locations[location]
    return tuple(
        a for a in loc.adjacent if a in state.locations and not enemy_known_in(state, a, unit.side)
    )


def present(state: State, unit_id: str, location: str) -> bool:
    u = state.units.get(unit_id)
    if u is not None:
        return active(u) and u.guard is None and u.location == location
    v = state.vehicles.get(unit_id)
    return v is not None and v.status == "active" and v.location == location


def vehicle(state: State, vehicle_id: str) -> VehicleState:
    return state.vehicles[vehicle_id]


def able_leaders(units: Iterable[UnitState]) -> list[UnitState]:
    """The leaders among ``units`` whose modifier counts: neither pinned nor broken (A7.831)."""
    return [u for u in units if u.kind == "leader" and not u.pinned and not u.broken]


def best_leader(leaders: Iterable[UnitState]) -> UnitState | None:
    """The leader with the best (lowest) leadership DRM, the lower id on a tie."""
    return min(leaders, key=lambda u: (leadership_drm(u), u.id), default=None)


def leader_modifier(leader: UnitState | None, rule: str) -> list[Modifier]:
    """The leader's DRM as a modifier under ``rule``; none without a leader or for a DRM of 0."""
    if leader is None or not leadership_drm(leader):
        return []
    return [Modifier(value=leadership_drm(leader), cause=f"leader {leader.id}", rule=rule)]
