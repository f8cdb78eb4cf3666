"""A tournament's rosters on the web, between rounds: each roster as it stands and its history,
and its edits (a lasting injury, a fighter lost, a recruit) made as edits kept in the register's
history (``RosterRegister.edit``, as ``bxb roster edit`` makes them), never retyped.

Who edits: the judge token of the roster's tournament (the organiser's desk), and nobody else.
A table's token is refused (403): both players of a table share it, so it cannot tell whose
roster is whose, and a player must not edit the opponent's. No token: 401. An edit that leaves
the roster unfit for its game system is refused with the entry and field named (422), and
nothing is written."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import get, post
from litestar.params import FromPath, FromQuery, JSONBody
from litestar.response import Template
from msgspec import Meta

from blowbyblow.domain.roster import MAX_TEXT, Edit, RosterError, edit_words
from blowbyblow.replay.rosters.register import MAX_REASON, MAX_ROUND, Change, RosterRegister
from blowbyblow.web.api import REFUSALS, AnyRequest, server, work
from blowbyblow.web.errors import ApiError
from blowbyblow.web.pages import REFUSALS as PAGE_REFUSALS
from blowbyblow.web.pages import _page, _refused
from blowbyblow.web.table_rosters import KeptRoster, event_rosters

Text = Annotated[str, Meta(min_length=1, max_length=MAX_TEXT)]


class EditRoster(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Edits of one roster, kept as its next version: why, and after which round."""

    player: Text
    name: Text
    edits: Annotated[list[Edit], Meta(min_length=1, max_length=100)]
    reason: Annotated[str, Meta(max_length=MAX_REASON)] = ""
    round: Annotated[int, Meta(ge=0, le=MAX_ROUND)] | None = None


class RosterStep(msgspec.Struct, frozen=True, kw_only=True):
    version: int
    edits: list[str]  # each edit in a line ("set brak.ws = 5"); none: the import
    reason: str
    round: int | None
    made: str


class RosterAsKept(msgspec.Struct, frozen=True, kw_only=True):
    """A roster as it stands (its entries, as the setup types give them) and its history."""

    player: str
    name: str
    ruleset: str
    version: int
    forces: dict[str, list[dict[str, Any]]]
    history: list[RosterStep]


def _missing(e: RosterError) -> ApiError:
    return ApiError(404, "roster", "a roster kept for this tournament", str(e))


def roster_as_kept(spec: str | None, tournament: str, player: str, name: str) -> RosterAsKept:
    try:
        steps = RosterRegister(spec).history(tournament, player, name)
    except RosterError as e:
        raise _missing(e) from None
    last = steps[-1]
    return RosterAsKept(
        player=player,
        name=name,
        ruleset=last.roster.ruleset,
        version=last.version,
        forces=msgspec.to_builtins(last.roster.forces),
        history=[
            RosterStep(
                version=s.version,
                edits=[edit_words(e) for e in s.edits],
                reason=s.reason,
                round=s.round,
                made=s.made,
            )
            for s in steps
        ],
    )


def edit_roster(spec: str | None, tournament: str, req: EditRoster) -> RosterAsKept:
    register = RosterRegister(spec)
    register.get(tournament, req.player, req.name)  # a roster not kept: 404 below
    change = Change(edits=tuple(req.edits), reason=req.reason, round=req.round)
    try:
        register.edit(tournament, req.player, req.name, change)
    except RosterError as e:
        raise ApiError(
            422, "edits", "edits that leave the roster fit for its game", str(e)
        ) from None
    return roster_as_kept(spec, tournament, req.player, req.name)


@get("/api/tournaments/{slug:str}/rosters/kept", tags=["read"], responses=REFUSALS)
async def kept(
    request: AnyRequest, slug: FromPath[str], player: FromQuery[str], name: FromQuery[str]
) -> RosterAsKept:
    """One roster as it stands, and its history (``?player=P&name=N``)."""
    srv = server(request)
    srv.access(request).read()
    await work(srv.tournaments.tournament, slug)
    return await work(roster_as_kept, srv.tournaments.spec, slug, player, name)


@post(
    "/api/tournaments/{slug:str}/rosters/edits", tags=["judge"], status_code=200, responses=REFUSALS
)
async def edits(
    request: AnyRequest, slug: FromPath[str], data: JSONBody[EditRoster]
) -> RosterAsKept:
    """Edit a roster between rounds (the tournament's judge token only): one new version."""
    srv = server(request)
    srv.access(request).judge("edits a roster", slug)

    def run() -> RosterAsKept:
        srv.tournaments.tournament(slug)
        try:
            return edit_roster(srv.tournaments.spec, slug, data)
        except RosterError as e:
            raise _missing(e) from None

    return await work(run)


@get("/tournaments/{slug:str}/rosters", include_in_schema=False)
async def rosters_page(request: AnyRequest, slug: FromPath[str]) -> Template:
    srv = server(request)

    def run() -> dict[str, Any]:
        tournament = srv.tournaments.tournament(slug)
        return {"tournament": tournament, "rosters": event_rosters(srv.tournaments.spec, slug)}

    try:
        srv.access(request).read()
        data = await work(run)
    except PAGE_REFUSALS as e:
        return _refused(request, e)
    return _page(request, "rosters.html", **data)


ROSTER_ROUTES = [kept, edits, rosters_page]

__all__ = ["ROSTER_ROUTES", "EditRoster", "KeptRoster", "RosterAsKept"]
