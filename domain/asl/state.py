"""The state the Close Combat rules decide on, ``initial_state`` and the questions the rules ask
of it: who is where (A11.1), who is a prisoner (A20.22), who is Known (A11.19)."""

from __future__ import annotations

from typing import Literal

import msgspec

from blowbyblow.domain.asl.setup import LocationSetup, Setup, UnitSetup, VehicleSetup

UnitStatus = Literal["active", "eliminated", "captured", "removed"]
VehicleStatus = Literal["active", "wreck", "burning-wreck", "captured"]
Arrived = Literal["advanced", "moved"]
ACTIVE: Literal["active"] = "active"


class UnitState(UnitSetup, frozen=True, kw_only=True):
    """A unit as the rules see it now. ``status``: active, eliminated, captured or removed (a
    Dummy, A11.19). A captured unit has a ``guard``."""

    status: UnitStatus = ACTIVE
    guard: str | None = None


class VehicleState(VehicleSetup, frozen=True, kw_only=True):
    status: VehicleStatus = ACTIVE


class MeleeLock(msgspec.Struct, frozen=True, kw_only=True):
    """Units held in Melee in one Location (A11.15) since Player Turn ``since``."""

    since: int
    units: tuple[str, ...]
    vehicles: tuple[str, ...] = ()  # vehicles holding enemy Infantry in Melee (A11.7)


class Arrival(msgspec.Struct, frozen=True, kw_only=True):
    """How a unit or vehicle came into ``location`` this Player Turn: ``advanced`` in the APh
    (A4.7; Infantry advancing into CC may Ambush, A11.4) or ``moved`` in the MPh;
    ``reinforcing``: it advanced into a Location locked in Melee (A11.15)."""

    how: Arrived
    location: str
    came_from: str
    reinforcing: bool = False


class State(msgspec.Struct, frozen=True, kw_only=True):
    sides: tuple[str, ...]
    locations: dict[str, LocationSetup]
    units: dict[str, UnitState]
    vehicles: dict[str, VehicleState]
    melee: dict[str, MeleeLock]
    prisoners: dict[str, str]  # prisoner id -> guard id
    turn: int
    attacker: str | None = None
    resolved: tuple[str, ...] = ()  # Locations whose CC is done this Player Turn
    phase_attackers: tuple[str, ...] = ()  # units that attacked this CCPh (A11.12)
    phase_targets: tuple[str, ...] = ()  # units attacked this CCPh by Infantry (A11.12)
    current: str | None = None  # Location whose CC is being resolved
    ambusher: str | None = None  # side with Ambush status in ``current`` (A11.4)
    withdrawing: dict[str, str] = {}  # unit -> destination, announced this CCPh (A11.2)
    arrivals: dict[str, Arrival] = {}  # unit or vehicle -> how it came this Player Turn
    fired: tuple[str, ...] = ()  # units that made their Reaction Fire this Player Turn (A11.8)
    sw_portage: dict[str, int] = {}  # Portage Points of each SW by name (A11.21)
    cx_placed: dict[str, int] = {}  # unit -> Player Turn a withdrawal made it CX (A11.21)


# --- who is where -----------------------------------------------------------------------------


def active(u: UnitState) -> bool:
    return u.status == ACTIVE


def known(u: UnitState) -> bool:
    return not (u.concealed or u.hidden)


def other_side(state: State, side: str) -> str:
    for s in state.sides:
        if s != side:
            return s
    raise ValueError(side)


def side_of(state: State, unit_id: str) -> str:
    if unit_id in state.units:
        return state.units[unit_id].side
    return state.vehicles[unit_id].side


def units_in(state: State, location: str, side: str | None = None) -> list[UnitState]:
    """The active, free (not captured) Personnel in ``location``, of ``side`` if given."""
    return [
        u
        for u in state.units.values()
        if u.status == ACTIVE  # ``active``, written out: the rules ask this at every step
        and u.location == location
        and (side is None or u.side == side)
        and u.guard is None
    ]


def vehicles_in(state: State, location: str, side: str | None = None) -> list[VehicleState]:
    return [
        v
        for v in state.vehicles.values()
        if v.status == ACTIVE and v.location == location and (side is None or v.side == side)
    ]


def is_prisoner(state: State, unit_id: str) -> bool:
    u = state.units.get(unit_id)
    return u is not None and u.status == "captured" and u.guard is not None


def present(state: State, unit_id: str, location: str) -> bool:
    """An active, free unit or an active vehicle in ``location``."""
    u = state.units.get(unit_id)
    if u is not None:
        return active(u) and u.guard is None and u.location == location
    v = state.vehicles.get(unit_id)
    return v is not None and v.status == ACTIVE and v.location == location


def still_here(state: State, unit_id: str, location: str) -> bool:
    """A unit (not a vehicle) still active and free in ``location``."""
    u = state.units.get(unit_id)
    return u is not None and active(u) and u.guard is None and u.location == location


def aboard(state: State) -> set[str]:
    """The Passengers of every vehicle: they share its fate (A11.611)."""
    return {p for v in state.vehicles.values() for p in v.passengers}


def carrier(state: State, unit_id: str) -> VehicleState | None:
    """The vehicle ``unit_id`` is a Passenger or Rider of, if any (its PRC, A11.611)."""
    for v in state.vehicles.values():
        if unit_id in v.passengers or unit_id in v.riders:
            return v
    return None


def enclosed(state: State, unit_id: str) -> bool:
    """A Passenger (not a Rider) of an armored, not open-topped vehicle: BU inside it, no
    Personnel Escort (A11.51) and not a Vulnerable PRC (A11.622)."""
    return any(
        unit_id in v.passengers and v.armored and not v.open_topped for v in state.vehicles.values()
    )


def capturable_passenger(state: State, unit_id: str) -> bool:
    """A11.52: a Passenger of an active, unarmored, stationary vehicle may be the target of a
    Capture attempt (and attack its would-be captors)."""
    return any(
        unit_id in v.passengers and v.status == ACTIVE and not v.armored and not v.motion
        for v in state.vehicles.values()
    )


def prc_of_mobile(state: State, unit_id: str) -> bool:
    """A Passenger or Rider of an active Mobile vehicle: free of Melee (A11.7, A11.71)."""
    v = carrier(state, unit_id)
    return v is not None and v.status == ACTIVE and v.mobile


# --- the state a setup gives ------------------------------------------------------------------


def initial_state(setup: Setup) -> State:
    units = {u.id: UnitState(**msgspec.structs.asdict(u)) for u in setup.units}
    vehicles = {v.id: VehicleState(**msgspec.structs.asdict(v)) for v in setup.vehicles}
    locations = {loc.id: loc for loc in setup.locations}
    state = State(
        sides=tuple(setup.sides),
        locations=locations,
        units=units,
        vehicles=vehicles,
        melee={},
        prisoners={},
        turn=setup.first_turn - 1,
        sw_portage=dict(setup.sw_portage),
    )
    melee: dict[str, MeleeLock] = {}
    for m in setup.melee:
        held = tuple(
            u.id
            for u in units_in(state, m.location)
            if not u.concealed and not u.hidden and not u.dummy
        )
        held_by = tuple(v.id for v in vehicles_in(state, m.location) if not v.motion)
        melee[m.location] = MeleeLock(since=m.since, units=held, vehicles=held_by)
    return msgspec.structs.replace(state, melee=melee)
