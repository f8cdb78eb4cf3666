"""The organiser's and judge's dashboard at a glance: one row a table, with what a judge scans
for (a flag raised, a void, a verify failure, a battle finished and waiting for its seal, a
table gone quiet), sorted by what needs attention first. The dashboard page draws these rows
and fetches them again when any table writes (``templates/_glance.html``); it never reloads."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from blowbyblow.domain.core import ChoiceMade, DiceRolled, Event
from blowbyblow.replay.battles.refusals import Refused
from blowbyblow.replay.engine.narrate import narrate
from blowbyblow.web.errors import ApiError
from blowbyblow.web.service import Service

# What comes first: a verify failure, an open flag, a battle finished and not sealed, a void;
# then the tables playing, those not started, and the sealed ones.
RANKS = {
    "verify failed": 0,
    "flagged": 1,
    "finished": 2,
    "voided": 3,
    "playing": 4,
    "waiting": 5,
    "sealed": 6,
}


@dataclass
class GlanceRow:
    table: int
    status: str
    battle: str = ""
    ruleset: str = ""  # the game system's id: short enough for one line
    sides: list[str] = field(default_factory=list)
    label: str = ""
    last: str = ""  # the last thing that happened, in one line of narration
    last_at: str = ""  # when the last event was recorded (ISO 8601, UTC)
    commands: int = 0
    voided: int = 0
    # open flags: the command, the reason, and where the command is issued (the viewer's link)
    flags: list[tuple[int, str, int]] = field(default_factory=list)

    @property
    def needs(self) -> str:
        """The first thing about this table a judge should look at (a key of RANKS)."""
        if self.status in ("verify failed", "sealed", "waiting"):
            return self.status
        if self.flags:
            return "flagged"
        if self.status == "finished":
            return "finished"
        return "voided" if self.voided else self.status

    @property
    def rank(self) -> tuple[int, int]:
        return RANKS.get(self.needs, 4), self.table


def _last_line(system: Any, events: Sequence[Event]) -> str:
    """The last event that says what happened (a die or a choice is said by its rule's step)."""
    for event in reversed(events):
        if isinstance(event, DiceRolled | ChoiceMade):
            continue
        text = narrate(system, event).strip()
        if text:
            return text.splitlines()[0]
    return ""


def glance_row(service: Service, table: int, battle: UUID) -> GlanceRow:
    summary = service.summary(battle)
    row = GlanceRow(table=table, status=summary.status, battle=str(battle), label=summary.label)
    row.ruleset, row.commands, row.voided = summary.ruleset, summary.commands, summary.voided
    try:
        head = service.read(battle)
    except (ApiError, Refused):  # unreadable: the status says so (verify tells why)
        return row
    plain = head.plain
    row.sides = list(head.system.view(head.state).sides)
    row.last = _last_line(head.system, plain[-8:])
    row.last_at = head.events[-1].recorded_at if head.events else ""
    open_flags = head.disputes.open_flags
    row.flags = [(flag.index, flag.reason, flag.position) for _, flag in open_flags]
    return row


def glance(service: Service, slug: str) -> list[GlanceRow]:
    """Every table of tournament ``slug``, the one needing attention first."""
    board = service.dashboard(slug)
    rows = [
        glance_row(service, t.table, UUID(t.battle.battle))
        if t.battle is not None
        else GlanceRow(table=t.table, status=t.status)
        for t in board.tables
    ]
    return sorted(rows, key=lambda r: r.rank)


def ago(when: str, now: datetime.datetime | None = None) -> str:
    """How long since ``when`` (ISO 8601), in the fewest words: "40 s", "12 min", "2 h"."""
    if not when:
        return ""
    then = datetime.datetime.fromisoformat(when)
    if then.tzinfo is None:
        then = then.replace(tzinfo=datetime.UTC)
    seconds = int(((now or datetime.datetime.now(datetime.UTC)) - then).total_seconds())
    if seconds < 60:
        return f"{max(seconds, 0)} s"
    if seconds < 3600:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h"


__all__ = ["GlanceRow", "ago", "glance", "glance_row"]
