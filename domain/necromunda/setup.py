"""A Necromunda battle's setup, as a scenario file gives it: gangs, fighters with full profiles,
weapons, vehicles, barricades, engagements, vision arcs and friends within 3"; and
``validate_setup``, which refuses a setup that does not hang together.

Both systems take the same setup, so one scenario file can be recorded under either.

Conventions:
- Characteristics that are tests (WS, BS, Ld, Cl, Wil, Int, saves) are stored as their target
  number: ``ws = 3`` means "WS 3+".
- AP is given as printed, as a modifier to the save roll: ``ap = -1`` means "AP -1".
- Damage ``0`` means the printed "-": no wound is removed, one Injury dice is still rolled.
- Distances (barricade width, Versatile range) are given in inches.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from blowbyblow.domain.core import SetupError
from blowbyblow.domain.necromunda.state import (
    FACINGS,
    FIGHTER_STATUSES,
    MOUNTED,
    OUT_OF_ACTION,
    PRONE_PINNED,
    STANDING,
    STANDING_ACTIVE,
    UNARMED,
    VEHICLE_STATUSES,
    Facing,
    Status,
)


class _Setup(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


# Bounds (docs/scenarios.md, Bounds): wide enough for any profile the rules print, narrow enough
# that no value makes a command run for long (an Attacks of 10^8 would roll for ever).
MAX_FIGHTERS = 100
MAX_GANGS = 16
MAX_LINKS = 1000  # engagements, friends within 3", vehicles within 6"
MAX_NAMES = 32  # traits, skills, tactics of one fighter, weapon or gang
MAX_WEAPONS = 20  # of one fighter
Target = Annotated[int, Meta(ge=2, le=12)]  # a test's target number: ws = 3 is "WS 3+"
Save = Annotated[int, Meta(ge=2, le=6)]  # an armour save on one D6: save = 5 is "5+"
Stat = Annotated[int, Meta(ge=0, le=20)]  # M, S, T, W, A and the like
Modifier = Annotated[int, Meta(ge=-10, le=10)]
Distance = Annotated[float, Meta(ge=0, le=100)]  # inches
Names = Annotated[list[str], Meta(max_length=MAX_NAMES)]
Pair = Annotated[list[str], Meta(max_length=2)]


class Weapon(_Setup, frozen=True, kw_only=True):
    """A weapon profile. ``s`` is the weapon's own Strength; leave it out for "S" (the user's
    Strength) and give ``s_bonus`` for "S+1" and the like."""

    id: str
    name: str = ""
    s: Stat | None = None
    s_bonus: Modifier = 0
    ap: Modifier = 0
    d: Stat = 1
    traits: Names = []
    versatile_range: Distance = 0.0  # inches (Long range of a Versatile weapon)
    ammo: Target | None = None  # Ammo check target (e.g. 4 for "4+"); the older pistols rule


class Vehicle(_Setup, frozen=True, kw_only=True):
    """Minimal vehicle profile: Toughness per facing, Hull Points, save."""

    toughness_front: Stat
    toughness_side: Stat
    toughness_rear: Stat
    hull_points: Stat


class Fighter(_Setup, frozen=True, kw_only=True):
    id: str
    name: str = ""
    gang: str
    m: Stat = 5
    ws: Target = 4
    bs: Target = 4
    s: Stat = 3
    t: Stat = 3
    w: Stat = 1
    i: Target = 4
    a: Stat = 1
    ld: Target = 7
    cl: Target = 7
    wil: Target = 7
    int_: Target = msgspec.field(default=7, name="int")
    save: Save | None = None  # armour save target, e.g. 5 for "5+"; None for no armour
    weapons: Annotated[list[Weapon], Meta(max_length=MAX_WEAPONS)] = []
    status: Status = STANDING_ACTIVE
    broken: bool = False
    wounds: Stat | None = None  # wounds left at the start (default: W)
    flesh_wounds: Stat = 0
    # the models inside this fighter's vision arc at the start
    vision: Annotated[list[str], Meta(max_length=MAX_FIGHTERS)] = []
    vehicle: Vehicle | None = None
    # What lets it make a close combat attack outside the normal sequence of the battle (Close
    # Combat, its opening): the skills it has that do, and whether it has the Mounted condition.
    skills: Names = []
    mounted: bool = False


class Gang(_Setup, frozen=True, kw_only=True):
    id: str
    name: str = ""
    # Gang tactics it may use that let a fighter make a close combat attack outside the normal
    # sequence of the battle (Close Combat, its opening).
    tactics: Names = []


class Barricade(_Setup, frozen=True, kw_only=True):
    id: str
    width: Distance  # inches


class Engagement(_Setup, frozen=True, kw_only=True):
    """Two models in base contact (``across`` names a barricade between them instead), or a
    fighter within 1" of a vehicle (``facing`` says which facing it touches; "on" = on board)."""

    a: str
    b: str
    across: str | None = None
    facing: Facing | None = None


class NecromundaSetup(_Setup, frozen=True, kw_only=True):
    gangs: Annotated[list[Gang], Meta(max_length=MAX_GANGS)]
    fighters: Annotated[list[Fighter], Meta(max_length=MAX_FIGHTERS)]
    engagements: Annotated[list[Engagement], Meta(max_length=MAX_LINKS)] = []
    barricades: Annotated[list[Barricade], Meta(max_length=MAX_LINKS)] = []
    # pairs of friends within 3" of each other (Nerve tests)
    within_3: Annotated[list[Pair], Meta(max_length=MAX_LINKS)] = []
    # pairs of a vehicle and a friendly fighter within 6" of it (a Nerve test if it is Wrecked)
    within_6: Annotated[list[Pair], Meta(max_length=MAX_LINKS)] = []


# --- validation -------------------------------------------------------------------------------

_TESTS = ("ws", "bs", "ld", "cl", "wil")


def validate_setup(setup: NecromundaSetup) -> None:
    """Raise SetupError, naming the field, if the setup does not hang together."""
    _check_ids(setup)
    by_id = {f.id: f for f in setup.fighters}
    gangs = [g.id for g in setup.gangs]
    for n, f in enumerate(setup.fighters):
        _check_fighter(f"fighters[{n}] ({f.id})", f, gangs, by_id)
    barricades = {b.id for b in setup.barricades}
    pairs: set[tuple[str, str]] = set()
    for n, e in enumerate(setup.engagements):
        _check_engagement(f"engagements[{n}]", e, by_id, barricades, pairs)
    for n, pair in enumerate(setup.within_3):
        if len(pair) != 2 or any(p not in by_id for p in pair):
            raise SetupError(f"within_3[{n}]: needs two known fighter ids")
        if by_id[pair[0]].gang != by_id[pair[1]].gang:
            raise SetupError(f"within_3[{n}]: Nerve tests count friends; {pair} are enemies")
    for n, pair in enumerate(setup.within_6):
        _check_within_6(f"within_6[{n}]", pair, by_id)


def _check_within_6(where: str, pair: list[str], by_id: dict[str, Fighter]) -> None:
    if len(pair) != 2 or any(p not in by_id for p in pair):
        raise SetupError(f"{where}: needs two known ids, a vehicle and a fighter")
    a, b = by_id[pair[0]], by_id[pair[1]]
    if (a.vehicle is None) == (b.vehicle is None):
        raise SetupError(f"{where}: needs one vehicle and one fighter, not {pair}")
    if a.gang != b.gang:
        raise SetupError(f"{where}: Nerve tests count friends; {pair} are enemies")


def _check_ids(setup: NecromundaSetup) -> None:
    gangs = [g.id for g in setup.gangs]
    if len(set(gangs)) != len(gangs):
        raise SetupError("gangs: duplicate gang id")
    seen: set[str] = set()
    for fid in (f.id for f in setup.fighters):
        if fid in seen:
            raise SetupError(f"fighters: duplicate fighter id {fid!r}")
        if fid == UNARMED:
            raise SetupError(f"fighters: {UNARMED!r} is reserved")
        seen.add(fid)
    if len({b.id for b in setup.barricades}) != len(setup.barricades):
        raise SetupError("barricades: duplicate barricade id")
    for n, g in enumerate(setup.gangs):
        if len(set(g.tactics)) != len(g.tactics) or "" in g.tactics:
            raise SetupError(f"gangs[{n}] ({g.id}).tactics: empty or duplicate tactic name")


def _check_fighter(where: str, f: Fighter, gangs: list[str], by_id: dict[str, Fighter]) -> None:
    if f.gang not in gangs:
        raise SetupError(f"{where}.gang: unknown gang {f.gang!r}")
    allowed: tuple[str, ...] = VEHICLE_STATUSES if f.vehicle is not None else FIGHTER_STATUSES
    if f.status not in allowed and not (f.vehicle is not None and f.status == STANDING_ACTIVE):
        raise SetupError(f"{where}.status: {f.status!r} is not one of {', '.join(allowed)}")
    for name in _TESTS:
        v = getattr(f, name)
        if not 2 <= v <= 12:
            raise SetupError(f"{where}.{name}: {v} is not a test target number (2 to 12)")
    if f.save is not None and not 2 <= f.save <= 6:
        raise SetupError(f"{where}.save: {f.save} is not a save (2 to 6)")
    if f.t < 1 or f.w < 1 or f.a < 0 or f.s < 1:
        raise SetupError(f"{where}: T, W and S must be at least 1, A at least 0")
    if f.flesh_wounds < 0 or f.flesh_wounds >= f.t:
        raise SetupError(f"{where}.flesh_wounds: must be 0 to T-1")
    _check_weapons(where, f.weapons)
    if len(set(f.skills)) != len(f.skills) or "" in f.skills:
        raise SetupError(f"{where}.skills: empty or duplicate skill name")
    if MOUNTED in f.skills:
        raise SetupError(f"{where}.skills: {MOUNTED} is a condition; give mounted = true")
    if f.vehicle is not None and (f.skills or f.mounted):
        raise SetupError(f"{where}: a vehicle has no skills and is never Mounted")
    for v in f.vision:
        if v not in by_id:
            raise SetupError(f"{where}.vision: unknown fighter {v!r}")


def _check_weapons(where: str, weapons: list[Weapon]) -> None:
    """Traits other than those in TRAITS are allowed but carry no close-combat rule here."""
    wids = [w.id for w in weapons]
    if len(set(wids)) != len(wids) or UNARMED in wids:
        raise SetupError(f"{where}.weapons: duplicate or reserved weapon id")
    for k, w in enumerate(weapons):
        if w.d < 0:
            raise SetupError(f"{where}.weapons[{k}].d: must be 0 (for '-') or more")
        if w.ap > 0:
            raise SetupError(f"{where}.weapons[{k}].ap: give AP as printed, e.g. -1")


def _check_engagement(
    where: str,
    e: Engagement,
    by_id: dict[str, Fighter],
    barricades: set[str],
    pairs: set[tuple[str, str]],
) -> None:
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
                "a fighter is never Prone & Pinned and Engaged at once (FAQ and errata)"
            )
