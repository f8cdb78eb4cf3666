"""The JSON API of a dispute (docs/judging.md, Disputes; docs/web.md): a table flags a command
of its own battle; only a judge of the battle's tournament rules, notes and forks. Each write is
heard at once by the pages listening (a ``flagged``, ``ruled``, ``noted`` or ``forked`` note):
the dashboard shows the flag, and a fork sends the table's phone to the child."""

from __future__ import annotations

from uuid import UUID

from litestar import get, post
from litestar.params import FromPath, JSONBody, Parameter

from blowbyblow.web import disputes
from blowbyblow.web.access import describe
from blowbyblow.web.api import REFUSALS, AnyRequest, read_battle, server, work
from blowbyblow.web.dispute_schemas import (
    Annotation,
    CommandStep,
    DisputeResult,
    Family,
    FlagRequest,
    ForkRequest,
    ForkResult,
    NoteRequest,
    RulingRequest,
)


async def _judge(request: AnyRequest, battle: str, action: str) -> tuple[UUID, str]:
    """The battle, and the judge of its tournament who acts (403 for anyone else)."""
    srv = server(request)

    def run() -> tuple[UUID, str]:
        bid = srv.service.battle_id(battle)
        place = srv.tournaments.place_of(bid)
        who = srv.access(request).judge(action, place.tournament if place else None)
        return bid, describe(who)

    return await work(run)


@post("/api/battles/{battle:str}/flags", tags=["table"], responses=REFUSALS)
async def flag_command(
    request: AnyRequest, battle: FromPath[str], data: JSONBody[FlagRequest]
) -> DisputeResult:
    """Flag a command as disputed and call a judge (``bxb flag``): a ``CommandFlagged``, who
    flagged it the token's. The table's own token (or the judge's); nothing is undone."""
    srv = server(request)

    def run() -> DisputeResult:
        bid = srv.service.battle_id(battle)
        who = srv.access(request).battle_at_table("flags a command", srv.tournaments.place_of(bid))
        return disputes.flag(srv.service, bid, data, describe(who))

    result = await work(run)
    srv.publish(srv.note("flagged", result.battle, result.version))
    return result


@post("/api/battles/{battle:str}/rulings", tags=["judge"], responses=REFUSALS)
async def rule_command(
    request: AnyRequest, battle: FromPath[str], data: JSONBody[RulingRequest]
) -> DisputeResult:
    """A judge's ruling that a command stands as played (``bxb rule``), signed with the
    judges' key; it answers the command's open flags. To correct the command, fork."""
    srv = server(request)
    bid, who = await _judge(request, battle, "rules")
    result = await work(disputes.rule, srv.service, bid, data, who)
    srv.publish(srv.note("ruled", bid, result.version))
    return result


@post("/api/battles/{battle:str}/notes", tags=["judge"], responses=REFUSALS)
async def note_event(
    request: AnyRequest, battle: FromPath[str], data: JSONBody[NoteRequest]
) -> DisputeResult:
    """A judge's note on an event (``bxb note``), signed with the judges' key."""
    srv = server(request)
    bid, who = await _judge(request, battle, "notes")
    result = await work(disputes.note, srv.service, bid, data, who)
    srv.publish(srv.note("noted", bid, result.version))
    return result


@post("/api/battles/{battle:str}/fork", tags=["judge"], responses=REFUSALS)
async def fork_battle(
    request: AnyRequest, battle: FromPath[str], data: JSONBody[ForkRequest]
) -> ForkResult:
    """Rewind the battle to a position and go on in a child (``bxb fork``): the parent's later
    commands replayed with their recorded dice and choices under the change, until one no
    longer applies; the judge's ruling signed into the parent, which stays as it was; the
    table's battle becomes the child. ``preview``: the same worked out, nothing written."""
    srv = server(request)
    bid, who = await _judge(request, battle, "forks")
    result = await work(disputes.fork, srv.service, bid, data, who)
    if result.written:
        version = await work(srv.store.version, bid)
        srv.publish(srv.note("forked", bid, version))
        srv.publish(srv.note("forked", result.child, 0))
    return result


@get("/api/battles/{battle:str}/family", tags=["read"], responses=REFUSALS)
async def battle_family(request: AnyRequest, battle: FromPath[str]) -> Family:
    """The battles this one was forked or re-run from and those from it, each after its parent,
    and the one its table plays on in."""
    service = server(request).service
    return await read_battle(request, battle, lambda bid: disputes.family(service, bid))


@get("/api/battles/{battle:str}/step", tags=["read"], responses=REFUSALS)
async def command_step(
    request: AnyRequest,
    battle: FromPath[str],
    position: int | None = Parameter(
        default=None, ge=1, description="A position (default: the last)."
    ),
    command: int | None = Parameter(
        default=None, ge=0, description="Or a command's number, as the log numbers them."
    ),
) -> CommandStep:
    """Where a position stands among the commands, for stepping by command: the command it
    falls in and where that was issued, where the previous and the next command start."""
    service = server(request).service
    return await read_battle(
        request, battle, lambda bid: disputes.command_step(service, bid, position, command)
    )


@get("/api/battles/{battle:str}/annotations", tags=["read"], responses=REFUSALS)
async def battle_annotations(request: AnyRequest, battle: FromPath[str]) -> list[Annotation]:
    """Every flag, ruling and note of the battle, each with the position of the event it is
    about."""
    service = server(request).service
    return await read_battle(request, battle, lambda bid: disputes.annotations_of(service, bid))


DISPUTE_ROUTES = [
    flag_command,
    rule_command,
    note_event,
    fork_battle,
    battle_family,
    command_step,
    battle_annotations,
]

__all__ = ["DISPUTE_ROUTES"]
