"""Folds over a battle's log: the state of a battle at any position.

A game system folds one event into its state (``GameSystem.evolve``, in the system's own
``projection.py``); these functions fold a whole log with it. Every read-back folds here: the
state after recording, a live session picking a battle up, ``bxb at``, what-if, the benchmark.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from blowbyblow.domain.core import BattleStarted, Event
from blowbyblow.domain.system import AnyGameSystem


def fold(system: AnyGameSystem, state: Any, events: Iterable[Event]) -> Any:
    """``state`` with ``events`` folded into it, one after another."""
    for event in events:
        state = system.evolve(state, event)
    return state


def fold_battle(system: AnyGameSystem, events: Sequence[Event], position: int | None = None) -> Any:
    """The state of a battle right after the event at ``position`` (1 = its ``BattleStarted``),
    or after its last event when ``position`` is None. ``events`` is the battle from position 1."""
    if not events or not isinstance(events[0], BattleStarted):
        raise ValueError("a battle's log starts with BattleStarted")
    end = len(events) if position is None else position
    if not 1 <= end <= len(events):
        raise ValueError(f"the battle has events 1 to {len(events)}, not {end}")
    return fold(system, system.initial_state(events[0].setup), events[1:end])


__all__ = ["fold", "fold_battle"]
