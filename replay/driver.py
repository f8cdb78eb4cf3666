"""The one driver that runs rule procedures: live, in verification, in what-if re-runs and in
odds calculation. It answers a procedure's requests from a dice source and a choice source,
folds every event into the state as soon as it is yielded, and returns the command's events.

Nothing is written here: the caller appends the events in one transaction, or not at all."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import structlog

from blowbyblow.domain.core import (
    Ask,
    ChoiceMade,
    CommandIssued,
    Context,
    DiceRolled,
    Event,
    Roll,
    RuleEvent,
)
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.replay.dice import ChoiceSource, DiceError, DiceSource

log = structlog.get_logger("blowbyblow.rules")


@dataclass(frozen=True)
class Adjudication:
    events: list[Event]
    state: Any


def adjudicate(
    ruleset: AnyGameSystem,
    state: Any,
    command: Any,
    *,
    index: int,
    rulings: dict[str, str],
    dice: DiceSource,
    choices: ChoiceSource,
    battle: str = "",
    first_position: int = 0,
    quiet: bool = False,
) -> Adjudication:
    """Run ``command`` (the ``index``-th of its battle) against ``state``.

    Raises RuleViolation (the command is not allowed), DiceError (the dice source cannot answer)
    or any error of the rules; then nothing of this command may be written."""
    prefix = f"c{index}/"
    issued: Event = CommandIssued(index=index, command=command)
    events: list[Event] = [issued]
    state = ruleset.evolve(state, issued)
    ctx = Context(rulings=rulings, command_index=index)
    procedure = ruleset.procedure(state, command, ctx)
    keys: set[str] = set()
    answer: Any = None
    bound = log.bind(battle=battle, ruleset=ruleset.id, command=index) if not quiet else None
    if bound is not None:
        _log_step(bound, issued, first_position)
    while True:
        try:
            step = procedure.send(answer)
        except StopIteration:
            break
        event: Event
        if isinstance(step, Roll):
            key = prefix + step.key
            if key in keys:
                raise DiceError(f"{ruleset.id} asked twice for the roll {key!r} in one command")
            keys.add(key)
            values, source = dice.roll(key, step.n, step.sides, step.purpose)
            event = DiceRolled(
                key=key, sides=step.sides, values=values, source=source, purpose=step.purpose
            )
            answer = values
        elif isinstance(step, Ask):
            key = prefix + step.key
            if key in keys:
                raise DiceError(f"{ruleset.id} asked twice for the choice {key!r} in one command")
            keys.add(key)
            choice, source = choices.choose(key, step.options, step.default, step.prompt)
            event = ChoiceMade(key=key, options=step.options, answer=choice, source=source)
            answer = choice
        elif isinstance(step, Event):
            event = step
        else:  # pragma: no cover - a rules module yielding something else is a programming error
            raise TypeError(f"{ruleset.id} procedure yielded {step!r}")
        state = ruleset.evolve(state, event)
        events.append(event)
        if not isinstance(step, Roll | Ask):
            answer = state
        if bound is not None:
            _log_step(bound, event, first_position + len(events) - 1)
    return Adjudication(events=events, state=state)


def _log_step(bound: Any, event: Event, position: int) -> None:
    fields: dict[str, Any] = {"position": position}
    if isinstance(event, RuleEvent):
        fields["rule"] = event.rule
    for name in event.__struct_fields__:
        if name == "rule":
            continue
        value = getattr(event, name)
        if isinstance(value, str | int | bool | tuple) or value is None:
            fields[name] = value
    bound.info(type(event).__name__, **fields)


def fold(ruleset: AnyGameSystem, state: Any, events: Iterator[Event] | list[Event]) -> Any:
    for event in events:
        state = ruleset.evolve(state, event)
    return state
