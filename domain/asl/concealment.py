"""A11.19 Concealment in CC: a concealed unit reveals its Strength Factor before designation
(it keeps its "?"), Dummies are removed then, the FP of an attack on a concealed unit is halved,
and a unit loses concealment only by making or directing a CC attack (EXC: the Ambusher, A11.4,
until it attacks without eliminating/capturing its target). A unit keeping its "?" is never
locked in Melee (A11.15)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from blowbyblow.domain.asl.events import ConcealmentLost, ConcealmentRevealed, DummyRemoved
from blowbyblow.domain.asl.state import State, units_in
from blowbyblow.domain.core import Step, emit


def reveal_strength(state: State, location: str) -> Generator[Step, Any, State]:
    """A11.19: Dummies removed; concealed (and HIP, A11.19 last sentence but one) units show
    their strength."""
    for u in units_in(state, location):
        if u.dummy:
            state = yield from emit(
                DummyRemoved(rule="A11.19", unit=u.id, location=location), State
            )
        elif u.concealed or u.hidden:
            state = yield from emit(
                ConcealmentRevealed(rule="A11.19", unit=u.id, name=u.name, fp=u.fp), State
            )
    return state


def lose_by_attacking(
    state: State, units: tuple[str, ...], ambusher: str | None
) -> Generator[Step, Any, State]:
    """A11.19: making/directing a CC attack costs concealment at once (4-4-7 EX: the German
    then attacks at 3-2, not halved) - except for the side with Ambush status (A11.4)."""
    for uid in units:
        u = state.units.get(uid)
        if u is None or not (u.concealed or u.hidden) or u.side == ambusher:
            continue
        state = yield from emit(
            ConcealmentLost(rule="A11.19", unit=uid, cause="makes a CC attack"), State
        )
    return state


def ambusher_attack_failed(
    state: State, units: tuple[str, ...], cleared: bool
) -> Generator[Step, Any, State]:
    """A11.4: the Ambusher keeps concealment until it attacks without eliminating/capturing."""
    if cleared:
        return state
    for uid in units:
        u = state.units.get(uid)
        if u is not None and (u.concealed or u.hidden):
            state = yield from emit(
                ConcealmentLost(
                    rule="A11.4", unit=uid, cause="Ambusher attacked without eliminating its target"
                ),
                State,
            )
    return state
