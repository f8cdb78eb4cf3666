"""The front door's part for disputes (docs/judging.md, Disputes): a flag, a judge's ruling and
note, a fork previewed and written, the battle a table goes on in, and a battle's family (the
battles it was forked or re-run from, and those forked or re-run from it). Each is
``replay/battles/fork.py``'s, with its refusals typed as the door's (``Refused``) and the
door's kept heads read again after a write, so the server and ``bxb play`` see it at once.

``Battle.disputes`` is this, over the door's store, heads and key."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from uuid import UUID

from blowbyblow.domain.core import BattleStarted, BlowByBlowError
from blowbyblow.domain.judging import BattleForked, Change, ForkLink
from blowbyblow.projections.disputes import command_position
from blowbyblow.replay.battles import fork as forking
from blowbyblow.replay.battles.fork import DisputeRefused, Forked, ForkPreview, Judge
from blowbyblow.replay.battles.refusals import Behind, Refused, Unreachable
from blowbyblow.replay.engine.dice import DiceSource
from blowbyblow.replay.store.find import BattleNotFound
from blowbyblow.replay.store.log import (
    BattleStore,
    LoggedEvent,
    StaleVersion,
    StoreBusy,
    StoreError,
    StoreUnavailable,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from blowbyblow.replay.battles.battle import Battle

FLAG_TRIES = 3  # a flag names a command, not a version: written again when a play came first
FIELDS = ("command", "position", "reason", "text", "judge", "by")
CONFLICTS = ("is sealed", "was superseded", "is recorded already", "cannot be forked again")


def refusal(error: DisputeRefused) -> Refused:
    """A dispute refused, as the door says it: right input at the wrong moment (the battle is
    sealed or superseded, the fork made already) is a conflict; anything else is invalid input,
    its field the word the message starts with (``position: expected 1 to 40, not 99``)."""
    text = str(error)
    if "the judge's key" in text:  # a fair battle's dice, which this door cannot open
        return Refused("conflict", "key", "a fork of a fair battle opens its dice", text)
    if any(words in text for words in CONFLICTS):
        return Refused("conflict", "battle", "a battle that goes on takes disputes", text)
    head = text.split(":", 1)[0].split(" ", 1)[0]
    name = {"key": "change.key", "ruling": "change.name"}.get(
        head, head if head in FIELDS else "change"
    )
    if "fork from before" in text:  # a kept command the change would alter: fork earlier
        name = "position"
    return Refused("invalid", name, "docs/judging.md, Disputes", text)


@dataclass(frozen=True)
class Member:
    """One battle of a family: where it came from (``parent``: None for the root), how (a fork,
    its link; a what-if re-run, its rulings), and the child that supersedes it."""

    battle: UUID
    label: str
    parent: UUID | None
    link: ForkLink | None  # a fork's link to its parent; None: the root, or a what-if re-run
    rulings: dict[str, str]
    superseded_by: UUID | None
    version: int


@dataclass(frozen=True)
class Start:
    """What a battle's first two events say of its family: its origin, label and rulings (its
    ``BattleStarted``) and, for a fork, its link (its ``BattleForked``)."""

    origin: str | None
    label: str
    rulings: dict[str, str]
    link: ForkLink | None


@dataclass
class Origins:
    """Each battle's start (its first two events; None: no ``BattleStarted`` first), read once:
    they never change, so what is kept stays true."""

    kept: dict[UUID, Start | None] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


SAID = ("CommandFlagged", "RulingGiven", "NoteAdded")  # what is said about an event


@dataclass
class Said:
    """Where each battle's flags, rulings and notes are (``SAID``), found by the records'
    topics up to a version: a log only grows, so the next look reads only the records after it
    (the viewer asks at every page: all 10^5 topics of a long battle read each time took 150 ms
    of the server's processor)."""

    kept: dict[UUID, tuple[int, tuple[tuple[int, str], ...]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


class DisputeDoor:
    """Flags, rulings, notes and forks through the front door (``Battle.disputes``)."""

    def __init__(self, door: Battle) -> None:
        self.door = door
        self.origins = Origins()
        self.said = Said()

    @property
    def store(self) -> BattleStore:
        return self.door.store

    def _write(self, battle: UUID, work: Callable[[], Any]) -> Any:
        """``work`` (a write of ``fork.py``) with its refusals typed; the battle read afresh."""
        self.door.forget(battle)
        try:
            return work()
        except DisputeRefused as e:
            raise refusal(e) from None
        except BattleNotFound as e:
            raise Refused("not_found", "battle", "a battle named by id", str(e)) from None
        except StaleVersion as e:
            raise Behind(f"{e}: the battle moved on meanwhile; nothing was written") from None
        except (StoreUnavailable, StoreBusy) as e:
            raise Unreachable(str(e)) from None
        except StoreError as e:
            raise Refused("conflict", "battle", "a readable battle", str(e)) from None
        finally:
            self.door.forget(battle)

    def flag(self, battle: UUID, *, command: int, by: str, reason: str) -> LoggedEvent:
        """A player says command ``command`` is disputed: a ``CommandFlagged``. A flag names a
        command, not a version, so one racing a play is written again after it."""
        for attempt in range(FLAG_TRIES):
            try:
                written: LoggedEvent = self._write(
                    battle,
                    lambda: forking.flag(self.store, battle, command=command, by=by, reason=reason),
                )
                return written
            except Behind:
                if attempt == FLAG_TRIES - 1:
                    raise
        raise AssertionError("unreachable")

    def rule(self, battle: UUID, *, command: int, judge: Judge, reason: str) -> LoggedEvent:
        """A judge's signed ruling that command ``command`` stands as played."""
        written: LoggedEvent = self._write(
            battle,
            lambda: forking.rule(self.store, battle, command=command, judge=judge, reason=reason),
        )
        return written

    def note(self, battle: UUID, *, position: int, text: str, judge: Judge) -> LoggedEvent:
        """A judge's signed note on the event at ``position``."""
        written: LoggedEvent = self._write(
            battle,
            lambda: forking.note(self.store, battle, position=position, text=text, judge=judge),
        )
        return written

    def position(self, battle: UUID, *, at: int | None, before: int | None) -> int:
        """The fork position: ``at`` itself, or just before command ``before``."""
        if (at is None) == (before is None):
            raise Refused(
                "invalid",
                "position",
                "a fork names one place: a position, or the command it rewinds to before",
                "give the position (or the command to rewind to before), one of them",
            )
        if at is not None:
            return at
        assert before is not None
        try:
            return command_position(self.door.read(battle).plain, before) - 1
        except ValueError as e:
            raise Refused("invalid", "before", "a command that stands", str(e)) from None

    def _dice(self, battle: UUID) -> DiceSource | None:
        """The battle's digital dice: a seeded battle's, to draw the rolls a replay makes that
        its record lacks; a fair battle's, whose seed the child's link commits to (its replayed
        commands take only their recorded dice, docs/dice.md); None for typed dice, or a fair
        battle whose seed this door cannot open (the fork then tries the table's copy)."""
        try:
            return forking.live_dice(self.store, battle, key=self.door.key)
        except BlowByBlowError:
            return None

    def preview(self, battle: UUID, *, position: int, change: Change) -> ForkPreview:
        """What a fork would write, worked out in memory: nothing is written."""
        dice = self._dice(battle)
        seen: ForkPreview = self._write(
            battle,
            lambda: forking.preview_fork(
                self.store, battle, position=position, change=change, dice=dice
            ),
        )
        return seen

    def fork(
        self, battle: UUID, *, position: int, change: Change, judge: Judge, reason: str
    ) -> Forked:
        """Fork ``battle`` at ``position`` under ``change``: the parent's signed ruling, then
        the child, whole (``fork.fork``)."""
        dice = self._dice(battle)
        done: Forked = self._write(
            battle,
            lambda: forking.fork(
                self.store,
                battle,
                position=position,
                change=change,
                judge=judge,
                reason=reason,
                dice=dice,
            ),
        )
        return done

    def chain(self, battle: UUID) -> list[UUID]:
        """``battle``, the child a judge forked it into, that child's, and so on, as far as the
        children are written: the last is the battle its table plays on in."""
        chain = [battle]
        while True:
            found = self.superseded_by(chain[-1])
            if found is None:
                return chain
            if found in chain or not self.store.version(found):
                return chain  # an interrupted fork: its child is not written yet
            chain.append(found)

    def said_at(self, battle: UUID, of: int) -> list[int]:
        """The positions up to ``of`` (the battle's version) of what was said about its events:
        its flags, rulings and notes, by the records' topics (nothing decoded)."""
        return [p for p, _ in self._said(battle, of)]

    def _said(self, battle: UUID, of: int) -> list[tuple[int, str]]:
        """``said_at`` with each record's type: those after the version looked at last read
        now (a request that read the version before another moved it on takes those up to its
        own).

        The lock is one for every battle, so it is held only to look at and to keep what is
        kept, never while the store is read: held across the read, each table's page (which
        looks through ``chain``) and each judge's viewer waited on every other battle's read.
        Two requests racing on one battle may each read the same few new records, and get the
        same answer; what is kept only moves forward (a look at an earlier version that ends
        last keeps nothing over a later one's)."""
        with self.said.lock:
            upto, found = self.said.kept.get(battle, (0, ()))
        if of > upto:
            topics = self.store.records.topics(battle, upto, of + 1)
            names = ((p, topic.rsplit("/", 1)[-1]) for p, topic in topics)
            found += tuple((p, name) for p, name in names if name in SAID)
            with self.said.lock:
                if of > self.said.kept.get(battle, (0, ()))[0]:
                    self.said.kept[battle] = (of, found)
        return [(p, name) for p, name in found if p <= of]

    def superseded_by(self, battle: UUID, version: int | None = None) -> UUID | None:
        """The child a judge's ruling made ``battle`` give way to (``Disputes.superseded_by``),
        found by the records' topics: only its rulings are read, newest first, not its log.
        ``version``: the battle's, when the caller has it already."""
        of = self.store.version(battle) if version is None else version
        rulings = [p for p, name in self._said(battle, of) if name == "RulingGiven"]
        return self.store.superseded_by(battle, rulings)

    # --- a battle's family ----------------------------------------------------------------

    def _start(self, battle: UUID) -> Start | None:
        with self.origins.lock:
            if battle in self.origins.kept:
                return self.origins.kept[battle]
        first = self.store.read(battle, lte=2)
        if not first or not isinstance(first[0].event, BattleStarted):
            return None
        started = first[0].event
        forked = first[1].event if len(first) > 1 else None
        start = Start(
            origin=started.origin,
            label=started.label,
            rulings=dict(started.rulings),
            link=forked.link if isinstance(forked, BattleForked) else None,
        )
        if len(first) > 1:  # a battle of one event may yet be a fork's child half-written
            with self.origins.lock:
                self.origins.kept[battle] = start
        return start

    def _origin(self, battle: UUID) -> str | None:
        start = self._start(battle)
        return None if start is None else start.origin

    def family(self, battle: UUID) -> list[Member]:
        """The battles ``battle`` comes from and those that come from it (forks and saved
        what-ifs, through each one's ``origin``), the root first, each after its parent. Each
        is read by its first two events and its rulings (``superseded_by``), not its log."""
        root, seen = battle, {battle}
        while (up := self._origin(root)) is not None:
            parent = UUID(up)
            if parent in seen or not self.store.version(parent):
                break
            seen.add(parent)
            root = parent
        children: dict[UUID, list[UUID]] = {}
        for info in self.store.battles():
            origin = self._origin(info.battle)
            if origin is not None:
                children.setdefault(UUID(origin), []).append(info.battle)
        members: list[Member] = []
        todo: list[tuple[UUID, UUID | None]] = [(root, None)]
        placed = {root}
        while todo:
            current, above = todo.pop(0)
            members.append(self._member(current, above))
            later = [c for c in children.get(current, []) if c not in placed]
            placed.update(later)
            todo += [(c, current) for c in later]
        return members

    def _member(self, battle: UUID, parent: UUID | None) -> Member:
        start = self._start(battle)
        if start is None:  # no BattleStarted first: the battle as read says what it can
            head = self.door.read(battle)
            start = Start(None, head.started.label, dict(head.started.rulings), None)
        version = self.store.version(battle)
        return Member(
            battle=battle,
            label=start.label,
            parent=parent,
            link=start.link,
            rulings=dict(start.rulings),
            superseded_by=self.superseded_by(battle, version),
            version=version,
        )


__all__ = ["DisputeDoor", "Member", "refusal"]
