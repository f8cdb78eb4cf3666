"""Disputes read back from a battle's log: its commands as played, each with its own events, and
what players and judges said about them (flags, rulings, notes), with the battle that supersedes
it when a judge has forked it. Pure folds over events: the fork (``replay/battles/fork.py``),
verification of a child's link (``replay/evidence/disputes.py``), ``bxb log`` and the pages all
read disputes here."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from blowbyblow.domain.core import CommandIssued, Event
from blowbyblow.domain.judging import (
    ANNOTATION_TYPES,
    BattleForked,
    BattleSealed,
    CommandFlagged,
    ContributionGiven,
    NoteAdded,
    RulingGiven,
    SeedEscrowed,
)
from blowbyblow.projections.battle import standing

# Events that are part of no command: a battle's start (a fair start's escrow and
# contributions, a child's link), the annotations, the seal.
_OUTSIDE_COMMANDS: tuple[type[Event], ...] = (
    *ANNOTATION_TYPES,
    BattleForked,
    BattleSealed,
    SeedEscrowed,
    ContributionGiven,
)


@dataclass(frozen=True)
class PlayedCommand:
    """A command that stands: its number, where its events stand in the log (``first`` is its
    ``CommandIssued``, ``last`` its last rule step), and those events in order."""

    index: int
    first: int
    last: int
    events: tuple[Event, ...]

    @property
    def issued(self) -> CommandIssued[object]:
        issued = self.events[0]
        assert isinstance(issued, CommandIssued)
        return issued


def commands_played(events: Sequence[Event]) -> list[PlayedCommand]:
    """The commands of ``events`` (a battle from position 1) that stand, in order: voided
    commands, voids, annotations and the start left out."""
    found: list[tuple[int, int, list[Event]]] = []
    inside = False
    for position, event in standing(events):
        if isinstance(event, CommandIssued):
            found.append((event.index, position, [event]))
            inside = True
        elif isinstance(event, _OUTSIDE_COMMANDS) or position == 1:
            inside = False
        elif inside:
            found[-1][2].append(event)
    return [
        PlayedCommand(index=index, first=first, last=first + len(evs) - 1, events=tuple(evs))
        for index, first, evs in found
    ]


def after_command(events: Sequence[Event], number: int, version: int) -> int | None:
    """The position right after command ``number`` stands played (``bxb at --command``): its
    last event; for 0, the position before the first command (the battle's ``version`` when it
    has none yet); None when no such command stands."""
    played = commands_played(events)
    if number == 0:
        return played[0].first - 1 if played else version
    return next((c.last for c in played if c.index == number), None)


def command_position(events: Sequence[Event], number: int) -> int:
    """Where command ``number`` (as ``bxb log`` numbers the commands that stand) is issued;
    ValueError when no such command stands."""
    played = commands_played(events)
    for command in played:
        if command.index == number:
            return command.first
    last = played[-1].index if played else 0
    raise ValueError(
        f"command: expected a command that stands, 1 to {last}, not {number}"
        if last
        else "command: the battle has no command yet"
    )


@dataclass
class Disputes:
    """What was said about a battle's commands, each with its position in the log."""

    flags: list[tuple[int, CommandFlagged]] = field(default_factory=list)
    rulings: list[tuple[int, RulingGiven]] = field(default_factory=list)
    notes: list[tuple[int, NoteAdded]] = field(default_factory=list)

    @property
    def open_flags(self) -> list[tuple[int, CommandFlagged]]:
        """The flags no ruling has answered since (a ruling about the same command, later)."""
        return [
            (at, flag)
            for at, flag in self.flags
            if not any(
                ruled > at and ruling.ruling.command == flag.index for ruled, ruling in self.rulings
            )
        ]

    @property
    def superseded_by(self) -> str | None:
        """The child battle a judge's ruling made this one give way to (None: it goes on)."""
        return superseding(ruling for _, ruling in reversed(self.rulings))

    def about(self, position: int) -> list[tuple[int, Event]]:
        """The flags, rulings and notes attached to the event at ``position`` (a flag and a
        ruling to their command's ``CommandIssued``, a note to its event)."""
        found: list[tuple[int, Event]] = []
        found += [(at, f) for at, f in self.flags if f.position == position]
        found += [(at, r) for at, r in self.rulings if r.ruling.command_position == position]
        found += [(at, n) for at, n in self.notes if n.note.position == position]
        return sorted(found, key=lambda pair: pair[0])


def superseding(rulings: Iterable[RulingGiven]) -> str | None:
    """The child battle a battle gives way to: the one the newest ruling naming a child names
    (``rulings`` newest first, taken only as far as that one: a reader may fetch them lazily);
    None when no ruling names one, and the battle goes on."""
    return next((r.ruling.child for r in rulings if r.ruling.child is not None), None)


def disputes_of(events: Sequence[Event]) -> Disputes:
    """The flags, rulings and notes of ``events`` (a battle from position 1)."""
    found = Disputes()
    for position, event in enumerate(events, start=1):
        if isinstance(event, CommandFlagged):
            found.flags.append((position, event))
        elif isinstance(event, RulingGiven):
            found.rulings.append((position, event))
        elif isinstance(event, NoteAdded):
            found.notes.append((position, event))
    return found


__all__ = [
    "Disputes",
    "PlayedCommand",
    "after_command",
    "command_position",
    "commands_played",
    "disputes_of",
    "superseding",
]
