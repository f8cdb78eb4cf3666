"""Between phases: how units come into a Location, which the CC rules then ask about.

- ``advance`` (APh, A4.7): Infantry advancing into an enemy's Location advance into CC, where an
  Ambush may occur (A11.4); into a Location locked in Melee they reinforce it (A11.15: no
  Ambush, and they must engage in CC); an MMC advancing into a manned enemy AFV's Location takes
  its PAATC first (A11.6).
- ``move`` (MPh): a Mobile vehicle and its PRC are never held in Melee and may leave (A11.7,
  A11.71); a Passenger or Rider may unload and stay (in the Melee, if any); when no friendly
  unit stays behind in a Melee, the enemy units are freed from it (A11.71).
- ``restack`` (A11.14): an SMC paired with another MMC before the Location's CC; a Known SMC
  and a concealed MMC (or the reverse) pair only by the concealed one forfeiting its "?".
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from blowbyblow.domain.asl.commands import Advance, Move, Restack
from blowbyblow.domain.asl.events import (
    Advanced,
    ConcealmentLost,
    MeleeFreed,
    Moved,
    MoveKind,
    Restacked,
)
from blowbyblow.domain.asl.state import State, active, carrier, known
from blowbyblow.domain.asl.vehicles import PaatcOf, needs_paatc, take_paatc
from blowbyblow.domain.core import Context, Procedure, Step, emit

Gen = Generator[Step, Any, State]


def advance(state: State, c: Advance, ctx: Context) -> Procedure:
    """A4.7: the units advance together; A11.6: each MMC that must pass a PAATC first and fails
    it is pinned and stays; A11.15: into a Melee they reinforce it."""
    came_from = state.units[c.units[0]].location
    going: list[str] = []
    for uid in c.units:
        if needs_paatc(state, state.units[uid], c.to):
            state, passed = yield from take_paatc(state, PaatcOf(uid, came_from, c.to, c.leader))
            if not passed:
                continue
        going.append(uid)
    reinforcing = c.to in state.melee
    for uid in going:
        state = yield from emit(
            Advanced(
                rule="A11.15" if reinforcing else "A4.7",
                turn=c.turn,
                attacker=c.attacker,
                unit=uid,
                came_from=came_from,
                to=c.to,
                reinforcing=reinforcing,
            ),
            State,
        )
    yield from unpair(state, c.turn, c.attacker)


def unpair(state: State, turn: int, attacker: str) -> Gen:
    """A11.14: an SMC whose MMC went elsewhere (or stayed behind) stands on its own now."""
    for u in list(state.units.values()):
        base = state.units.get(u.stacked_on or "")
        if active(u) and base is not None and base.location != u.location:
            state = yield from emit(
                Restacked(
                    rule="A11.14",
                    turn=turn,
                    attacker=attacker,
                    unit=u.id,
                    location=u.location,
                    onto=None,
                ),
                State,
            )
    return state


def move(state: State, c: Move, ctx: Context) -> Procedure:
    """MPh: a vehicle with its PRC, or Personnel, enter ``to``; a PRC whose ``to`` is its
    vehicle's Location unloads (A11.71); leaving a Melee, A11.71 frees the enemy when no
    friendly unit stays behind."""
    first = c.units[0]
    v = state.vehicles.get(first)
    came_from = v.location if v is not None else state.units[first].location
    if v is not None:
        carries = tuple(
            p
            for p in (*v.passengers, *v.riders)
            if p in state.units and active(state.units[p]) and state.units[p].guard is None
        )
        state = yield from _moved(state, c, v.id, "move", carries)
    else:
        for uid in c.units:
            on = carrier(state, uid)
            kind: MoveKind = "unload" if on is not None and c.to == on.location else "move"
            state = yield from _moved(state, c, uid, kind, ())
    state = yield from unpair(state, c.turn, c.attacker)
    yield from free_melee(state, came_from, c.attacker)


def _moved(state: State, c: Move, uid: str, kind: MoveKind, carries: tuple[str, ...]) -> Gen:
    where = state.vehicles[uid].location if uid in state.vehicles else state.units[uid].location
    leaves_melee = where in state.melee and where != c.to
    return (
        yield from emit(
            Moved(
                rule="A11.71" if kind == "unload" or leaves_melee else "A4",
                turn=c.turn,
                attacker=c.attacker,
                unit=uid,
                kind=kind,
                came_from=where,
                to=c.to,
                carries=carries,
            ),
            State,
        )
    )


def free_melee(state: State, location: str, side: str) -> Gen:
    """A11.71: "Should no friendly unit remain behind to keep the enemy in Melee, those enemy
    units are freed from Melee"."""
    lock = state.melee.get(location)
    if lock is None:
        return state
    mine = [u for u in (*lock.units, *lock.vehicles) if _side(state, u) == side]
    if mine:
        return state
    return (
        yield from emit(
            MeleeFreed(
                rule="A11.71",
                location=location,
                freed=lock.units,
                cause="no friendly unit stayed behind to keep them in Melee",
            ),
            State,
        )
    )


def _side(state: State, uid: str) -> str:
    if uid in state.units:
        return state.units[uid].side
    return state.vehicles[uid].side


def restack(state: State, c: Restack, ctx: Context) -> Procedure:
    """A11.14: the SMC is paired with another MMC (or none); a Known one and a concealed one
    pair only by the concealed one forfeiting its concealment ("unless that unit forfeits its
    concealment so as to defend with the Known SMC, or vice versa")."""
    smc = state.units[c.unit]
    onto = state.units.get(c.onto or "")
    if onto is not None and known(smc) != known(onto):
        hiding, seen = (onto, smc) if known(smc) else (smc, onto)
        state = yield from emit(
            ConcealmentLost(
                rule="A11.14",
                unit=hiding.id,
                cause=f"forfeits its concealment to defend with the Known {seen.id}",
            ),
            State,
        )
    yield from emit(
        Restacked(
            rule="A11.14",
            turn=c.turn,
            attacker=c.attacker,
            unit=c.unit,
            location=smc.location,
            onto=c.onto,
        ),
        State,
    )
