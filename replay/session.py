"""Playing a scenario in memory: the battle's first event, then each command through the driver.
The recording service (``replay.service``) does the same and appends to a store; tests and
property checks use this directly."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from blowbyblow.domain.core import BattleStarted, CommandIssued, DiceSpec, Event
from blowbyblow.domain.system import AnyGameSystem, AnyScenario
from blowbyblow.projections.battle import fold_battle
from blowbyblow.replay.dice import (
    ALGORITHM,
    ChoiceSource,
    DiceSource,
    ListedDice,
    ScriptedChoices,
    SeededDice,
)
from blowbyblow.replay.driver import Table, Turn, adjudicate_commands
from blowbyblow.replay.formats import CURRENT_FORMAT as FORMAT_VERSION
from blowbyblow.replay.registry import get_game_system


@dataclass
class Played:
    ruleset: AnyGameSystem
    events: list[Event]
    state: Any


def start_event(
    ruleset: AnyGameSystem, scenario: AnyScenario, dice_spec: DiceSpec
) -> BattleStarted[Any]:
    ruleset.validate_setup(scenario.setup)
    return BattleStarted(
        format_version=FORMAT_VERSION,
        ruleset=ruleset.id,
        ruleset_version=ruleset.version,
        label=scenario.label,
        rulings=ruleset.resolve_rulings(scenario.rulings),
        dice=dice_spec,
        setup=scenario.setup,
    )


def dice_for(scenario: AnyScenario) -> tuple[DiceSource, DiceSpec]:
    if scenario.seed is not None:
        return SeededDice(scenario.seed), DiceSpec(
            mode="seeded", algorithm=ALGORITHM, seed=scenario.seed
        )
    return ListedDice(scenario.dice or []), DiceSpec(mode="physical")


def split_by_command(events: Sequence[Event]) -> list[list[Event]]:
    """A battle's events as they are written: ``[BattleStarted]``, then one batch per command."""
    batches: list[list[Event]] = [[events[0]]]
    for ev in events[1:]:
        if isinstance(ev, CommandIssued):
            batches.append([])
        batches[-1].append(ev)
    return batches


def adjudicate_all(
    table: Table, started: BattleStarted[Any], commands: Sequence[Any]
) -> tuple[list[list[Event]], Any]:
    """Adjudicate every command after ``started`` at ``table``: one batch of events per command
    (the first batch is ``[started]``), and the final state."""
    batches: list[list[Event]] = [[started]]
    state = fold_battle(table.system, [started])
    for result in adjudicate_commands(table, state, (Turn(command) for command in commands)):
        batches.append(result.events)
        state = result.state
    return batches, state


def play(
    scenario: AnyScenario,
    *,
    dice: DiceSource | None = None,
    choices: ChoiceSource | None = None,
    quiet: bool = True,
) -> Played:
    """Play every command of ``scenario`` in memory and return the full event list
    (position 1 first) and the final state."""
    ruleset = get_game_system(scenario.ruleset)
    default_dice, spec = dice_for(scenario)
    started = start_event(ruleset, scenario, spec)
    table = Table(
        system=ruleset,
        rulings=started.rulings,
        dice=dice or default_dice,
        choices=choices or ScriptedChoices(scenario.choices),
        quiet=quiet,
    )
    batches, state = adjudicate_all(table, started, scenario.commands)
    return Played(ruleset=ruleset, events=[e for batch in batches for e in batch], state=state)
