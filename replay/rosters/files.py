"""Roster files in the project's own format: TOML or JSON, the same keys either way
(docs/rosters.md). A file that does not fit gets one error naming the key and what was expected."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any, Literal

import msgspec
import tomlkit

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.domain.roster import (
    Roster,
    RosterError,
    check_roster,
    roster_from_data,
    roster_to_data,
    without_defaults,
)
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.scenario import MAX_DEPTH, MAX_FILE_BYTES, check_values

Format = Literal["toml", "json"]
FORMATS: tuple[Format, ...] = ("toml", "json")


def format_of(name: str, raw: bytes) -> Format:
    """JSON for a ``.json`` name or a text that opens with ``{``; TOML otherwise."""
    if name.lower().endswith(".json") or raw.lstrip()[:1] == b"{":
        return "json"
    return "toml"


def _data(raw: bytes, name: str) -> dict[str, Any]:
    if len(raw) > MAX_FILE_BYTES:
        raise RosterError(
            f"{name}: larger than {MAX_FILE_BYTES // 1024} KiB; expected a roster file"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RosterError(
            f"{name}: not UTF-8 text (byte {e.start}); expected a TOML or JSON roster file"
        ) from None
    kind = format_of(name, raw)
    try:
        data = json.loads(text) if kind == "json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as e:
        raise RosterError(f"{name}: not valid {kind.upper()}: {e}") from None
    except RecursionError:
        raise RosterError(f"{name}: nested more than {MAX_DEPTH} levels deep") from None
    if not isinstance(data, dict):
        raise RosterError(f"{name}: expected a table of roster keys (ruleset, name, player, ...)")
    return data


def read_roster(raw: bytes, name: str = "roster") -> Roster:
    """A roster from a file's bytes (TOML or JSON), checked against its game system's setup
    types; ``name`` names the file in errors."""
    data = _data(raw, name)
    try:
        check_values(data, f"{name}: ")
        roster = roster_from_data(data)
        roster = check_roster(get_game_system(roster.ruleset), roster)
    except BlowByBlowError as e:
        raise RosterError(f"{name}: {e}") from None
    return roster


def load_roster(path: str | Path) -> Roster:
    p = Path(path)
    try:
        with p.open("rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise RosterError(f"{p}: cannot read: {e.strerror or e}") from None
    return read_roster(raw, str(p))


def write_roster(roster: Roster, kind: Format = "toml") -> str:
    """A roster's file text: what ``read_roster`` reads back to the same roster."""
    data = without_defaults(roster_to_data(roster))
    if kind == "json":
        return msgspec.json.format(msgspec.json.encode(data).decode()) + "\n"
    return tomlkit.dumps(data)


__all__ = ["FORMATS", "Format", "format_of", "load_roster", "read_roster", "write_roster"]
