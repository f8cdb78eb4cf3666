"""The state the close-combat rules decide on: fighters (statuses, wounds, flesh wounds, weapons
and their ammunition), the engagement graph, vision arcs, barricades, friends within 3".

Both systems use this one state. Distances are whole tenths of an inch, so the state holds no
floats. Queries every step uses live here: who a fighter is Engaged with (Necromunda Core
Rulebook (2023), Status: secondary statuses while Standing), and which Standing fighters'
Active/Engaged status no longer matches the engagement graph.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal, get_args

import msgspec

if TYPE_CHECKING:
    from blowbyblow.domain.necromunda.setup import NecromundaSetup

# --- the closed sets of the rules ------------------------------------------------------------

FighterStatus = Literal[
    "Standing & Active",
    "Standing & Engaged",
    "Prone & Pinned",
    "Prone & Seriously Injured",
    "Out of Action",
]
VehicleStatus = Literal["Mobile", "Wrecked"]
Status = FighterStatus | VehicleStatus
Facing = Literal["front", "side", "rear", "on"]  # "on": a fighter on board the vehicle

STANDING_ACTIVE: Final = "Standing & Active"
STANDING_ENGAGED: Final = "Standing & Engaged"
PRONE_PINNED: Final = "Prone & Pinned"
SERIOUSLY_INJURED: Final = "Prone & Seriously Injured"
OUT_OF_ACTION: Final = "Out of Action"
MOBILE: Final = "Mobile"  # a vehicle that is not Wrecked
WRECKED: Final = "Wrecked"

FIGHTER_STATUSES: tuple[FighterStatus, ...] = get_args(FighterStatus)
VEHICLE_STATUSES: tuple[VehicleStatus, ...] = get_args(VehicleStatus)
STANDING: tuple[FighterStatus, ...] = (STANDING_ACTIVE, STANDING_ENGAGED)
FACINGS: tuple[Facing, ...] = get_args(Facing)

UNARMED: Final = "unarmed"  # the weapon id of unarmed attacks (reserved)
MOUNTED: Final = "Mounted"  # the condition that grants attacks outside the sequence
TRAITS: tuple[str, ...] = ("Melee", "Sidearm", "Unwieldy", "Versatile")  # those with a rule here


class WeaponState(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    s: int | None
    s_bonus: int
    ap: int
    d: int
    traits: tuple[str, ...]
    versatile_tenths: int
    ammo: int | None
    out_of_ammo: bool = False

    def has(self, trait: str) -> bool:
        return trait in self.traits


class VehicleState(msgspec.Struct, frozen=True, kw_only=True):
    toughness_front: int
    toughness_side: int
    toughness_rear: int
    hull_points: int
    locations_hit: tuple[str, ...] = ()  # the Location each damaging hit was applied to, in order


class FighterState(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    gang: str
    m: int
    ws: int
    bs: int
    s: int
    t: int
    w: int
    i: int
    a: int
    ld: int
    cl: int
    wil: int
    int_: int
    save: int | None
    weapons: tuple[WeaponState, ...]
    status: Status
    broken: bool
    wounds: int
    flesh_wounds: int
    vehicle: VehicleState | None = None
    counts_as_turned: bool = False  # charged while Prone & Pinned (2023: counts as turned to face)
    skills: tuple[str, ...] = ()  # skills that grant close combat attacks outside the sequence
    mounted: bool = False  # the Mounted condition (grants them too)

    @property
    def toughness(self) -> int:
        """Toughness after flesh wounds."""
        return self.t - self.flesh_wounds

    @property
    def label(self) -> str:
        return self.name or self.id

    @property
    def is_vehicle(self) -> bool:
        return self.vehicle is not None

    @property
    def standing(self) -> bool:
        return self.status in STANDING

    def weapon(self, weapon_id: str) -> WeaponState | None:
        for w in self.weapons:
            if w.id == weapon_id:
                return w
        return None


class Link(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """One edge of the engagement graph, ``a`` < ``b``."""

    a: str
    b: str
    across: str | None = None
    facing: Facing | None = None

    def other(self, fighter: str) -> str:
        return self.b if fighter == self.a else self.a

    def touches(self, fighter: str) -> bool:
        return fighter in (self.a, self.b)


class NecromundaState(msgspec.Struct, frozen=True, kw_only=True):
    fighters: dict[str, FighterState]
    links: tuple[Link, ...]
    vision: dict[str, tuple[str, ...]]
    barricades: dict[str, int]  # id -> width in tenths of an inch
    within_3: tuple[tuple[str, str], ...] = ()
    within_6: tuple[tuple[str, str], ...] = ()  # a vehicle and a friendly fighter within 6"
    tactics: dict[str, tuple[str, ...]] = {}  # gang -> its tactics granting attacks
    commands: int = 0

    def fighter(self, fighter_id: str) -> FighterState:
        return self.fighters[fighter_id]

    def link(self, x: str, y: str) -> Link | None:
        a, b = sorted((x, y))
        for link in self.links:
            if link.a == a and link.b == b:
                return link
        return None

    def linked(self, fighter_id: str) -> list[str]:
        return [lk.other(fighter_id) for lk in self.links if lk.touches(fighter_id)]

    def in_arc(self, viewer: str, target: str) -> bool:
        return target in self.vision.get(viewer, ())


def tenths(inches: float) -> int:
    return round(inches * 10)


def make_link(a: str, b: str, across: str | None = None, facing: Facing | None = None) -> Link:
    x, y = sorted((a, b))
    return Link(a=x, b=y, across=across, facing=facing)


# --- queries the rules ask of a state ---------------------------------------------------------


WIDE = 10  # tenths of an inch: a barricade 1" wide or more parts two fighters (``wide``)


def wide(state: NecromundaState, link: Link) -> bool:
    """A barricade at least 1" wide lies between the two (only Versatile weapons reach)."""
    return link.across is not None and state.barricades.get(link.across, 0) >= WIDE


def engaged_with(state: NecromundaState, fighter_id: str) -> list[str]:
    """The enemy fighters (not vehicles) this fighter is Engaged with: in base contact, or across
    a barricade less than 1" wide (Close Combat, Fighting Across Barricades), and Standing. A
    Prone & Seriously Injured or Out of Action fighter engages nobody."""
    me = state.fighters[fighter_id]
    if me.is_vehicle or not me.standing:
        return []
    found: list[str] = []
    # ``Link.touches``, ``Link.other`` and ``wide`` written out: every fold of a charge asks
    # this of each fighter (``secondary_statuses``), and the odds fold it by the thousand.
    barricades = state.barricades
    for link in state.links:
        if fighter_id == link.a:
            other_id = link.b
        elif fighter_id == link.b:
            other_id = link.a
        else:
            continue
        if link.across is not None and barricades.get(link.across, 0) >= WIDE:
            continue
        other = state.fighters[other_id]
        if other.is_vehicle or other.gang == me.gang or not other.standing:
            continue
        found.append(other.id)
    return found


def secondary_statuses(state: NecromundaState) -> dict[str, FighterStatus]:
    """Standing fighters whose Active/Engaged status does not match the engagement graph, with
    the status they should have."""
    # Who is engaged with anybody, in one pass over the links (``engaged_with`` of each fighter
    # would walk them all once a fighter): every resync and fold of a charge asks this.
    fighters, barricades = state.fighters, state.barricades
    engaged: set[str] = set()
    for link in state.links:
        if link.across is not None and barricades.get(link.across, 0) >= WIDE:
            continue  # too wide a barricade between them (``wide``)
        x, y = fighters[link.a], fighters[link.b]
        if x.is_vehicle or y.is_vehicle or x.gang == y.gang or not (x.standing and y.standing):
            continue
        engaged.add(link.a)
        engaged.add(link.b)
    changes: dict[str, FighterStatus] = {}
    for fid, f in fighters.items():
        if not f.standing:
            continue
        want: FighterStatus = STANDING_ENGAGED if fid in engaged else STANDING_ACTIVE
        if want != f.status:
            changes[fid] = want
    return changes


# --- the state a setup starts from --------------------------------------------------------------


def initial_state(setup: NecromundaSetup) -> NecromundaState:
    fighters: dict[str, FighterState] = {}
    for f in setup.fighters:
        vehicle = (
            VehicleState(
                toughness_front=f.vehicle.toughness_front,
                toughness_side=f.vehicle.toughness_side,
                toughness_rear=f.vehicle.toughness_rear,
                hull_points=f.vehicle.hull_points,
            )
            if f.vehicle is not None
            else None
        )
        status: Status = f.status
        if vehicle is not None and status not in VEHICLE_STATUSES:
            status = MOBILE
        fighters[f.id] = FighterState(
            id=f.id,
            name=f.name,
            gang=f.gang,
            m=f.m,
            ws=f.ws,
            bs=f.bs,
            s=f.s,
            t=f.t,
            w=f.w,
            i=f.i,
            a=f.a,
            ld=f.ld,
            cl=f.cl,
            wil=f.wil,
            int_=f.int_,
            save=f.save,
            weapons=tuple(
                WeaponState(
                    id=w.id,
                    name=w.name,
                    s=w.s,
                    s_bonus=w.s_bonus,
                    ap=w.ap,
                    d=w.d,
                    traits=tuple(w.traits),
                    versatile_tenths=tenths(w.versatile_range),
                    ammo=w.ammo,
                )
                for w in f.weapons
            ),
            status=status,
            broken=f.broken,
            wounds=(f.vehicle.hull_points if f.vehicle else f.w) if f.wounds is None else f.wounds,
            flesh_wounds=f.flesh_wounds,
            vehicle=vehicle,
            skills=tuple(f.skills),
            mounted=f.mounted,
        )
    links = tuple(
        sorted(
            (make_link(e.a, e.b, e.across, e.facing) for e in setup.engagements),
            key=lambda lk: (lk.a, lk.b),
        )
    )
    vision = {f.id: tuple(f.vision) for f in setup.fighters}
    pairs: list[tuple[str, str]] = []
    for pair in setup.within_3:
        x, y = sorted(pair)
        pairs.append((x, y))
    state = NecromundaState(
        fighters=fighters,
        links=links,
        vision=vision,
        barricades={b.id: tenths(b.width) for b in setup.barricades},
        within_3=tuple(sorted(set(pairs))),
        within_6=tuple(sorted({(x, y) for x, y in (sorted(p) for p in setup.within_6)})),
        tactics={g.id: tuple(g.tactics) for g in setup.gangs if g.tactics},
    )
    for fid, want in secondary_statuses(state).items():
        state.fighters[fid] = msgspec.structs.replace(state.fighters[fid], status=want)
    return state
