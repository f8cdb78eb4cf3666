"""Necromunda battle setup and state: gangs, fighters with full profiles, weapons, vehicles,
barricades, engagements and vision arcs (the setup a scenario file gives), and the state the
close-combat rules decide on (statuses, wounds, flesh wounds, the engagement graph, vision arcs).

Both the 2023 ruleset and the older one (``necromunda-legacy``) use these same types, so one
scenario file can be recorded under either.

Conventions:
- Characteristics that are tests (WS, BS, Ld, Cl, Wil, Int, saves) are stored as their target
  number: ``ws = 3`` means "WS 3+".
- AP is stored as printed, as a modifier to the save roll: ``ap = -1`` means "AP -1".
- Damage ``0`` means the printed "-": no wound is removed, one Injury dice is still rolled.
- Distances (barricade width, Versatile range) are given in inches in the setup and kept as
  whole tenths of an inch in the state, so the state holds no floats.
"""

from __future__ import annotations

import msgspec

# --- primary and secondary statuses (FACTS 2.3) ---------------------------------------------

STANDING_ACTIVE = "Standing & Active"
STANDING_ENGAGED = "Standing & Engaged"
PRONE_PINNED = "Prone & Pinned"
SERIOUSLY_INJURED = "Prone & Seriously Injured"
OUT_OF_ACTION = "Out of Action"
MOBILE = "Mobile"  # a vehicle that is not Wrecked
WRECKED = "Wrecked"

FIGHTER_STATUSES: tuple[str, ...] = (
    STANDING_ACTIVE,
    STANDING_ENGAGED,
    PRONE_PINNED,
    SERIOUSLY_INJURED,
    OUT_OF_ACTION,
)
VEHICLE_STATUSES: tuple[str, ...] = (MOBILE, WRECKED)
STANDING: tuple[str, ...] = (STANDING_ACTIVE, STANDING_ENGAGED)

UNARMED = "unarmed"
TRAITS: tuple[str, ...] = ("Melee", "Sidearm", "Unwieldy", "Versatile")
FACINGS: tuple[str, ...] = ("front", "side", "rear", "on")


class _Setup(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class Weapon(_Setup, frozen=True, kw_only=True):
    """A weapon profile. ``s`` is the weapon's own Strength; leave it out for "S" (the user's
    Strength) and give ``s_bonus`` for "S+1" and the like."""

    id: str
    name: str = ""
    s: int | None = None
    s_bonus: int = 0
    ap: int = 0
    d: int = 1
    traits: list[str] = []
    versatile_range: float = 0.0  # inches (Long range of a Versatile weapon)
    ammo: int | None = None  # Ammo check target (e.g. 4 for "4+"); used by the legacy pistols rule


class Vehicle(_Setup, frozen=True, kw_only=True):
    """Minimal vehicle profile: Toughness per facing, Hull Points, save."""

    toughness_front: int
    toughness_side: int
    toughness_rear: int
    hull_points: int


class Fighter(_Setup, frozen=True, kw_only=True):
    id: str
    name: str = ""
    gang: str
    m: int = 5
    ws: int = 4
    bs: int = 4
    s: int = 3
    t: int = 3
    w: int = 1
    i: int = 4
    a: int = 1
    ld: int = 7
    cl: int = 7
    wil: int = 7
    int_: int = msgspec.field(default=7, name="int")
    save: int | None = None  # armour save target, e.g. 5 for "5+"; None for no armour
    weapons: list[Weapon] = []
    status: str = STANDING_ACTIVE
    broken: bool = False
    wounds: int | None = None  # wounds left at the start (default: W)
    flesh_wounds: int = 0
    vision: list[str] = []  # the models inside this fighter's vision arc at the start
    vehicle: Vehicle | None = None


class Gang(_Setup, frozen=True, kw_only=True):
    id: str
    name: str = ""


class Barricade(_Setup, frozen=True, kw_only=True):
    id: str
    width: float  # inches


class Engagement(_Setup, frozen=True, kw_only=True):
    """Two models in base contact (``across`` names a barricade between them instead), or a
    fighter within 1" of a vehicle (``facing`` says which facing it touches; "on" = on board)."""

    a: str
    b: str
    across: str | None = None
    facing: str | None = None


class NecromundaSetup(_Setup, frozen=True, kw_only=True):
    gangs: list[Gang]
    fighters: list[Fighter]
    engagements: list[Engagement] = []
    barricades: list[Barricade] = []
    within_3: list[list[str]] = []  # pairs of friends within 3" of each other (Nerve tests)


# --- state ----------------------------------------------------------------------------------


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
    status: str
    broken: bool
    wounds: int
    flesh_wounds: int
    vehicle: VehicleState | None = None
    counts_as_turned: bool = False  # charged while Prone & Pinned (N23 CC, charging prone)

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
    facing: str | None = None

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


def make_link(a: str, b: str, across: str | None = None, facing: str | None = None) -> Link:
    x, y = sorted((a, b))
    return Link(a=x, b=y, across=across, facing=facing)


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
        status = f.status
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
    )
    for fid, status in secondary_statuses(state).items():
        state.fighters[fid] = msgspec.structs.replace(state.fighters[fid], status=status)
    return state


def wide(state: NecromundaState, link: Link) -> bool:
    """A barricade at least 1" wide lies between the two (only Versatile weapons reach)."""
    return link.across is not None and state.barricades.get(link.across, 0) >= 10


def engaged_with(state: NecromundaState, fighter_id: str) -> list[str]:
    """The enemy fighters (not vehicles) this fighter is Engaged with: in base contact, or across
    a barricade less than 1" wide (N23 CC, Fighting Across Barricades), and Standing. A Prone &
    Seriously Injured or Out of Action fighter engages nobody."""
    me = state.fighters[fighter_id]
    if me.is_vehicle or not me.standing:
        return []
    found: list[str] = []
    for link in state.links:
        if not link.touches(fighter_id) or wide(state, link):
            continue
        other = state.fighters[link.other(fighter_id)]
        if other.is_vehicle or other.gang == me.gang or not other.standing:
            continue
        found.append(other.id)
    return found


def secondary_statuses(state: NecromundaState) -> dict[str, str]:
    """Standing fighters whose Active/Engaged status does not match the engagement graph, with
    the status they should have."""
    changes: dict[str, str] = {}
    for fid, f in state.fighters.items():
        if not f.standing:
            continue
        want = STANDING_ENGAGED if engaged_with(state, fid) else STANDING_ACTIVE
        if want != f.status:
            changes[fid] = want
    return changes


def validate_setup(setup: NecromundaSetup) -> None:
    from blowbyblow.domain.core import SetupError

    gangs = [g.id for g in setup.gangs]
    if len(set(gangs)) != len(gangs):
        raise SetupError("gangs: duplicate gang id")
    ids = [f.id for f in setup.fighters]
    seen: set[str] = set()
    for fid in ids:
        if fid in seen:
            raise SetupError(f"fighters: duplicate fighter id {fid!r}")
        if fid == UNARMED:
            raise SetupError(f"fighters: {UNARMED!r} is reserved")
        seen.add(fid)
    barricades = {b.id: b for b in setup.barricades}
    if len(barricades) != len(setup.barricades):
        raise SetupError("barricades: duplicate barricade id")
    by_id = {f.id: f for f in setup.fighters}
    for n, f in enumerate(setup.fighters):
        where = f"fighters[{n}] ({f.id})"
        if f.gang not in gangs:
            raise SetupError(f"{where}.gang: unknown gang {f.gang!r}")
        allowed = VEHICLE_STATUSES if f.vehicle is not None else FIGHTER_STATUSES
        if f.status not in allowed and not (f.vehicle is not None and f.status == STANDING_ACTIVE):
            raise SetupError(f"{where}.status: {f.status!r} is not one of {', '.join(allowed)}")
        for name in ("ws", "bs", "ld", "cl", "wil"):
            v = getattr(f, name)
            if not 2 <= v <= 12:
                raise SetupError(f"{where}.{name}: {v} is not a test target number (2 to 12)")
        if f.save is not None and not 2 <= f.save <= 6:
            raise SetupError(f"{where}.save: {f.save} is not a save (2 to 6)")
        if f.t < 1 or f.w < 1 or f.a < 0 or f.s < 1:
            raise SetupError(f"{where}: T, W and S must be at least 1, A at least 0")
        if f.flesh_wounds < 0 or f.flesh_wounds >= f.t:
            raise SetupError(f"{where}.flesh_wounds: must be 0 to T-1")
        wids = [w.id for w in f.weapons]
        if len(set(wids)) != len(wids) or UNARMED in wids:
            raise SetupError(f"{where}.weapons: duplicate or reserved weapon id")
        for k, w in enumerate(f.weapons):
            for trait in w.traits:
                if trait not in TRAITS:
                    # other traits are allowed but carry no close-combat rule here
                    continue
            if w.d < 0:
                raise SetupError(f"{where}.weapons[{k}].d: must be 0 (for '-') or more")
            if w.ap > 0:
                raise SetupError(f"{where}.weapons[{k}].ap: give AP as printed, e.g. -1")
        for v in f.vision:
            if v not in by_id:
                raise SetupError(f"{where}.vision: unknown fighter {v!r}")
    pairs: set[tuple[str, str]] = set()
    for n, e in enumerate(setup.engagements):
        where = f"engagements[{n}]"
        for end in (e.a, e.b):
            if end not in by_id:
                raise SetupError(f"{where}: unknown fighter {end!r}")
        if e.a == e.b:
            raise SetupError(f"{where}: a fighter cannot engage itself")
        fa, fb = by_id[e.a], by_id[e.b]
        if fa.gang == fb.gang:
            raise SetupError(f"{where}: {e.a} and {e.b} are in the same gang")
        key = (min(e.a, e.b), max(e.a, e.b))
        if key in pairs:
            raise SetupError(f"{where}: {e.a} and {e.b} are listed twice")
        pairs.add(key)
        if e.across is not None and e.across not in barricades:
            raise SetupError(f"{where}.across: unknown barricade {e.across!r}")
        vehicles = [x for x in (fa, fb) if x.vehicle is not None]
        if len(vehicles) == 2:
            raise SetupError(f"{where}: two vehicles do not fight in close combat")
        if vehicles and (e.facing is None or e.facing not in FACINGS):
            raise SetupError(f"{where}.facing: a link to a vehicle needs facing, one of {FACINGS}")
        if not vehicles and e.facing is not None:
            raise SetupError(f"{where}.facing: only links to a vehicle have a facing")
        for x, y in ((fa, fb), (fb, fa)):
            if x.status == OUT_OF_ACTION:
                raise SetupError(f"{where}: {x.id} is Out of Action (removed from play)")
            if x.status == PRONE_PINNED and not vehicles and y.status in STANDING:
                raise SetupError(
                    f"{where}: {x.id} is Prone & Pinned but in contact with a Standing enemy; "
                    "a fighter is never Prone & Pinned and Engaged at once (N10 errata)"
                )
    for n, pair in enumerate(setup.within_3):
        if len(pair) != 2 or any(p not in by_id for p in pair):
            raise SetupError(f"within_3[{n}]: needs two known fighter ids")
        if by_id[pair[0]].gang != by_id[pair[1]].gang:
            raise SetupError(f"within_3[{n}]: Nerve tests count friends; {pair} are enemies")
