"""A table picks its two rosters from the event's register (``replay/rosters/register.py``:
rosters imported from the project's files or from BattleScribe) and which fighters, models or
units take part; the setup they make (``setup_data``, as ``bxb new --roster`` makes it) becomes
the table's setup being entered (``web/tablesetup.py``), to be completed on the form (who is
engaged with whom, the map) and confirmed by both sides."""

from __future__ import annotations

from typing import Any

import msgspec

from blowbyblow.domain.roster import RosterError, setup_data, shape_of
from blowbyblow.replay.rosters.register import RosterRegister
from blowbyblow.web.errors import ApiError
from blowbyblow.web.tablesetup import DraftSetup, PendingSetup, TableSetups, system_of


class Member(msgspec.Struct, frozen=True, kw_only=True):
    field: str  # the setup field it goes in ("fighters", "units")
    id: str
    name: str


class KeptRoster(msgspec.Struct, frozen=True, kw_only=True):
    player: str
    name: str
    ruleset: str
    version: int
    members: list[Member]
    notes: list[str]  # what an import could not map


class RosterPick(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    player: str
    name: str


class PickRosters(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The table's rosters, one per side; ``only``: the ids taking part (None: all)."""

    rosters: list[RosterPick]
    only: list[str] | None = None
    round: int = 1
    revision: int = 0  # the revision of the table's setup the phone saw


def _members(ruleset: str, forces: dict[str, list[dict[str, Any]]]) -> list[Member]:
    shape = shape_of(system_of(ruleset))
    return [
        Member(field=f, id=str(e.get("id", "")), name=str(e.get("name", "")))
        for f in shape.members
        for e in forces.get(f, [])
    ]


def event_rosters(spec: str | None, tournament: str) -> list[KeptRoster]:
    return [
        KeptRoster(
            player=k.player,
            name=k.name,
            ruleset=k.ruleset,
            version=k.version,
            members=_members(k.ruleset, msgspec.to_builtins(k.roster.forces)),
            notes=list(k.roster.notes),
        )
        for k in RosterRegister(spec).rosters(tournament)
    ]


def pick_rosters(
    setups: TableSetups, tournament: str, table: int, req: PickRosters, judge: bool = False
) -> PendingSetup:
    spec = setups.service.tournaments.spec
    register = RosterRegister(spec)
    try:
        kept = [register.get(tournament, r.player, r.name) for r in req.rosters]
    except RosterError as e:
        raise ApiError(404, "rosters", "rosters kept for this tournament", str(e)) from None
    rulesets = {k.ruleset for k in kept}
    if len(kept) < 2 or len(rulesets) != 1:
        raise ApiError(
            422, "rosters", "two rosters of one game system", f"given: {len(kept)} of {rulesets}"
        )
    ruleset = rulesets.pop()
    try:
        data = setup_data(system_of(ruleset), [k.roster for k in kept], req.only)
    except RosterError as e:
        raise ApiError(422, "rosters", "rosters that meet at one table", str(e)) from None
    draft = DraftSetup(
        ruleset=ruleset, setup=msgspec.to_builtins(data), round=req.round, revision=req.revision
    )
    return setups.save(tournament, table, draft, judge)


__all__ = ["KeptRoster", "PickRosters", "event_rosters", "pick_rosters"]
