"""A table's setup over HTTP: the form of each game system, the check of a field as it is
typed, and the pending setup both sides confirm (``web/tablesetup.py``); and the setup page
that draws the form (``templates/setup.html``, ``static/setup.js``)."""

from __future__ import annotations

from typing import Any

from litestar import get, post, put
from litestar.params import FromPath, JSONBody
from litestar.response import Template

from blowbyblow.replay.engine.registry import game_systems
from blowbyblow.web.api import REFUSALS, AnyRequest, server, work
from blowbyblow.web.forms import CheckSetup, SetupCheck, SetupForm, check_setup, setup_form
from blowbyblow.web.live import Note
from blowbyblow.web.pages import REFUSALS as PAGE_REFUSALS
from blowbyblow.web.pages import _page, _refused
from blowbyblow.web.setup_sides import ClaimSide, SideClaim
from blowbyblow.web.table_rosters import KeptRoster, PickRosters, event_rosters, pick_rosters
from blowbyblow.web.tablesetup import (
    ConfirmSetup,
    DraftSetup,
    PendingSetup,
    TableSetups,
    system_of,
)


@get("/api/rulesets/{ruleset:str}/form", tags=["read"], responses=REFUSALS)
async def form(request: AnyRequest, ruleset: FromPath[str]) -> SetupForm:
    """The setup form of a game system: its setup's JSON Schema and the lists its rules have."""
    return setup_form(system_of(ruleset, 404))


@post("/api/rulesets/{ruleset:str}/setup/check", tags=["read"], status_code=200, responses=REFUSALS)
async def check(
    request: AnyRequest, ruleset: FromPath[str], data: JSONBody[CheckSetup]
) -> SetupCheck:
    """Check a setup as `bxb play` would (nothing is written): the first error, and the error of
    the field just typed (``field``)."""
    system = system_of(ruleset, 404)
    return await work(check_setup, system, data)


def _setups(request: AnyRequest) -> TableSetups:
    return TableSetups(server(request).service)


def _tell(request: AnyRequest, slug: str, table: int, found: PendingSetup | None = None) -> None:
    """The other phone hears of every change to the setup on the table's live stream."""
    srv = server(request)
    if found is not None and found.battle is not None:
        srv.publish(srv.note("started", found.battle.battle, found.battle.version))
        return
    revision = found.draft.revision if found is not None and found.draft else 0
    srv.publish(Note(kind="setup", battle="", version=revision, tournament=slug, table=table))


@get("/api/tournaments/{slug:str}/tables/{table:int}/setup", tags=["table"], responses=REFUSALS)
async def pending(request: AnyRequest, slug: FromPath[str], table: FromPath[int]) -> PendingSetup:
    """The table's setup as entered so far, each side's force and who has confirmed."""
    server(request).access(request).read()
    return await work(_setups(request).pending, slug, table)


@put("/api/tournaments/{slug:str}/tables/{table:int}/setup", tags=["table"], responses=REFUSALS)
async def save(
    request: AnyRequest, slug: FromPath[str], table: FromPath[int], data: JSONBody[DraftSetup]
) -> PendingSetup:
    """Write a new revision of the table's setup (valid and whole; confirmations cleared)."""
    who = server(request).access(request).table("enters a setup", slug, table)
    found = await work(_setups(request).save, slug, table, data, who.is_judge)
    _tell(request, slug, table, found)
    return found


@post(
    "/api/tournaments/{slug:str}/tables/{table:int}/setup/claim",
    tags=["table"],
    status_code=200,
    responses=REFUSALS,
)
async def take_side(
    request: AnyRequest, slug: FromPath[str], table: FromPath[int], data: JSONBody[ClaimSide]
) -> SideClaim:
    """This phone enters one side: the key returned (shown once) lets it alone change that
    side's part and confirm for it; a side taken already: 409, unless a judge gives it anew."""
    who = server(request).access(request).table("takes a side", slug, table)
    found = await work(_setups(request).claim, slug, table, data, who.is_judge)
    _tell(request, slug, table)
    return found


@post(
    "/api/tournaments/{slug:str}/tables/{table:int}/setup/confirm",
    tags=["table"],
    status_code=200,
    responses=REFUSALS,
)
async def confirm(
    request: AnyRequest, slug: FromPath[str], table: FromPath[int], data: JSONBody[ConfirmSetup]
) -> PendingSetup:
    """One side agrees to the setup as it saw it; when every side has, the battle starts."""
    who = server(request).access(request).table("confirms a setup", slug, table)
    found = await work(_setups(request).confirm, slug, table, data, who.is_judge)
    _tell(request, slug, table, found)
    return found


@post(
    "/api/tournaments/{slug:str}/tables/{table:int}/setup/start",
    tags=["judge"],
    status_code=200,
    responses=REFUSALS,
)
async def judge_start(
    request: AnyRequest, slug: FromPath[str], table: FromPath[int]
) -> PendingSetup:
    """A judge starts the table's battle from its setup, confirmed or not."""
    srv = server(request)
    srv.access(request).judge("starts a table's battle", slug)
    found = await work(_setups(request).start, slug, table)
    assert found.battle is not None
    srv.publish(srv.note("started", found.battle.battle, found.battle.version))
    return found


@get("/api/tournaments/{slug:str}/rosters", tags=["read"], responses=REFUSALS)
async def rosters(request: AnyRequest, slug: FromPath[str]) -> list[KeptRoster]:
    """The rosters kept for the tournament, each with its members (`bxb roster list`)."""
    srv = server(request)
    srv.access(request).read()
    await work(srv.tournaments.tournament, slug)
    return await work(event_rosters, srv.tournaments.spec, slug)


@post(
    "/api/tournaments/{slug:str}/tables/{table:int}/setup/rosters",
    tags=["table"],
    status_code=200,
    responses=REFUSALS,
)
async def use_rosters(
    request: AnyRequest, slug: FromPath[str], table: FromPath[int], data: JSONBody[PickRosters]
) -> PendingSetup:
    """The table's setup from two rosters of the register (and who takes part), as a new
    revision to complete and confirm."""
    who = server(request).access(request).table("picks its rosters", slug, table)
    found = await work(pick_rosters, _setups(request), slug, table, data, who.is_judge)
    _tell(request, slug, table, found)
    return found


@get("/tournaments/{slug:str}/tables/{table:int}/setup", include_in_schema=False)
async def setup_page(request: AnyRequest, slug: FromPath[str], table: FromPath[int]) -> Template:
    srv = server(request)

    def run() -> dict[str, Any]:
        found = _setups(request).pending(slug, table)
        systems = [(s.id, s.title) for s in game_systems().values()]
        return {
            "tournament": srv.tournaments.tournament(slug),
            "table": table,
            "pending": found,
            "systems": systems,
            "fair_ok": bool(srv.service.escrow_keys()),
        }

    try:
        srv.access(request).read()
        data = await work(run)
    except PAGE_REFUSALS as e:
        return _refused(request, e)
    return _page(request, "setup.html", **data)


SETUP_ROUTES = [
    form,
    check,
    pending,
    save,
    take_side,
    confirm,
    judge_start,
    rosters,
    use_rosters,
    setup_page,
]

__all__ = ["SETUP_ROUTES"]
