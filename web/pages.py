"""The pages: server-rendered (Jinja templates in ``web/templates``), with a little hand-written
JavaScript (``web/static``) that plays commands through the JSON API and listens for server-sent
events. Every page has its own URL; the judge's viewer has one per position
(``/battles/ID/at/POSITION``), so a judge can send a link to the step in dispute."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import msgspec
from litestar import Request, Response, get
from litestar.params import FromPath, Parameter
from litestar.response import Redirect, Template

from blowbyblow.replay.battles.refusals import Refused
from blowbyblow.replay.engine.registry import game_systems
from blowbyblow.replay.store.log import StoreError
from blowbyblow.web import window
from blowbyblow.web.access import COOKIE, Access
from blowbyblow.web.api import server, work
from blowbyblow.web.disputes import goes_on_in, table_view
from blowbyblow.web.errors import ApiError
from blowbyblow.web.faults import fault, refusal_page
from blowbyblow.web.glance import ago, glance
from blowbyblow.web.guard import AFTER_PAINT, INLINE_STYLES
from blowbyblow.web.schemas import EventRow
from blowbyblow.web.tournament import TournamentError

AnyRequest = Request[Any, Any, Any]


def _json(value: Any) -> str:
    """Data for a page's script, safe inside <script type="application/json">."""
    return msgspec.json.encode(value).decode().replace("</", "<\\/")


def _who(access: Access) -> dict[str, Any]:
    p = access.principal
    if p is None:
        return {"role": "", "tournament": "", "table": None}
    return {"role": p.role, "tournament": p.tournament, "table": p.table}


def _page(request: AnyRequest, name: str, **context: Any) -> Template:
    access = server(request).access(request)
    return Template(template_name=name, context={"who": _who(access), "json": _json, **context})


# What a page says as a refusal (the same mapping as the API's: web/errors.py).
REFUSALS = (ApiError, Refused, StoreError, TournamentError)


def _refused(request: AnyRequest, exc: Exception) -> Template:
    # a page of no tournament: 404, as the API says it; anything unforeseen: 500, logged
    error = fault(request, exc)
    try:
        who = _who(server(request).access(request))
    except REFUSALS:  # the register is what failed: the page says the first refusal, unsigned
        who = None
    return refusal_page(request, error, who)


def last_write(rows: list[EventRow]) -> list[EventRow]:
    """The rows of the last thing written: the last command step by step, or, when it was a
    void, the voided command's rows (struck through) and the void; the start otherwise."""
    if not rows:
        return []
    last = rows[-1]
    if last.type == "CommandVoided":
        return [r for r in rows if r.voided_at == last.position] + [last]
    issued = [i for i, r in enumerate(rows) if r.type == "CommandIssued"]
    return rows[issued[-1] :] if issued else rows


@get("/", include_in_schema=False)
async def index(request: AnyRequest) -> Template:
    srv = server(request)
    try:
        srv.access(request).read()
    except REFUSALS as e:
        return _refused(request, e)

    def run() -> tuple[Any, Any]:
        return srv.tournaments.tournaments(), [
            srv.service.summary(b.battle) for b in srv.service.reading().battles()
        ]

    tournaments, battles = await work(run)
    return _page(request, "index.html", tournaments=tournaments, battles=battles)


@get("/join/{token:str}", include_in_schema=False)
async def join(request: AnyRequest, token: FromPath[str]) -> Response[Any]:
    """Where a table's QR code points: keep the token in a cookie, go to the table's page."""
    srv = server(request)
    who = await work(srv.tournaments.principal, token)
    if who is None:
        return _refused(
            request,
            ApiError(401, "token", "a token this server made", "this link's token is not valid"),
        )
    target = (
        f"/tournaments/{who.tournament}/tables/{who.table}"
        if who.table is not None
        else f"/tournaments/{who.tournament}"
    )
    response: Redirect = Redirect(path=target)
    response.set_cookie(COOKIE, token, httponly=True, samesite="strict", max_age=14 * 24 * 3600)
    return response


@get("/leave", include_in_schema=False)
async def leave(request: AnyRequest) -> Response[Any]:
    response: Redirect = Redirect(path="/")
    response.delete_cookie(COOKIE)
    return response


@get("/tournaments/{slug:str}", include_in_schema=False)
async def dashboard(request: AnyRequest, slug: FromPath[str]) -> Template:
    srv = server(request)
    try:
        srv.access(request).read()
        board = await work(srv.service.dashboard, slug)
        rows = await work(glance, srv.service, slug)
    except REFUSALS as e:
        return _refused(request, e)
    return _page(request, "dashboard.html", board=board, rows=rows, ago=ago, slug=slug)


def voided_dice(rows: list[EventRow], command: int) -> dict[str, list[int]]:
    """The physical dice of the latest void of ``command`` (the one to play next), by roll key:
    the table page offers them again, as `bxb play` does with Enter."""
    voids = [r.voided_at for r in rows if r.command == command and r.voided_at]
    if not voids:
        return {}
    return {
        str(r.event["key"]): list(r.event["values"])
        for r in rows
        if r.voided_at == max(voids) and r.command == command and r.type == "DiceRolled"
    }


@get("/tournaments/{slug:str}/tables/{table:int}", include_in_schema=False)
async def table_page(request: AnyRequest, slug: FromPath[str], table: FromPath[int]) -> Template:
    srv = server(request)

    def run() -> dict[str, Any]:
        tournament = srv.tournaments.tournament(slug)
        if table not in tournament.tables:
            raise ApiError(404, "table", "a table of the tournament", f"no table {table} in {slug}")
        placed = srv.tournaments.battles(slug, table)
        data: dict[str, Any] = {"tournament": tournament, "table": table, "battle": None}
        data["fair_ok"] = bool(srv.service.escrow_keys())
        if placed:
            # a battle a judge forked goes on in its child: the table plays there
            bid = goes_on_in(srv.service, placed[-1].battle)
            ended = placed[-1].finished if bid == placed[-1].battle else False
            data["battle"] = srv.service.summary(bid)
            data["state"] = srv.service.state_at(bid, None)
            data["log"] = srv.service.log(bid)
            data["last"] = last_write(data["log"])
            data["legal"] = srv.service.legal(bid)
            data["receipt"] = srv.service.receipt(bid)
            data["ended"] = ended  # the table said so: then only a judge voids
            next_command = data["battle"].last_command + 1
            data["again"] = voided_dice(data["log"], next_command)
            data["dispute"] = table_view(srv.service, bid)
        data["systems"] = [(s.id, s.title) for s in game_systems().values()]
        data["rounds"] = sorted({p.round for p in placed}) or [1]
        return data

    try:
        srv.access(request).read()
        data = await work(run)
    except REFUSALS as e:
        return _refused(request, e)
    return _page(request, "table.html", **data)


async def _viewer(request: AnyRequest, battle: str, position: int | None) -> Template:
    srv = server(request)

    def run() -> dict[str, Any]:
        bid: UUID = srv.service.battle_id(battle)
        shown = window.window(srv.service, bid, position)
        system = game_systems().get(shown.battle.ruleset)
        others = [b for b in srv.service.reading().battles() if b.battle != bid]
        return {
            "battle": shown.battle,
            "state": shown.state,
            "log": shown.rows,
            "current_at": shown.state.position,  # its row marked current in the page's HTML
            "odds_buttons": True,
            "inline_styles": INLINE_STYLES,
            "after_paint": AFTER_PAINT,
            "most_rows": window.MOST_ROWS,  # a fetch of rows gives at most so many (viewer.js)
            "first": shown.first,
            "last": shown.last,
            "rulings": [] if system is None else system.rulings,
            "versions": [
                s.id
                for s in game_systems().values()
                if system is not None and s.game == system.game
            ],
            "others": others,
        }

    try:
        srv.access(request).read()
        data = await work(run)
    except REFUSALS as e:
        return _refused(request, e)
    return _page(request, "viewer.html", **data)


@get("/battles/{battle:str}", include_in_schema=False)
async def viewer(request: AnyRequest, battle: FromPath[str]) -> Template:
    return await _viewer(request, battle, None)


@get("/battles/{battle:str}/at/{position:int}", include_in_schema=False)
async def viewer_at(
    request: AnyRequest, battle: FromPath[str], position: FromPath[int]
) -> Template:
    return await _viewer(request, battle, position)


@get("/battles/{battle:str}/at/{position:int}/state", include_in_schema=False)
async def state_fragment(
    request: AnyRequest, battle: FromPath[str], position: FromPath[int]
) -> Template:
    """The state panel alone, for the viewer stepping without a reload."""
    srv = server(request)
    try:
        srv.access(request).read()
        state = await work(
            window.state, srv.service, await work(srv.service.battle_id, battle), position
        )
    except REFUSALS as e:
        return _refused(request, e)
    return _page(request, "_state.html", state=state)


@get("/battles/{battle:str}/rows/{after:int}", include_in_schema=False)
async def rows_fragment(
    request: AnyRequest,
    battle: FromPath[str],
    after: FromPath[int],
    upto: int | None = Parameter(default=None, ge=0),
) -> Template:
    """The log's rows after a position (up to ``upto``; at most ``window.MOST_ROWS`` of them):
    for the viewer scrolling through a battle, or following it live."""
    srv = server(request)
    try:
        srv.access(request).read()
        bid = await work(srv.service.battle_id, battle)
        rows = await work(window.more_rows, srv.service, bid, max(0, after), upto)
    except REFUSALS as e:
        return _refused(request, e)
    return _page(request, "_rows.html", log=rows, odds_buttons=True)


PAGES = [
    index,
    join,
    leave,
    dashboard,
    table_page,
    viewer,
    viewer_at,
    state_fragment,
    rows_fragment,
]

__all__ = ["PAGES"]
