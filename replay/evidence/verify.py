"""Verification: re-adjudicate every command of a battle from its recorded inputs (dice and
choices) and compare with what the log says happened; check the hash chain and the seal; for
seeded dice, recompute every die from the seed and its key. The first difference is reported
with its position and the rule of the event concerned.

The steps, in the order they run: read every record (``read_all``) and the seal record kept
beside the battle; the hash chain (``check_chain``); the battle id against its first event
(``check_battle_id``); the seal (``check_seal``); the battle's start and setup (``_started``,
``_setup``); a fair battle's escrow and contributions (``_fair_start``); the dice seed
(``_dice_seed``); then command by command (``_readjudicate``), its
number and every die against the battle's dice mode (``_check_dice``), its re-adjudication at
the engine's one ``driver.Table`` and the comparison with the log (``_compare``).

A voided command (``CommandVoided``) is checked as it was played: its events are in the hash
chain, its seeded dice are recomputed, it is re-adjudicated from its recorded dice and choices
against the state it was played in and compared with the log, so the record of what was voided
is genuine. Then it is left out: the void must name the last command standing (its number and
position) and say who voided it and why (``_check_void``); the next command is re-adjudicated
from the state before the voided one, and takes its number again."""

from __future__ import annotations

import dataclasses
import hashlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID, uuid5

from blowbyblow.domain.core import (
    BattleStarted,
    BlowByBlowError,
    CommandIssued,
    CommandVoided,
    DiceRolled,
    Event,
    RuleEvent,
)
from blowbyblow.domain.judging import BattleSealed, ContributionGiven, SeedEscrowed
from blowbyblow.projections.battle import fold_battle
from blowbyblow.replay.engine.codec import encode, encode_json, to_builtins
from blowbyblow.replay.engine.dice import (
    RecordedChoices,
    RecordedDice,
    SeededDice,
    recorded_inputs,
    seeded_roll,
)
from blowbyblow.replay.engine.driver import Table
from blowbyblow.replay.engine.registry import UnknownGameSystem, get_game_system
from blowbyblow.replay.evidence.fairness import (
    FairnessError,
    OutOfPlace,
    check_contributions,
    dice_seed,
    is_escrowed,
    read_fair_start,
)
from blowbyblow.replay.evidence.seals import commitment, signature_ok
from blowbyblow.replay.store.log import (
    BATTLE_NAMESPACE,
    GENESIS,
    BattleStore,
    Link,
    LoggedEvent,
    UnreadableEvent,
    chain_hash,
    logged_from,
    seal_id,
)


@dataclass(frozen=True)
class Problem:
    position: int
    # unreadable | chain | identity | sequence | seal | setup | dice | rejected | differs | void
    # | file
    kind: str
    message: str
    rule: str = ""
    recorded: str = ""
    expected: str = ""

    def describe(self) -> str:
        text = f"position {self.position}: {self.message}"
        if self.rule:
            text += f" [rule {self.rule}]"
        if self.recorded or self.expected:
            text += f"\n    log says:   {self.recorded}\n    rules give: {self.expected}"
        return text


@dataclass
class Report:
    battle: UUID
    label: str = ""
    ruleset: str = ""
    events: int = 0
    commands: int = 0
    dice_checked: int = 0
    voided: int = 0  # commands voided (each re-adjudicated as played, then left out)
    problem: Problem | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.problem is None


def _show(event: Event) -> str:
    return encode_json(to_builtins(event)).decode()


def _rule(event: Event) -> str:
    return event.rule if isinstance(event, RuleEvent) else ""


def check_chain(battle: UUID, events: Sequence[LoggedEvent]) -> Problem | None:
    prev = GENESIS
    for expected_position, logged in enumerate(events, start=1):
        problem = _link_problem(battle, expected_position, prev, logged)
        if problem is not None:
            return problem
        prev = logged.hash
    return None


def _link_problem(
    battle: UUID, expected_position: int, prev: bytes, logged: LoggedEvent
) -> Problem | None:
    """What is wrong with one link of the chain: its position, its previous hash, its own."""
    if logged.position != expected_position:
        return Problem(
            expected_position,
            "sequence",
            f"expected position {expected_position}, found {logged.position}",
        )
    if logged.prev_hash != prev:
        return Problem(
            logged.position,
            "chain",
            "hash chain broken: previous hash differs",
            _rule(logged.event),
        )
    link = Link(
        battle=battle,
        position=logged.position,
        prev=prev,
        format=logged.format,
        at=logged.recorded_at,
        data=logged.data,
    )
    if chain_hash(link) != logged.hash:
        return Problem(
            logged.position,
            "chain",
            "hash chain broken: the event's content does not match its hash",
            _rule(logged.event),
        )
    return None


def battle_id_of(first: LoggedEvent) -> UUID:
    """The id a battle's first event names it by: ``store.battle_id_for`` over the first event's
    bytes as they were stored (not upcast), so a battle recorded in an older format keeps its id."""
    return uuid5(BATTLE_NAMESPACE, hashlib.sha256(first.data).hexdigest())


def check_battle_id(battle: UUID, events: Sequence[LoggedEvent]) -> Problem | None:
    """The battle id derives from its first event: a first event edited in place (rulings,
    setup, dice mode) with the chain recomputed, or a battle copied under another id, no longer
    matches. (A sealed battle's seal record is chained under its own id, not checked here.)"""
    if not events or events[0].position != 1:
        return None
    derived = battle_id_of(events[0])
    if derived == battle:
        return None
    return Problem(
        1,
        "identity",
        f"the battle is stored as {battle} but its first event names battle {derived}: "
        "its first event was changed, or the battle was copied under another id",
    )


def read_all(store: BattleStore, battle: UUID) -> tuple[list[LoggedEvent], Problem | None]:
    """Decode each stored record; stop at the first one that cannot be read."""
    events: list[LoggedEvent] = []
    for logged in _records(store, battle):
        if isinstance(logged, Problem):
            return events, logged
        events.append(logged)
    return events, None


def _records(store: BattleStore, battle: UUID, **span: int) -> Iterator[LoggedEvent | Problem]:
    """The battle's records one by one, exactly as stored, a page at a time (``span``: ``gt``,
    ``lte``); the first that cannot be read as a Problem, and nothing after it."""
    for page in store.pages(battle, **span):
        for position, topic, state in page:
            try:
                yield logged_from(battle, position, topic, store._stored(state))
            except UnreadableEvent as e:
                yield Problem(e.position, "unreadable", f"cannot be read: {e.reason}")
                return


def check_seal(
    battle: UUID, events: Sequence[LoggedEvent], trusted_keys: frozenset[str] | None
) -> tuple[BattleSealed | None, Problem | None]:
    """The seal, if the battle has one, and the first problem with it."""
    for logged in events[:-1]:
        if isinstance(logged.event, BattleSealed):
            return None, Problem(logged.position, "seal", "a seal in the middle of the battle")
    return _check_last_seal(battle, events[-2:], len(events), trusted_keys)


def _check_last_seal(
    battle: UUID,
    tail: Sequence[LoggedEvent],
    count: int,
    trusted_keys: frozenset[str] | None,
) -> tuple[BattleSealed | None, Problem | None]:
    """The seal in the last of ``tail`` (the battle's last two records; ``count`` records in
    all), if any, and the first problem with it."""
    last = tail[-1]
    if not isinstance(last.event, BattleSealed):
        if trusted_keys is not None:
            return None, Problem(
                last.position + 1,
                "seal",
                "the battle is not sealed, so no signature can be checked",
            )
        return None, None
    sealed = last.event
    cp = sealed.checkpoint
    if not signature_ok(sealed):
        return sealed, Problem(
            last.position, "seal", "the seal's signature does not match its checkpoint"
        )
    if trusted_keys is not None and sealed.public_key not in trusted_keys:
        return sealed, Problem(
            last.position, "seal", f"sealed with key {sealed.public_key[:16]}…, not a key you trust"
        )
    if cp.battle != str(battle):
        return sealed, Problem(last.position, "seal", f"the seal is for battle {cp.battle}")
    if cp.length != count - 1:
        return sealed, Problem(
            last.position,
            "seal",
            f"the seal covers {cp.length} events but {count - 1} precede it",
        )
    if len(tail) < 2 or cp.last_hash != tail[-2].hash.hex():
        return sealed, Problem(
            last.position, "seal", "the seal's last hash is not the hash of the event before it"
        )
    return sealed, None


class _Failed(Exception):
    """The first problem found: verification stops there."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def _fail_on(problem: Problem | None) -> None:
    if problem is not None:
        raise _Failed(problem)


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
            self.problem = _link_problem(self.battle, self.count, self.prev, logged)
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
) -> Report:
    """Verify a battle's events, in order: the hash chain, the seal, the setup, the seeded dice
    and every command re-adjudicated from its recorded inputs. The report names the first
    problem found, if any."""
    scanned, _ = _scan(battle, events)
    return _verify_scanned(scanned, lambda gt, lte: events[gt:lte], trusted_keys)


def _verify_scanned(
    scanned: _Scanned,
    records: Callable[[int, int], Iterable[LoggedEvent]],
    trusted_keys: frozenset[str] | None,
) -> Report:
    """The checks after the reading, on what ``_scan`` kept; ``records(gt, lte)`` reads the
    records after position ``gt`` up to ``lte`` again, for the commands' re-adjudication."""
    battle = scanned.battle
    report = Report(battle=battle, events=scanned.count)
    try:
        if scanned.first is None or scanned.last is None:
            raise _Failed(Problem(1, "sequence", "the battle has no events"))
        if isinstance(scanned.first.event, BattleStarted):
            report.label, report.ruleset = scanned.first.event.label, scanned.first.event.ruleset
        _fail_on(scanned.problem)
        _fail_on(check_battle_id(battle, [scanned.first]))
        sealed, problem = _check_scanned_seal(scanned, trusted_keys)
        _fail_on(problem)
        length = scanned.count
        if sealed is not None:
            length -= 1
            report.notes.append(
                f"sealed by key {sealed.public_key[:16]}… over {sealed.checkpoint.length} events"
            )
        start_records = [e for e in scanned.start if e.position <= length]
        first = _started(start_records)
        table, state = _setup(first)
        start = _fair_start(report, first, start_records, length, table.system.view(state).sides)
        dice = _Dice(first.dice.mode, _dice_seed(report, first, sealed, start_records))
        segments = _segments_of(records(start, length))

        def refold(upto: int) -> Any:
            return fold_battle(table.system, [e.event for e in records(0, upto)])

        _readjudicate(report, _Replay(table, dice, refold), state, segments)
        if report.voided:
            report.notes.append(
                f"{report.voided} voided command(s): each re-adjudicated as it was played, "
                "then left out"
            )
    except _Failed as failed:
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
    return _check_last_seal(scanned.battle, tail, scanned.count, trusted_keys)


def _started(events: Sequence[LoggedEvent]) -> BattleStarted[Any]:
    first = events[0].event
    if not isinstance(first, BattleStarted):
        raise _Failed(
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
        raise _Failed(Problem(1, "setup", str(e))) from None
    try:
        rulings = system.rulings_in_force(first.ruleset_version, first.rulings)
    except BlowByBlowError as e:
        raise _Failed(Problem(1, "setup", f"cannot re-adjudicate: {e}")) from None
    try:
        system.validate_setup(first.setup)
        state = fold_battle(system, [first])
    except BlowByBlowError as e:
        raise _Failed(Problem(1, "setup", f"the setup is not valid: {e}")) from None
    # Every command answers from its own recorded dice and choices (see _turns).
    table = Table(
        system=system,
        rulings=rulings,
        dice=RecordedDice({}),
        choices=RecordedChoices({}),
        quiet=True,
    )
    return table, state


def _fair_start(
    report: Report,
    first: BattleStarted[Any],
    events: Sequence[LoggedEvent],
    length: int,
    sides: tuple[str, ...],
) -> int:
    """How many events precede the first command: ``BattleStarted`` and, in a fair battle, its
    escrow and one contribution from each side, all of them given before the first command.
    ``events`` are the battle's first records, up to the first that is no contribution;
    ``length`` is how many the battle has (its seal aside)."""
    if not is_escrowed(first.dice) or first.origin is not None:
        return 1
    try:
        start = read_fair_start([e.event for e in events])
    except OutOfPlace as e:
        raise _Failed(Problem(e.position, "dice", e.message)) from None
    for position, (side, value) in enumerate(start.contributions.items(), start=3):
        try:
            check_contributions(sides, {side: value})
        except FairnessError as e:
            raise _Failed(Problem(position, "dice", str(e))) from None
    missing = [s for s in sides if s not in start.contributions]
    if start.length < length and (missing or not start.contributions):
        raise _Failed(
            Problem(
                start.length + 1,
                "dice",
                "command 1 of a fair battle was played before every side gave its "
                f"contribution (missing: {', '.join(missing) or 'every side'})",
            )
        )
    if start.length == length:
        waiting = f"; waiting for contributions from {', '.join(missing)}" if missing else ""
        report.notes.append(f"fair battle started, no command yet{waiting}")
    return start.length


def _dice_seed(
    report: Report,
    first: BattleStarted[Any],
    sealed: BattleSealed | None,
    events: Sequence[LoggedEvent],
) -> str | None:
    """The seed every digital die is recomputed from: a seeded battle's, or, once the seal has
    revealed the seed a fair battle committed to at its start, the one drawn from it (and, since
    ``bxb-fair-v2``, from the sides' contributions)."""
    if first.dice.mode == "seeded":
        return first.dice.seed
    if first.dice.mode != "fair":
        return None
    revealed = sealed.checkpoint.seed if sealed is not None else None
    if revealed is None:
        if sealed is not None:
            raise _Failed(
                Problem(report.events, "seal", "the seal of a fair battle does not reveal its seed")
            )
        report.notes.append(
            "fair dice cannot be checked yet: the seed is not revealed until the battle is sealed"
        )
        return None
    if commitment(revealed) != first.dice.commitment:
        raise _Failed(
            Problem(
                report.events,
                "seal",
                "the revealed seed does not match the commitment made at the start",
            )
        )
    return dice_seed(first, [e.event for e in events], revealed)


def _segments(events: Sequence[LoggedEvent], start: int = 1) -> list[Sequence[LoggedEvent]]:
    """The log after its ``start`` events (``BattleStarted``, a fair battle's escrow and
    contributions) split into commands (each ``CommandIssued`` first, then its events) and voids
    (a ``CommandVoided`` alone, written in a transaction of its own)."""
    return list(_segments_of(events[start:]))


_BOUNDARIES = (CommandIssued, CommandVoided)


def _segments_of(records: Iterable[LoggedEvent]) -> Iterator[Sequence[LoggedEvent]]:
    """``_segments`` of records read one by one: one segment in memory at a time."""
    segment: list[LoggedEvent] = []
    for logged in records:
        starts = isinstance(logged.event, _BOUNDARIES)
        if segment and (starts or isinstance(segment[0].event, CommandVoided)):
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


@dataclass(frozen=True)
class _Replay:
    """What commands are re-adjudicated with: the battle's table, how its dice are checked,
    and ``refold(p)``, the state the log's events up to position p fold to."""

    table: Table
    dice: _Dice
    refold: Callable[[int], Any]


def _readjudicate(
    report: Report, replay: _Replay, state: Any, segments: Iterable[Sequence[LoggedEvent]]
) -> None:
    """Re-adjudicate each command from its recorded dice and choices, against the state the
    commands standing before it leave, and compare its events with the log's, stopping at the
    first difference. A void must name the last command standing; the state goes back to the
    one before that command, and the next command takes its number again."""
    standing = _Standing()
    for segment in segments:
        head = segment[0]
        if isinstance(head.event, CommandVoided):
            _check_void(report, head, standing.last())
            state = standing.void(replay.refold)
            continue
        issued = head.event
        if not isinstance(issued, CommandIssued):
            where = "before the first command" if not standing.positions else "outside any command"
            raise _Failed(Problem(head.position, "sequence", f"an event {where}"))
        n = len(standing.positions) + 1
        if issued.index != n:
            raise _Failed(
                Problem(
                    head.position,
                    "sequence",
                    f"command number {issued.index} where {n} was expected",
                )
            )
        _check_dice(report, segment, replay.dice)
        rolled, choices = recorded_inputs(logged.event for logged in segment)
        own = dataclasses.replace(
            replay.table, dice=RecordedDice(rolled), choices=RecordedChoices(choices)
        )
        try:
            result = own.adjudicate(state, issued.command, n, first_position=head.position)
        except BlowByBlowError as e:
            raise _Failed(
                Problem(
                    head.position,
                    "rejected",
                    f"command {n} cannot be re-adjudicated from its recorded inputs: {e}",
                )
            ) from None
        _fail_on(_compare(segment, result.events))
        standing.play(head.position, state)
        state = result.state
        report.commands += 1


def _check_void(report: Report, logged: LoggedEvent, last: tuple[int, int] | None) -> None:
    """A ``CommandVoided``: it names the last command standing (``last``: its number and
    position), who voided it and why."""
    void = logged.event
    assert isinstance(void, CommandVoided)
    if not void.by.strip() or not void.reason.strip():
        raise _Failed(Problem(logged.position, "void", "a void must say who voided and why"))
    if last is None or last != (void.index, void.position):
        standing = "no command" if last is None else f"command {last[0]} at position {last[1]}"
        raise _Failed(
            Problem(
                logged.position,
                "void",
                f"voids command {void.index} at position {void.position}, but the last command "
                f"standing is {standing}: only the last command that stands may be voided",
            )
        )
    report.voided += 1


@dataclass(frozen=True)
class _Dice:
    """How the battle's dice were made (``BattleStarted.dice.mode``) and the seed they are
    recomputed from (a seeded battle's; a fair battle's once its seal reveals it)."""

    mode: str
    seed: str | None


# The labels a die may carry in a battle of each dice mode. A seeded battle's dice all come from
# its seed: a die labelled anything else (``physical`` with better values, say) is a forgery, as
# nothing else could have made it. A physical battle has no seed, so a die labelled ``seeded``
# there is a claim nobody can check. Fair battles: see ``_check_fair_die``.
DICE_SOURCES = {"seeded": frozenset({SeededDice.source}), "physical": frozenset({"physical"})}


def _check_dice(report: Report, segment: Sequence[LoggedEvent], dice: _Dice) -> None:
    """Every die of a command against the battle's dice mode; every digital die recomputed from
    the battle's seed and the roll's key."""
    for logged in segment:
        ev = logged.event
        if not isinstance(ev, DiceRolled):
            continue
        if dice.mode == "fair":
            _check_fair_die(report, logged, ev, dice.seed)
            continue
        allowed = DICE_SOURCES.get(dice.mode)
        if allowed is None:
            raise _Failed(Problem(1, "setup", f"unknown dice mode {dice.mode!r}"))
        if ev.source not in allowed:
            raise _Failed(
                Problem(
                    logged.position,
                    "dice",
                    f"die {ev.key} is labelled {ev.source!r}, but this is a {dice.mode} battle: "
                    f"its dice can only be {' or '.join(sorted(allowed))}",
                )
            )
        if dice.seed is not None:
            _recompute(report, logged, ev, dice.seed)


def _check_fair_die(report: Report, logged: LoggedEvent, ev: DiceRolled, seed: str | None) -> None:
    """A fair battle's die. The hook for fair dice (escrowed seeds, players' contributions):
    today every die of a fair battle comes from its committed seed, so it must be labelled
    seeded, and is recomputed once the seal has revealed the seed."""
    if ev.source != SeededDice.source:
        raise _Failed(
            Problem(
                logged.position,
                "dice",
                f"die {ev.key} is labelled {ev.source!r}, but this is a fair battle: its dice "
                "all come from the seed committed at the start",
            )
        )
    if seed is not None:
        _recompute(report, logged, ev, seed)


def _recompute(report: Report, logged: LoggedEvent, ev: DiceRolled, seed: str) -> None:
    """A digital die recomputed from the seed and its roll's key."""
    report.dice_checked += 1
    expected = seeded_roll(seed, ev.key, len(ev.values), ev.sides)
    if expected != ev.values:
        raise _Failed(
            Problem(
                logged.position,
                "dice",
                f"die {ev.key} shows {list(ev.values)}, but the battle's seed gives "
                f"{list(expected)}",
            )
        )


def _compare(segment: Sequence[LoggedEvent], produced: Sequence[Event]) -> Problem | None:
    """The first difference between a command's events in the log and those the rules produce."""
    for logged, event in zip(segment, produced, strict=False):
        if encode(event) != encode(logged.event):
            return Problem(
                logged.position,
                "differs",
                f"{type(logged.event).__name__} does not follow from the rules and the dice",
                _rule(logged.event) or _rule(event),
                _show(logged.event),
                _show(event),
            )
    if len(segment) > len(produced):
        extra = segment[len(produced)]
        return Problem(
            extra.position,
            "differs",
            "the log has an event the rules do not produce",
            _rule(extra.event),
            _show(extra.event),
            "(nothing)",
        )
    if len(produced) > len(segment):
        missing = produced[len(segment)]
        return Problem(
            segment[-1].position + 1,
            "differs",
            "the rules produce an event the log lacks",
            _rule(missing),
            "(nothing)",
            _show(missing),
        )
    return None


def verify_battle(
    store: BattleStore,
    battle: UUID,
    *,
    trusted_keys: frozenset[str] | None = None,
) -> Report:
    """Verify a stored battle (``trusted_keys``: it must be sealed by one of these keys),
    streaming it: its records are read once for the chain, its seal and its start, then again
    command by command for the re-adjudication; memory stays flat in the battle's length. The
    verdict is kept in the battle index (``bxb battles`` shows it)."""
    scanned, problem = _scan(battle, _records(store, battle))
    if problem is None and scanned.problem is None:
        problem = _check_seal_record(store, battle, scanned.last, scanned.count)
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
        for logged in _records(store, battle, gt=gt, lte=lte):
            if isinstance(logged, Problem):  # changed since the first reading
                raise _Failed(logged)
            yield logged

    report = _verify_scanned(scanned, again, trusted_keys)
    store.note_verified(battle, scanned.count, report.ok)
    return report


def _check_seal_record(
    store: BattleStore, battle: UUID, last: LoggedEvent | None, count: int
) -> Problem | None:
    """A battle once sealed must still end with exactly that seal: this catches the deletion of
    trailing events, the seal included. ``last`` is the battle's last record, ``count`` how
    many it has."""
    sid = seal_id(battle)
    try:
        records = store.read(sid)
    except UnreadableEvent as e:
        return Problem(count, "seal", f"the battle's seal record cannot be read: {e.reason}")
    if not records:
        if last is not None and isinstance(last.event, BattleSealed):
            return Problem(
                last.position,
                "seal",
                "the battle ends with a seal but the seal record kept beside it is missing",
            )
        return None
    record = records[0]
    if (
        len(records) != 1
        or check_chain(sid, records) is not None
        or not isinstance(record.event, BattleSealed)
    ):
        return Problem(count, "seal", "the battle's seal record has been altered")
    length = record.event.checkpoint.length
    if last is None or last.data != record.data:
        return Problem(
            min(count, length + 1) or 1,
            "seal",
            f"the battle was sealed after {length} events, but now has {count} "
            "and does not end with that seal: events were deleted or added",
        )
    return None
