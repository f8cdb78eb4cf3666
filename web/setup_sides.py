"""Each side's part of a table's setup is its own: a phone takes a side (``claim``) and is given
a key for it, shown once and kept by that phone; from then on the side's fighters, models or
units (and its entry in the setup's list of sides, a Necromunda gang's) change only with that
key or a judge's token, and only that phone (or a judge) confirms for that side. Both phones of
a table share the table's token, so the token alone cannot tell them apart: the key does. A
side nobody has taken stays open to the table's token, as before (one phone passed between the
players). Built from the game system's ``RosterShape``: nothing here is written per game."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.web.errors import ApiError
from blowbyblow.web.forms import MAX_NAME
from blowbyblow.web.tournament import new_token, token_hash

SideName = Annotated[str, Meta(min_length=1, max_length=MAX_NAME)]


class ClaimSide(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    side: SideName


class SideClaim(msgspec.Struct, frozen=True, kw_only=True):
    """The key of a side taken: the phone that took it keeps it (it is not shown again)."""

    side: str
    key: str


def _side_of(entry: Any, field: str) -> str:
    return str(entry.get(field, "")) if isinstance(entry, dict) else ""


def _side_entry_id(entry: Any) -> str:
    return str(entry.get("id", "")) if isinstance(entry, dict) else str(entry)


def named_sides(system: AnyGameSystem, setup: dict[str, Any]) -> list[str]:
    """The sides a setup names so far, whole or not: its list of sides, then each member's."""
    shape = system.roster
    if shape is None:
        return []
    found: list[str] = []
    listed = setup.get(shape.sides, []) if shape.sides else []
    for entry in listed if isinstance(listed, list) else []:
        found.append(_side_entry_id(entry))
    for field in shape.members:
        entries = setup.get(field, [])
        for entry in entries if isinstance(entries, list) else []:
            found.append(_side_of(entry, shape.side_field))
    return list(dict.fromkeys(s for s in found if s))


def side_part(system: AnyGameSystem, setup: dict[str, Any], side: str) -> dict[str, Any]:
    """What of ``setup`` is ``side``'s own: its members in each member field, its entry in the
    list of sides."""
    shape = system.roster
    if shape is None:
        return {}
    part: dict[str, Any] = {}
    for field in shape.members:
        entries = setup.get(field, [])
        part[field] = [
            e
            for e in (entries if isinstance(entries, list) else [])
            if _side_of(e, shape.side_field) == side
        ]
    if shape.sides:
        listed = setup.get(shape.sides, [])
        part[shape.sides] = [
            e for e in (listed if isinstance(listed, list) else []) if _side_entry_id(e) == side
        ]
    return part


def claims(cur: Any, tournament: str, table: int) -> dict[str, str]:
    """The sides taken at a table: side -> the hash of its key."""
    rows = cur.run(
        "select side, hash from bxb_setup_claims where tournament = ? and table_number = ?",
        (tournament, table),
    )
    return {str(side): str(digest) for side, digest in rows}


def claim(cur: Any, tournament: str, table: int, side: str, judge: bool) -> SideClaim:
    """Take ``side`` for the phone asking; a side taken already is refused unless a judge gives
    it to a new phone (the old key stops working)."""
    taken = claims(cur, tournament, table)
    if side in taken and not judge:
        raise ApiError(
            409,
            "side",
            "one phone enters each side",
            f"{side!r} is already entered on another phone; a judge can give it to this one",
        )
    key = new_token()
    cur.run(
        "delete from bxb_setup_claims where tournament = ? and table_number = ? and side = ?",
        (tournament, table, side),
    )
    cur.run(
        "insert into bxb_setup_claims (tournament, table_number, side, hash) values (?, ?, ?, ?)",
        (tournament, table, side, token_hash(key)),
    )
    return SideClaim(side=side, key=key)


def holder(taken: dict[str, str], side: str, key: str) -> str:
    """The side whose key is given ('' for none given); a key that is not the side's: 403."""
    if not side and not key:
        return ""
    if side not in taken:
        raise ApiError(
            422, "side", "a side taken on this phone", f"{side!r} has not been taken: take it first"
        )
    if token_hash(key) != taken[side]:
        raise ApiError(
            403,
            "key",
            "each side is entered on the phone that took it",
            f"this is not {side!r}'s key: that side is entered on another phone",
        )
    return side


def check_parts(
    system: AnyGameSystem,
    before: dict[str, Any],
    after: dict[str, Any],
    taken: dict[str, str],
    mine: str,
) -> None:
    """Refuse a change to a taken side's part by anyone but its phone (``mine``)."""
    for side in taken:
        if side == mine:
            continue
        was, now = side_part(system, before, side), side_part(system, after, side)
        for field in now:
            if was[field] != now[field]:
                raise ApiError(
                    403,
                    f"setup.{field}",
                    "each side is entered on the phone that took it",
                    f"{field} of {side!r} are entered on that side's phone; nothing was written",
                )


def release(cur: Any, tournament: str, table: int) -> None:
    cur.run(
        "delete from bxb_setup_claims where tournament = ? and table_number = ?",
        (tournament, table),
    )


__all__ = [
    "ClaimSide",
    "SideClaim",
    "check_parts",
    "claim",
    "claims",
    "holder",
    "named_sides",
    "release",
    "side_part",
]
