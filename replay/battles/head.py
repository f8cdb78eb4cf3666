"""A battle at its head: what a front end needs to take the next command, never changed once made.

``BattleHead`` is the battle as read at one version: its events, game system and first event, and
what is worked out from them once (the events that stand, the state after the last one, the
commands the rules allow then). A battle that grows is a new ``BattleHead`` (``grown``), so the
requests of every server thread may share one. ``Heads`` keeps each battle's latest head, the
least recently used dropped first."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from blowbyblow.domain.core import BattleStarted, CommandIssued, CommandVoided, Event
from blowbyblow.domain.judging import BattleSealed, CommandFlagged, NoteAdded, RulingGiven
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.projections.battle import fold, fold_battle, standing, voided_commands
from blowbyblow.projections.disputes import Disputes, disputes_of
from blowbyblow.replay.store.log import LoggedEvent

HEADS_KEPT = 2048  # battles kept in memory at their head: the biggest events have 400 tables
WHOLE_READS = 64  # whole reads of different battles at once (each battle one at a time)


@dataclass(frozen=True, eq=False)
class BattleHead:
    """A battle as read at one version. Immutable: share it freely."""

    id: UUID
    events: tuple[LoggedEvent, ...]
    system: AnyGameSystem
    started: BattleStarted[Any]
    # The state after the last event, when the command that made it is known (else folded).
    known_state: Any = field(default=None, repr=False)

    @property
    def version(self) -> int:
        return len(self.events)

    @property
    def sealed(self) -> bool:
        return isinstance(self.events[-1].event, BattleSealed)

    @functools.cached_property
    def plain(self) -> list[Event]:
        return [e.event for e in self.events]

    @functools.cached_property
    def state(self) -> Any:
        """The state after the last event."""
        if self.known_state is not None:
            return self.known_state
        return fold_battle(self.system, self.plain)

    @functools.cached_property
    def played(self) -> list[tuple[int, Event]]:
        """The events that stand (a voided command's are left out), with their positions."""
        return standing(self.plain)

    @functools.cached_property
    def commands(self) -> int:
        """The commands that stand: the next command's number less one."""
        return sum(1 for _, e in self.played if isinstance(e, CommandIssued))

    @functools.cached_property
    def last_command(self) -> tuple[int, int] | None:
        """The last command that stands (the one a void may name): its number and position."""
        issued = [(e.index, at) for at, e in self.played if isinstance(e, CommandIssued)]
        return issued[-1] if issued else None

    @functools.cached_property
    def disputes(self) -> Disputes:
        """Its flags, rulings and notes, and the child that supersedes it (if a judge forked it)."""
        return disputes_of(self.plain)

    @functools.cached_property
    def voided(self) -> int:
        """How many commands are voided."""
        return len(voided_commands(self.plain))

    @functools.cached_property
    def rulings(self) -> dict[str, str]:
        """The rulings commands are adjudicated under: those recorded, read as the version the
        battle was started under reads them (as verify does)."""
        return dict(
            self.system.rulings_in_force(self.started.ruleset_version, self.started.rulings)
        )

    @functools.cached_property
    def options(self) -> list[Any]:
        """The commands the rules allow after the last event (none once sealed)."""
        if self.sealed:
            return []
        return list(self.system.legal_commands(self.state, self.started.rulings))

    @functools.cached_property
    def built(self) -> dict[tuple[int, tuple[tuple[str, str], ...]], Any]:
        """Commands a front end built from ``options``, by option index and picks, for the
        requests that send the same option again (a table typing its dice sends it with each
        roll: issue 25). Never carried to a grown head: its options are its own."""
        return {}

    def grown(self, logged: Sequence[LoggedEvent], state: Any = None) -> BattleHead:
        """This battle with ``logged`` written after its last event; ``state``: the state after
        them when known, else folded from this one's when none of them voids a command."""
        plain = [e.event for e in logged]
        voids = any(isinstance(e, CommandVoided) for e in plain)
        if state is None and "state" in self.__dict__ and not voids:
            state = fold(self.system, self.state, plain)
        head = BattleHead(
            id=self.id,
            events=(*self.events, *logged),
            system=self.system,
            started=self.started,
            known_state=state,
        )
        self._carry(head, plain, voids)
        return head

    def _carry(self, head: BattleHead, plain: list[Event], voids: bool) -> None:
        """What this head worked out, carried on to ``head`` (it + ``plain``) where the new
        events cannot change it, rather than worked out again over the whole log: a command
        written costs what it wrote, not what the battle holds (issue 25). A void changes which
        events stand; a flag, ruling or note the disputes: those are worked out again."""
        known = self.__dict__
        carried = head.__dict__  # what functools.cached_property reads first
        if "plain" in known:
            carried["plain"] = [*self.plain, *plain]
        if "rulings" in known:
            carried["rulings"] = self.rulings
        said = any(isinstance(e, (CommandFlagged, RulingGiven, NoteAdded)) for e in plain)
        if "disputes" in known and not said:
            carried["disputes"] = self.disputes
        if voids:
            return
        if "voided" in known:
            carried["voided"] = self.voided
        if "played" in known:  # a new event is never of a command voided before it
            carried["played"] = [*self.played, *enumerate(plain, start=self.version + 1)]
        issued = [
            (e.index, at)
            for at, e in enumerate(plain, start=self.version + 1)
            if isinstance(e, CommandIssued)
        ]
        if "commands" in known:
            carried["commands"] = self.commands + len(issued)
        if issued:
            carried["last_command"] = issued[-1]
        elif "last_command" in known:
            carried["last_command"] = self.last_command


class Heads:
    """Each battle's latest head as this process saw it, shared by every thread."""

    def __init__(self, kept: int = HEADS_KEPT) -> None:
        self._kept = kept
        self._heads: OrderedDict[UUID, BattleHead] = OrderedDict()
        # A kept head another server process has written past (its note heard): the version
        # written, until a head that far is kept. Only battles kept here have one.
        self._past: dict[UUID, int] = {}
        self._lock = threading.Lock()
        self._whole = [threading.Lock() for _ in range(WHOLE_READS)]

    def whole(self, battle: UUID) -> threading.Lock:
        """Held while ``battle``'s whole log is read (``Battle.read``): one such read of a battle
        at a time (battles share these locks in turn: a few first reads wait on another's)."""
        return self._whole[battle.int % len(self._whole)]

    def get(self, battle: UUID) -> BattleHead | None:
        with self._lock:
            head = self._heads.get(battle)
            if head is not None:
                self._heads.move_to_end(battle)
            return head

    def unread(self, battle: UUID) -> BattleHead | None:
        """The head kept, to be taken as it stands unread; None if another process has written
        past it (``written_past``): the battle is to be read."""
        with self._lock:
            head = self._heads.get(battle)
            if head is None or self._past.get(battle, 0) > head.version:
                return None
            self._heads.move_to_end(battle)
            return head

    def written_past(self, battle: UUID, version: int) -> None:
        """Another process wrote the battle up to ``version`` (its note heard): a head kept
        here before that is not taken unread any more (``unread``), only grown by a read."""
        with self._lock:
            head = self._heads.get(battle)
            if head is not None and head.version < version:
                self._past[battle] = max(version, self._past.get(battle, 0))

    def keep(self, head: BattleHead) -> BattleHead:
        """Keep ``head``, unless a later one is kept already; ``head`` is returned."""
        with self._lock:
            kept = self._heads.get(head.id)
            if kept is None or kept.version <= head.version:
                self._heads[head.id] = head
                if self._past.get(head.id, 0) <= head.version:
                    self._past.pop(head.id, None)
            self._heads.move_to_end(head.id)
            while len(self._heads) > self._kept:
                gone, _ = self._heads.popitem(last=False)
                self._past.pop(gone, None)
        return head

    def forget(self, battle: UUID) -> None:
        with self._lock:
            self._heads.pop(battle, None)
            self._past.pop(battle, None)

    def __contains__(self, battle: UUID) -> bool:
        with self._lock:
            return battle in self._heads


__all__ = ["HEADS_KEPT", "BattleHead", "Heads"]
