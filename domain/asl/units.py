"""Units in Locations (ASL A1, A11.14, A11.5): the setup a scenario gives and the state the
Close Combat rules decide on.

Personnel (``UnitSetup``): squads, half-squads (HS) and crews are Multi-Man Counters (MMC);
leaders and heroes are Single-Man Counters (SMC, inherent CC FP of one, A11.14). Vehicles
(``VehicleSetup``) are attacked with the Close Combat Value of their attackers (A11.5) and attack
Infantry with their MG FP against the defenders' CCV (A11.62).
"""

from __future__ import annotations

import msgspec

MMC_KINDS = ("squad", "hs", "crew")
SMC_KINDS = ("leader", "hero")
UNIT_KINDS = MMC_KINDS + SMC_KINDS
TERRAINS = ("open", "woods", "building", "road", "other")
ACTIVE = "active"


class UnitSetup(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One Personnel counter. ``fp`` is the printed (unbroken side) FP; ``hs_fp``/``hs_name`` the
    half-squad a squad is Reduced to by Casualty Reduction (A7.302)."""

    id: str
    side: str
    kind: str
    location: str
    name: str = ""
    fp: int = 0
    morale: int = 7
    leadership: int = 0  # leadership DRM of a leader, e.g. -1 for an 8-1
    hs_fp: int = 0
    hs_name: str = ""
    broken: bool = False
    pinned: bool = False
    berserk: bool = False
    inexperienced: bool = False
    lax: bool = False
    stealthy: bool = False
    cx: bool = False
    concealed: bool = False
    dummy: bool = False
    hidden: bool = False  # HIP (A12.3): revealed when an enemy withdraws into it (A11.21)
    assault_engineer: bool = False
    fanatic: bool = False
    wounded: bool = False
    stacked_on: str | None = None  # the MMC an SMC is stacked on (A11.14 pairing)
    street_fighting_from: str | None = None  # building Location it advanced from (A11.8)
    sws: list[str] = []


class UnitState(UnitSetup, frozen=True, kw_only=True):
    """A unit as the rules see it now. ``status``: active, eliminated, captured or removed (a
    Dummy, A11.19). A captured unit has a ``guard``."""

    status: str = ACTIVE
    guard: str | None = None


class VehicleSetup(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    side: str
    location: str
    name: str = ""
    afv: bool = True
    armored: bool = True  # False: unarmored vehicle (-3, A11.51)
    open_topped: bool = False  # OT or partially armored AFV (-2, A11.61)
    ce: bool = False  # Crew Exposed; False means Buttoned Up (BU)
    mobile: bool = True  # False: Immobile (-1, A11.61)
    motion: bool = False  # in Motion / non-stopped (+2, A11.51)
    crewed: bool = True
    abandoned: bool = False
    shocked: bool = False
    stunned: bool = False
    cmg: int = 0
    aamg: int = 0
    rmg: int = 0
    bmg: int = 0  # never used in CC, but voids the no-MG DRM (A11.61)
    close_defense_usage: int = 0  # sN Close Defense Weapon System Usage Number; 0 = none (A11.622)
    bypass: bool = False  # stationary Bypass/VBM: Street Fighting from the obstacle (A11.8)
    passengers: list[str] = []
    riders: list[str] = []  # may be attacked separately: +1 attacking, -1 defending (A11.611)


class VehicleState(VehicleSetup, frozen=True, kw_only=True):
    status: str = ACTIVE  # active, eliminated


class LocationSetup(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    terrain: str = "open"
    adjacent: list[str] = []
    wire: bool = False
    open_ground: bool | None = None  # default: terrain == "open"


class MeleeSetup(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A Location already locked in Melee when the battle starts (since Player Turn ``since``)."""

    location: str
    since: int = 0


class Setup(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    sides: list[str]
    locations: list[LocationSetup]
    units: list[UnitSetup]
    vehicles: list[VehicleSetup] = []
    melee: list[MeleeSetup] = []
    first_turn: int = 1


class MeleeLock(msgspec.Struct, frozen=True, kw_only=True):
    """Units held in Melee in one Location (A11.15) since Player Turn ``since``."""

    since: int
    units: tuple[str, ...]
    vehicles: tuple[str, ...] = ()  # vehicles holding enemy Infantry in Melee (A11.7)


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


# --- predicates -------------------------------------------------------------------------------


def is_smc(u: UnitSetup) -> bool:
    return u.kind in SMC_KINDS


def is_mmc(u: UnitSetup) -> bool:
    return u.kind in MMC_KINDS


def active(u: UnitState) -> bool:
    return u.status == ACTIVE


def other_side(state: State, side: str) -> str:
    for s in state.sides:
        if s != side:
            return s
    raise ValueError(side)


def units_in(state: State, location: str, side: str | None = None) -> list[UnitState]:
    return [
        u
        for u in state.units.values()
        if active(u)
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


def known(u: UnitState) -> bool:
    return not (u.concealed or u.hidden)


def is_open_ground(loc: LocationSetup) -> bool:
    return loc.open_ground if loc.open_ground is not None else loc.terrain == "open"


def cc_fp(u: UnitSetup) -> int:
    """Inherent CC FP: one for an SMC (A11.14), the printed FP otherwise (full even if broken,
    A11.16)."""
    return 1 if is_smc(u) else u.fp


def leadership_drm(u: UnitSetup) -> int:
    """A wounded leader's modifier is one worse (A17.2)."""
    if u.kind != "leader":
        return 0
    return u.leadership + 1 if u.wounded else u.leadership


def base_ccv(u: UnitSetup) -> int:
    """CCV of A11.5: squad 5, crew 4, HS 3, SMC 2."""
    return {"squad": 5, "crew": 4, "hs": 3}.get(u.kind, 2)


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
