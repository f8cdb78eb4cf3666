"""A11.15 Melee, A11.16 Failure to Rout, A11.7 vehicles holding Infantry in Melee.

If Infantry of both sides remain in the Location at the end of its CC, they are locked in Melee
(carried into later Player Turns) - except units that kept their concealment, which neither are
held nor hold. A vehicle is never held in Melee, but one not in Motion holds the Known enemy
Infantry of its Location (A11.7; the PzIVJ EX, I5, L5)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from blowbyblow.domain.asl.context import CCContext
from blowbyblow.domain.asl.events import FailureToRout, MeleeContinued, MeleeEnded, MeleeLocked
from blowbyblow.domain.asl.rulings import DISRUPTED_IN_MELEE, PASSENGERS_INSIDE
from blowbyblow.domain.asl.state import State, known, prc_of_mobile, units_in, vehicles_in
from blowbyblow.domain.core import Step, emit


def failure_to_rout(state: State, unable: list[str], location: str) -> Generator[Step, Any, State]:
    """A11.16: a broken unit in Melee unable to withdraw is eliminated at the end of the CCPh."""
    for uid in unable:
        u = state.units[uid]
        if u.status == "active" and u.guard is None and u.location == location and u.broken:
            state = yield from emit(FailureToRout(rule="A11.16", unit=uid), State)
    return state


def disrupted_staying(state: State, ctx: CCContext) -> list[str]:
    """A11.16 "unless Disrupted ...  Any other broken unit unable to withdraw from Melee is
    eliminated": with ruling disrupted-in-melee=failure-to-rout, the Disrupted broken units in
    the Melee that announced no Withdrawal face Failure to Rout too (``stays``: none)."""
    lock = state.melee.get(ctx.location)
    if lock is None or ctx.ruling(DISRUPTED_IN_MELEE) == "stays":
        return []
    return [
        u.id
        for u in units_in(state, ctx.location)
        if u.id in lock.units
        and u.broken
        and u.disrupted
        and u.id not in state.withdrawing
        and u.id not in state.prisoners.values()
    ]


def melee_step(state: State, ctx: CCContext) -> Generator[Step, Any, State]:
    """Locks the Known Infantry of both sides left in the Location, and those a vehicle holds;
    Cavalry, cyclists, skiers and the PRC of a Mobile vehicle are free of it (A11.71: "not
    required to remain in Melee"; ruling passengers-inside)."""
    location, turn = ctx.location, ctx.turn
    held: list[str] = []
    holding: list[str] = []
    free_prc = ctx.ruling(PASSENGERS_INSIDE) == "inside"
    infantry = [
        u
        for u in units_in(state, location)
        if known(u)
        and not u.dummy
        and not (u.cavalry or u.cyclist or u.skier)
        and not (free_prc and prc_of_mobile(state, u.id))
    ]
    sides = {u.side for u in infantry}
    if len(sides) >= 2:
        held = [u.id for u in infantry]
    for v in vehicles_in(state, location):
        if v.motion:
            continue
        enemies = [u.id for u in infantry if u.side != v.side]
        if enemies:
            holding.append(v.id)
            held += [e for e in enemies if e not in held]
    before = state.melee.get(location)
    if not held:
        if before is not None:
            state = yield from emit(MeleeEnded(rule="A11.15", location=location), State)
        return state
    order = [u.id for u in infantry]
    units = tuple(sorted(held, key=order.index))
    if before is not None:
        return (
            yield from emit(
                MeleeContinued(
                    rule="A11.15",
                    location=location,
                    since=before.since,
                    units=units,
                    vehicles=tuple(holding),
                ),
                State,
            )
        )
    return (
        yield from emit(
            MeleeLocked(
                rule="A11.15", location=location, since=turn, units=units, vehicles=tuple(holding)
            ),
            State,
        )
    )
