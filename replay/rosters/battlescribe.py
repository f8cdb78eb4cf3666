"""BattleScribe rosters (``.ros``: XML in BattleScribe's roster schema; ``.rosz``: the same XML,
zipped) as the project's rosters, for the game systems whose BSData catalogues carry their
profiles: Necromunda, and 40K 2nd edition.

Each model's profile becomes a fighter or model (its characteristics), its weapon profiles its
weapons, its skills (Necromunda) and armour (40K) what the setup takes of them. Everything else
(abilities, wargear without a profile, injuries, army rules, list options) cannot be mapped: it
is listed, one line a selection, by name (``Imported.unmapped``), and kept in the roster's
notes; nothing is dropped silently. docs/rosters.md says what maps to what.

The file is hostile until read: at most 4 MiB (zipped or not, a zip's member read no further
than that), XML parsed by defusedxml (no DTD, no entities, no external references); anything
wrong is one ``RosterError`` naming the file and the element, and nothing is made."""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from xml.etree.ElementTree import Element, ParseError

import defusedxml
from defusedxml.ElementTree import fromstring

from blowbyblow.domain.roster import MAX_ENTRIES, Roster, RosterError, check_roster, side_id
from blowbyblow.replay.engine.numbers import whole_number
from blowbyblow.replay.engine.registry import get_game_system

MAX_BYTES = 4 * 1024 * 1024  # a roster file, and what a zipped one unzips to


@dataclass(frozen=True)
class Imported:
    """A BattleScribe roster as a roster of the project: ``mapped`` says, one line a member,
    what each became; ``unmapped`` names, one line each, what could not be mapped."""

    roster: Roster
    mapped: tuple[str, ...]
    unmapped: tuple[str, ...]


# --- reading the file safely ----------------------------------------------------------------


def _unzipped(raw: bytes, name: str) -> bytes:
    """The roster XML of a ``.rosz``: its one ``.ros`` member, read no further than the bound
    (a zip's sizes are what it says they are, not what it holds)."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zipped:
            members = [i for i in zipped.infolist() if not i.is_dir()]
            if len(members) != 1:
                listed = ", ".join(i.filename for i in members[:5]) or "nothing"
                raise RosterError(
                    f"{name}: expected a zipped roster holding one .ros file, not {listed}"
                )
            with zipped.open(members[0]) as member:
                xml = member.read(MAX_BYTES + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as e:
        raise RosterError(f"{name}: not a readable zipped roster (.rosz): {e}") from None
    if len(xml) > MAX_BYTES:
        raise RosterError(
            f"{name}: unzips to more than {MAX_BYTES // 2**20} MiB; expected a roster"
        )
    return xml


def _root(raw: bytes, name: str) -> Element:
    if len(raw) > MAX_BYTES:
        raise RosterError(f"{name}: larger than {MAX_BYTES // 2**20} MiB; expected a roster")
    if raw[:4] == b"PK\x03\x04":
        raw = _unzipped(raw, name)
    elif raw.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] != b"<":
        raise RosterError(
            f"{name}: neither BattleScribe XML (.ros) nor a zipped roster (.rosz); "
            "expected a roster exported by BattleScribe"
        )
    try:
        root = fromstring(raw, forbid_dtd=True)
    except defusedxml.DefusedXmlException as e:
        raise RosterError(f"{name}: refused: {e} (a roster has no DTD nor entities)") from None
    except ParseError as e:
        raise RosterError(f"{name}: not well-formed XML: {e}") from None
    if _local(root.tag) != "roster":
        raise RosterError(f"{name}: <{_local(root.tag)}> is not a BattleScribe <roster>")
    return root


def _local(tag: Any) -> str:
    return str(tag).rsplit("}", 1)[-1]


def _kids(element: Element, *path: str) -> Iterator[Element]:
    """The children along ``path`` (``"selections", "selection"``), whatever the namespace."""
    found = [element]
    for step in path:
        found = [c for e in found for c in e if _local(c.tag) == step]
    yield from found


# --- what a roster holds ----------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    name: str
    kind: str  # its profile type's name: "Model", "Weapon", "Skill", "Unit", "Armour", …
    values: dict[str, str]  # characteristic name (lower case) -> value as printed


def _profiles(selection: Element) -> list[Profile]:
    out = []
    for p in _kids(selection, "profiles", "profile"):
        kind = p.get("typeName") or p.get("profileTypeName") or ""
        values = {
            (c.get("name") or "").strip().lower(): (c.text or c.get("value") or "").strip()
            for c in _kids(p, "characteristics", "characteristic")
        }
        out.append(Profile(name=p.get("name") or "", kind=kind, values=values))
    return out


def _rules(element: Element) -> list[str]:
    return [r.get("name") or "" for r in _kids(element, "rules", "rule")]


def _label(selection: Element) -> str:
    return (selection.get("customName") or selection.get("name") or "").strip() or "(unnamed)"


# --- values as printed ------------------------------------------------------------------------


class _Bad(Exception):
    """A characteristic's value this game cannot take (said with the element by the caller)."""


def _int(text: str, low: int, high: int) -> int:
    value = text.strip().rstrip('"”″').strip()
    if not re.fullmatch(r"[+-]?\d{1,3}", value) or not low <= int(value) <= high:
        raise _Bad(f"{text!r} is not a whole number from {low} to {high}")
    return int(value)


def _target(text: str) -> int:
    """``"3+"`` -> 3: a test's target number (2+ to 12+)."""
    if not re.fullmatch(r"\d{1,2}\+", text.strip()) or not 2 <= int(text.strip()[:-1]) <= 12:
        raise _Bad(f"{text!r} is not a target number from 2+ to 12+")
    return int(text.strip()[:-1])


def _save(text: str) -> int:
    """``"4+"`` -> 4: an armour save on one D6 (2+ to 6+)."""
    value = _target(text)
    if value > 6:
        raise _Bad(f"{text!r} is not a save from 2+ to 6+")
    return value


def _dash(text: str) -> bool:
    return text.strip() in ("", "-", "–", "—")


@dataclass
class _Import:
    """One import under way: the members and shared entries made, and the lines said."""

    file: str
    forces: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    mapped: list[str] = field(default_factory=list)
    unmapped: list[str] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)

    def new_id(self, name: str, taken: set[str] | None = None) -> str:
        pool = self.ids if taken is None else taken
        ident = side_id(name, pool)
        pool.add(ident)
        return ident

    def value(self, where: str, read: Callable[[str], Any], text: str) -> Any:
        try:
            return read(text)
        except _Bad as e:
            raise RosterError(f"{self.file}: {where}: {e}") from None


# --- Necromunda ---------------------------------------------------------------------------------

_N_TESTS = {"ws": "ws", "bs": "bs", "i": "i", "ld": "ld", "cl": "cl", "wil": "wil", "int": "int"}
_N_STATS = {"m": "m", "s": "s", "t": "t", "w": "w", "a": "a"}


def _necromunda_fighter(
    job: _Import, selection: Element, model: Profile, where: str
) -> dict[str, Any]:
    fighter: dict[str, Any] = {"id": job.new_id(_label(selection)), "name": _label(selection)}
    for key, field_name in _N_STATS.items():
        if key in model.values:
            fighter[field_name] = job.value(
                f"{where}.{key.upper()}", lambda v: _int(v, 0, 20), model.values[key]
            )
    for key, field_name in _N_TESTS.items():
        text = model.values.get(key)
        if text is None:
            continue
        if _dash(text):
            job.unmapped.append(
                f"{_label(selection)}: {key.upper()} '-' has no value here; the default is kept"
            )
            continue
        fighter[field_name] = job.value(f"{where}.{key.upper()}", _target, text)
    save = model.values.get("sv", model.values.get("save"))
    if save is not None and not _dash(save):
        fighter["save"] = job.value(f"{where}.Sv", _save, save)
    return fighter


def _necromunda_weapon(
    job: _Import, owner: str, p: Profile, taken: set[str]
) -> dict[str, Any] | None:
    where = f"{owner}: weapon '{p.name}'"
    v = p.values
    weapon: dict[str, Any] = {"id": job.new_id(p.name, taken), "name": p.name}
    strength = v.get("str", v.get("s", "S")).replace(" ", "").upper()
    if strength != "S":
        m = re.fullmatch(r"S([+-]\d)", strength)
        if m:
            weapon["s_bonus"] = int(m.group(1))
        else:
            weapon["s"] = job.value(f"{where}.Str", lambda x: _int(x, 1, 20), strength)
    ap = v.get("ap", "-")
    weapon["ap"] = 0 if _dash(ap) else job.value(f"{where}.AP", lambda x: _int(x, -10, 0), ap)
    damage = v.get("d", v.get("dam", "1"))
    if not _dash(damage) and not re.fullmatch(r"\d{1,2}", damage.strip()):
        job.unmapped.append(f"{where}: damage {damage!r} (dice) is not a damage this setup takes")
        return None
    weapon["d"] = 0 if _dash(damage) else job.value(f"{where}.D", lambda x: _int(x, 0, 20), damage)
    ammo = v.get("ammo", "-")
    if not _dash(ammo):
        weapon["ammo"] = job.value(f"{where}.Ammo", _target, ammo)
    traits = [t.strip() for t in v.get("traits", "").split(",") if not _dash(t)]
    weapon["traits"] = traits
    long_range = v.get("rng l", "")
    if any(t.lower().startswith("versatile") for t in traits) and not _dash(long_range):
        weapon["versatile_range"] = job.value(
            f"{where}.Rng L", lambda x: _int(x, 0, 100), long_range
        )
    return weapon


def _necromunda(job: _Import, selection: Element, model: Profile, where: str) -> None:
    fighter = _necromunda_fighter(job, selection, model, where)
    weapons: list[dict[str, Any]] = []
    skills: list[str] = []
    taken: set[str] = set()
    for sub, p in _gear(job, selection, model):
        kind = p.kind.lower()
        if "weapon" in kind:
            weapon = _necromunda_weapon(job, _label(selection), p, taken)
            if weapon is not None:
                weapons.append(weapon)
        elif kind.startswith("skill") and p.name not in skills:
            skills.append(p.name)
        else:
            job.unmapped.append(f"{_label(selection)}: '{p.name}' ({p.kind or sub}) not mapped")
    fighter["weapons"] = weapons
    fighter["skills"] = skills
    job.forces.setdefault("fighters", []).append(fighter)
    job.mapped.append(_said(fighter, [w["name"] for w in weapons]))


# --- 40K, 2nd edition ---------------------------------------------------------------------------


def _wh40k_weapon(job: _Import, owner: str, p: Profile) -> dict[str, Any] | None:
    where = f"{owner}: weapon '{p.name}'"
    v = p.values
    weapon: dict[str, Any] = {"id": side_id(p.name), "name": p.name}
    strength = v.get("strength", v.get("s", "As User")).replace(" ", "").lower()
    bonus = re.fullmatch(r"(?:asuser|user|s)?([+-]\d)", strength)
    if bonus:
        weapon["strength_bonus"] = int(bonus.group(1))
    elif strength not in ("asuser", "user", "s"):
        weapon["strength"] = job.value(f"{where}.Strength", lambda x: _int(x, 1, 20), strength)
    damage = v.get("damage", v.get("d", "1")).strip()
    if not re.fullmatch(r"\d{1,2}|\d?[dD]\d{1,2}", damage):
        job.unmapped.append(f"{where}: damage {damage!r} is not a number nor dice such as D3")
        return None
    weapon["damage"] = int(damage) if damage.isdigit() else damage.upper()
    modifier = v.get("save modifier", "as user").strip().lower()
    if modifier not in ("as user", "user", ""):
        weapon["save_modifier"] = (
            0
            if _dash(modifier)
            else job.value(f"{where}.Save Modifier", lambda x: _int(x, -10, 10), modifier)
        )
    special = " ".join([v.get("special", ""), v.get("short range", ""), v.get("type", "")]).lower()
    weapon["close_combat"] = "close combat" in special or "cc only" in special
    weapon["parry"] = "parry" in special
    return weapon


def _wh40k(job: _Import, selection: Element, model: Profile, where: str) -> None:
    member: dict[str, Any] = {"id": job.new_id(_label(selection)), "name": _label(selection)}
    ws = model.values.get("ws", "")
    member["ws"] = "-" if _dash(ws) else job.value(f"{where}.WS", lambda x: _int(x, 0, 10), ws)
    for key in ("s", "t", "w", "i", "a"):
        if key not in model.values:
            raise RosterError(f"{job.file}: {where}: no {key.upper()} characteristic")
        member[key] = job.value(
            f"{where}.{key.upper()}", lambda x: _int(x, 0, 10), model.values[key]
        )
    carried: list[str] = []
    for sub, p in _gear(job, selection, model):
        kind = p.kind.lower()
        if kind.startswith("weapon"):
            weapon = _wh40k_weapon(job, _label(selection), p)
            if weapon is not None:
                carried.append(_shared_weapon(job, weapon))
        elif (
            kind == "armour"
            and "save" not in member
            and not _dash(p.values.get("saving throw", ""))
        ):
            member["save"] = job.value(
                f"{where}: '{p.name}'.Saving Throw", _save, p.values["saving throw"]
            )
        else:
            job.unmapped.append(f"{_label(selection)}: '{p.name}' ({p.kind or sub}) not mapped")
    member["weapons"] = carried
    job.forces.setdefault("models", []).append(member)
    job.mapped.append(_said(member, carried))


def _shared_weapon(job: _Import, weapon: dict[str, Any]) -> str:
    """The id of ``weapon`` among the roster's weapons: one entry for one profile."""
    pool = job.forces.setdefault("weapons", [])
    for given in pool:
        if {k: v for k, v in given.items() if k != "id"} == {
            k: v for k, v in weapon.items() if k != "id"
        }:
            return str(given["id"])
    weapon["id"] = side_id(weapon["name"], {str(w["id"]) for w in pool})
    pool.append(weapon)
    return str(weapon["id"])


# --- walking the roster -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Game:
    """How one game's BattleScribe data maps: the catalogues it reads, its model profiles."""

    reads: Callable[[str], bool]
    expected: str
    model_kinds: tuple[str, ...]
    member: Callable[[_Import, Element, Profile, str], None]


GAMES = {
    "necromunda": _Game(
        reads=lambda n: "necromunda" in n.lower(),
        expected="a Necromunda roster",
        model_kinds=("model", "fighter"),
        member=_necromunda,
    ),
    "wh40k": _Game(
        reads=lambda n: "2nd" in n.lower() and "40" in n,
        expected="a Warhammer 40k 2nd Edition roster (later editions give WS as a roll, and "
        "no Initiative)",
        model_kinds=("unit", "walker / dread", "model"),
        member=_wh40k,
    ),
}


def _gear(job: _Import, selection: Element, model: Profile) -> Iterator[tuple[str, Profile]]:
    """Every profile the model carries: its own besides its characteristics, then those of its
    selections, however deep; a rule, or a selection without a profile, is said unmapped."""
    for p in _profiles(selection):
        if p != model:
            yield "profile", p
    yield from _carried(job, selection, _label(selection))


def _carried(job: _Import, selection: Element, owner: str) -> Iterator[tuple[str, Profile]]:
    for rule in _rules(selection):
        job.unmapped.append(f"{owner}: rule '{rule}' not mapped")
    for sub in _kids(selection, "selections", "selection"):
        found = _profiles(sub)
        if not found and not list(_kids(sub, "selections", "selection")):
            job.unmapped.append(f"{owner}: '{_label(sub)}' has no profile; not mapped")
        for p in found:
            yield "selection", p
        yield from _carried(job, sub, owner)


def _walk(job: _Import, game: _Game, selection: Element, where: str) -> bool:
    """Map ``selection`` (a model, or a unit holding models); True if anything in it mapped."""
    where = f"{where} selection '{_label(selection)}'"
    model = next((p for p in _profiles(selection) if p.kind.lower() in game.model_kinds), None)
    if model is not None:
        number = selection.get("number") or "1"
        count = whole_number(number) or 0
        if not 1 <= count <= MAX_ENTRIES - len(job.mapped):
            raise RosterError(
                f"{job.file}: {where} number={number!r}: expected 1 to {MAX_ENTRIES} models in all "
                "(a roster is a gang or an army)"
            )
        for _ in range(count):
            game.member(job, selection, model, f"{where} profile '{model.name}'")
        return True
    inside = [_walk(job, game, s, where) for s in _kids(selection, "selections", "selection")]
    if not any(inside):
        job.unmapped.append(
            f"'{_label(selection)}' ({selection.get('type') or 'selection'}): not a fighter or model; not mapped"
        )
    return any(inside)


def _said(member: dict[str, Any], weapons: list[str]) -> str:
    stats = " ".join(
        f"{k}={v}" for k, v in member.items() if k not in ("id", "name", "weapons", "skills")
    )
    carried = ", ".join(weapons) or "no weapon"
    return f"{member['name']} ({member['id']}): {stats}; {carried}"


def import_battlescribe(raw: bytes, name: str, ruleset: str, player: str) -> Imported:
    """A BattleScribe roster (``.ros`` or ``.rosz`` bytes; ``name`` names it in errors) as a
    roster of ``ruleset`` for ``player``."""
    system = get_game_system(ruleset)
    game = GAMES.get(system.game)
    if game is None:
        raise RosterError(
            f"{ruleset} has no BattleScribe data to import (docs/rosters.md): write its roster "
            "in the project's format"
        )
    root = _root(raw, name)
    made_by = root.get("gameSystemName") or ""
    if not game.reads(made_by):
        raise RosterError(f"{name}: <roster gameSystemName={made_by!r}>: expected {game.expected}")
    job = _Import(file=name)
    for force in _kids(root, "forces", "force"):
        where = f"force '{force.get('name') or '?'}'"
        for rule in _rules(force):
            job.unmapped.append(f"{where}: rule '{rule}' not mapped")
        for selection in _kids(force, "selections", "selection"):
            _walk(job, game, selection, where)
    if not job.mapped:
        raise RosterError(f"{name}: no fighter or model in it could be mapped onto {ruleset}")
    unmapped = tuple(dict.fromkeys(job.unmapped))  # a model taken five times, said once
    roster = Roster(
        ruleset=system.id,
        name=(root.get("name") or "").strip()[:200] or "BattleScribe roster",
        player=player or "player",
        forces=job.forces,
        notes=[f"not mapped: {line}"[:1000] for line in unmapped][:200],
    )
    try:
        roster = check_roster(system, roster)
    except RosterError as e:
        raise RosterError(f"{name}: {e}") from None
    return Imported(roster=roster, mapped=tuple(job.mapped), unmapped=unmapped)


__all__ = ["GAMES", "MAX_BYTES", "Imported", "import_battlescribe"]
