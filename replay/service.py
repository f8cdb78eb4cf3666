"""Recording battles: a scenario is played in memory first (so a bad action anywhere writes
nothing), then its first event and each command's events are appended, one transaction each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict, Unpack
from uuid import UUID

import structlog

from blowbyblow.domain.core import BattleStarted, BlowByBlowError, CommandIssued, DiceSpec, Event
from blowbyblow.domain.system import AnyGameSystem, AnyScenario
from blowbyblow.projections.battle import fold_battle
from blowbyblow.replay.dice import ALGORITHM, ChoiceSource, DiceSource, ScriptedChoices, SeededDice
from blowbyblow.replay.driver import Table
from blowbyblow.replay.judging import (
    BattleSealed,
    Checkpoint,
    JudgingError,
    commitment,
    new_fair_seed,
    seal,
)
from blowbyblow.replay.registry import get_game_system
from blowbyblow.replay.session import adjudicate_all, dice_for, split_by_command, start_event
from blowbyblow.replay.store import BattleStore, LoggedEvent, battle_id_for

log = structlog.get_logger("blowbyblow.service")


class BattleNotFound(BlowByBlowError):
    pass


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
    fair: bool  # True: dice from a fresh secret seed, committed now, revealed by the seal


def record(store: BattleStore, scenario: AnyScenario, **how: Unpack[HowToRecord]) -> Recorded:
    """Record ``scenario`` as a new battle: every command is adjudicated before anything is
    written. With ``fair``, the dice come from a fresh secret seed whose commitment is recorded
    now and which the seal will reveal."""
    ruleset = get_game_system(scenario.ruleset)
    dice, spec, fair_seed = _dice(scenario, how.get("dice"), fair=how.get("fair", False))
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
    )
    try:
        batches, state = adjudicate_all(table, started, scenario.commands)
    except BlowByBlowError as e:
        # The steps logged so far were adjudicated, never recorded: say so in the same log.
        log.warning(
            "BattleRefused", battle=str(battle), ruleset=ruleset.id, reason=str(e), written=0
        )
        raise
    if fair_seed is not None:
        store.vault.put(str(battle), fair_seed)
    return Recorded(
        battle=battle,
        ruleset=ruleset,
        events=_append_all(store, battle, ruleset, batches),
        state=state,
    )


def _dice(
    scenario: AnyScenario, given: DiceSource | None, *, fair: bool
) -> tuple[DiceSource, DiceSpec, str | None]:
    """The battle's dice, how they are recorded, and a fair battle's secret seed."""
    if fair:
        fair_seed = new_fair_seed()
        spec = DiceSpec(mode="fair", algorithm=ALGORITHM, commitment=commitment(fair_seed))
        return SeededDice(fair_seed), spec, fair_seed
    dice = given or dice_for(scenario)[0]
    if isinstance(dice, SeededDice):
        return dice, DiceSpec(mode="seeded", algorithm=ALGORITHM, seed=dice.seed), None
    return dice, DiceSpec(mode="physical"), None


def _append_all(
    store: BattleStore, battle: UUID, ruleset: AnyGameSystem, batches: list[list[Event]]
) -> list[LoggedEvent]:
    """Write a new battle one batch (one command) per transaction."""
    logged: list[LoggedEvent] = []
    for batch in batches:
        logged.extend(store.append(battle, ruleset.id, len(logged), batch))
    return logged


class BattleSession:
    """A battle being played live, one command at a time, from the version it was read at."""

    def __init__(self, store: BattleStore, battle: UUID) -> None:
        events = store.read(battle)
        if not events or not isinstance(events[0].event, BattleStarted):
            raise BattleNotFound(f"no battle {battle} in this store")
        self.store = store
        self.battle = battle
        self.started: BattleStarted[Any] = events[0].event
        self.ruleset = get_game_system(self.started.ruleset)
        self.state = fold_battle(self.ruleset, [e.event for e in events])
        self.version = len(events)
        self.commands = sum(1 for e in events if isinstance(e.event, CommandIssued))

    def play(self, command: Any, *, dice: DiceSource, choices: ChoiceSource) -> list[LoggedEvent]:
        table = Table(
            system=self.ruleset,
            rulings=self.ruleset.rulings_in_force(
                self.started.ruleset_version, self.started.rulings
            ),
            dice=dice,
            choices=choices,
            battle=str(self.battle),
        )
        result = table.adjudicate(
            self.state, command, self.commands + 1, first_position=self.version + 1
        )
        logged = self.store.append(self.battle, self.ruleset.id, self.version, result.events)
        self.version += len(logged)
        self.commands += 1
        self.state = result.state
        return logged


def resolve_battle(store: BattleStore, ref: str | None) -> UUID:
    """A battle named by id, unique id prefix or label; the most recent one when ``ref`` is None."""
    battles = store.battles()
    if not battles:
        raise BattleNotFound("the store holds no battles yet (try `bxb demo`)")
    if ref is None:
        return battles[-1].battle
    exact = [b for b in battles if str(b.battle) == ref]
    if exact:
        return exact[0].battle
    by_prefix = [b for b in battles if str(b.battle).startswith(ref.lower())]
    by_label = [b for b in battles if b.label == ref]
    matches = by_prefix or by_label
    if len(matches) == 1:
        return matches[0].battle
    if len(matches) > 1:
        raise BattleNotFound(
            f"{ref!r} names {len(matches)} battles: "
            + ", ".join(f"{b.battle} ({b.label})" for b in matches[:5])
        )
    raise BattleNotFound(f"no battle {ref!r} in this store (see `bxb battles`)")


def seal_battle(store: BattleStore, battle: UUID, key: Any) -> LoggedEvent:
    """Verify the battle, then close it with a signed checkpoint (revealing a fair battle's seed)."""
    from blowbyblow.replay.verify import verify_battle

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
    seed: str | None = None
    if first.dice.mode == "fair":
        seed = store.vault.get(str(battle))
        if seed is None or commitment(seed) != first.dice.commitment:
            raise JudgingError(
                f"the secret seed of fair battle {battle} is not in this store's vault"
            )
    checkpoint = Checkpoint(
        algorithm="bxb-checkpoint-v1",
        battle=str(battle),
        length=len(events),
        last_hash=events[-1].hash.hex(),
        seed=seed,
    )
    return store.seal(battle, first.ruleset, seal(checkpoint, key))


def save_events(store: BattleStore, ruleset: AnyGameSystem, events: list[Event]) -> Recorded:
    """Record an already adjudicated event list (a what-if) as a new battle, one transaction per
    command."""
    started = events[0]
    assert isinstance(started, BattleStarted)
    battle = battle_id_for(started)
    if store.version(battle):
        raise AlreadyRecorded(battle, started.label)
    logged = _append_all(store, battle, ruleset, split_by_command(events))
    state = fold_battle(ruleset, events)
    return Recorded(battle=battle, ruleset=ruleset, events=logged, state=state)
