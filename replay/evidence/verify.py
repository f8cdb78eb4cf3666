"""Verification: re-adjudicate every command of a battle from its recorded inputs (dice and
choices) and compare with what the log says happened; check the hash chain and the seal; for
seeded dice, recompute every die from the seed and its key. The first difference is reported
with its position and the rule of the event concerned.

The steps, in the order they run: read every record (``read_all``) and the seal record kept
beside the battle; the hash chain (``check_chain``); the battle id against its first event
(``check_battle_id``); the seal (``check_seal``); the battle's start and setup (``_started``,
``_setup``); a fair battle's escrow and contributions (``check_fair_start``); the dice seed
(``check_dice_seed``); then command by command (``_readjudicate``), its
number, every die against the battle's dice mode (``check_dice``) and every choice's label
(``check_choices``; a default one against the rules' default), its re-adjudication at
the engine's one ``driver.Table`` and the comparison with the log (``_compare``).

A voided command (``CommandVoided``) is checked as it was played: its events are in the hash
chain, its seeded dice are recomputed, it is re-adjudicated from its recorded dice and choices
against the state it was played in and compared with the log, so the record of what was voided
is genuine. Then it is left out: the void must name the last command standing (its number and
position) and say who voided it and why (``_check_void``); the next command is re-adjudicated
from the state before the voided one, and takes its number again.

The integrity checks are in ``chain.py``, the inputs' checks in ``inputs.py``, what a report
holds in ``problems.py``."""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from blowbyblow.domain.core import (
    BattleStarted,
    BlowByBlowError,
    CommandIssued,
    CommandVoided,
    Event,
)
from blowbyblow.domain.judging import (
    ANNOTATION_TYPES,
    BattleForked,
    BattleSealed,
    ContributionGiven,
    NoteAdded,
    RulingGiven,
    SeedEscrowed,
)
from blowbyblow.projections.battle import fold_battle
from blowbyblow.replay.engine.codec import encode
from blowbyblow.replay.engine.dice import FairDice, RecordedChoices, RecordedDice, recorded_inputs
from blowbyblow.replay.engine.driver import Table
from blowbyblow.replay.engine.registry import UnknownGameSystem, get_game_system
from blowbyblow.replay.evidence.chain import (
    battle_id_of,
    check_battle_id,
    check_chain,
    check_last_seal,
    check_seal,
    check_seal_record,
    link_problem,
    read_all,
    stored_records,
)
from blowbyblow.replay.evidence.disputes import check_annotation, fork_link, parent_problem
from blowbyblow.replay.evidence.fair_forks import fair_link
from blowbyblow.replay.evidence.inputs import (
    ChoicesAsRecorded,
    DiceCheck,
    check_choices,
    check_dice,
    check_dice_seed,
    check_fair_start,
)
from blowbyblow.replay.evidence.problems import (
    Failed,
    Problem,
    Report,
    fail_on,
    rule_of,
    show_event,
)
from blowbyblow.replay.store.log import GENESIS, BattleStore, LoggedEvent

KEPT_RECORDS = 1000  # records verification holds at once at most (one page of the store)


@dataclass
class _Scanned:
    """What verification keeps of a battle's records as it reads them once, in order: enough
    to check its chain, identity, seal and start without holding the battle in memory."""

    battle: UUID
    count: int = 0
    prev: bytes = GENESIS
    first: LoggedEvent | None = None
    last: LoggedEvent | None = None
    before_last: LoggedEvent | None = None
    first_seal: int = 0  # position of the first BattleSealed
    # The records before the first command (BattleStarted, a fair battle's escrow and
    # contributions) and the one after them: all that the start's checks read.
    start: list[LoggedEvent] = field(default_factory=list)
    problem: Problem | None = None  # the first break in the chain (or position sequence)
    # Every record, while there are few (a battle of up to KEPT_RECORDS), so that the commands'
    # re-adjudication need not read them again; None once there are more.
    kept: list[LoggedEvent] | None = field(default_factory=list)

    def add(self, logged: LoggedEvent) -> None:
        self.count += 1
        if self.problem is None:
            self.problem = link_problem(self.battle, self.count, self.prev, logged)
            self.prev = logged.hash
        if self.first is None:
            self.first = logged
        self.before_last, self.last = self.last, logged
        if self.kept is not None:
            self.kept = self.kept if len(self.kept) < KEPT_RECORDS else None
            if self.kept is not None:
                self.kept.append(logged)
        if not self.first_seal and isinstance(logged.event, BattleSealed):
            self.first_seal = logged.position
        if len(self.start) < 2 or isinstance(
            self.start[-1].event, SeedEscrowed | ContributionGiven
        ):
            self.start.append(logged)


def _scan(
    battle: UUID, records: Iterable[LoggedEvent | Problem]
) -> tuple[_Scanned, Problem | None]:
    """Read every record once, checking the chain as it goes; the first unreadable record
    stops the reading (a break in the chain before it is reported first)."""
    scanned = _Scanned(battle)
    for logged in records:
        if isinstance(logged, Problem):
            return scanned, logged
        scanned.add(logged)
    return scanned, None


def verify_events(
    battle: UUID,
    events: Sequence[LoggedEvent],
    *,
    trusted_keys: frozenset[str] | None = None,
    judge_keys: frozenset[str] | None = None,
) -> Report:
    """Verify a battle's events, in order: the hash chain, the seal, the setup, the seeded dice
    and every command re-adjudicated from its recorded inputs. The report names the first
    problem found, if any. ``judge_keys``: the keys rulings, notes and fork links must be
    signed by (None: any key whose signature holds, named in the report)."""
    scanned, _ = _scan(battle, events)
    return _verify_scanned(scanned, lambda gt, lte: events[gt:lte], trusted_keys, judge_keys)


def _verify_scanned(
    scanned: _Scanned,
    records: Callable[[int, int], Iterable[LoggedEvent]],
    trusted_keys: frozenset[str] | None,
    judge_keys: frozenset[str] | None = None,
) -> Report:
    """The checks after the reading, on what ``_scan`` kept; ``records(gt, lte)`` reads the
    records after position ``gt`` up to ``lte`` again, for the commands' re-adjudication."""
    battle = scanned.battle
    report = Report(battle=battle, events=scanned.count)
    try:
        if scanned.first is None or scanned.last is None:
            raise Failed(Problem(1, "sequence", "the battle has no events"))
        if isinstance(scanned.first.event, BattleStarted):
            report.label, report.ruleset = scanned.first.event.label, scanned.first.event.ruleset
        fail_on(scanned.problem)
        fail_on(check_battle_id(battle, [scanned.first]))
        sealed, problem = _check_scanned_seal(scanned, trusted_keys)
        fail_on(problem)
        length = scanned.count
        if sealed is not None:
            length -= 1
            report.notes.append(
                f"sealed by key {sealed.public_key[:16]}… over {sealed.checkpoint.length} events"
            )
        start_records = [e for e in scanned.start if e.position <= length]
        first = _started(start_records)
        table, state = _setup(first)
        start = check_fair_start(
            report, first, start_records, length, table.system.view(state).sides
        )
        forked = fork_link(battle, start_records, start, judge_keys)  # a child's link, checked
        seed = check_dice_seed(report, first, sealed, start_records)
        fair_fork = fair_link([e.event for e in start_records[:2]]) is not None
        dice = DiceCheck(first.dice.mode, None if fair_fork else seed, forked, fair_fork)
        start += forked is not None
        segments = _segments_of(records(start, length))

        def refold(upto: int) -> Any:
            return fold_battle(table.system, [e.event for e in records(0, upto)])

        # A re-run (what-if) carries its original's choices with their labels, under rulings
        # that may give another default: only a battle of its own answers for its defaults.
        replay = _Replay(
            table,
            dice,
            refold,
            defaults_checked=first.origin is None,
            fork=_FairFork(table.system.view(state).sides, seed) if fair_fork else None,
            judge_keys=judge_keys,
        )
        _readjudicate(report, replay, state, segments)
        signers = sorted({*replay.signers, *([forked.public_key] if forked else [])})
        if signers:
            report.notes.append(
                "rulings, notes and fork links signed by key(s) "
                + ", ".join(f"{k[:16]}…" for k in signers)
                + ("" if judge_keys else " (name the judge's with --ruling-key)")
            )
        if report.voided:
            report.notes.append(
                f"{report.voided} voided command(s): each re-adjudicated as it was played, "
                "then left out"
            )
    except Failed as failed:
        report.problem = failed.problem
    return report


def _check_scanned_seal(
    scanned: _Scanned, trusted_keys: frozenset[str] | None
) -> tuple[BattleSealed | None, Problem | None]:
    """``check_seal`` on what the reading kept: a seal anywhere but last, then the last."""
    assert scanned.last is not None
    if scanned.first_seal and scanned.first_seal < scanned.count:
        return None, Problem(scanned.first_seal, "seal", "a seal in the middle of the battle")
    tail = [e for e in (scanned.before_last, scanned.last) if e is not None]
    return check_last_seal(scanned.battle, tail, scanned.count, trusted_keys)


def _started(events: Sequence[LoggedEvent]) -> BattleStarted[Any]:
    first = events[0].event
    if not isinstance(first, BattleStarted):
        raise Failed(
            Problem(
                1, "sequence", f"a battle must start with BattleStarted, not {type(first).__name__}"
            )
        )
    return first


def _setup(first: BattleStarted[Any]) -> tuple[Table, Any]:
    """The table the battle's commands are re-adjudicated at, and the state before the first:
    this engine must have the game system, in the recorded version, and the recorded rulings
    and setup must be valid for it."""
    try:
        system = get_game_system(first.ruleset)
    except UnknownGameSystem as e:
        raise Failed(Problem(1, "setup", str(e))) from None
    try:
        rulings = system.rulings_in_force(first.ruleset_version, first.rulings)
    except BlowByBlowError as e:
        raise Failed(Problem(1, "setup", f"cannot re-adjudicate: {e}")) from None
    try:
        system.validate_setup(first.setup)
        state = fold_battle(system, [first])
    except BlowByBlowError as e:
        raise Failed(Problem(1, "setup", f"the setup is not valid: {e}")) from None
    # Every command answers from its own recorded dice and choices (see _turns).
    table = Table(
        system=system,
        rulings=rulings,
        dice=RecordedDice({}),
        choices=RecordedChoices({}),
        quiet=True,
    )
    return table, state


def _segments(events: Sequence[LoggedEvent], start: int = 1) -> list[Sequence[LoggedEvent]]:
    """The log after its ``start`` events (``BattleStarted``, a fair battle's escrow and
    contributions) split into commands (each ``CommandIssued`` first, then its events) and voids
    (a ``CommandVoided`` alone, written in a transaction of its own)."""
    return list(_segments_of(events[start:]))


_BOUNDARIES: tuple[type[Event], ...] = (
    CommandIssued,
    CommandVoided,
    ContributionGiven,
    *ANNOTATION_TYPES,
)
# each a segment of its own (a contribution: a fair fork's new values, docs/dice.md)
_ALONE: tuple[type[Event], ...] = (CommandVoided, ContributionGiven, *ANNOTATION_TYPES)


def _segments_of(records: Iterable[LoggedEvent]) -> Iterator[Sequence[LoggedEvent]]:
    """``_segments`` of records read one by one: one segment in memory at a time."""
    segment: list[LoggedEvent] = []
    for logged in records:
        starts = isinstance(logged.event, _BOUNDARIES)
        if segment and (starts or isinstance(segment[0].event, _ALONE)):
            yield segment
            segment = []
        segment.append(logged)
    if segment:
        yield segment


# The states before the last commands standing, kept for the voids that go back to them. A void
# reaching further back (more consecutive voids than this) folds the log up to the command it
# voids instead: the state a command was re-adjudicated from is the fold of the events before it.
KEPT_STATES = 256


@dataclass
class _Standing:
    """The commands that stand: each one's number and position, and the state before each of
    the last ``KEPT_STATES`` of them; memory flat in the battle's length but for two integers
    a command."""

    positions: list[int] = field(default_factory=list)  # command n stands at positions[n - 1]
    before: deque[Any] = field(default_factory=lambda: deque(maxlen=KEPT_STATES))

    def play(self, position: int, state: Any) -> None:
        self.positions.append(position)
        self.before.append(state)

    def last(self) -> tuple[int, int] | None:
        return (len(self.positions), self.positions[-1]) if self.positions else None

    def void(self, refold: Callable[[int], Any]) -> Any:
        """The last command standing is voided: the state before it."""
        position = self.positions.pop()
        return self.before.pop() if self.before else refold(position - 1)


@dataclass
class _FairFork:
    """A judge's fork of a fair battle as its log is read: its sides, the secret its own dice
    are mixed from (None until its seal reveals it), the sides' new values as they come, and
    whether a command has been played live (after them)."""

    sides: tuple[str, ...]
    secret: str | None
    contributions: dict[str, str] = field(default_factory=dict)
    live: bool = False

    def given(self, logged: LoggedEvent) -> None:
        """A ``ContributionGiven`` in the child: a side of its setup, once, before any command
        played live."""
        event = logged.event
        assert isinstance(event, ContributionGiven)
        if self.live:
            raise Failed(
                Problem(logged.position, "dice", "a contribution after a command played live")
            )
        if event.side not in self.sides or event.side in self.contributions:
            raise Failed(
                Problem(
                    logged.position,
                    "dice",
                    f"a contribution for {event.side!r}: expected one per side of the setup "
                    f"({', '.join(self.sides)}), each once",
                )
            )
        self.contributions[event.side] = event.value

    def command(self, position: int, dice: DiceCheck) -> DiceCheck:
        """How the next command's dice are checked: its parent's before the values, the
        child's own once every side gave one."""
        if not self.contributions:
            return dice
        missing = [s for s in self.sides if s not in self.contributions]
        if missing:
            raise Failed(
                Problem(
                    position,
                    "dice",
                    "a command played live before every side gave its new value (missing: "
                    f"{', '.join(missing)})",
                )
            )
        self.live = True
        if self.secret is None:
            return dice
        return dataclasses.replace(dice, seed=FairDice(self.secret, self.contributions).seed)


@dataclass(frozen=True)
class _Replay:
    """What commands are re-adjudicated with: the battle's table, how its dice are checked,
    and ``refold(p)``, the state the log's events up to position p fold to; whether a choice
    labelled default must be the rules' default (``defaults_checked``); a fair fork's dice as
    they go (``fork``)."""

    table: Table
    dice: DiceCheck
    refold: Callable[[int], Any]
    defaults_checked: bool = True
    fork: _FairFork | None = None
    judge_keys: frozenset[str] | None = None
    signers: set[str] = field(default_factory=set)  # keys of the rulings and notes read


def _readjudicate(
    report: Report, replay: _Replay, state: Any, segments: Iterable[Sequence[LoggedEvent]]
) -> None:
    """Re-adjudicate each command from its recorded dice and choices, against the state the
    commands standing before it leave, and compare its events with the log's, stopping at the
    first difference. A void must name the last command standing; the state goes back to the
    one before that command, and the next command takes its number again."""
    standing = _Standing()
    superseded: str | None = None  # the child battle a judge's ruling made this one give way to
    for segment in segments:
        head = segment[0]
        if isinstance(head.event, ANNOTATION_TYPES):  # a flag, ruling or note: checked apart
            superseded = check_annotation(report.battle, head, replay.judge_keys) or superseded
            if isinstance(head.event, RulingGiven | NoteAdded):
                replay.signers.add(head.event.public_key)
            continue
        if superseded is not None:
            raise Failed(
                Problem(
                    head.position,
                    "superseded",
                    f"played after a judge's ruling made battle {superseded} go on instead",
                )
            )
        if isinstance(head.event, CommandVoided):
            _check_void(report, head, standing.last())
            state = standing.void(replay.refold)
            continue
        if isinstance(head.event, ContributionGiven):
            if replay.fork is None:
                raise Failed(
                    Problem(head.position, "dice", "a contribution outside a fair battle's start")
                )
            replay.fork.given(head)
            continue
        issued = head.event
        if not isinstance(issued, CommandIssued):
            where = "before the first command" if not standing.positions else "outside any command"
            raise Failed(Problem(head.position, "sequence", f"an event {where}"))
        n = len(standing.positions) + 1
        if issued.index != n:
            raise Failed(
                Problem(
                    head.position,
                    "sequence",
                    f"command number {issued.index} where {n} was expected",
                )
            )
        dice = replay.fork.command(head.position, replay.dice) if replay.fork else replay.dice
        check_dice(report, segment, dice)
        asked_at = check_choices(segment, replay.dice.forked)  # every label, where defaults are
        if not replay.defaults_checked:
            asked_at = {}
        rolled, choices = recorded_inputs(logged.event for logged in segment)
        own = dataclasses.replace(
            replay.table, dice=RecordedDice(rolled), choices=ChoicesAsRecorded(choices, asked_at)
        )
        try:
            result = own.adjudicate(state, issued.command, n, first_position=head.position)
        except BlowByBlowError as e:
            raise Failed(
                Problem(
                    head.position,
                    "rejected",
                    f"command {n} cannot be re-adjudicated from its recorded inputs: {e}",
                )
            ) from None
        fail_on(_compare(segment, result.events))
        standing.play(head.position, state)
        state = result.state
        report.commands += 1


def _check_void(report: Report, logged: LoggedEvent, last: tuple[int, int] | None) -> None:
    """A ``CommandVoided``: it names the last command standing (``last``: its number and
    position), who voided it and why."""
    void = logged.event
    assert isinstance(void, CommandVoided)
    if not void.by.strip() or not void.reason.strip():
        raise Failed(Problem(logged.position, "void", "a void must say who voided and why"))
    if last is None or last != (void.index, void.position):
        standing = "no command" if last is None else f"command {last[0]} at position {last[1]}"
        raise Failed(
            Problem(
                logged.position,
                "void",
                f"voids command {void.index} at position {void.position}, but the last command "
                f"standing is {standing}: only the last command that stands may be voided",
            )
        )
    report.voided += 1


def _compare(segment: Sequence[LoggedEvent], produced: Sequence[Event]) -> Problem | None:
    """The first difference between a command's events in the log and those the rules produce."""
    for logged, event in zip(segment, produced, strict=False):
        if encode(event) != encode(logged.event):
            return Problem(
                logged.position,
                "differs",
                f"{type(logged.event).__name__} does not follow from the rules and the dice",
                rule_of(logged.event) or rule_of(event),
                show_event(logged.event),
                show_event(event),
            )
    if len(segment) > len(produced):
        extra = segment[len(produced)]
        return Problem(
            extra.position,
            "differs",
            "the log has an event the rules do not produce",
            rule_of(extra.event),
            show_event(extra.event),
            "(nothing)",
        )
    if len(produced) > len(segment):
        missing = produced[len(segment)]
        return Problem(
            segment[-1].position + 1,
            "differs",
            "the rules produce an event the log lacks",
            rule_of(missing),
            "(nothing)",
            show_event(missing),
        )
    return None


def verify_battle(
    store: BattleStore,
    battle: UUID,
    *,
    trusted_keys: frozenset[str] | None = None,
    judge_keys: frozenset[str] | None = None,
) -> Report:
    """Verify a stored battle (``trusted_keys``: it must be sealed by one of these keys;
    ``judge_keys``: its rulings, notes and fork link signed by one of these),
    streaming it: its records are read once for the chain, its seal and its start, then again
    command by command for the re-adjudication; memory stays flat in the battle's length. The
    verdict is kept in the battle index (``bxb battles`` shows it)."""
    scanned, problem = _scan(battle, stored_records(store, battle))
    if problem is None and scanned.problem is None:
        problem = check_seal_record(store, battle, scanned.last, scanned.count)
    if problem is not None:
        report = Report(battle=battle, events=scanned.count, problem=problem)
        if scanned.first is not None and isinstance(scanned.first.event, BattleStarted):
            report.label, report.ruleset = scanned.first.event.label, scanned.first.event.ruleset
        # An unreadable record hides what follows it; an earlier break in the chain comes first.
        if scanned.problem is not None:
            report.problem = scanned.problem
        store.note_verified(battle, scanned.count, False)
        return report

    def again(gt: int, lte: int) -> Iterable[LoggedEvent]:
        if scanned.kept is not None:  # a short battle: its records as the first reading read them
            return scanned.kept[gt:lte]
        return _again(gt, lte)

    def _again(gt: int, lte: int) -> Iterator[LoggedEvent]:
        for logged in stored_records(store, battle, gt=gt, lte=lte):
            if isinstance(logged, Problem):  # changed since the first reading
                raise Failed(logged)
            yield logged

    report = _verify_scanned(scanned, again, trusted_keys, judge_keys)
    if report.ok and scanned.count > 1 and isinstance(scanned.start[1].event, BattleForked):
        # A child battle: its link against its parent, in this store (docs/judging.md).
        message = parent_problem(store, battle, scanned.kept or store.read(battle))
        if message is not None:
            report.problem = Problem(2, "fork", message)
        else:
            report.notes.append(
                f"forked from battle {scanned.start[1].event.link.parent}: link holds"
            )
    store.note_verified(battle, scanned.count, report.ok)
    return report


__all__ = [  # what other modules import from here (the checks' own modules hold the rest)
    "Problem",
    "Report",
    "battle_id_of",
    "check_battle_id",
    "check_chain",
    "check_seal",
    "read_all",
    "verify_battle",
    "verify_events",
]
