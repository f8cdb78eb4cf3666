"""The blow-by-blow account in plain words: core events are told here, rule steps by their game
system's ``narrate``."""

from __future__ import annotations

from typing import Any

from blowbyblow.domain.core import (
    BattleStarted,
    ChoiceMade,
    CommandIssued,
    CommandVoided,
    DiceRolled,
    Event,
)
from blowbyblow.domain.judging import BattleSealed, ContributionGiven, SeedEscrowed
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.replay.engine.codec import encode_json, to_builtins
from blowbyblow.replay.engine.typed import format_command


def describe_command(command: Any) -> str:
    """A command as a player types it at ``bxb play`` (``replay/engine/typed.py``)."""
    try:
        return format_command(command)
    except (TypeError, ValueError):  # not a msgspec struct: say what it is
        return f"{type(command).__name__} {encode_json(to_builtins(command)).decode()}"


def narrate(ruleset: AnyGameSystem, event: Event) -> str:
    if isinstance(event, BattleStarted):
        # Sorted, as the record stores them: told the same live and read back.
        rulings = ", ".join(f"{k}={v}" for k, v in sorted(event.rulings.items())) or "none"
        dice = event.dice.mode + (
            f" ({event.dice.algorithm}, seed {event.dice.seed})" if event.dice.seed else ""
        )
        return (
            f"Battle {event.label!r} begins under {event.ruleset} {event.ruleset_version}; "
            f"dice: {dice}; rulings: {rulings}"
        )
    if isinstance(event, CommandIssued):
        return f"Command {event.index}: {describe_command(event.command)}"
    if isinstance(event, DiceRolled):
        what = f" for {event.purpose}" if event.purpose else ""
        return f"  rolled {len(event.values)}D{event.sides}{what}: {' '.join(map(str, event.values))} ({event.source}, {event.key})"
    if isinstance(event, CommandVoided):
        return (
            f"Command {event.index} (position {event.position}) voided by {event.by}: "
            f"{event.reason}; it is not played"
        )
    if isinstance(event, ChoiceMade):
        return f"  choice {event.key}: {event.answer} ({event.source}; options {', '.join(event.options)})"
    judged = _judging(event)
    if judged is not None:
        return judged
    told = ruleset.narrate(event)
    if told is not None:
        return told
    return f"{type(event).__name__} {encode_json(to_builtins(event)).decode()}"


def _judging(event: Event) -> str | None:
    """The judges' events: a fair start's escrow and contributions, the seal."""
    if isinstance(event, SeedEscrowed):
        return (
            f"The secret seed is escrowed to {len(event.boxes)} judge key(s) ({event.algorithm}): "
            "only a judge's key opens it, and the seal reveals it"
        )
    if isinstance(event, ContributionGiven):
        return f"{event.side} gives its value for the fair dice: {event.value!r}"
    if isinstance(event, BattleSealed):
        cp = event.checkpoint
        seed = f"; fair seed revealed: {cp.seed}" if cp.seed else ""
        return (
            f"Sealed by key {event.public_key[:16]}… over {cp.length} events "
            f"(last hash {cp.last_hash[:16]}…){seed}"
        )
    return None
