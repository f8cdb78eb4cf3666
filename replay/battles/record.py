"""Recording battles: a scenario is played in memory first (so a bad action anywhere writes
nothing), then its first event and each command's events are appended, one transaction each.
A fair battle is the exception: its start is written first (``fairness.start_fair``), since its
dice depend on contributions given after the seed is committed, and it stays once written."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict, Unpack
from uuid import UUID

from blowbyblow.domain.core import (
    BattleStarted,
    BlowByBlowError,
    CommandVoided,
    DiceRolled,
    DiceSpec,
    Event,
)
from blowbyblow.domain.judging import BattleSealed, Checkpoint
from blowbyblow.domain.system import AnyGameSystem, AnyScenario
from blowbyblow.projections.battle import fold_battle
from blowbyblow.projections.disputes import disputes_of
from blowbyblow.replay.battles.fair_start import start_fair
from blowbyblow.replay.engine import logs
from blowbyblow.replay.engine.dice import (
    ALGORITHM,
    ChoiceSource,
    DiceSource,
    ScriptedChoices,
    SeededDice,
)
from blowbyblow.replay.engine.driver import Table, Turn, adjudicate_commands
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.scenario import MAX_TEXT
from blowbyblow.replay.engine.script import (
    adjudicate_all,
    check_all_used,
    dice_for,
    split_by_command,
    start_event,
)
from blowbyblow.replay.evidence.fairness import FairTerms, StartedAndKept, reveal_seed
from blowbyblow.replay.evidence.seals import JudgingError, seal
from blowbyblow.replay.store.log import BattleStore, LoggedEvent, battle_id_for, chain

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from blowbyblow.replay.battles.head import BattleHead
    from blowbyblow.replay.evidence.export import ReadExport

LOGGER = "blowbyblow.service"  # its log lines' logger (structlog is imported when one is written)


class AlreadyRecorded(BlowByBlowError):
    def __init__(self, battle: UUID, label: str) -> None:
        super().__init__(
            f"this battle is already recorded as {battle} ({label!r}); "
            "record it under another label to keep both"
        )
        self.battle = battle


@dataclass
class Recorded:
    battle: UUID
    ruleset: AnyGameSystem
    events: list[LoggedEvent]
    state: Any


class HowToRecord(TypedDict, total=False):
    """How ``record`` records a scenario (keywords, each optional)."""

    dice: DiceSource | None  # default: the scenario's seed, or its listed dice
    choices: ChoiceSource | None  # default: the scenario's choices, the rules' default otherwise
    quiet: bool  # True: do not log the rule steps
    # Fair dice (docs/judging.md): a fresh secret seed, committed and escrowed to the judges'
    # keys, mixed with each side's contribution; revealed by the seal.
    fair: FairTerms
    observe: Callable[[Event], None] | None  # told each event as it is adjudicated (narration)


def record(store: BattleStore, scenario: AnyScenario, **how: Unpack[HowToRecord]) -> Recorded:
    """Record ``scenario`` as a new battle: every command is adjudicated before anything is
    written. With ``fair``, the battle's start (commitment, escrow, contributions) is written
    first and stays, whatever its commands do; the commands are then adjudicated with the fair
    dice, and written only if every one of them is legal."""
    fair = how.get("fair")
    if fair is not None:
        return _record_fair(store, scenario, fair, how)
    ruleset = get_game_system(scenario.ruleset)
    dice, spec = _dice(scenario, how.get("dice"))
    started = start_event(ruleset, scenario, spec)
    battle = battle_id_for(started)
    if store.version(battle):
        raise AlreadyRecorded(battle, scenario.label)
    table = Table(
        system=ruleset,
        rulings=started.rulings,
        dice=dice,
        choices=how.get("choices") or ScriptedChoices(scenario.choices),
        battle=str(battle),
        quiet=how.get("quiet", False),
        observe=how.get("observe"),
    )
    try:
        batches, state = adjudicate_all(table, started, scenario.commands)
        check_all_used(table.dice, table.choices)
    except BlowByBlowError as e:
        # The steps logged so far were adjudicated, never recorded: say so in the same log.
        logs.logger(LOGGER).warning(
            "BattleRefused", battle=str(battle), ruleset=ruleset.id, reason=str(e), written=0
        )
        raise
    return Recorded(
        battle=battle,
        ruleset=ruleset,
        events=_append_all(store, battle, ruleset, batches),
        state=state,
    )


def _record_fair(
    store: BattleStore, scenario: AnyScenario, terms: FairTerms, how: HowToRecord
) -> Recorded:
    """A fair battle: its start written first, then its commands, all or none."""
    if how.get("dice") is not None:
        raise JudgingError("a fair battle makes its own dice: give no other dice source")
    fair = start_fair(
        store,
        scenario,
        dataclasses.replace(terms, all_at_start=True, keep_seed=False),
    )
    table = Table(
        system=fair.ruleset,
        rulings=fair.started.rulings,
        dice=fair.dice(),
        choices=how.get("choices") or ScriptedChoices(scenario.choices),
        battle=str(fair.battle),
        quiet=how.get("quiet", False),
    )
    state = fold_battle(fair.ruleset, [e.event for e in fair.events])
    turns = (Turn(command) for command in scenario.commands)
    batches: list[list[Event]] = []
    try:
        for result in adjudicate_commands(table, state, turns, first_position=len(fair.events) + 1):
            batches.append(result.events)
            state = result.state
    except BlowByBlowError as e:
        logs.logger(LOGGER).warning(
            "BattleRefused", battle=str(fair.battle), reason=str(e), written="start"
        )
        raise StartedAndKept(fair.battle, f"no command was written: {e}") from None
    logged = list(fair.events)
    # The commands in one transaction after the start: all of them, or none.
    logged.extend(
        store.append(
            fair.battle, fair.ruleset.id, len(logged), [e for batch in batches for e in batch]
        )
    )
    return Recorded(battle=fair.battle, ruleset=fair.ruleset, events=logged, state=state)


def _dice(scenario: AnyScenario, given: DiceSource | None) -> tuple[DiceSource, DiceSpec]:
    """The battle's dice and how they are recorded."""
    dice = given or dice_for(scenario)[0]
    if isinstance(dice, SeededDice):
        return dice, DiceSpec(mode="seeded", algorithm=ALGORITHM, seed=dice.seed)
    return dice, DiceSpec(mode="physical")


def _append_all(
    store: BattleStore, battle: UUID, ruleset: AnyGameSystem, batches: list[list[Event]]
) -> list[LoggedEvent]:
    """Write a new battle whole, in one transaction: an interruption (a kill, Ctrl-C, a locked
    store) leaves no battle at all, never a truncated one that would verify as complete."""
    return store.append(battle, ruleset.id, 0, [event for batch in batches for event in batch])


class VoidRefused(BlowByBlowError):
    """A ``CommandVoided`` that may not be recorded (the rule: only the last command that stands,
    in a battle not sealed, with who voids it and why)."""


def void_command(
    store: BattleStore, battle: UUID, *, command: int, by: str, reason: str
) -> LoggedEvent:
    """Record that command number ``command`` (as ``bxb log`` numbers it: "Command 3") of
    ``battle`` is not played, by ``by``, for ``reason``, in one transaction of its own
    (``Battle.void``; this reads the battle first)."""
    from blowbyblow.replay.battles.battle import Battle

    return Battle(store).void(battle, command, by=by, reason=reason)


def void(
    store: BattleStore, head: BattleHead, *, command: int, by: str, reason: str
) -> LoggedEvent:
    """Void command number ``command`` of the battle as ``head`` holds it.

    Only the last command that stands may be voided (void later commands first, newest first);
    nothing is deleted, and the next command played takes the voided one's number again.
    Raises VoidRefused (nothing written), or StaleVersion when the battle moved since ``head``."""
    if not by.strip():
        raise VoidRefused("a void names who voids the command (by)")
    if not reason.strip():
        raise VoidRefused("a void says why the command is voided (reason)")
    for name, text in (("by", by), ("reason", reason)):
        if len(text) > MAX_TEXT:
            raise VoidRefused(f"{name}: {len(text)} characters; expected at most {MAX_TEXT}")
    if head.sealed:
        raise VoidRefused(f"battle {head.id} is sealed; its commands can no longer be voided")
    last = head.last_command
    if last is None:
        raise VoidRefused(f"battle {head.id} has no command to void")
    index, position = last
    if command != index:
        if 1 <= command < index:
            later = ", ".join(str(n) for n in range(index, command, -1))
            raise VoidRefused(
                f"command {command} cannot be voided while later commands stand: only the last "
                f"command that stands ({index}) may be voided; void {later} first, newest first"
            )
        raise VoidRefused(
            f"no command {command} stands in battle {head.id}; the last one is {index}"
        )
    if head.started.dice.mode == "fair" and any(
        isinstance(e.event, DiceRolled) for e in head.events[position - 1 :]
    ):
        # A fair battle's dice are secret until the seal and drawn by the roll's key
        # (docs/dice.md): once a command's dice are seen, voiding it and playing another
        # command (other keys) would draw unseen ones, a re-roll the table chose. A judge
        # rewinds instead (a fork, docs/judging.md). A seeded battle's seed is in its first
        # event: every die of every command can be computed before it is played, so a void
        # shows nothing that was not known; there the table still voids its own command.
        raise VoidRefused(
            f"command {index} rolled fair dice, seen at the table: a void would let another "
            "command roll unseen dice instead; only a judge corrects it, by forking the battle "
            f"(`bxb fork --void {index}`)"
        )
    voided = CommandVoided(index=index, position=position, by=by.strip(), reason=reason.strip())
    [logged] = store.append(head.id, head.system.id, head.version, [voided])
    logs.logger(LOGGER).info(
        "CommandVoided", battle=str(head.id), command=index, position=position, by=by
    )
    return logged


def seal_battle(store: BattleStore, battle: UUID, key: Ed25519PrivateKey) -> LoggedEvent:
    """Verify the battle, then close it with a signed checkpoint. A fair battle's seed is opened
    from its escrow with the judge's key (or, recorded before escrow, taken from this store's
    seed vault), checked against its commitment, and revealed in the checkpoint; the battle must
    verify with it, every digital die recomputed, before the seal is written."""
    from blowbyblow.replay.evidence.verify import verify_battle, verify_events

    report = verify_battle(store, battle)
    if not report.ok:
        assert report.problem is not None
        raise JudgingError(
            f"will not seal a battle that fails verification: {report.problem.describe()}"
        )
    events = store.read(battle)
    if isinstance(events[-1].event, BattleSealed):
        raise JudgingError(f"battle {battle} is sealed already")
    first = events[0].event
    assert isinstance(first, BattleStarted)
    _line_sealed_first(store, battle, first, events)
    seed = reveal_seed(store, events, key) if first.dice.mode == "fair" else None
    checkpoint = Checkpoint(
        algorithm="bxb-checkpoint-v1",
        battle=str(battle),
        length=len(events),
        last_hash=events[-1].hash.hex(),
        seed=seed,
    )
    sealed = seal(checkpoint, key)
    if seed is not None:
        # The battle as it will read once sealed: now its dice can be checked.
        as_sealed = [*events, *chain(battle, first.ruleset, events[-1], [sealed], [""])]
        report = verify_events(battle, as_sealed)
        if not report.ok:
            assert report.problem is not None
            raise JudgingError(
                "will not seal: with the revealed seed the battle fails verification: "
                + report.problem.describe()
            )
    return store.seal(battle, first.ruleset, sealed)


def _line_sealed_first(
    store: BattleStore, battle: UUID, first: BattleStarted[Any], events: list[LoggedEvent]
) -> None:
    """A fair battle a judge's fork superseded is sealed only once its child is: its seal
    reveals the seed the child's own dice are drawn from (docs/dice.md, Fair dice in a fork),
    which would let anyone see the child's next dice before they are rolled."""
    if first.dice.mode != "fair":
        return
    child = disputes_of([e.event for e in events]).superseded_by
    if child is None:
        return
    last = store.last(UUID(child))
    if last is None or not isinstance(last.event, BattleSealed):
        raise JudgingError(
            f"battle {battle} was superseded by battle {child}, which is not sealed: sealing "
            f"it now would reveal the seed {child}'s dice are drawn from; seal {child} first"
        )


def save_events(store: BattleStore, ruleset: AnyGameSystem, events: list[Event]) -> Recorded:
    """Record an already adjudicated event list (a what-if) as a new battle, whole, in one
    transaction."""
    started = events[0]
    assert isinstance(started, BattleStarted)
    battle = battle_id_for(started)
    if store.version(battle):
        raise AlreadyRecorded(battle, started.label)
    logged = _append_all(store, battle, ruleset, split_by_command(events))
    state = fold_battle(ruleset, events)
    return Recorded(battle=battle, ruleset=ruleset, events=logged, state=state)


def import_battle(
    store: BattleStore, text: bytes | str, trusted_keys: frozenset[str] | None = None
) -> ReadExport:
    """Verify an export completely, then write the battle in one transaction (``Battle.import_``);
    refuse (writing nothing) a file that fails, or a battle the store already holds."""
    from blowbyblow.replay.battles.battle import Battle

    return Battle(store).import_(text, trusted_keys)
