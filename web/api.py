"""The JSON API: what ``bxb`` does, over HTTP. Request and response bodies are msgspec Structs
(``web/schemas.py``), so the OpenAPI document (``/schema/openapi.json``) is made from the same
types the handlers use. Each handler checks the token first (``web/access.py``), then runs the
store work in a worker thread (``web/service.py``) and publishes what it wrote to the pages
listening (``web/live.py``). A refusal is an ``ErrorBody`` naming the field and the rule. The
hot routes (a command and each typed die of it, the options before it) are served by a lane
below Litestar's request machinery (``@lane``, ``web/lane.py``): the same function, the same
bytes."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar
from uuid import UUID

from litestar import Request, Response, get, post
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, FromQuery, JSONBody, Parameter
from litestar.response import Stream

from blowbyblow.replay.battles.refusals import Refused
from blowbyblow.replay.odds.explore import DEFAULT_BUDGET, Odds
from blowbyblow.replay.store.log import BattleStore, StoreError
from blowbyblow.replay.store.persistence import CONNECTIONS
from blowbyblow.web import window
from blowbyblow.web.access import Access, Reading, describe
from blowbyblow.web.answers import Answer
from blowbyblow.web.catalog import rulesets
from blowbyblow.web.errors import ApiError
from blowbyblow.web.faults import answer, fault, unforeseen
from blowbyblow.web.lane import lane
from blowbyblow.web.live import Hub, Note
from blowbyblow.web.schemas import (
    BattleSummary,
    BulkResult,
    Contributions,
    ContributionsResult,
    Dashboard,
    DiffResult,
    ErrorBody,
    EventRow,
    ImportRequest,
    ImportResult,
    LegalOptions,
    PlayCommand,
    PlayResult,
    RulesetInfo,
    SealResult,
    StartBattle,
    StateAt,
    VerifyResult,
    VoidRequest,
    VoidResult,
    WhatIfRequest,
    WhatIfResult,
)
from blowbyblow.web.service import Service, ToWrite
from blowbyblow.web.table_parts import table_parts
from blowbyblow.web.tournament import TournamentError, TournamentStore

T = TypeVar("T")
AnyRequest = Request[Any, Any, Any]


@dataclass
class Server:
    """What every request shares: the service over the store, the live hub, the read rule."""

    service: Service
    hub: Hub
    reading: Reading = "open"

    @property
    def store(self) -> BattleStore:
        return self.service.store

    @property
    def tournaments(self) -> TournamentStore:
        return self.service.tournaments

    def access(self, request: AnyRequest) -> Access:
        return Access.of(request, self.tournaments, self.reading)

    def publish(self, note: Note) -> None:
        topics = [f"battle:{note.battle}"]
        if note.tournament:
            topics += [f"tournament:{note.tournament}", f"table:{note.tournament}:{note.table}"]
        self.hub.publish(topics, note)

    def heard(self, note: Note) -> None:
        """A note another server process published (``web/relay.py``): a run paused here at a
        version of that battle now written past is put aside at once (it could only be refused
        when it completes), and the battle's head kept here is read before a command is played
        on it (a phone's stale version is refused at once, as on one process, not asked its dice
        first). Every read checks the store's head anyway, and an append at a stale version is
        refused by the store: the record was right before; the phones' answers now are too."""
        if note.battle and note.version:
            self.service.door.written_past(UUID(note.battle), note.version)

    def note(self, kind: str, battle: UUID | str, version: int = 0) -> Note:
        place = self.tournaments.place_of(UUID(str(battle)))
        return Note(
            kind=kind,
            battle=str(battle),
            version=version,
            tournament=place.tournament if place else "",
            table=place.table if place else 0,
        )


def server(request: AnyRequest) -> Server:
    found = request.app.state.server
    assert isinstance(found, Server)
    return found


WORKERS = CONNECTIONS  # threads for store work at once (40: anyio's default, which this replaced),
# each with a connection of the store's pool when it needs one
_workers: list[ThreadPoolExecutor] = []


async def work(fn: Callable[..., T], *args: Any) -> T:
    """Store work is blocking (sqlite3, psycopg): run it in a worker thread, with the request's
    context (``replay/store/replica.py``'s freshness). The standard library's pool: anyio's
    ``to_thread`` cost the server's process about 76 us of CPU a hand-over against 52-57 us
    (its queue, limiter and cancel scope are Python), and nearly every request makes one (a
    typed die of a battle kept here is answered on the loop: ``_kept``) (issue 25).
    The answer comes back as one call on the event loop that settles an asyncio future, where
    ``run_in_executor`` chains the pool's future to a second one and copies its state across
    (a sixth of the event loop's work a request). Work not yet started when the request is
    cancelled is never started, as with ``run_in_executor``."""
    if not _workers:
        _workers.append(ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="bxb-work"))
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()

    def run() -> None:
        try:
            result = context.run(fn, *args)
        except BaseException as e:  # handed to the request, which raises it
            _answer(loop, done, None, e)
        else:
            _answer(loop, done, result, None)

    started = _workers[0].submit(run)
    try:
        return await done
    except asyncio.CancelledError:
        started.cancel()  # not started yet: never started
        raise


def _answer(
    loop: asyncio.AbstractEventLoop,
    done: asyncio.Future[T],
    result: T | None,
    error: BaseException | None,
) -> None:
    """From the worker thread: ``done`` settled on its event loop, unless that loop has closed
    (the server stopped meanwhile: nobody waits)."""
    try:
        loop.call_soon_threadsafe(_settle, done, result, error)
    except RuntimeError:  # the loop is closed
        if not loop.is_closed():
            raise


def _settle(done: asyncio.Future[T], result: T | None, error: BaseException | None) -> None:
    if done.cancelled():
        return
    if error is not None:
        done.set_exception(error)
    else:
        done.set_result(result)  # type: ignore[arg-type]


async def _battle(request: AnyRequest, ref: str) -> UUID:
    return await work(server(request).service.battle_id, ref)


async def read_battle(request: AnyRequest, ref: str, fn: Callable[..., T], *args: Any) -> T:
    """A read of one battle: the read rule, the battle ``ref`` names, then ``fn(battle,
    *args)``, all in one worker thread (each hand-over to a thread costs the event loop)."""
    srv = server(request)

    def run() -> T:
        srv.access(request).read()
        return fn(srv.service.battle_id(ref), *args)

    return await work(run)


# --- errors -----------------------------------------------------------------------------------


def refused(request: AnyRequest, exc: Exception) -> Response[ErrorBody]:
    """Every refusal (the door's, the server's own, a store that cannot be reached) as one
    ``ErrorBody``: the mapping to a status is ``web/errors.py``'s; anything else, unforeseen, a
    500 of the same shape (``web/faults.py``)."""
    return answer(fault(request, exc))


def validation_error(request: AnyRequest, exc: ValidationException) -> Response[ErrorBody]:
    """A body or parameter that does not fit the request's schema: the first field at fault."""
    extra = exc.extra if isinstance(exc.extra, list) else []
    first = extra[0] if extra and isinstance(extra[0], dict) else {}
    key = str(first.get("key") or "")
    message = str(first.get("message") or exc.detail)
    if key in ("", "data"):  # the body as a whole, or a parameter missing: the message names it
        named = (
            re.search(r"unknown field `([^`]+)`", message)
            or re.search(r"missing required field `([^`]+)`", message)
            or re.search(r" - at `\$\.?([^`]*)`", message)
            or re.search(r"Missing required \w+ parameter '([^']+)'", message)
        )
        key = named.group(1) if named and named.group(1) else "body"
    return answer(ApiError(400, key, "the request schema (/schema/openapi.json)", message))


# What Litestar's own refusals are about, by status: a body it could not read as JSON or over the
# route's size, a method the route does not answer; else the path (no such route).
HTTP_FAULTS = {
    400: ("body", "a request body of JSON"),
    405: ("method", "a method the route takes"),
    413: ("body", "a request body within the route's size limit"),
}


def http_error(request: AnyRequest, exc: HTTPException) -> Response[ErrorBody]:
    field, rule = HTTP_FAULTS.get(exc.status_code, ("path", "a route of this server"))
    return answer(ApiError(exc.status_code, field, rule, str(exc.detail)))


EXCEPTION_HANDLERS: dict[Any, Any] = {
    500: unforeseen,
    ApiError: refused,
    Refused: refused,
    StoreError: refused,
    TournamentError: refused,
    ValidationException: validation_error,
    HTTPException: http_error,
}

# Every route may refuse: the OpenAPI document shows the refusal's body for each status.
REFUSALS = {
    code: ResponseSpec(data_container=ErrorBody, description=what, generate_examples=False)
    for code, what in (
        (400, "the body or a parameter does not fit its schema"),
        (401, "no token, or not one this server made"),
        (403, "the token may not do this"),
        (404, "no such battle, tournament, table or round"),
        (409, "the battle has moved on, is sealed, or cannot be read"),
        (422, "the rules, the game's schemas or the dice refuse it"),
        (503, "the store is not reachable; nothing was written, try again"),
    )
}

# --- reading ----------------------------------------------------------------------------------


@get("/api/rulesets", tags=["read"], responses=REFUSALS)
async def list_rulesets(request: AnyRequest) -> list[RulesetInfo]:
    """Every game system: its rulings (with citations), setup and command JSON Schemas."""
    server(request).access(request).read()
    return await work(rulesets)


@get("/api/battles", tags=["read"], responses=REFUSALS)
async def list_battles(request: AnyRequest) -> list[BattleSummary]:
    """Every battle in the store, oldest first, with its table and status."""
    srv = server(request)
    srv.access(request).read()

    def run() -> list[BattleSummary]:
        return [srv.service.summary(b.battle) for b in srv.service.reading().battles()]

    return await work(run)


@get("/api/battles/{battle:str}", tags=["read"], responses=REFUSALS)
async def battle_summary(request: AnyRequest, battle: FromPath[str]) -> BattleSummary:
    return await read_battle(request, battle, server(request).service.summary)


@get("/api/battles/{battle:str}/log", tags=["read"], responses=REFUSALS)
async def battle_log(
    request: AnyRequest,
    battle: FromPath[str],
    after: int = Parameter(default=0, ge=0, description="Only events after this position."),
) -> list[EventRow]:
    """The blow-by-blow log (``bxb log --json``): each step with its rule, citation, every
    modifier and number."""
    return await read_battle(request, battle, server(request).service.log, after)


@get("/api/battles/{battle:str}/at/{position:int}", tags=["read"], responses=REFUSALS)
async def battle_at(request: AnyRequest, battle: FromPath[str], position: FromPath[int]) -> StateAt:
    """The state right after ``position`` (``bxb at``), read from the store's snapshots and the
    event's own record, never the whole log (the viewer asks it at each step)."""
    service = server(request).service
    return await read_battle(request, battle, functools.partial(window.state, service), position)


@get("/api/battles/{battle:str}/state", tags=["read"], responses=REFUSALS)
async def battle_state(request: AnyRequest, battle: FromPath[str]) -> StateAt:
    """The state after the last event."""
    return await read_battle(request, battle, server(request).service.state_at, None)


@lane
@get("/api/battles/{battle:str}/legal", tags=["read"], responses=REFUSALS)
async def battle_legal(request: AnyRequest, battle: FromPath[str]) -> LegalOptions:
    """The commands the rules allow now, under the battle's rulings."""
    return await read_battle(request, battle, server(request).service.legal)


@get("/api/battles/{battle:str}/verify", tags=["read"], responses=REFUSALS)
async def battle_verify(request: AnyRequest, battle: FromPath[str]) -> VerifyResult:
    """Re-adjudicate every command from its recorded inputs (``bxb verify``); writes nothing."""
    return await read_battle(request, battle, server(request).service.verify)


# The viewer asks while a judge waits: exact whenever the graph fits `bxb odds`' own budget
# (the 2023 demo's charge, 282 runs, is exact and quicker than sampling it); past it, sampled
# with fewer samples than `bxb odds` (its intervals stated).
ODDS_BUDGET = DEFAULT_BUDGET
ODDS_SAMPLES = 1000


@get("/api/battles/{battle:str}/odds", tags=["read"], responses=REFUSALS)
async def battle_odds(  # noqa: PLR0913 - each a part of the request (path, query)
    request: AnyRequest,
    battle: FromPath[str],
    position: int = Parameter(ge=1, description="Any position of the recorded command."),
    budget: int = Parameter(
        default=ODDS_BUDGET, ge=1, le=5000, description="Runs before Monte Carlo takes over."
    ),
    samples: int = Parameter(
        default=ODDS_SAMPLES, ge=0, le=20000, description="Monte Carlo samples past the budget."
    ),
    first: bool = Parameter(
        default=False,
        description="A first answer: `samples` (at most 1,000) drawn at once, the exact odds not "
        "tried, by a worker of their own (the viewer asks it beside the full answer).",
    ),
) -> Odds:
    """The odds of a recorded command (``bxb odds --battle ID --position N --json``): each
    unit's status distribution, each side's loss, and each side's chance of an outcome at least
    as bad as what happened; exact, or Monte Carlo with 95% intervals, and which. Worked out by
    the odds desk's workers, kept per command, budget, samples and ``first``."""
    srv = server(request)
    srv.access(request).read()
    bid = await _battle(request, battle)
    return await work(srv.service.odds, bid, position, budget, samples, first)


@get("/api/diff", tags=["read"], responses=REFUSALS)
async def battles_diff(request: AnyRequest, a: FromQuery[str], b: FromQuery[str]) -> DiffResult:
    """The first position where two battles differ (``bxb diff``)."""
    server(request).access(request).read()
    ids = [await _battle(request, a), await _battle(request, b)]
    return await work(server(request).service.diff, *ids)


@get("/api/tournaments/{slug:str}", tags=["read"], responses=REFUSALS)
async def tournament_dashboard(request: AnyRequest, slug: FromPath[str]) -> Dashboard:
    """Every table of a tournament, its latest battle and its status."""
    server(request).access(request).read()
    return await work(server(request).service.dashboard, slug)


@post("/api/tournaments/{slug:str}/verify", tags=["read"], status_code=200, responses=REFUSALS)
async def tournament_verify(request: AnyRequest, slug: FromPath[str]) -> BulkResult:
    """Verify every battle of the tournament; writes nothing."""
    server(request).access(request).read()
    return await work(server(request).service.verify_all, slug)


# --- live -------------------------------------------------------------------------------------

SSE = "Server-sent events (text/event-stream), one a note, until the server stops"


@get(
    "/api/battles/{battle:str}/stream", tags=["live"], responses=REFUSALS, response_description=SSE
)
async def battle_stream(request: AnyRequest, battle: FromPath[str]) -> Stream:
    """Server-sent events: a note each time the battle is written to."""
    server(request).access(request).read()
    bid = await _battle(request, battle)
    return server(request).hub.stream(f"battle:{bid}", request.scope)


@get(
    "/api/tournaments/{slug:str}/stream",
    tags=["live"],
    responses=REFUSALS,
    response_description=SSE,
)
async def tournament_stream(request: AnyRequest, slug: FromPath[str]) -> Stream:
    """Server-sent events: a note each time any battle of the tournament is written to."""
    server(request).access(request).read()
    await work(server(request).tournaments.tournament, slug)
    return server(request).hub.stream(f"tournament:{slug}", request.scope)


@get(
    "/api/tournaments/{slug:str}/tables/{table:int}/stream",
    tags=["live"],
    responses=REFUSALS,
    response_description=SSE,
)
async def table_stream(request: AnyRequest, slug: FromPath[str], table: FromPath[int]) -> Stream:
    """Server-sent events: a note each time a battle at this table starts or is written to."""
    server(request).access(request).read()
    if table not in (await work(server(request).tournaments.tournament, slug)).tables:
        raise ApiError(404, "table", "a table of the tournament", f"no table {table} in {slug}")
    return server(request).hub.stream(f"table:{slug}:{table}", request.scope)


# --- a table's writes -------------------------------------------------------------------------


@post("/api/tournaments/{slug:str}/tables/{table:int}/battles", tags=["table"], responses=REFUSALS)
async def start_battle(
    request: AnyRequest, slug: FromPath[str], table: FromPath[int], data: JSONBody[StartBattle]
) -> BattleSummary:
    """Start a battle at a table (its token or the judge's): the game system's demo setup unless
    ``setup`` is given; with ``commands``, a whole scenario recorded at once (``bxb record``)."""
    srv = server(request)
    srv.access(request).table("starts a battle", slug, table)
    summary = await work(srv.service.start, slug, table, data)
    srv.publish(srv.note("started", summary.battle, summary.version))
    return summary


@lane
@post("/api/battles/{battle:str}/commands", tags=["table"], responses=REFUSALS)
async def play_command(
    request: AnyRequest, battle: FromPath[str], data: JSONBody[PlayCommand]
) -> Response[PlayResult]:
    """Play one command: 201 with its events when adjudicated and written (one transaction),
    the commands the rules allow next (``next``) and, asked with ``page``, the table page's
    parts; 200 with ``needs`` (nothing written) when the rules ask for dice or a choice first."""
    srv = server(request)
    here = _kept(srv, request, battle, data)
    if isinstance(here, PlayResult):  # the rules' question, or the command to review
        return Answer(here, status_code=200)

    def run() -> tuple[UUID, PlayResult]:  # one worker thread for the whole request
        if here is not None:  # adjudicated on the event loop: written here
            bid = here.done.head.id
            result = srv.service.write(here, data)
        else:
            bid = srv.service.battle_id(battle)
            srv.access(request).battle_at_table("plays a command", srv.tournaments.place_of(bid))
            result = srv.service.play(bid, data)
        if data.page and result.status == "played":  # the table page's: its parts, rendered
            try:
                view = srv.service.view(bid, result.version)
                result.page = table_parts(request.app.template_engine, result, view)
            except Exception as exc:  # written all the same: said so, the page loads again
                fault(request, exc)  # logged when unforeseen
        return bid, result

    bid, result = await work(run)
    if result.status == "played":
        srv.publish(srv.note("played", bid, result.version))
        return Answer(result, status_code=201)
    return Answer(result, status_code=200)


def _kept(
    srv: Server, request: AnyRequest, ref: str, data: PlayCommand
) -> PlayResult | ToWrite | None:
    """A command of typed or seeded dice taken on by its request on the event loop, with no
    hand-over to a worker thread and back (issue 25: each roll, each choice asked, is a
    request), when all it needs is kept in this process's memory: the battle's head, the
    table's place, the token. The rules' run goes on from where it asked (a few hundred
    microseconds for a typed die; a seeded command runs from one question to the next, or to
    its end: some 1.6 ms for the 2023 demo's charge, more for a bigger command, the loop held
    meanwhile); what it gives is the answer (the next question, or the command to review), or
    the command to write, which is the worker's. None: the worker's whole way
    (something to read, or fair dice, whose seed may have to be read)."""
    door = srv.service.door
    bid = door.kept_id(ref)
    kept = door.kept(bid) if bid is not None else None
    if bid is None or kept is None or kept.started.dice.mode not in ("physical", "seeded"):
        return None
    place = srv.tournaments.kept_place(bid)
    who = Access.kept(request, srv.tournaments, srv.reading) if place is not None else None
    if who is None:
        return None
    who.battle_at_table("plays a command", place)
    return srv.service.play_kept(kept, data)


@post("/api/battles/{battle:str}/contributions", tags=["table"], responses=REFUSALS)
async def give_contributions(
    request: AnyRequest, battle: FromPath[str], data: JSONBody[Contributions]
) -> ContributionsResult:
    """A fair battle's contributions (``{"contributions": {"SIDE": "VALUE"}}``): each side's own
    value, mixed with the committed secret seed; one per side, before the first command."""
    srv = server(request)
    bid = await _battle(request, battle)
    srv.access(request).battle_at_table(
        "gives a contribution", await work(srv.tournaments.place_of, bid)
    )
    result = await work(srv.service.contribute, bid, data)
    srv.publish(srv.note("contributed", bid, result.version))
    return result


@post("/api/battles/{battle:str}/void", tags=["table"], responses=REFUSALS)
async def void_command(
    request: AnyRequest, battle: FromPath[str], data: JSONBody[VoidRequest]
) -> VoidResult:
    """Void the last command that stands, with a reason (``bxb void``): a ``CommandVoided`` is
    written, nothing is deleted. The judge of the battle's tournament, or the table's own token
    while the battle is played (not once the table has ended it)."""
    srv = server(request)
    bid = await _battle(request, battle)
    # read now: another server process may have just ended the battle (then only a judge voids)
    place = await work(functools.partial(srv.tournaments.place_of, bid, fresh=True))
    who = srv.access(request).voider(place)
    result = await work(srv.service.void, bid, data, describe(who))
    srv.publish(srv.note("voided", bid, result.version))
    return result


@post("/api/battles/{battle:str}/finish", tags=["table"], status_code=200, responses=REFUSALS)
async def finish_battle(request: AnyRequest, battle: FromPath[str]) -> BattleSummary:
    """The table says the battle is over (the judge may then seal it)."""
    srv = server(request)
    bid = await _battle(request, battle)
    srv.access(request).battle_at_table(
        "finishes a battle", await work(srv.tournaments.place_of, bid)
    )
    summary = await work(srv.service.finish, bid)
    srv.publish(srv.note("finished", bid, summary.version))
    return summary


# --- the judges' ------------------------------------------------------------------------------


async def _judge(request: AnyRequest, action: str, battle: UUID) -> None:
    srv = server(request)
    place = await work(srv.tournaments.place_of, battle)
    srv.access(request).judge(action, place.tournament if place else None)


@post("/api/battles/{battle:str}/seal", tags=["judge"], responses=REFUSALS)
async def seal(request: AnyRequest, battle: FromPath[str]) -> SealResult:
    """Verify, then close the battle with the judges' signed checkpoint (``bxb seal``)."""
    srv = server(request)
    bid = await _battle(request, battle)
    await _judge(request, "seals", bid)
    result = await work(srv.service.seal, bid)
    srv.publish(srv.note("sealed", bid, result.position))
    return result


@get(
    "/api/battles/{battle:str}/export",
    tags=["judge"],
    media_type="application/x-ndjson",
    responses=REFUSALS,
)
async def export(request: AnyRequest, battle: FromPath[str]) -> Response[bytes]:
    """The battle as a self-contained JSON Lines record (``bxb export``)."""
    bid = await _battle(request, battle)
    await _judge(request, "exports", bid)
    data = await work(server(request).service.export, bid)
    return Response(
        data,
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{bid}.jsonl"'},
    )


@post("/api/battles/{battle:str}/whatif", tags=["judge"], status_code=200, responses=REFUSALS)
async def whatif(
    request: AnyRequest, battle: FromPath[str], data: JSONBody[WhatIfRequest]
) -> WhatIfResult:
    """Re-run with the same dice under other rulings (``bxb whatif``); ``save`` records it."""
    srv = server(request)
    bid = await _battle(request, battle)
    await _judge(request, "runs what-ifs", bid)
    result = await work(srv.service.whatif, bid, data)
    return result


@post("/api/import", tags=["judge"], responses=REFUSALS)
async def import_battle(request: AnyRequest, data: JSONBody[ImportRequest]) -> ImportResult:
    """Verify an export completely, then add it to the store (``bxb import``)."""
    srv = server(request)
    srv.access(request).judge("imports", None)
    return await work(srv.service.import_, data)


@post(
    "/api/tournaments/{slug:str}/seal-finished", tags=["judge"], status_code=200, responses=REFUSALS
)
async def seal_finished(request: AnyRequest, slug: FromPath[str]) -> BulkResult:
    """Seal every finished battle of the tournament."""
    srv = server(request)
    srv.access(request).judge("seals", slug)
    result = await work(srv.service.seal_finished, slug)
    for battle in result.done:
        srv.publish(srv.note("sealed", battle))
    return result


@get(
    "/api/tournaments/{slug:str}/rounds/{round_:int}/export",
    tags=["judge"],
    media_type="application/zip",
    responses=REFUSALS,
)
async def export_round(
    request: AnyRequest, slug: FromPath[str], round_: FromPath[int]
) -> Response[bytes]:
    """Every battle of a round, one export each, in a zip."""
    srv = server(request)
    srv.access(request).judge("exports", slug)
    data = await work(srv.service.export_round, slug, round_)
    return Response(
        data,
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{slug}-round{round_}.zip"'},
    )


ROUTES = [
    list_rulesets,
    list_battles,
    battle_summary,
    battle_log,
    battle_at,
    battle_state,
    battle_legal,
    battle_verify,
    battle_odds,
    battles_diff,
    tournament_dashboard,
    tournament_verify,
    battle_stream,
    tournament_stream,
    table_stream,
    start_battle,
    play_command,
    give_contributions,
    void_command,
    finish_battle,
    seal,
    export,
    whatif,
    import_battle,
    seal_finished,
    export_round,
]

__all__ = ["EXCEPTION_HANDLERS", "ROUTES", "Server", "read_battle", "server", "work"]
