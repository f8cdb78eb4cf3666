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
from blowbyblow.domain.judging import (
    BattleForked,
    BattleSealed,
    Change,
    ChoiceCorrected,
    CommandDropped,
    CommandFlagged,
    ContributionGiven,
    DieCorrected,
    NoteAdded,
    RulingChanged,
    RulingGiven,
    SeedEscrowed,
)
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.replay.engine.codec import encode_json, to_builtins


def describe_command(command: Any) -> str:
    """A command as a player types it at ``bxb play`` (``replay/engine/typed.py``, imported when
    a command is told: it reads TOML and JSON, which `bxb at` at any other position never needs)."""
    from blowbyblow.replay.engine.typed import format_command

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
    judged = _judging(event) or _dispute(event)
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


def change_words(change: Change) -> str:
    """A fork's change in a few words (a child's label says it too)."""
    if isinstance(change, DieCorrected):
        return f"die {change.key} = {' '.join(map(str, change.values))}"
    if isinstance(change, ChoiceCorrected):
        return f"choice {change.key} = {change.answer}"
    if isinstance(change, CommandDropped):
        return f"command {change.index} voided"
    if isinstance(change, RulingChanged):
        return f"ruling {change.name} = {change.value}"
    return "rewound"


def _dispute(event: Event) -> str | None:
    """A dispute's events: a flag, a judge's ruling or note, a child's link to its parent."""
    if isinstance(event, CommandFlagged):
        return (
            f"FLAG: command {event.index} (position {event.position}) disputed by {event.by}: "
            f"{event.reason}"
        )
    if isinstance(event, RulingGiven):
        r = event.ruling
        about = (
            f"command {r.command} (position {r.command_position})" if r.command else "the battle"
        )
        fork = (
            f"; rewound to position {r.position} ({change_words(r.change)}): battle {r.child} "
            "goes on instead"
            if r.child is not None and r.change is not None
            else ""
        )
        return f"RULING by {r.judge} on {about}: {r.decision}{fork}. {r.reason}"
    if isinstance(event, NoteAdded):
        n = event.note
        return f"NOTE by {n.judge} on position {n.position}: {n.text}"
    if isinstance(event, BattleForked):
        k = event.link
        stop = f"; stopped: {k.stopped}" if k.stopped else ""
        return (
            f"Forked by {k.judge} from battle {k.parent} at position {k.position} "
            f"({change_words(k.change)}): {k.reason}; {k.replayed} later command(s) replayed{stop}"
        )
    return None
