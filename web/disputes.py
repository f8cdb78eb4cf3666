"""What the server does for a dispute, in plain synchronous calls (the API runs them in worker
threads): a table's flag, a judge's ruling, note and fork through the front door
(``Battle.disputes``), the table moved to the child a fork makes, and a battle's family.

Who flags or rules is the token's (``describe``); a ruling, note and fork are signed with the
judges' key this server holds (``bxb serve --key``), as ``bxb rule`` signs with the judge's.
Refusals are the door's (``Refused``) or ``ApiError``: one line, nothing written."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from blowbyblow.domain.core import CommandIssued, Event
from blowbyblow.domain.judging import (
    BattleForked,
    Change,
    ChoiceCorrected,
    CommandDropped,
    CommandFlagged,
    DieCorrected,
    NoteAdded,
    Rewound,
    RulingChanged,
    RulingGiven,
)
from blowbyblow.projections.disputes import command_position
from blowbyblow.replay.battles.disputes import Member
from blowbyblow.replay.battles.fork import Forked, ForkPreview, Judge
from blowbyblow.replay.engine.narrate import change_words, narrate
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.evidence.receipts import sign_receipt
from blowbyblow.replay.store.log import LoggedEvent
from blowbyblow.web.dispute_schemas import (
    Annotation,
    ChangeBody,
    CommandStep,
    DisputeResult,
    Family,
    FamilyMember,
    FlagRequest,
    ForkRequest,
    ForkResult,
    NoteRequest,
    RulingRequest,
)
from blowbyblow.web.errors import ApiError
from blowbyblow.web.rows import event_rows, plain_rows
from blowbyblow.web.schemas import TablePlace
from blowbyblow.web.service import Service
from blowbyblow.web.tournament import TableBattle
from blowbyblow.web.window import position_in


def _judge(service: Service, who: str) -> Judge:
    if service.key is None:
        raise ApiError(
            409,
            "key",
            "a judge's ruling, note and fork are signed with the judges' key",
            "this server has no signing key: start it with `bxb serve --key PATH`",
        )
    return Judge(who, service.key)


def _written(service: Service, battle: UUID, logged: LoggedEvent) -> DisputeResult:
    head = service.read(battle)
    row = event_rows(head.system, head.events[: logged.position])[-1]
    return DisputeResult(
        battle=str(battle),
        position=logged.position,
        version=head.version,
        row=row,
        receipt=None if service.key is None else sign_receipt(service.key, battle, logged),
    )


def flag(service: Service, battle: UUID, req: FlagRequest, by: str) -> DisputeResult:
    """A table's flag: command ``req.command`` disputed, by the token's table, for a reason."""
    reason = req.reason.strip()
    if req.by.strip() and reason:  # a name typed with it is what someone said: a note
        reason = f"{reason} (note: {req.by.strip()})"
    logged = service.door.disputes.flag(battle, command=req.command, by=by, reason=reason)
    return _written(service, battle, logged)


def rule(service: Service, battle: UUID, req: RulingRequest, by: str) -> DisputeResult:
    """A judge's signed ruling that command ``req.command`` stands as played."""
    logged = service.door.disputes.rule(
        battle, command=req.command, judge=_judge(service, by), reason=req.reason
    )
    return _written(service, battle, logged)


def note(service: Service, battle: UUID, req: NoteRequest, by: str) -> DisputeResult:
    """A judge's signed note on the event at ``req.position``."""
    logged = service.door.disputes.note(
        battle, position=req.position, text=req.text, judge=_judge(service, by)
    )
    return _written(service, battle, logged)


def change_of(body: ChangeBody) -> Change:
    """The request's change as the fork records it; what it lacks is named."""

    def need(name: str, given: object) -> None:
        if not given:
            raise ApiError(
                422,
                f"change.{name}",
                f"a {body.kind} change names its {name}",
                f"give the {name} of the {body.kind} change",
            )

    if body.kind == "die":
        need("key", body.key.strip())
        need("values", body.values)
        return DieCorrected(key=body.key.strip(), values=tuple(body.values))
    if body.kind == "choice":
        need("key", body.key.strip())
        need("answer", body.answer.strip())
        return ChoiceCorrected(key=body.key.strip(), answer=body.answer.strip())
    if body.kind == "void":
        need("command", body.command)
        return CommandDropped(index=body.command)
    if body.kind == "ruling":
        need("name", body.name.strip())
        need("value", body.value.strip())
        return RulingChanged(name=body.name.strip(), value=body.value.strip())
    return Rewound()


def fork(service: Service, battle: UUID, req: ForkRequest, by: str) -> ForkResult:
    """A judge rewinds ``battle`` and the table goes on in a child (or, ``req.preview``, sees
    what the fork would do, nothing written). Once written, the table's battle is the child."""
    door = service.door.disputes
    change = change_of(req.change)
    position = door.position(battle, at=req.position, before=req.before)
    system = service.read(battle).system
    done: ForkPreview | Forked
    if req.preview:
        done = door.preview(battle, position=position, change=change)
        commands, disputed = done.commands, done.disputed
    else:
        judge = _judge(service, by)
        done = door.fork(battle, position=position, change=change, judge=judge, reason=req.reason)
        commands, disputed = [e.event for e in done.events[2:]], _disputed(done.ruling)
    first = _after_kept(commands, done.kept)  # the child's replayed commands start there
    placed = None if req.preview else service.tournaments.place_child(battle, done.child)
    return ForkResult(
        parent=str(battle),
        child=str(done.child),
        written=not req.preview,
        position=position,
        change=change_words(change),
        kept=done.kept,
        replayed=done.replayed,
        stopped=done.stopped,
        disputed=disputed,
        rows=plain_rows(system, commands[first:], first=3 + first),
        state=system.describe_state(done.state),
        place=_place(placed),
    )


def _disputed(ruling: LoggedEvent | None) -> int:
    event = None if ruling is None else ruling.event
    return event.ruling.command if isinstance(event, RulingGiven) else 0


def _after_kept(commands: Sequence[Event], kept: int) -> int:
    """How many of a child's command events (after its start and link) the first ``kept``
    commands hold: the replayed commands start there."""
    seen = 0
    for n, event in enumerate(commands):
        if isinstance(event, CommandIssued):
            seen += 1
            if seen > kept:
                return n
    return len(commands)


def _place(placed: TableBattle | None) -> TablePlace | None:
    if placed is None:
        return None
    return TablePlace(tournament=placed.tournament, table=placed.table, round=placed.round)


def goes_on_in(service: Service, battle: UUID) -> UUID:
    """The battle the table of ``battle`` plays on in: the child a judge forked it into (and
    so on); each child is placed at the table if a fork stopped before it placed it (or was
    made with ``bxb fork`` on the server's database)."""
    chain = service.door.disputes.chain(battle)
    if len(chain) > 1 and service.tournaments.place_of(battle) is not None:
        for parent, child in itertools.pairwise(chain):
            if service.tournaments.place_of(child) is None:
                service.tournaments.place_child(parent, child)
    return chain[-1]


def table_view(service: Service, battle: UUID) -> dict[str, Any]:
    """What the table page shows of disputes: the open flags (command, by, reason) and, for a
    battle a judge forked, how it was forked (from which battle, where, what changed, why)."""
    head = service.read(battle)
    flags = [(f.index, f.position, f.by, f.reason) for _, f in head.disputes.open_flags]
    events = head.plain
    link = events[1].link if len(events) > 1 and isinstance(events[1], BattleForked) else None
    return {
        "open_flags": flags,
        "link": None
        if link is None
        else {
            "parent": link.parent,
            "position": link.position,
            "change": change_words(link.change),
            "judge": link.judge,
            "reason": link.reason,
            "replayed": link.replayed,
            "stopped": link.stopped,
        },
    }


# --- the viewer: steps by command, and what was said about each event ----------------------

_LOOK = 64  # positions whose topics are read at first when looking for a command's start


def _issued(service: Service, battle: UUID, after: int, upto: int) -> list[int]:
    """The positions after ``after`` up to ``upto`` where a command is issued (by the records'
    topics: nothing decoded)."""
    topics = service.store.records.topics(battle, after, upto + 1)
    return [p for p, topic in topics if topic.endswith("/CommandIssued")]


def _issued_before(service: Service, battle: UUID, upto: int) -> int:
    """The last command's start at or before ``upto`` (0: none), a doubling stretch at a time."""
    back = _LOOK
    while upto >= 1:
        after = max(0, upto - back)
        found = _issued(service, battle, after, upto)
        if found:
            return found[-1]
        upto, back = after, back * 2
    return 0


def _issued_after(service: Service, battle: UUID, after: int, of: int) -> int | None:
    """The first command's start after ``after`` (None: none)."""
    step = _LOOK
    while after < of:
        upto = min(of, after + step)
        found = _issued(service, battle, after, upto)
        if found:
            return found[0]
        after, step = upto, step * 2
    return None


def command_step(
    service: Service, battle: UUID, position: int | None, command: int | None
) -> CommandStep:
    """Where ``position`` (or the start of command ``command``, as the log numbers the
    commands that stand) stands among the commands: read from the records' topics, never the
    whole log (but for ``command``, whose number counts the commands that stand)."""
    of = service.store.version(battle)
    if command is not None:
        try:
            position = command_position(service.read(battle).plain, command) if command else 1
        except ValueError as e:
            raise ApiError(422, "command", "a command that stands", str(e)) from None
    at = position_in(position, of)
    issued = _issued_before(service, battle, at)
    number = 0
    if issued:
        event = next(service.store.logged(battle, gt=issued - 1, lte=issued)).event
        number = event.index if isinstance(event, CommandIssued) else 0
    if issued and at > issued:
        previous: int | None = issued
    else:
        before = _issued_before(service, battle, issued - 1) if issued > 1 else 0
        previous = before or (1 if at > 1 else None)
    return CommandStep(
        position=at,
        of=of,
        command=number,
        issued=issued,
        previous=previous,
        next=_issued_after(service, battle, at, of),
    )


def annotations_of(service: Service, battle: UUID) -> list[Annotation]:
    """Every flag, ruling and note of ``battle``, each with the event it is about: found by
    the records' topics (those after the version looked at last: ``DisputeDoor.said_at``), only
    they are read."""
    store = service.store
    out: list[Annotation] = []
    for position in service.door.disputes.said_at(battle, store.version(battle)):
        logged = next(store.logged(battle, gt=position - 1, lte=position))
        event = logged.event
        about = (
            event.position
            if isinstance(event, CommandFlagged)
            else event.note.position
            if isinstance(event, NoteAdded)
            else event.ruling.command_position
            if isinstance(event, RulingGiven)
            else 0
        )
        text = narrate(get_game_system(logged.ruleset), event).strip()
        out.append(Annotation(position=position, about=about, type=type(event).__name__, text=text))
    return out


def _how(member: Member) -> str:
    link = member.link
    if link is not None:
        return (
            f"forked at position {link.position} ({change_words(link.change)}) by {link.judge}: "
            f"{link.reason}; {link.replayed} command(s) replayed"
            + (f", then stopped: {link.stopped}" if link.stopped else "")
        )
    if member.parent is not None:
        rulings = ", ".join(f"{k}={v}" for k, v in sorted(member.rulings.items()))
        return f"a what-if re-run under {rulings or 'the same rulings'}"
    return "the battle as first played"


def family(service: Service, battle: UUID) -> Family:
    """``battle``'s family: the root first, each battle after its parent."""
    members = service.door.disputes.family(battle)
    depth: dict[UUID | None, int] = {None: -1}
    shown: list[FamilyMember] = []
    for m in members:
        depth[m.battle] = depth.get(m.parent, -1) + 1
        shown.append(
            FamilyMember(
                battle=str(m.battle),
                label=m.label,
                parent=None if m.parent is None else str(m.parent),
                how=_how(m),
                superseded_by=None if m.superseded_by is None else str(m.superseded_by),
                version=m.version,
                depth=depth[m.battle],
            )
        )
    return Family(
        battle=str(battle),
        goes_on_in=str(service.door.disputes.chain(battle)[-1]),
        members=shown,
    )


__all__ = [
    "annotations_of",
    "change_of",
    "command_step",
    "family",
    "flag",
    "fork",
    "goes_on_in",
    "note",
    "rule",
    "table_view",
]
