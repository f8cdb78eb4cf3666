"""The battle setup (what a scenario file gives): model profiles (Model Profiles page), sizes,
weapons and the gaps between models, and ``validate_setup``.

A scenario file's top-level keys are the fields of :class:`GangfightSetup`."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from blowbyblow.domain.core import SetupError

Size = Literal["small", "medium", "large", "huge"]
SIZES: tuple[Size, ...] = ("small", "medium", "large", "huge")

# Combat, Falling: a model's height, in half inches (1" Small, 1.5" Medium, 2" Large, 3" Huge).
HEIGHT_HALF_INCHES: dict[Size, int] = {"small": 2, "medium": 3, "large": 4, "huge": 6}

# A distance on the table, measured to the half inch (the rules use half inches: a Medium model
# is 1.5" tall, a Direct Area of Effect 3" wide reaches 1.5" either side of its line). Whole
# inches are integers, as battles recorded by version 1.0 give every distance; a half inch is a
# float (1.5). Use :func:`inches` on any sum so that a whole number is always an integer: the
# same distance then always has the same recorded bytes.
HalfInch = Annotated[float, msgspec.Meta(multiple_of=0.5)]
Inches = int | HalfInch

# Bounds (docs/scenarios.md, Bounds): wide enough for any profile, narrow enough that no value
# makes a command run for long (a pool of 10^8 dice would roll for ever).
MAX_FIGHTERS = 100
MAX_WEAPONS = 100
MAX_CARRIED = 10  # weapons one model carries
MAX_GAPS = 5000  # every pair of 100 models
MAX_INCHES = 1000
Attribute = Annotated[int, msgspec.Meta(ge=0, le=20)]
# A distance in a setup, bounded in size (events and commands keep the unbounded ``Inches``); a
# negative one is read, then refused by validate_setup as negative, naming the field.
SetupInches = (
    Annotated[int, msgspec.Meta(ge=-MAX_INCHES, le=MAX_INCHES)]
    | Annotated[float, msgspec.Meta(multiple_of=0.5, ge=-MAX_INCHES, le=MAX_INCHES)]
)


def inches(value: float) -> Inches:
    """A distance in its one recorded form: an integer when whole, else a half-inch float."""
    return int(value) if float(value).is_integer() else float(value)


def half_inches(value: float) -> int:
    """A distance counted in half inches (exact: every distance is a multiple of 0.5)."""
    return round(2 * value)


WeaponKind = Literal["hand", "double-handed", "shield", "other"]
# Combat, Area of Effect Attacks: a Direct one is a line to the target, an Indirect one a blast
# centred on it.
AreaKind = Literal["direct", "indirect"]
# Combat, Cover: soft (forests, shrubs, fences) or hard (walls, large stones).
CoverKind = Literal["soft", "hard"]
# Actions and Action Points, Charge!: the ground decides the charge roll's Target Number.
Terrain = Literal["open", "light", "dense"]

# The Perks whose models make Special Attacks as part of a normal attack (Combat, Special
# Attacks); no other Perk has an effect here, so no other is accepted.
KNOWN_PERKS = ("marauder", "skirmisher")


def size_rank(size: Size) -> int:
    """Small < Medium < Large < Huge (Combat, Slam!)."""
    return SIZES.index(size)


class Profile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The nine attributes of the Model Profiles page, written in lower case in a scenario
    (``def`` for DEF)."""

    mov: Attribute
    att: Attribute
    mrk: Attribute
    defense: Attribute = msgspec.field(name="def")
    iv: Attribute
    wp: Attribute
    arm: Attribute
    en: Attribute
    dam: Attribute


class Weapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A weapon or off-hand item. ``kind`` "hand" weapons (swords, axes, hammers, pistols) may be
    paired (Attacking with Two Weapons); a "shield" or "other" off-hand item forbids that.
    ``dam`` is what it adds to the wielder's DAM (a Double Handed Weapon brings the Orc Brave's
    DAM to 6).

    A ranged weapon has a ``range`` in inches (Ranged Combat: its Short Range; Point Blank within
    it, Long Range from 6" beyond it). ``area`` makes it an Area of Effect weapon (``direct``: a
    line, ``indirect``: a blast). ``reload``: firing it unloads it, and it must be reloaded (a
    Reload action) before it fires again; a weapon without it is always loaded."""

    id: str
    name: str = ""
    kind: WeaponKind = "hand"
    dam: Attribute = 0
    range: SetupInches | None = None
    area: AreaKind | None = None
    reload: bool = False


class Fighter(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A model. ``threat`` is its threat range in inches; ``weapons`` names what it carries (a
    weapon id may appear twice: two swords). ``perks`` may hold "marauder" or "skirmisher"."""

    id: str
    name: str = ""
    side: str
    size: Size = "medium"
    threat: SetupInches = 1
    profile: Profile
    weapons: Annotated[tuple[str, ...], msgspec.Meta(max_length=MAX_CARRIED)] = ()
    perks: Annotated[tuple[str, ...], msgspec.Meta(max_length=len(KNOWN_PERKS))] = ()


class GapSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The distance in inches between two models' bases (0 = base contact), to the half inch.
    Pairs not listed are far apart: outside each other's threat range."""

    a: str
    b: str
    inches: SetupInches


class GangfightSetup(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    weapons: Annotated[tuple[Weapon, ...], msgspec.Meta(max_length=MAX_WEAPONS)] = ()
    fighters: Annotated[tuple[Fighter, ...], msgspec.Meta(max_length=MAX_FIGHTERS)]
    gaps: Annotated[tuple[GapSpec, ...], msgspec.Meta(max_length=MAX_GAPS)] = ()


# --- validate_setup: cross-references the types cannot check ---------------------------------


def _check_unique_ids(setup: GangfightSetup) -> None:
    for field, ids in (
        ("weapons", [w.id for w in setup.weapons]),
        ("fighters", [f.id for f in setup.fighters]),
    ):
        dup = {x for x in ids if ids.count(x) > 1}
        if dup:
            raise SetupError(f"{field}: duplicate id(s) {', '.join(sorted(dup))}")
    if not setup.fighters:
        raise SetupError("fighters: a battle needs at least one model")


def _check_profile(where: str, profile: Profile) -> None:
    for name in profile.__struct_fields__:
        value = getattr(profile, name)
        if value < 0:
            raise SetupError(f"{where}.profile.{name}: {value} is negative")
    if profile.en < 1:
        raise SetupError(f"{where}.profile.en: Endurance must be at least 1")


def _check_weapon(where: str, w: Weapon) -> None:
    if w.range is not None and w.range < 0:
        raise SetupError(f"{where}.range: {w.range} inches is negative")
    if w.area is not None and w.range is None:
        raise SetupError(f"{where}: an Area of Effect weapon needs a range (in inches)")
    if w.reload and w.range is None:
        raise SetupError(f"{where}: only a ranged weapon (one with a range) is reloaded")


def _check_fighter(where: str, f: Fighter, weapon_ids: set[str]) -> None:
    if not f.id or "/" in f.id:
        raise SetupError(f"{where}: an id must be non-empty and contain no '/'")
    if not f.side:
        raise SetupError(f"{where}: side must not be empty")
    if f.threat < 0:
        raise SetupError(f"{where}: threat range {f.threat} is negative")
    _check_profile(where, f.profile)
    for w in f.weapons:
        if w not in weapon_ids:
            raise SetupError(f"{where}.weapons: unknown weapon {w!r}")
    for p in f.perks:
        if p not in KNOWN_PERKS:
            raise SetupError(f"{where}.perks: unknown perk {p!r} (known: marauder, skirmisher)")


def _check_gaps(setup: GangfightSetup) -> None:
    fighter_ids = {f.id for f in setup.fighters}
    seen: set[tuple[str, str]] = set()
    for i, g in enumerate(setup.gaps):
        for end in (g.a, g.b):
            if end not in fighter_ids:
                raise SetupError(f"gaps[{i}]: unknown fighter {end!r}")
        if g.a == g.b:
            raise SetupError(f"gaps[{i}]: a model has no gap to itself ({g.a!r})")
        if g.inches < 0:
            raise SetupError(f"gaps[{i}]: {g.inches} inches is negative")
        pair = (min(g.a, g.b), max(g.a, g.b))
        if pair in seen:
            raise SetupError(f"gaps[{i}]: the gap {pair[0]}-{pair[1]} is given twice")
        seen.add(pair)


def validate_setup(setup: GangfightSetup) -> None:
    """Unique ids, at least one model, known weapons and perks, no negative numbers, EN of at
    least 1, gaps between two different known models given once."""
    _check_unique_ids(setup)
    for i, w in enumerate(setup.weapons):
        _check_weapon(f"weapons[{i}] ({w.id})", w)
    weapon_ids = {w.id for w in setup.weapons}
    for i, f in enumerate(setup.fighters):
        _check_fighter(f"fighters[{i}] ({f.id})", f, weapon_ids)
    _check_gaps(setup)
