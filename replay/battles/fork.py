"""Settling a dispute at the table (docs/judging.md, Disputes): a player flags a command, a
judge rules on it (signed), notes an event (signed), and rewinds the battle to any position by
forking it.

A fork writes a child battle whole, in one transaction: the parent's start (its label saying
where it was forked, its origin the parent, and a changed ruling if that is the change), its
link to the parent at position 2 (``BattleForked``: the parent, the position, the parent's hash
there, the change, signed by the judge), the parent's commands that ended at or before the fork
position (re-adjudicated, and required to come out byte for byte as the parent recorded them),
then the parent's later commands re-adjudicated under the change, each with its own recorded
dice and choices, for as long as they still apply. The replay stops, and the table takes over
live, at the first command no longer allowed, or the first die or question its record cannot
answer. Digital dice are functions of the seed and the roll's key (docs/dice.md), so a seeded
child draws every die from its seed: a command replayed under its own number gets its recorded
dice again. A fair child takes every die its parent recorded, and rolls anew only from a seed of
its own, mixed with values its sides give once the fork is written (``evidence/fair_forks.py``).

The parent is never changed; it is marked superseded by a judge's ruling appended to it, which
names the child (written first: a fork interrupted between the two writes is finished by forking
again, which finds the ruling and writes the child it names). Verification refuses a command
played in a parent after that ruling."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from uuid import UUID

import msgspec

from blowbyblow.domain.core import (
    BattleStarted,
    BlowByBlowError,
    ChoiceMade,
    DiceRolled,
    Event,
)
from blowbyblow.domain.judging import (
    CORRECTED_BY_JUDGE,
    BattleSealed,
    Change,
    ChoiceCorrected,
    CommandDropped,
    CommandFlagged,
    Decision,
    DieCorrected,
    ForkLink,
    Note,
    Rewound,
    RulingChanged,
)
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.projections.battle import fold_battle
from blowbyblow.projections.disputes import (
    Disputes,
    PlayedCommand,
    command_position,
    commands_played,
    disputes_of,
)
from blowbyblow.replay.engine.codec import encode
from blowbyblow.replay.engine.dice import DiceError, DiceSource, RecordedDice, SeededDice
from blowbyblow.replay.engine.driver import Table
from blowbyblow.replay.engine.narrate import change_words
from blowbyblow.replay.engine.numbers import whole_number
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.scenario import MAX_TEXT
from blowbyblow.replay.evidence.disputes import (
    FORK_ALGORITHM,
    RULING_ALGORITHM,
    sign_link,
    sign_note,
    sign_ruling,
)
from blowbyblow.replay.store.find import BattleNotFound
from blowbyblow.replay.store.log import BattleStore, LoggedEvent, battle_id_for

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


class DisputeRefused(BlowByBlowError):
    """A flag, ruling, note or fork that may not be recorded: nothing is written."""


@dataclass(frozen=True)
class Judge:
    """Who rules: a name for the record, and the key every ruling, note and fork is signed
    with (at the command line, whoever holds the judge's key is the judge)."""

    name: str
    key: Ed25519PrivateKey


@dataclass
class Forked:
    """A fork as written: the child's events, the parent's ruling that names it, and how the
    replay went: ``kept`` commands as they were, ``replayed`` played again under the change,
    and ``stopped``, why the replay stopped before the parent's next command ("" when none was
    left): the table plays on live from there."""

    child: UUID
    parent: UUID
    events: list[LoggedEvent]
    ruling: LoggedEvent | None  # None when an interrupted fork's ruling was written already
    kept: int
    replayed: int
    stopped: str
    state: Any


def _read(
    store: BattleStore, battle: UUID, logged: list[LoggedEvent] | None = None
) -> tuple[list[LoggedEvent], BattleStarted[Any]]:
    """The battle's events (``logged``: as the caller read them just now, not read again)."""
    logged = store.read(battle) if logged is None else logged
    if not logged or not isinstance(logged[0].event, BattleStarted):
        raise BattleNotFound(f"no battle {battle} in this store")
    return logged, logged[0].event


def _open(
    store: BattleStore, battle: UUID, logged: list[LoggedEvent] | None = None
) -> tuple[list[LoggedEvent], BattleStarted[Any]]:
    """The battle's events, refusing a sealed one (its result stands) and one superseded."""
    logged, started = _read(store, battle, logged)
    if isinstance(logged[-1].event, BattleSealed):
        raise DisputeRefused(f"battle {battle} is sealed: its result stands, nothing is added")
    child = disputes_of([e.event for e in logged]).superseded_by
    if child is not None:
        raise DisputeRefused(f"battle {battle} was superseded by battle {child}: go on there")
    return logged, started


def _append(
    store: BattleStore, battle: UUID, logged: list[LoggedEvent], event: Event
) -> LoggedEvent:
    [written] = store.append(battle, logged[0].ruleset, len(logged), [event])
    return written


def _words(text: str, field: str) -> str:
    if not text.strip():
        raise DisputeRefused(f"{field}: expected a few words, not nothing")
    if len(text.strip()) > MAX_TEXT:
        raise DisputeRefused(
            f"{field}: {len(text.strip())} characters; expected at most {MAX_TEXT}"
        )
    return text.strip()


def flag(  # noqa: PLR0913 - the flag's parts, and the events read already
    store: BattleStore,
    battle: UUID,
    *,
    command: int,
    by: str,
    reason: str,
    logged: list[LoggedEvent] | None = None,
) -> LoggedEvent:
    """Record that command number ``command`` (as ``bxb log`` numbers it) is disputed, by
    ``by`` (a player, a side), for ``reason``: a ``CommandFlagged``, in one transaction.
    StaleVersion (nothing written) when the battle moved while flagging. ``logged``: the
    battle's events as the caller read them just now (else read here)."""
    by, reason = _words(by, "by"), _words(reason, "reason")
    logged, _ = _open(store, battle, logged)
    position = _command_at(logged, command)
    return _append(
        store,
        battle,
        logged,
        CommandFlagged(index=command, position=position, by=by, reason=reason),
    )


def _command_at(logged: Sequence[LoggedEvent], command: int) -> int:
    try:
        return command_position([e.event for e in logged], command)
    except ValueError as e:
        raise DisputeRefused(str(e)) from None


def rule(  # noqa: PLR0913 - the ruling's parts, and the events read already
    store: BattleStore,
    battle: UUID,
    *,
    command: int,
    judge: Judge,
    reason: str,
    logged: list[LoggedEvent] | None = None,
) -> LoggedEvent:
    """Record a judge's ruling that command ``command`` stands as played, signed with the
    judge's key. (A ruling that changes anything is made by ``fork``, which records it.)
    ``logged``: as ``flag``'s."""
    reason = _words(reason, "reason")
    logged, _ = _open(store, battle, logged)
    _command_at(logged, command)  # a command that stands (0 would be "no command")
    decision = _decision(logged, battle, judge, command=command, decision="stands", reason=reason)
    return _append(store, battle, logged, sign_ruling(decision, judge.key))


def _decision(logged: Sequence[LoggedEvent], battle: UUID, judge: Judge, **fields: Any) -> Decision:
    """The decision a judge signs, about ``fields["command"]`` (0: none), after the battle's
    events as they are."""
    command: int = fields["command"]
    return Decision(
        algorithm=RULING_ALGORITHM,
        battle=str(battle),
        length=len(logged),
        last_hash=logged[-1].hash.hex(),
        command_position=_command_at(logged, command) if command else 0,
        judge=_words(judge.name, "judge"),
        **fields,
    )


def note(
    store: BattleStore, battle: UUID, *, position: int, text: str, judge: Judge
) -> LoggedEvent:
    """Attach a judge's note to the event at ``position``, signed with the judge's key."""
    text = _words(text, "text")
    logged, _ = _read(store, battle)
    if isinstance(logged[-1].event, BattleSealed):
        raise DisputeRefused(f"battle {battle} is sealed: nothing more is added to it")
    if not 1 <= position <= len(logged):
        raise DisputeRefused(f"position: expected 1 to {len(logged)}, not {position}")
    signed = sign_note(
        Note(
            algorithm="bxb-note-v1",
            battle=str(battle),
            position=position,
            judge=_words(judge.name, "judge"),
            text=text,
        ),
        judge.key,
    )
    return _append(store, battle, logged, signed)


def disputes(store: BattleStore, battle: UUID) -> Disputes:
    """The flags, rulings and notes of a battle (``open_flags``: those not yet ruled on;
    ``superseded_by``: the child battle that goes on instead, if a judge forked it)."""
    logged, _ = _read(store, battle)
    return disputes_of([e.event for e in logged])


# --- the fork ----------------------------------------------------------------------------------


def _decision_of(change: Change) -> str:
    if isinstance(change, RulingChanged):
        return "ruling-changed"
    if isinstance(change, Rewound):
        return "rewound"
    return "corrected"


@dataclass
class _Plan:
    """What a fork re-adjudicates: the parent's commands kept as they were, and those after the
    fork position (the dropped one left out)."""

    kept: list[PlayedCommand]
    later: list[PlayedCommand]
    disputed: int  # the command the ruling is about (0: none)


def _plan(played: list[PlayedCommand], position: int, change: Change) -> _Plan:
    kept = [c for c in played if c.last <= position]
    later = [c for c in played if c.last > position]
    numbers = [c.index for c in later]
    disputed = numbers[0] if numbers else 0
    if isinstance(change, DieCorrected | ChoiceCorrected):
        disputed = _command_of_key(change.key)
        if disputed not in numbers:
            raise DisputeRefused(
                f"{'die' if isinstance(change, DieCorrected) else 'choice'} {change.key}: "
                f"expected a roll or question of a command after position {position} "
                f"(commands {_span(numbers)})"
            )
    if isinstance(change, CommandDropped):
        if change.index not in numbers:
            raise DisputeRefused(
                f"void: expected a command after position {position} "
                f"(commands {_span(numbers)}), not {change.index}"
            )
        disputed = change.index
        later = [c for c in later if c.index != change.index]
    return _Plan(kept=kept, later=later, disputed=disputed)


def _span(numbers: list[int]) -> str:
    return f"{numbers[0]} to {numbers[-1]}" if numbers else "none"


def _command_of_key(key: str) -> int:
    head = key.split("/", 1)[0]
    number = whole_number(head[1:]) if head.startswith("c") else None
    if number is None or "/" not in key:
        raise DisputeRefused(
            f"key: expected a roll's or question's full key (c3/hit/1), not {key!r}"
        )
    return number


def _renamed(key: str, old: int, new: int) -> str:
    return f"c{new}/{key.split('/', 1)[1]}" if key.startswith(f"c{old}/") else key


class _Corrected:
    """Dice for a replayed command: the judge's corrected roll by its key (recorded with the
    judge as its source), every other roll from ``base``."""

    source = "recorded"

    def __init__(self, base: DiceSource, change: Change, used: list[str]) -> None:
        self.base, self.change, self.used = base, change, used

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        change = self.change
        if isinstance(change, DieCorrected) and change.key == key:
            if len(change.values) != n or not all(1 <= v <= sides for v in change.values):
                raise DisputeRefused(
                    f"die {key}: expected {n} value(s) from 1 to {sides}, "
                    f"not {' '.join(map(str, change.values))}"
                )
            self.used.append(key)
            return change.values, CORRECTED_BY_JUDGE
        return self.base.roll(key, n, sides, purpose)


class _Answers:
    """Choices for a replayed command: its own recorded answers (under its number in the
    child), the judge's corrected one; a question the record cannot answer stops the replay."""

    def __init__(self, answers: Mapping[str, tuple[str, str]], change: Change, used: list[str]):
        self.answers, self.change, self.used = answers, change, used

    def choose(
        self, key: str, options: tuple[str, ...], default: str, prompt: str
    ) -> tuple[str, str]:
        change = self.change
        if isinstance(change, ChoiceCorrected) and change.key == key:
            if change.answer not in options:
                raise DisputeRefused(
                    f"choice {key}: expected one of {', '.join(options)}, not {change.answer!r}"
                )
            self.used.append(key)
            return change.answer, CORRECTED_BY_JUDGE
        found = self.answers.get(key)
        if found is None or found[0] not in options:
            raise DiceError(f"question {key!r} is not in the record (a player must answer it)")
        if found[1] == "default":  # nobody chose: the rules' default now (under a new ruling too)
            return default, "default"
        return found


@dataclass
class _Replay:
    table: Table
    digital: DiceSource | None  # the battle's digital dice: every roll drawn by its key
    change: Change
    used: list[str]


def _inputs(
    command: PlayedCommand, number: int, replay: _Replay, *, kept: bool = False
) -> tuple[DiceSource, _Answers]:
    """A command's dice and answers, renamed to its number in the child: a kept command's own,
    exactly as recorded; a replayed one's from the battle's digital dice, if any."""
    dice: dict[str, tuple[tuple[int, ...], str]] = {}
    answers: dict[str, tuple[str, str]] = {}
    for event in command.events:
        if isinstance(event, DiceRolled):
            dice[_renamed(event.key, command.index, number)] = (event.values, event.source)
        elif isinstance(event, ChoiceMade):
            answers[_renamed(event.key, command.index, number)] = (event.answer, event.source)
    digital = None if kept else replay.digital
    base: DiceSource = digital if digital is not None else RecordedDice(dice)
    return _Corrected(base, replay.change, replay.used), _Answers(
        answers, replay.change, replay.used
    )


def _run(
    replay: _Replay, state: Any, command: PlayedCommand, number: int, *, kept: bool = False
) -> tuple[list[Event], Any]:
    dice, answers = _inputs(command, number, replay, kept=kept)
    own = dataclasses.replace(replay.table, dice=dice, choices=answers)
    result = own.adjudicate(state, command.issued.command, number)
    return result.events, result.state


def _digital(started: BattleStarted[Any]) -> DiceSource | None:
    """The dice a replayed command draws from by key: a seeded battle's seed (public: every die
    of every command could be computed anyway). A fair battle's replayed commands take their
    own recorded dice, whatever number they are replayed under, and the replay stops at the
    first roll their record lacks: drawing them anew by another key would be a re-roll."""
    if started.dice.mode == "seeded" and started.dice.seed is not None:
        return SeededDice(started.dice.seed)
    return None


def _fair_commitment(
    store: BattleStore, parent: UUID, started: BattleStarted[Any], dice: DiceSource | None
) -> str:
    """A fork of a fair battle: the commitment to the parent's dice seed its link carries (the
    child's own dice are drawn from it, docs/dice.md); "" for other dice."""
    if started.dice.mode != "fair":
        return ""
    from blowbyblow.replay.evidence.fair_forks import fair_link
    from blowbyblow.replay.evidence.fairness import FairnessError
    from blowbyblow.replay.evidence.seals import JudgingError, commitment

    logged, first = _read(store, parent)
    if first.origin is not None and fair_link([e.event for e in logged[:2]]) is None:
        raise DisputeRefused(
            f"battle {parent} is a fork of a fair battle made before forks had dice of their "
            "own: it cannot be forked again (its dice are its first ancestor's)"
        )

    if dice is None:
        try:
            dice = live_dice(store, parent)
        except (FairnessError, JudgingError) as e:
            raise DisputeRefused(
                f"a fork of a fair battle commits to its dice, which this machine cannot open "
                f"({e}): fork with the judge's key"
            ) from None
    seed = getattr(dice, "seed", None)
    if not isinstance(seed, str):
        raise DisputeRefused("a fork of a fair battle needs its fair dice (the judge's key)")
    return commitment(seed)


@dataclass
class _Child:
    events: list[Event]
    state: Any
    replayed: int
    stopped: str


def _replay_child(
    system: AnyGameSystem, started: BattleStarted[Any], plan: _Plan, replay: _Replay
) -> _Child:
    """The child's commands: the kept ones as they were (or the fork is refused), then the later
    ones under the change until one no longer applies."""
    events: list[Event] = []
    state = fold_battle(system, [started])
    for command in plan.kept:
        try:
            produced, state = _run(replay, state, command, command.index, kept=True)
        except BlowByBlowError:
            produced = []
        if [encode(e) for e in produced] != [encode(e) for e in command.events]:
            raise DisputeRefused(
                f"command {command.index}, before the fork position, comes out otherwise under "
                f"the change: fork from before position {command.first}"
            )
        events += produced
    number, replayed, stopped = len(plan.kept), 0, ""
    later = [] if isinstance(replay.change, Rewound) else plan.later
    for command in later:
        number += 1
        try:
            produced, state = _run(replay, state, command, number)
        except DisputeRefused:
            raise
        except DiceError as e:
            stopped = f"the parent's command {command.index} needs what its record lacks: {e}"
            break
        except BlowByBlowError as e:
            stopped = f"the parent's command {command.index} no longer applies: {e}"
            break
        events += produced
        replayed += 1
    return _Child(events=events, state=state, replayed=replayed, stopped=stopped)


def _child_start(
    system: AnyGameSystem, started: BattleStarted[Any], parent: UUID, position: int, change: Change
) -> BattleStarted[Any]:
    rulings = dict(started.rulings)
    if isinstance(change, RulingChanged):
        known = {r.name: r for r in system.rulings}
        if change.name not in known:
            raise DisputeRefused(
                f"ruling: expected one of {', '.join(sorted(known))}, not {change.name!r}"
            )
        try:
            rulings[change.name] = known[change.name].check(change.value)
        except BlowByBlowError as e:
            raise DisputeRefused(str(e)) from None
    return msgspec.structs.replace(
        started,
        label=f"{started.label} (fork at {position}: {change_words(change)})",
        origin=str(parent),
        rulings=rulings,
    )


@dataclass
class ForkPreview:
    """A fork worked out, nothing written: the child's id, its start and commands (its link
    aside), and how the replay went (as in ``Forked``)."""

    parent: UUID
    child: UUID
    started: BattleStarted[Any]
    commands: list[Event]
    kept: int
    replayed: int
    stopped: str
    state: Any
    disputed: int  # the command the ruling is about (0: none)
    parent_events: list[LoggedEvent]
    superseded_by: str | None  # the parent's ruling names this child already (an interrupted fork)


def preview_fork(  # noqa: PLR0913 - the fork's parts, and the events read already
    store: BattleStore,
    parent: UUID,
    *,
    position: int,
    change: Change,
    dice: DiceSource | None = None,
    logged: list[LoggedEvent] | None = None,
) -> ForkPreview:
    """What ``fork`` would write, worked out in memory: for a judge to look at first (and for
    ``fork`` itself). Raises DisputeRefused as ``fork`` does. ``logged``: as ``flag``'s."""
    logged, started = _read(store, parent, logged)
    if isinstance(logged[-1].event, BattleSealed):
        raise DisputeRefused(f"battle {parent} is sealed: its result stands, nothing is added")
    events = [e.event for e in logged]
    if not 1 <= position <= len(logged):
        raise DisputeRefused(f"position: expected 1 to {len(logged)}, not {position}")
    system = get_game_system(started.ruleset)
    child_started = _child_start(system, started, parent, position, change)
    child = battle_id_for(child_started)
    if store.version(child):
        raise DisputeRefused(f"this fork is recorded already, as battle {child}")
    superseded = disputes_of(events).superseded_by
    if superseded is not None and superseded != str(child):
        raise DisputeRefused(f"battle {parent} was superseded by battle {superseded}: go on there")
    plan = _plan(commands_played(events), position, change)
    used: list[str] = []
    table = Table(
        system=system,
        rulings=system.rulings_in_force(started.ruleset_version, child_started.rulings),
        dice=RecordedDice({}),
        choices=_Answers({}, change, used),
        quiet=True,
    )
    built = _replay_child(
        system, child_started, plan, _Replay(table, _digital(started), change, used)
    )
    _check_used(change, used, built)
    return ForkPreview(
        parent=parent,
        child=child,
        started=child_started,
        commands=built.events,
        kept=len(plan.kept),
        replayed=built.replayed,
        stopped=built.stopped,
        state=built.state,
        disputed=plan.disputed,
        parent_events=logged,
        superseded_by=superseded,
    )


def fork(  # noqa: PLR0913 - each a part of the judge's decision
    store: BattleStore,
    parent: UUID,
    *,
    position: int,
    change: Change,
    judge: Judge,
    reason: str,
    dice: DiceSource | None = None,
    logged: list[LoggedEvent] | None = None,
) -> Forked:
    """Fork ``parent`` at ``position`` under ``change``, as ``judge`` rules, for ``reason``:
    the parent's ruling (signed, naming the child) and the child (whole, in one transaction)
    are written; the parent stays as it is. ``dice``: a fair battle's dice
    (``fairness.fair_dice``, opened with the judge's key; else the table's copy of the seed is
    tried): the link commits to their seed, from which the child's own dice are drawn. A fair
    battle's replayed commands take only their recorded dice (docs/dice.md, Fair dice in a
    fork).

    Raises DisputeRefused (nothing written): a sealed or superseded parent, a position outside
    it, a change that names nothing after the position or would change a kept command;
    StaleVersion when the parent moved meanwhile. ``logged``: as ``flag``'s."""
    reason = _words(reason, "reason")
    name = _words(judge.name, "judge")
    seen = preview_fork(store, parent, position=position, change=change, dice=dice, logged=logged)
    logged = seen.parent_events
    committed = _fair_commitment(store, parent, seen.started, dice)
    link = ForkLink(
        algorithm=FORK_ALGORITHM,
        battle=str(seen.child),
        parent=str(parent),
        position=position,
        parent_hash=logged[position - 1].hash.hex(),
        change=change,
        judge=name,
        reason=reason,
        replayed=seen.replayed,
        stopped=seen.stopped,
        dice=committed,
    )
    ruling = None
    if seen.superseded_by is None:  # else: an interrupted fork, its ruling written already
        decision = _decision(
            logged,
            parent,
            judge,
            command=seen.disputed,
            decision=_decision_of(change),
            reason=reason,
            position=position,
            change=change,
            child=str(seen.child),
        )
        ruling = _append(store, parent, logged, sign_ruling(decision, judge.key))
    written = store.append(
        seen.child,
        seen.started.ruleset,
        0,
        [seen.started, sign_link(link, judge.key), *seen.commands],
    )
    return Forked(
        child=seen.child,
        parent=parent,
        events=written,
        ruling=ruling,
        kept=seen.kept,
        replayed=seen.replayed,
        stopped=seen.stopped,
        state=seen.state,
    )


def _check_used(change: Change, used: list[str], built: _Child) -> None:
    """A corrected die or choice must have been asked for by the replay."""
    if isinstance(change, DieCorrected | ChoiceCorrected) and change.key not in used:
        what = "roll" if isinstance(change, DieCorrected) else "question"
        why = f" (the replay stopped first: {built.stopped})" if built.stopped else ""
        raise DisputeRefused(
            f"key: the replay never makes the {what} {change.key}{why}; name one it makes"
        )


def live_dice(
    store: BattleStore,
    battle: UUID,
    *,
    key: Ed25519PrivateKey | None = None,
    logged: list[LoggedEvent] | None = None,
) -> DiceSource | None:
    """The digital dice a battle is played on with: a seeded battle's (a child's are its
    parent's seed); a fair battle's, opened from the table's copy of the seed or the escrow
    with a judge's ``key`` (a child of a fair battle: its first ancestor's); None for
    physical dice (the table types them). ``logged``: as ``flag``'s."""
    from blowbyblow.replay.evidence.fair_forks import fair_link
    from blowbyblow.replay.evidence.fairness import fair_dice

    logged, started = _read(store, battle, logged)
    if started.dice.mode == "seeded":
        return _digital(started)
    if started.dice.mode != "fair":
        return None
    # A fork of a fair battle rolls dice of its own (``fair_forks``); one made before forks had
    # them rolled its first ancestor's.
    while started.origin is not None and fair_link([e.event for e in logged[:2]]) is None:
        battle = UUID(started.origin)
        logged, started = _read(store, battle)
    return fair_dice(store, battle, key=key)


__all__ = [
    "DisputeRefused",
    "ForkPreview",
    "Forked",
    "Judge",
    "disputes",
    "flag",
    "fork",
    "live_dice",
    "note",
    "preview_fork",
    "rule",
]
