"""A player's roster: a gang, army or side for one game system, kept from battle to battle, and
how two or more rosters (and which of their fighters take part) become a battle's setup.

A roster holds its fighters, models or units exactly as the game system's setup types describe
them (the same fields a scenario file gives), less the field naming their side, which the
roster fills in at the table. What fits where is declared by each system through
``GameSystem.roster`` (``RosterShape``): nothing here is written for one game. docs/rosters.md
describes the format."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

import msgspec
import msgspec.inspect as mi
from msgspec import Meta

from blowbyblow.domain.core import BlowByBlowError, SetupError
from blowbyblow.domain.system import AnyGameSystem, RosterShape

# Bounds (docs/rosters.md): a roster is a gang or an army, not a database.
MAX_ENTRIES = 200  # fighters, models, units or shared entries under one key
MAX_TEXT = 200  # a roster's name, its player's name, a note
MAX_NOTES = 200
Text = Annotated[str, Meta(min_length=1, max_length=MAX_TEXT)]
Entries = Annotated[list[dict[str, Any]], Meta(max_length=MAX_ENTRIES)]

HEADER = ("ruleset", "name", "player", "side", "notes")


class RosterError(BlowByBlowError):
    """A roster that does not fit its game system, or rosters that cannot share a table."""


class Roster(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One player's force for one game system. ``forces`` maps a setup field (``fighters``,
    ``models``, ``weapons``, ``units``) to its entries, each as the setup types give it, without
    the member's side; ``side`` holds what the setup's entry for the side takes besides its id
    and name (a Necromunda gang's ``tactics``); ``notes`` say what an import could not map."""

    ruleset: Text
    name: Text
    player: Text
    side: dict[str, Any] = {}
    forces: dict[str, Entries] = {}
    notes: Annotated[list[Annotated[str, Meta(max_length=1000)]], Meta(max_length=MAX_NOTES)] = []

    @property
    def label(self) -> str:
        return f"{self.name!r} ({self.player})"


def shape_of(system: AnyGameSystem) -> RosterShape:
    if system.roster is None:
        raise RosterError(f"{system.id} takes no rosters")
    return system.roster


def roster_keys(system: AnyGameSystem) -> tuple[str, ...]:
    """The setup fields a roster of ``system`` may hold: its members, then shared entries."""
    shape = shape_of(system)
    return (*shape.members, *(field for field, _ in shape.shared))


# --- the setup's own types ------------------------------------------------------------------


def _entry_type(system: AnyGameSystem, field: str) -> type[msgspec.Struct]:
    """The struct type of one entry of the setup's list field ``field`` (``Fighter``)."""
    info = mi.type_info(system.setup_type)
    assert isinstance(info, mi.StructType)
    for f in info.fields:
        if f.name == field or f.encode_name == field:
            kind = f.type.type if isinstance(f.type, mi.Metadata) else f.type
            if isinstance(kind, mi.ListType | mi.VarTupleType):
                item = kind.item_type
                item = item.type if isinstance(item, mi.Metadata) else item
                if isinstance(item, mi.StructType):
                    return item.cls
    raise RosterError(f"{system.id}: the setup has no list of tables {field!r}")


def _path(message: str, where: str) -> str:
    """msgspec says '... - at `$.a[0]`'; say 'where.a[0]: ...' instead."""
    m = re.search(r" - at `\$(.*)`$", message)
    if m is None:
        return f"{where}: {message}"
    return f"{where}{m.group(1)}: {message[: m.start()]}"


def _converted(kind: type[msgspec.Struct], data: dict[str, Any], where: str) -> Any:
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as e:
        raise RosterError(_path(str(e), where)) from None


def _ids(entries: Sequence[Any], where: str) -> list[str]:
    ids: list[str] = []
    for n, entry in enumerate(entries):
        ident = getattr(entry, "id", None)
        if not isinstance(ident, str) or not ident:
            raise RosterError(f"{where}[{n}].id: expected a non-empty id")
        if ident in ids:
            raise RosterError(f"{where}[{n}].id: {ident!r} is given twice")
        ids.append(ident)
    return ids


def check_roster(system: AnyGameSystem, roster: Roster) -> Roster:
    """``roster`` in its one written form (each entry without the fields that equal their
    defaults), or RosterError naming the entry and field when it does not fit ``system``'s setup
    types: an unknown key, a member that gives its own side, a characteristic out of bounds, an
    id given twice, a shared entry named by a member but not given."""
    shape = shape_of(system)
    if roster.ruleset != system.id:
        raise RosterError(f"ruleset: the roster is for {roster.ruleset!r}, not {system.id!r}")
    keys = roster_keys(system)
    for key, entries in roster.forces.items():
        if key not in keys:
            raise RosterError(f"{key}: a {system.id} roster holds {', '.join(keys)}")
        if len(entries) > MAX_ENTRIES:  # a roster built in code is bounded as a file's is
            raise RosterError(f"{key}: {len(entries)} entries; expected at most {MAX_ENTRIES}")
    if not any(roster.forces.get(m) for m in shape.members):
        raise RosterError(f"{' or '.join(shape.members)}: the roster has no one in it")
    forces: dict[str, list[dict[str, Any]]] = {}
    for field, _ in shape.shared:
        entries = roster.forces.get(field, [])
        shared = [
            _converted(_entry_type(system, field), e, f"{field}[{n}]")
            for n, e in enumerate(entries)
        ]
        _ids(shared, field)
        forces[field] = [without_defaults(e) for e in shared]
    for field in shape.members:
        entries = roster.forces.get(field, [])
        members = [_member(system, shape, field, n, e) for n, e in enumerate(entries)]
        _ids(members, field)
        for n, member in enumerate(members):
            _check_references(shape, field, n, member, forces)
        forces[field] = [
            {k: v for k, v in without_defaults(m).items() if k != shape.side_field} for m in members
        ]
    kept = msgspec.structs.replace(roster, forces={k: forces[k] for k in keys if forces.get(k)})
    try:  # a roster built in code (a --player given) is held to the bounds a file's is
        msgspec.convert(msgspec.to_builtins(kept), Roster)
    except msgspec.ValidationError as e:
        raise RosterError(f"roster: {e}") from None
    return kept


def _check_references(
    shape: RosterShape, field: str, n: int, member: Any, forces: dict[str, list[dict[str, Any]]]
) -> None:
    for shared, ref in shape.shared:
        ids = [str(e["id"]) for e in forces[shared]]
        for name in _names(getattr(member, ref, ())):
            if name not in ids:
                raise RosterError(
                    f"{field}[{n}] ({member.id}).{ref}: no {shared} entry {name!r}; "
                    f"the roster's {shared} are: {', '.join(ids) or 'none'}"
                )


def _names(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list | tuple) else []


def _member(
    system: AnyGameSystem, shape: RosterShape, field: str, n: int, entry: dict[str, Any]
) -> Any:
    where = f"{field}[{n}]"
    if shape.side_field in entry:
        raise RosterError(
            f"{where}.{shape.side_field}: a roster's {field} take the roster's side; "
            f"leave {shape.side_field} out"
        )
    return _converted(_entry_type(system, field), {**entry, shape.side_field: "side"}, where)


# --- rosters at a table ---------------------------------------------------------------------


def side_id(name: str, taken: Collection[str] = ()) -> str:
    """The id a roster's side takes in a setup: its name in lower case, words joined by
    hyphens ("The Iron Fists" -> "the-iron-fists"), numbered when two rosters share it."""
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "side"
    ident, n = base, 1
    while ident in taken:
        n += 1
        ident = f"{base}-{n}"
    return ident


def setup_data(
    system: AnyGameSystem, rosters: Sequence[Roster], only: Collection[str] | None = None
) -> dict[str, Any]:
    """The setup's data (a scenario file's setup keys) for ``rosters`` meeting at one table;
    ``only`` lists the fighters, models or units that take part (default: all of them). What a
    roster cannot say (who is engaged with whom, the map) is left to the setup's defaults, or
    to the system's ``complete``."""
    shape = shape_of(system)
    table = _Table()
    sides: list[str] = []
    wanted = set(only) if only is not None else None
    for given in rosters:
        roster = check_roster(system, given)
        side = side_id(roster.name, sides)
        sides.append(side)
        used = _members_at_table(shape, roster, side, wanted, table)
        _shared_at_table(shape, roster, used, table)
    if wanted is not None:
        missing = sorted(wanted - {ident for (f, ident) in table.owner if f in shape.members})
        if missing:
            raise RosterError(f"only: no roster has {', '.join(map(repr, missing))}")
    data = table.data
    if shape.sides:
        data[shape.sides] = [
            _side_entry(system, shape, r, s) for r, s in zip(rosters, sides, strict=True)
        ]
    return shape.complete(data) if shape.complete is not None else data


@dataclass
class _Table:
    """A setup's data as rosters come to the table, and which roster brought each entry."""

    data: dict[str, Any] = dataclasses.field(default_factory=dict)
    owner: dict[tuple[str, str], str] = dataclasses.field(
        default_factory=dict
    )  # (key, id) -> roster


def _members_at_table(
    shape: RosterShape, roster: Roster, side: str, wanted: set[str] | None, table: _Table
) -> set[tuple[str, str]]:
    """Adds the roster's members taking part to ``data``; returns the shared entries they name."""
    used: set[tuple[str, str]] = set()
    for field in shape.members:
        for entry in roster.forces.get(field, []):
            ident = str(entry["id"])
            if wanted is not None and ident not in wanted:
                continue
            if (field, ident) in table.owner:
                raise RosterError(
                    f"{field}: {ident!r} is in {table.owner[field, ident]} and in {roster.label}; "
                    "rename one of them (bxb roster edit) before they meet"
                )
            table.owner[field, ident] = roster.label
            table.data.setdefault(field, []).append({**entry, shape.side_field: side})
            for shared, ref in shape.shared:
                used.update((shared, name) for name in _names(entry.get(ref, ())))
    return used


def _shared_at_table(
    shape: RosterShape, roster: Roster, used: set[tuple[str, str]], table: _Table
) -> None:
    """Adds the shared entries the roster's members name; the same id in two rosters is one
    entry when both give the same profile, and refused when they differ."""
    for shared, _ in shape.shared:
        for entry in roster.forces.get(shared, []):
            ident = str(entry["id"])
            if (shared, ident) not in used:
                continue
            if (shared, ident) in table.owner:
                given = next(e for e in table.data[shared] if e["id"] == ident)
                if given != entry:
                    raise RosterError(
                        f"{shared}: {ident!r} differs between {table.owner[shared, ident]} and "
                        f"{roster.label}; rename one of them (bxb roster edit) before they meet"
                    )
                continue
            table.owner[shared, ident] = roster.label
            table.data.setdefault(shared, []).append(entry)


def _side_entry(system: AnyGameSystem, shape: RosterShape, roster: Roster, side: str) -> Any:
    """A side as the setup lists it: its id, or a table of the id, name and ``side`` fields."""
    kind = _field_type(system, shape.sides)
    item = getattr(kind, "item_type", None)
    item = item.type if isinstance(item, mi.Metadata) else item
    return (
        side if isinstance(item, mi.StrType) else {"name": roster.name, **roster.side, "id": side}
    )


def _field_type(system: AnyGameSystem, field: str) -> Any:
    info = mi.type_info(system.setup_type)
    assert isinstance(info, mi.StructType)
    for f in info.fields:
        if f.encode_name == field:
            return f.type.type if isinstance(f.type, mi.Metadata) else f.type
    raise RosterError(f"{system.id}: the setup has no field {field!r}")


def rosters_of_setup(system: AnyGameSystem, setup: Any, player: str = "") -> list[Roster]:
    """The setup's sides as rosters, one a side, in the order the sides first appear: what a
    table keeps of a setup typed in by hand. Members keep their fields (less their side);
    shared entries go to each roster whose members name them."""
    shape = shape_of(system)
    data = msgspec.to_builtins(setup)
    order: list[str] = []
    for field in shape.members:
        for entry in data.get(field, []):
            if entry[shape.side_field] not in order:
                order.append(entry[shape.side_field])
    sides = (
        {(e if isinstance(e, str) else e["id"]): e for e in data.get(shape.sides, [])}
        if shape.sides
        else {}
    )
    return [_roster_of_side(system, data, side, sides.get(side), player) for side in order]


def _roster_of_side(
    system: AnyGameSystem,
    data: dict[str, Any],
    side: str,
    entry: Any,
    player: str,
) -> Roster:
    shape = shape_of(system)
    forces: dict[str, list[dict[str, Any]]] = {}
    named: set[tuple[str, str]] = set()
    for field in shape.members:
        for member in data.get(field, []):
            if member[shape.side_field] == side:
                kept = {k: v for k, v in member.items() if k != shape.side_field}
                forces.setdefault(field, []).append(kept)
                for shared, ref in shape.shared:
                    named.update((shared, n) for n in _names(member.get(ref, ())))
    for shared, _ in shape.shared:
        mine = [e for e in data.get(shared, []) if (shared, e["id"]) in named]
        if mine:
            forces[shared] = mine
    extra = (
        {k: v for k, v in entry.items() if k not in ("id", "name")}
        if isinstance(entry, dict)
        else {}
    )
    name = entry.get("name") or side if isinstance(entry, dict) else side
    return Roster(ruleset=system.id, name=name, player=player or side, side=extra, forces=forces)


def setup_from_rosters(
    system: AnyGameSystem,
    rosters: Sequence[Roster],
    only: Collection[str] | None = None,
    extra: dict[str, Any] | None = None,
) -> Any:
    """The system's setup for ``rosters`` at one table (``only``: who takes part; ``extra``:
    setup fields the table adds, e.g. ``engagements``), checked as a scenario file's setup is:
    an error names the field."""
    data = {**setup_data(system, rosters, only), **(extra or {})}
    try:
        setup = msgspec.convert(data, system.setup_type)
    except msgspec.ValidationError as e:
        raise RosterError(_path(str(e), "setup")) from None
    try:
        system.validate_setup(setup)
    except SetupError as e:
        raise RosterError(f"setup: {e}") from None
    return setup


# --- plain data ---------------------------------------------------------------------------------


def without_defaults(obj: Any) -> Any:
    """Plain data for TOML: a struct's fields that equal their defaults are left out (the file
    stays short and loads back to the same struct); TOML has no null, so None is left out too."""
    if isinstance(obj, msgspec.Struct):
        plain = msgspec.to_builtins(obj)  # keeps a tagged struct's tag ("type = ...")
        for f in msgspec.structs.fields(obj):
            value = getattr(obj, f.name)
            if f.default is not msgspec.NODEFAULT:
                default = f.default
            elif f.default_factory is not msgspec.NODEFAULT:
                default = f.default_factory()
            else:
                default = msgspec.NODEFAULT
            if value is None or value == default:
                plain.pop(f.encode_name, None)
            else:
                plain[f.encode_name] = without_defaults(value)
        return plain
    if isinstance(obj, list | tuple):
        return [without_defaults(v) for v in obj]
    if isinstance(obj, dict):
        return {k: without_defaults(v) for k, v in obj.items() if v is not None}
    return msgspec.to_builtins(obj)


# --- the file format --------------------------------------------------------------------------


def roster_from_data(data: dict[str, Any]) -> Roster:
    """A roster from a file's data: the header keys (``ruleset``, ``name``, ``player``,
    ``side``, ``notes``) and the setup fields it holds, as top-level keys."""
    header = {k: v for k, v in data.items() if k in HEADER}
    forces = {k: v for k, v in data.items() if k not in HEADER}
    for key, entries in forces.items():  # msgspec would name a dict's value only "[...]"
        if not isinstance(entries, list):
            raise RosterError(f"{key}: expected a list of tables ([[{key}]]), not {entries!r}")
        for n, entry in enumerate(entries):
            if not isinstance(entry, dict):
                raise RosterError(f"{key}[{n}]: expected a table, not {entry!r}")
    try:
        return msgspec.convert({**header, "forces": forces}, Roster)
    except msgspec.ValidationError as e:
        where = _path(str(e), "").lstrip(".").removeprefix("forces.")
        raise RosterError(where if not where.startswith(": ") else f"roster{where}") from None


def roster_to_data(roster: Roster) -> dict[str, Any]:
    """A roster as a file gives it (what ``roster_from_data`` reads back to the same roster)."""
    data: dict[str, Any] = {"ruleset": roster.ruleset, "name": roster.name}
    data["player"] = roster.player
    if roster.notes:
        data["notes"] = list(roster.notes)
    if roster.side:
        data["side"] = dict(roster.side)
    return {**data, **{k: list(v) for k, v in roster.forces.items()}}


# --- edits between rounds ---------------------------------------------------------------------


class SetField(msgspec.Struct, frozen=True, kw_only=True, tag_field="edit", tag="set"):
    """Give ``field`` of the entry with id ``entry`` (a fighter, a model, a weapon) a new
    value; None puts it back to its default. A lasting injury is one: ``ws`` from 3 to 4."""

    entry: Annotated[str, Meta(min_length=1, max_length=MAX_TEXT)]
    field: Annotated[str, Meta(min_length=1, max_length=MAX_TEXT)]
    value: Any = None


class Remove(msgspec.Struct, frozen=True, kw_only=True, tag_field="edit", tag="remove"):
    """Take the entry with id ``entry`` out of the roster (a fighter lost for good)."""

    entry: Annotated[str, Meta(min_length=1, max_length=MAX_TEXT)]


class Add(msgspec.Struct, frozen=True, kw_only=True, tag_field="edit", tag="add"):
    """Put a new entry under ``to`` (a recruit under ``fighters``), as the setup types give it."""

    to: Annotated[str, Meta(min_length=1, max_length=MAX_TEXT)]
    value: dict[str, Any]


Edit = SetField | Remove | Add


def _where(roster: Roster, entry: str) -> tuple[str, int]:
    found = [
        (key, n)
        for key, entries in roster.forces.items()
        for n, e in enumerate(entries)
        if e.get("id") == entry
    ]
    if not found:
        ids = [str(e.get("id")) for es in roster.forces.values() for e in es]
        raise RosterError(f"no entry {entry!r} in {roster.label}; it has: {', '.join(ids)}")
    if len(found) > 1:
        raise RosterError(f"{entry!r} is the id of {len(found)} entries of {roster.label}")
    return found[0]


def apply_edit(system: AnyGameSystem, roster: Roster, edit: Edit) -> Roster:
    """``roster`` with ``edit`` made, checked again: an edit that leaves the roster unfit for
    its setup types is refused with the field named."""
    forces = {k: [dict(e) for e in v] for k, v in roster.forces.items()}
    if isinstance(edit, Add):
        forces.setdefault(edit.to, []).append(dict(edit.value))
    else:
        key, n = _where(roster, edit.entry)
        if isinstance(edit, Remove):
            del forces[key][n]
        elif edit.field == "id":
            raise RosterError(f"{edit.entry}.id: an id is not edited; remove and add instead")
        elif edit.value is None:
            forces[key][n].pop(edit.field, None)
        else:
            forces[key][n][edit.field] = edit.value
    return check_roster(system, msgspec.structs.replace(roster, forces=forces))


def edit_words(edit: Edit) -> str:
    """An edit in a line, as a roster's history shows it."""
    if isinstance(edit, SetField):
        return f"set {edit.entry}.{edit.field} = {edit.value!r}"
    if isinstance(edit, Remove):
        return f"remove {edit.entry}"
    return f"add to {edit.to}: {edit.value.get('id', '?')}"


def apply_edits(system: AnyGameSystem, roster: Roster, edits: Sequence[Edit]) -> Roster:
    for n, edit in enumerate(edits):
        try:
            roster = apply_edit(system, roster, edit)
        except RosterError as e:
            tag = {SetField: "set", Remove: "remove", Add: "add"}[type(edit)]
            raise RosterError(f"edit {n + 1} ({tag}): {e}") from None
    return roster


__all__ = [
    "Add",
    "Edit",
    "Remove",
    "Roster",
    "RosterError",
    "SetField",
    "apply_edit",
    "apply_edits",
    "check_roster",
    "edit_words",
    "roster_from_data",
    "roster_keys",
    "roster_to_data",
    "rosters_of_setup",
    "setup_data",
    "setup_from_rosters",
    "side_id",
    "without_defaults",
]
