"""The setup a scenario gives (ASL A1, A11.14, A11.5) and ``validate_setup``.

Personnel (``UnitSetup``): squads, half-squads (HS) and crews are Multi-Man Counters (MMC);
leaders and heroes are Single-Man Counters (SMC, inherent CC FP of one, A11.14). Vehicles
(``VehicleSetup``) are attacked with the Close Combat Value of their attackers (A11.5) and attack
Infantry with their MG FP against the defenders' CCV (A11.62). Locations carry their terrain
(Ambush, A11.4; Open Ground, A11.2) and which Locations are adjacent (Withdrawal, A11.21).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, get_args

import msgspec
from msgspec import Meta

from blowbyblow.domain.core import SetupError

UnitKind = Literal["squad", "hs", "crew", "leader", "hero"]
Terrain = Literal["open", "woods", "building", "road", "other"]

# Bounds (docs/scenarios.md, Bounds): wide enough for any counter, narrow enough that no value
# makes a command run for long.
MAX_UNITS = 200
MAX_VEHICLES = 100
MAX_LOCATIONS = 200
MAX_ON_BOARD = 20  # SW, passengers, riders, adjacent Locations of one counter or Location
MAX_TURN = 100
Firepower = Annotated[int, Meta(ge=0, le=30)]  # FP, MG FP
Morale = Annotated[int, Meta(ge=0, le=12)]
Drm = Annotated[int, Meta(ge=-6, le=6)]  # a leader's leadership DRM
Usage = Annotated[int, Meta(ge=0, le=12)]  # a Usage Number (sN)
Turn = Annotated[int, Meta(ge=0, le=MAX_TURN)]
Level = Annotated[int, Meta(ge=0, le=4)]  # a building's ground level 0, upper levels 1-4
Ids = Annotated[list[str], Meta(max_length=MAX_ON_BOARD)]

MMC_KINDS: tuple[UnitKind, ...] = ("squad", "hs", "crew")
SMC_KINDS: tuple[UnitKind, ...] = ("leader", "hero")
UNIT_KINDS: tuple[UnitKind, ...] = get_args(UnitKind)
TERRAINS: tuple[Terrain, ...] = get_args(Terrain)


class UnitSetup(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One Personnel counter. ``fp`` is the printed (unbroken side) FP; ``hs_fp``/``hs_name`` the
    half-squad a squad is Reduced to by Casualty Reduction (A7.302)."""

    id: str
    side: str
    kind: UnitKind
    location: str
    name: str = ""
    fp: Firepower = 0
    morale: Morale = 7
    leadership: Drm = 0  # leadership DRM of a leader, e.g. -1 for an 8-1
    hs_fp: Firepower = 0
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
    disrupted: bool = False  # broken and Disrupted: need not withdraw from Melee (A11.16)
    cavalry: bool = False  # +2 to its side's Ambush status dr (A11.4)
    cyclist: bool = False  # mounted on cycles: not required to remain in Melee (A11.71)
    skier: bool = False  # on skis: not required to remain in Melee (A11.71)
    in_pillbox: bool = False  # in a pillbox of its Location: +2 to the Ambush status dr (A11.4)
    stacked_on: str | None = None  # the MMC an SMC is stacked on (A11.14 pairing)
    street_fighting_from: str | None = None  # building Location it advanced from (A11.8)
    sws: Ids = []


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
    cmg: Firepower = 0
    aamg: Firepower = 0
    rmg: Firepower = 0
    bmg: Firepower = 0  # never used in CC, but voids the no-MG DRM (A11.61)
    close_defense_usage: Usage = (
        0  # sN Close Defense Weapon System Usage Number; 0 = none (A11.622)
    )
    bypass: bool = False  # stationary Bypass/VBM: Street Fighting from the obstacle (A11.8)
    halftrack: bool = False  # CE, its Passengers' FP may join its CC attacks (A11.62)
    passengers: Ids = []
    riders: Ids = []  # may be attacked separately: +1 attacking, -1 defending (A11.611)
    # A11.52 "unarmed": None means not an AFV and no MG of any kind
    unarmed: bool | None = None


class LocationSetup(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    terrain: Terrain = "open"
    adjacent: Ids = []
    wire: bool = False
    open_ground: bool | None = None  # default: terrain == "open"
    hex: str = ""  # the hex it is a Location of (default: its own id); a building's levels share it
    level: Level = 0  # 0: ground level; 1, 2, ...: upper levels of a building (A11.8)
    # a road Location: the hexes ADJACENT to it on each of the two sides of its road (A11.8)
    road_sides: Annotated[list[Ids], Meta(max_length=2)] = []


def hex_of(loc: LocationSetup) -> str:
    """The hex a Location is in: its ``hex``, or its own id."""
    return loc.hex or loc.id


class MeleeSetup(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A Location already locked in Melee when the battle starts (since Player Turn ``since``)."""

    location: str
    since: Turn = 0


class Setup(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    sides: Annotated[list[str], Meta(max_length=2)]
    locations: Annotated[list[LocationSetup], Meta(max_length=MAX_LOCATIONS)]
    units: Annotated[list[UnitSetup], Meta(max_length=MAX_UNITS)]
    vehicles: Annotated[list[VehicleSetup], Meta(max_length=MAX_VEHICLES)] = []
    melee: Annotated[list[MeleeSetup], Meta(max_length=MAX_LOCATIONS)] = []
    first_turn: Turn = 1
    # Portage Points of each SW by name: a unit withdrawing in the CCPh carries only up to its
    # IPC (A11.21); a SW not listed weighs nothing
    sw_portage: Annotated[dict[str, Annotated[int, Meta(ge=0, le=10)]], Meta(max_length=100)] = {}


# --- what a counter is ------------------------------------------------------------------------


def is_smc(u: UnitSetup) -> bool:
    return u.kind in SMC_KINDS


def is_mmc(u: UnitSetup) -> bool:
    return u.kind in MMC_KINDS


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


def is_unarmed(v: VehicleSetup) -> bool:
    """A11.52: an unarmed vehicle; by default one that is not an AFV and has no MG at all."""
    if v.unarmed is not None:
        return v.unarmed
    return not v.afv and not (v.cmg or v.aamg or v.rmg or v.bmg or v.close_defense_usage)


# A4.42: Inherent Portage Capacity in Portage Points; a wounded SMC has none (A17.2)
IPC: dict[UnitKind, int] = {"squad": 3, "hs": 2, "crew": 2, "leader": 1, "hero": 1}


def ipc(u: UnitSetup) -> int:
    return 0 if is_smc(u) and u.wounded else IPC[u.kind]


def base_ccv(u: UnitSetup) -> int:
    """CCV of A11.5: squad 5, crew 4, HS 3, SMC 2."""
    return {"squad": 5, "crew": 4, "hs": 3}.get(u.kind, 2)


def locations_of_units(data: dict[str, Any]) -> dict[str, Any]:
    """A setup made from two sides' rosters (domain/roster.py): every Location a unit or vehicle
    stands in that the setup does not list yet, as open ground with no adjacent Location, to be
    given its terrain in the setup file (rosters say who is where, not what the map is)."""
    listed = {str(loc.get("id")) for loc in data.get("locations", ()) if isinstance(loc, dict)}
    places: list[str] = []
    for field in ("units", "vehicles"):
        for entry in data.get(field, ()):
            place = entry.get("location") if isinstance(entry, dict) else None
            if isinstance(place, str) and place not in listed and place not in places:
                places.append(place)
    return {**data, "locations": [*data.get("locations", ()), *({"id": p} for p in places)]}


# --- validate_setup: a setup that hangs together ----------------------------------------------


def _check_sides(setup: Setup) -> None:
    if len(setup.sides) != 2 or setup.sides[0] == setup.sides[1]:
        raise SetupError("asl: sides must name two different sides")


def _check_locations(setup: Setup) -> None:
    locs: set[str] = set()
    for loc in setup.locations:
        if loc.id in locs:
            raise SetupError(f"asl: duplicate Location {loc.id!r}")
        if loc.terrain not in TERRAINS:
            raise SetupError(f"asl: Location {loc.id}: terrain {loc.terrain!r} not in {TERRAINS}")
        locs.add(loc.id)
    for loc in setup.locations:
        for a in loc.adjacent:
            if a not in locs:
                raise SetupError(f"asl: Location {loc.id}: unknown adjacent Location {a!r}")
        _check_levels(setup, loc)


def _check_levels(setup: Setup, loc: LocationSetup) -> None:
    """Upper levels are a building's (A11.8 "ground level of those buildings"); road_sides name
    hexes of the setup, on a road Location."""
    if loc.level > 0 and loc.terrain != "building":
        raise SetupError(f"asl: Location {loc.id}: level {loc.level} needs terrain building")
    if loc.road_sides and loc.terrain != "road":
        raise SetupError(f"asl: Location {loc.id}: road_sides needs terrain road")
    hexes = {hex_of(x) for x in setup.locations}
    for side in loc.road_sides:
        for h in side:
            if h not in hexes:
                raise SetupError(f"asl: Location {loc.id}: road_sides names unknown hex {h!r}")


def _check_placed(setup: Setup) -> None:
    """Every unit and vehicle: a unique id, one of the two sides, a Location of the setup."""
    locs = {loc.id for loc in setup.locations}
    ids: set[str] = set()
    placed = [(u.id, u.side, u.location) for u in setup.units]
    placed += [(v.id, v.side, v.location) for v in setup.vehicles]
    for uid, side, location in placed:
        if uid in ids:
            raise SetupError(f"asl: duplicate unit id {uid!r}")
        ids.add(uid)
        if side not in setup.sides:
            raise SetupError(f"asl: {uid}: unknown side {side!r}")
        if location not in locs:
            raise SetupError(f"asl: {uid}: unknown Location {location!r}")


def _check_unit(setup: Setup, u: UnitSetup) -> None:
    units = {x.id: x for x in setup.units}
    if u.kind not in UNIT_KINDS:
        raise SetupError(f"asl: {u.id}: kind {u.kind!r} not in {UNIT_KINDS}")
    if not is_smc(u) and u.fp <= 0 and not u.dummy:
        raise SetupError(f"asl: {u.id}: an MMC needs its FP")
    if u.stacked_on is not None:
        base = units.get(u.stacked_on)
        if not is_smc(u) or base is None or is_smc(base) or base.location != u.location:
            raise SetupError(f"asl: {u.id}: stacked_on must name an MMC in its Location")
        if base.side != u.side:
            raise SetupError(f"asl: {u.id}: stacked on an enemy unit")
    if u.street_fighting_from is not None and u.street_fighting_from not in {
        loc.id for loc in setup.locations
    }:
        raise SetupError(f"asl: {u.id}: unknown street_fighting_from Location")


def _check_units(setup: Setup) -> None:
    for u in setup.units:
        _check_unit(setup, u)


def _check_passengers(setup: Setup) -> None:
    units = {u.id for u in setup.units}
    for v in setup.vehicles:
        for p in v.passengers:
            if p not in units:
                raise SetupError(f"asl: {v.id}: unknown passenger {p!r}")


def _check_melee(setup: Setup) -> None:
    locs = {loc.id for loc in setup.locations}
    for m in setup.melee:
        if m.location not in locs:
            raise SetupError(f"asl: melee in unknown Location {m.location!r}")


SETUP_CHECKS: tuple[Callable[[Setup], None], ...] = (
    _check_sides,
    _check_locations,
    _check_placed,
    _check_units,
    _check_passengers,
    _check_melee,
)


def validate_setup(setup: Any) -> None:
    """Refuse a setup that does not hang together (``SetupError``), in the order of
    ``SETUP_CHECKS``: sides, Locations, placement, units, passengers, Melee."""
    if not isinstance(setup, Setup):
        raise SetupError("asl: the setup is not an ASL setup")
    for check in SETUP_CHECKS:
        check(setup)
