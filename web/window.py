"""The judge's viewer reads a window of a battle, never its whole log: the rows around a position,
the state there from the store's snapshots (as ``bxb at`` reads it), and the battle's summary
from the store's index, so a position of a battle of a million events opens as fast as one of
ten. The page carries few rows: ``BEFORE`` rows before its position and ``AFTER`` after it (near
the battle's end, as many rows, more of them before), so that the position's row is in sight in
the log's box without a script scrolling to it and the browser lays out and draws a score of
rows before it first paints; once it is shown, the page's script fetches a hundred rows before
and a hundred after (``viewer.js``), and the rows past either end as the judge scrolls
(``rows``: at most ``MOST_ROWS`` a request).

Reads only: the store's index row, its voids and snapshots, and the records in the window. A
battle whose read models cannot say (a log changed behind the store) is read whole through the
door, as before, so the viewer still opens it and verify can say what is wrong."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from uuid import UUID

from blowbyblow.domain.core import BattleStarted, BlowByBlowError, CommandIssued
from blowbyblow.replay.engine.codec import to_builtins
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.store.log import StoreError
from blowbyblow.web.errors import ApiError
from blowbyblow.web.rows import event_rows
from blowbyblow.web.schemas import BattleSummary, EventRow, StateAt, TablePlace, status_of

if TYPE_CHECKING:
    from blowbyblow.domain.system import AnyGameSystem
    from blowbyblow.projections.battle import VoidedCommand
    from blowbyblow.replay.store.readmodels import Reading
    from blowbyblow.web.service import Service

BEFORE = 5  # rows before the position on the viewer's page: its row in sight at the list's top
AFTER = 15  # rows after it: more than the log's box shows (its 70vh, on a 1440-pixel screen
# too); the rows after them are fetched once the page is shown, as the rows before are
MOST_ROWS = 500  # rows a request for more may ask for
_LOOK_BACK = 64  # positions read at first, back from a window's start, to find its command


@dataclass(frozen=True)
class Window:
    """What the viewer's page shows of a battle at a position."""

    battle: BattleSummary
    state: StateAt
    rows: list[EventRow]  # the window: ``first`` to ``last``
    first: int
    last: int


def position_in(at: int | None, of: int) -> int:
    """``at``, a position of a battle of ``of`` events (its last when None), or a 422."""
    position = of if at is None else at
    if not 1 <= position <= of:
        raise ApiError(
            422,
            "position",
            "a position of the battle",
            f"the battle has events 1 to {of}, not {position}",
        )
    return position


def span(position: int, of: int) -> tuple[int, int]:
    """The first and last positions of the page's rows: ``BEFORE`` before ``position`` and
    ``AFTER`` after it; near the battle's end, as many rows in all, more of them before (the
    page opened at the end shows what led to it; its script scrolls the log to its row)."""
    first = max(1, min(position - BEFORE, of - BEFORE - AFTER))
    return first, min(of, first + BEFORE + AFTER)


def command_at(service: Service, battle: UUID, position: int) -> int:
    """The number of the command ``position`` falls in (0: the battle's start, before any
    command): the last ``CommandIssued`` at or before it, found by the records' topics read
    backwards, a doubling stretch at a time."""
    records = service.reading().records
    upto, back = position, _LOOK_BACK
    while upto >= 1:
        gt = max(0, upto - back)
        found = [
            p
            for p, topic in records.topics(battle, gt, upto + 1)
            if topic.endswith("/CommandIssued")
        ]
        if found:
            issued = next(service.reading().logged(battle, gt=found[-1] - 1, lte=found[-1])).event
            assert isinstance(issued, CommandIssued)
            return issued.index
        upto, back = gt, back * 2
    return 0


def rows(
    service: Service,
    battle: UUID,
    system: AnyGameSystem,
    span: tuple[int, int],
    voided: list[VoidedCommand],
) -> list[EventRow]:
    """The rows of the events after ``span[0]`` up to ``span[1]``, each with its command and
    the void that leaves it out, as the whole log's rows have them."""
    after, upto = span
    logged = list(service.reading().logged(battle, gt=after, lte=upto))
    if not logged:
        return []
    command = (
        0 if isinstance(logged[0].event, CommandIssued) else command_at(service, battle, after)
    )
    return event_rows(system, logged, command=command, voided=voided)


def _summary(
    service: Service, battle: UUID, row: Any, started: BattleStarted[Any], head: Any
) -> BattleSummary:
    """The battle's summary from its index row, its first event and the state at its end (the
    commands the rules allow then): what ``Service.summary`` says, without a fair battle's
    contributions (the viewer shows none)."""
    place = service.tournaments.place_of(battle)
    system = get_game_system(row.ruleset)
    failed = row.verified == -row.version  # verify's verdict, kept in the index
    options = not row.sealed and bool(system.legal_commands(head, started.rulings))
    return BattleSummary(
        battle=str(battle),
        label=started.label,
        ruleset=system.id,
        title=system.title,
        version=row.version,
        commands=row.commands,
        dice=started.dice.mode,
        rulings=dict(started.rulings),
        status=status_of(
            sealed=row.sealed,
            failed=failed,
            finished=(place is not None and place.finished) or not options,
            commands=row.commands,
        ),
        place=None
        if place is None
        else TablePlace(tournament=place.tournament, table=place.table, round=place.round),
        origin=started.origin,
        last_command=row.commands,  # commands are numbered 1, 2, ... as they stand
        voided=row.voided,
    )


def _state_at(reading: Reading, row: EventRow) -> StateAt:
    system, state = reading.system, reading.state
    return StateAt(
        battle=str(reading.battle),
        position=reading.position,
        of=reading.of,
        event=row,
        view=system.view(state),
        text=system.describe_state(state),
        state=to_builtins(state),
    )


def window(service: Service, battle: UUID, at: int | None) -> Window:
    """The viewer's page of ``battle`` at ``at`` (its last event when None)."""
    store = service.reading()
    try:
        row, _ = store.models.current_row(battle)
        reading = store.state_at(battle, None)
        of = reading.of
        position = position_in(at, of)
        here = reading if position == of else store.state_at(battle, position)
        started = next(store.logged(battle, gt=0, lte=1)).event
        voided = store.records.voids(battle) if row.voided else []
    except (ValueError, BlowByBlowError, StopIteration) as e:
        if isinstance(e, StoreError | ApiError):
            raise
        return _whole(service, battle, at)
    if not isinstance(started, BattleStarted) or here.of != of:
        return _whole(service, battle, at)
    system = reading.system
    first, last = span(position, of)
    shown = rows(service, battle, system, (first - 1, last), voided)
    summary = _summary(service, battle, row, started, reading.state)
    state = _state_at(here, shown[position - first])
    return Window(battle=summary, state=state, rows=shown, first=first, last=last)


def _whole(service: Service, battle: UUID, at: int | None) -> Window:
    """The page read through the door from the whole log (the read models cannot say)."""
    head = service.read(battle)
    position = position_in(at, head.version)
    first, last = span(position, head.version)
    shown = service.log(battle)[first - 1 : last]
    return Window(
        battle=service.summary(battle),
        state=service.state_at(battle, position),
        rows=shown,
        first=first,
        last=last,
    )


def state(service: Service, battle: UUID, at: int) -> StateAt:
    """The state right after ``at`` and the row of the event there (the viewer stepping)."""
    store = service.reading()
    try:
        reading = store.state_at(battle, at)
    except ValueError:
        return service.state_at(battle, at)  # the door says what is wrong with the position
    voided = store.records.voids(battle) if reading.voided is not None else []
    shown = rows(service, battle, reading.system, (at - 1, at), voided)
    return _state_at(reading, shown[0])


def more_rows(service: Service, battle: UUID, after: int, upto: int | None) -> list[EventRow]:
    """The rows after ``after`` up to ``upto`` (at most ``MOST_ROWS`` of them): the viewer
    scrolling, or following a battle live."""
    store = service.reading()
    try:
        row, version = store.models.current_row(battle)
    except ValueError:
        return service.log(battle, after)[:MOST_ROWS]
    end = min(version, after + MOST_ROWS, version if upto is None else upto)
    if end <= after:
        return []
    voided = store.records.voids(battle) if row.voided else []
    return rows(service, battle, get_game_system(row.ruleset), (after, end), voided)


__all__ = [
    "AFTER",
    "BEFORE",
    "MOST_ROWS",
    "Window",
    "command_at",
    "more_rows",
    "position_in",
    "span",
    "state",
    "window",
]
