"""Playing a scenario in memory: the battle's first event, then each command through the driver.
The recording service (``replay.battles.record``) does the same and appends to a store; tests and
property checks use this directly."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from blowbyblow.domain.core import (
    BattleStarted,
    BlowByBlowError,
    CommandIssued,
    CommandVoided,
    DiceSpec,
    Event,
    RuleViolation,
)
from blowbyblow.domain.system import AnyGameSystem, AnyScenario
from blowbyblow.projections.battle import fold_battle
from blowbyblow.replay.engine.dice import (
    ALGORITHM,
    ChoiceSource,
    DiceError,
    DiceSource,
    ListedDice,
    ScriptedChoices,
    SeededDice,
)
from blowbyblow.replay.engine.driver import Table, Turn, adjudicate_commands
from blowbyblow.replay.engine.formats import CURRENT_FORMAT as FORMAT_VERSION
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.scenario import check_start_text


@dataclass
class Played:
    ruleset: AnyGameSystem
    events: list[Event]
    state: Any


def start_event(
    ruleset: AnyGameSystem, scenario: AnyScenario, dice_spec: DiceSpec
) -> BattleStarted[Any]:
    ruleset.validate_setup(scenario.setup)
    # The bounds of the setup's types, here where a new battle's setup enters (a scenario file
    # and a server's body are held to them as they are read; a setup built in code is held to
    # them here). A recorded setup is not: verify reads and checks a log as it was recorded.
    # (Imported here: the commands that only read a store load no game system's helpers.)
    from blowbyblow.domain.common.bounds import check_bounds

    check_bounds(scenario.setup)
    check_start_text(scenario)
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
    """A battle's events as they are written: ``[BattleStarted]``, then one batch per command,
    and each ``CommandVoided`` in a batch of its own."""
    batches: list[list[Event]] = [[events[0]]]
    for ev in events[1:]:
        if isinstance(ev, CommandIssued | CommandVoided) or isinstance(
            batches[-1][-1], CommandVoided
        ):
            batches.append([])
        batches[-1].append(ev)
    return batches


def _refusal(number: int, kind: str, reason: BlowByBlowError, before: str) -> str:
    verb = "is not allowed" if isinstance(reason, RuleViolation) else "cannot be adjudicated"
    return f"actions[{number - 1}] (action {number}, {kind}) {verb}: {reason}; before it, {before}"


class ActionRefused(RuleViolation):
    """A scripted action (a scenario file's ``[[actions]]``) that the rules do not allow where it
    stands, given the dice: the message names the action, the rule and what happened before."""

    def __init__(self, number: int, kind: str, reason: RuleViolation, before: str) -> None:
        BlowByBlowError.__init__(self, _refusal(number, kind, reason, before))
        self.rule, self.message = reason.rule, reason.message
        self.number, self.kind = number, kind


class ActionUnanswered(DiceError):
    """A scripted action whose dice or choices cannot be answered (too few dice listed, an answer
    that is not one of the options): the message names the action and what happened before."""

    def __init__(self, number: int, kind: str, reason: DiceError, before: str) -> None:
        super().__init__(_refusal(number, kind, reason, before))
        self.number, self.kind = number, kind


def command_kind(command: Any) -> str:
    """A command's type as scenario files and typed commands name it (``charge``)."""
    tag = getattr(getattr(type(command), "__struct_config__", None), "tag", None)
    return str(tag) if tag is not None else type(command).__name__


def what_happened(system: AnyGameSystem, state: Any, done: int) -> str:
    """The state after ``done`` actions in a few words: each unit's status, and the locks."""
    if done == 0:
        return "nothing had been played (it is the first action)"
    shown = system.view(state)
    units = "; ".join(f"{u.name} ({u.id}) {u.status}" for u in shown.units)
    locks = "".join(f"; {lock.kind}: {', '.join(lock.members)}" for lock in shown.locks)
    span = "action 1" if done == 1 else f"actions 1-{done}"
    return f"after {span}: {units}{locks}"


def adjudicate_all(
    table: Table, started: BattleStarted[Any], commands: Sequence[Any]
) -> tuple[list[list[Event]], Any]:
    """Adjudicate every command after ``started`` at ``table``: one batch of events per command
    (the first batch is ``[started]``), and the final state. An action that cannot be
    adjudicated raises ActionRefused, naming it."""
    batches: list[list[Event]] = [[started]]
    state = fold_battle(table.system, [started])
    results = adjudicate_commands(table, state, (Turn(command) for command in commands))
    for number, command in enumerate(commands, start=1):
        try:
            result = next(results)
        except RuleViolation as e:
            before = what_happened(table.system, state, number - 1)
            raise ActionRefused(number, command_kind(command), e, before) from e
        except DiceError as e:
            before = what_happened(table.system, state, number - 1)
            raise ActionUnanswered(number, command_kind(command), e, before) from e
        batches.append(result.events)
        state = result.state
    return batches, state


class UnusedInput(BlowByBlowError):
    """Dice listed or choices answered in advance that the rules never asked for; ``field``:
    which of the two (``dice`` or ``choices``), the message's first word."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def check_all_used(dice: DiceSource, choices: ChoiceSource) -> None:
    """Every die listed was rolled and every answer given was asked for: a surplus means the file
    and the battle disagree, so it is refused rather than ignored."""
    if isinstance(dice, ListedDice) and dice.unused:
        raise UnusedInput(
            "dice",
            f"{dice.unused} listed value(s) left over ({dice.used} of {dice.listed} asked "
            f"for); expected exactly the dice the rules ask for, in order: {dice.leftover()}",
        )
    if isinstance(choices, ScriptedChoices) and choices.unused:
        asked = ", ".join(choices.asked) or "none"
        raise UnusedInput(
            "choices",
            f"{', '.join(repr(k) for k in choices.unused)} never asked; expected a "
            f"question the rules ask (by its full key, e.g. 'c2/step8', or without its "
            f"command prefix for every command); the questions asked were: {asked}",
        )


def play(
    scenario: AnyScenario,
    *,
    dice: DiceSource | None = None,
    choices: ChoiceSource | None = None,
    quiet: bool = True,
) -> Played:
    """Play every command of ``scenario`` in memory and return the full event list
    (position 1 first) and the final state. Unlike ``service.record``, dice listed or choices
    answered that the rules never ask for are not refused here: a test may give answers for
    paths the dice do not take."""
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
