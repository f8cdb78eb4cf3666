"""Necromunda gangs as Yaktribe's gang manager exports them (its JSON export of a gang:
``{"gang": {"gang_name", "gang_type", "gangers": [...]}}``), as the project's rosters.

Each ganger becomes a fighter: its name, and its characteristics as Yaktribe gives them (the
current ones, advances and lasting injuries already counted: M, WS, BS, S, T, W, I, A, Ld, Cl,
Wil, Int; ``ws = 3`` is WS 3+, as in the setup), and its skills. What the export cannot give is
named, one line each (``Imported.unmapped``), and kept in the roster's notes: each item of
equipment (the export lists its name and count, not its profile: a weapon's profile is added
with ``bxb roster edit`` or on the form), each lasting injury by name (its effect is already in
the figures), and each ganger whose status is not "Alive" (dead, in recovery, captured: left
out of the roster; an edit adds one back when it returns).

The file is hostile until read: at most 1 MiB of JSON, at most 200 gangers; anything wrong is
one ``RosterError`` naming the file and the ganger and field, and nothing is made."""

from __future__ import annotations

from typing import Any

import msgspec

from blowbyblow.domain.roster import (
    MAX_ENTRIES,
    MAX_TEXT,
    Roster,
    RosterError,
    check_roster,
    side_id,
)
from blowbyblow.replay.engine.numbers import whole_number
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.rosters.battlescribe import Imported

MAX_BYTES = 1024 * 1024
GAMES = ("necromunda-2023", "necromunda-legacy")
# Yaktribe's characteristic -> the setup's field (the setup calls Int "int", as the export does)
CHARACTERISTICS = ("m", "ws", "bs", "s", "t", "w", "i", "a", "ld", "cl", "wil", "int")
TARGETS = ("ws", "bs", "i", "ld", "cl", "wil", "int")  # "3" is 3+; "0" is "-" (none)
# Targets the close combat rules here never read: a "-" among them is left at the setup's
# default, said on a line; a "-" for one they read is refused (it cannot be played).
NOT_READ = ("bs", "ld", "wil", "int")


def is_yaktribe(raw: bytes) -> bool:
    """Whether ``raw`` looks like a Yaktribe gang export (a JSON object with a ``gang`` that
    lists ``gangers``), as opposed to a roster file of the project's own format."""
    try:
        data = msgspec.json.decode(raw[:MAX_BYTES])
    except msgspec.DecodeError:
        return False
    return isinstance(data, dict) and isinstance(data.get("gang"), dict) and "ruleset" not in data


def _text(value: Any, where: str, file: str) -> str:
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise RosterError(f"{file}: {where}: expected a text, not {type(value).__name__}")
    text = str(value).strip()
    if len(text) > MAX_TEXT:
        raise RosterError(f"{file}: {where}: {len(text)} characters; expected at most {MAX_TEXT}")
    return text


def _number(value: Any, where: str, file: str) -> int:
    """A characteristic as Yaktribe writes it: a whole number, or one in a text ("4")."""
    if isinstance(value, str) and whole_number(value, signed=True) is not None:
        value = whole_number(value, signed=True)
    if not isinstance(value, int) or isinstance(value, bool) or not -100 <= value <= 100:
        raise RosterError(f"{file}: {where}: {value!r} is not a characteristic (a whole number)")
    return value


def _list(value: Any, where: str, file: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > MAX_ENTRIES:
        raise RosterError(f"{file}: {where}: expected a list of at most {MAX_ENTRIES} entries")
    return value


def _fighter(
    ganger: dict[str, Any], at: str, file: str, ids: set[str], unmapped: list[str]
) -> dict[str, Any] | None:
    name = _text(ganger.get("name", ""), f"{at}.name", file) or at
    status = _text(ganger.get("status", "Alive"), f"{name}.status", file)
    if status.lower() != "alive":
        unmapped.append(f"{name}: status {status!r}: left out of the roster (not Alive)")
        return None
    fighter: dict[str, Any] = {"id": side_id(name, ids), "name": name}
    ids.add(fighter["id"])
    for key in CHARACTERISTICS:
        if key not in ganger:
            raise RosterError(f"{file}: {name}: no {key!r}: expected every characteristic")
        value = _number(ganger[key], f"{name}.{key}", file)
        if key in TARGETS and value == 0 and key in NOT_READ:
            unmapped.append(
                f"{name}: {key.upper()} '-' (0 in the export): left at the setup's default, "
                "which close combat does not read"
            )
            continue
        if key in TARGETS and value == 0:
            raise RosterError(
                f"{file}: {name}.{key}: '-' (0): this fighter has no {key.upper()}, which the "
                "close combat rules need; give it one in the export"
            )
        fighter[key] = value
    skills = [_text(s, f"{name}.skills", file) for s in _list(ganger.get("skills"), name, file)]
    if skills:
        fighter["skills"] = skills
    for item in _list(ganger.get("equipment"), f"{name}.equipment", file):
        label = _text(item.get("name", "") if isinstance(item, dict) else item, name, file)
        count = item.get("qty", "1") if isinstance(item, dict) else "1"
        times = f" x{count}" if str(count) not in ("1", "") else ""
        unmapped.append(
            f"{name}: {label!r}{times} (equipment): the export gives its name, not its profile"
        )
    for injury in _list(ganger.get("injuries"), f"{name}.injuries", file):
        label = _text(injury, f"{name}.injuries", file)
        unmapped.append(f"{name}: {label!r} (lasting injury): its effect is in the figures")
    return fighter


def import_yaktribe(raw: bytes, name: str, ruleset: str, player: str) -> Imported:
    """A Yaktribe gang export as a roster of ``ruleset`` (a Necromunda game system)."""
    if ruleset not in GAMES:
        raise RosterError(
            f"{name}: a Yaktribe gang is a Necromunda gang: --ruleset {' or '.join(GAMES)}, "
            f"not {ruleset}"
        )
    if len(raw) > MAX_BYTES:
        raise RosterError(f"{name}: larger than {MAX_BYTES // 2**20} MiB; expected a gang export")
    try:
        data = msgspec.json.decode(raw)
    except msgspec.DecodeError as e:
        raise RosterError(f"{name}: not JSON: {e}") from None
    gang = data.get("gang") if isinstance(data, dict) else None
    if not isinstance(gang, dict):
        raise RosterError(f'{name}: not a Yaktribe gang export: no "gang" object at the top')
    gangers = _list(gang.get("gangers"), "gang.gangers", name)
    title = _text(gang.get("gang_name", ""), "gang.gang_name", name) or "Yaktribe gang"
    ids: set[str] = set()
    unmapped: list[str] = []
    fighters: list[dict[str, Any]] = []
    for n, ganger in enumerate(gangers):
        if not isinstance(ganger, dict):
            raise RosterError(f"{name}: gang.gangers[{n}]: expected a ganger (an object)")
        found = _fighter(ganger, f"gang.gangers[{n}]", name, ids, unmapped)
        if found is not None:
            fighters.append(found)
    if not fighters:
        raise RosterError(f"{name}: no ganger of the gang is Alive: nothing to keep")
    kind = _text(gang.get("gang_type", ""), "gang.gang_type", name)
    notes = [f"Yaktribe gang {kind}".strip(), *unmapped][:MAX_ENTRIES]
    roster = Roster(
        ruleset=ruleset,
        name=title,
        player=player or "unknown",
        forces={"fighters": fighters},
        notes=notes,
    )
    try:
        kept = check_roster(get_game_system(ruleset), roster)
    except RosterError as e:
        raise RosterError(f"{name}: {e}") from None
    mapped = tuple(f"{f['name']}: fighter {f['id']}" for f in fighters)
    return Imported(roster=kept, mapped=mapped, unmapped=tuple(unmapped))


__all__ = ["import_yaktribe", "is_yaktribe"]
