"""A11.8 Reaction Fire: in the MPh, Infantry attack a vehicle with Street Fighting CC
procedures as their Defensive First Fire (D7.2) - from ground level of a building Location
ADJACENT to the road the vehicle is on (moved onto it for the attack, then returned), at a
vehicle in Bypass from the obstacle, or in their own Location (CC Reaction Fire).

"Reaction Fire is identical to Street Fighting CC procedures except that the vehicle may not
attack back; i.e., it has no CC attack options during Reaction Fire (although Crew Small Arms
still applies; 11.621)." "Normal PAATC requirements (11.6) apply in all cases": an MMC takes
one to go onto the vehicle from its building, or when the AFV has just entered its Location (as
the 4-4-7 of the A11 comprehensive example's PzIVH paragraph did), not when the AFV was there
already. A non-stopped vehicle holds no one in Melee (A11.7) and is attacked at +2 (A11.51)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from blowbyblow.domain.asl.commands import ReactionFire
from blowbyblow.domain.asl.context import CCContext
from blowbyblow.domain.asl.designation import Designation
from blowbyblow.domain.asl.events import (
    MeleeFreed,
    Moved,
    ReactionFireDeclared,
)
from blowbyblow.domain.asl.state import State, still_here
from blowbyblow.domain.asl.vehicles import (
    PaatcOf,
    VehicleCC,
    needs_paatc,
    resolve_vs_vehicle,
    take_paatc,
)
from blowbyblow.domain.asl.withdrawal import move_out
from blowbyblow.domain.core import Context, Modifier, Procedure, Step, emit

Gen = Generator[Step, Any, State]

NON_STOPPED_DRM = 2


def reaction_fire(state: State, c: ReactionFire, ctx: Context) -> Procedure:
    v = state.vehicles[c.vehicle]
    came_from = state.units[c.by[0]].location
    state = yield from emit(
        ReactionFireDeclared(
            rule="A11.8",
            turn=c.turn,
            attacker=c.attacker,
            vehicle=v.id,
            location=v.location,
            by=tuple(c.by),
            came_from=came_from,
        ),
        State,
    )
    if c.non_stopped:
        state = yield from _no_longer_held(state, v.id)
    cc = CCContext(
        rulings=ctx.rulings,
        command_index=ctx.command_index,
        location=v.location,
        turn=c.turn,
        attacker=c.attacker,
    )
    attackers: list[str] = []
    entered = state.arrivals.get(v.id)
    advancing = came_from != v.location or (entered is not None and entered.location == v.location)
    for uid in c.by:
        if advancing and needs_paatc(state, state.units[uid], v.location):
            state, passed = yield from take_paatc(state, PaatcOf(uid, came_from, v.location))
            if not passed:
                continue
        attackers.append(uid)
    if not attackers:
        return
    if came_from != v.location:
        for uid in attackers:
            state = yield from emit(
                Moved(
                    rule="A11.8",
                    turn=c.turn,
                    attacker=c.attacker,
                    unit=uid,
                    kind="street-fighting",
                    came_from=came_from,
                    to=v.location,
                ),
                State,
            )
    state = yield from _attack(state, c, cc, tuple(attackers))
    yield from _return(state, attackers, came_from, v.location)


def _no_longer_held(state: State, vehicle: str) -> Gen:
    """A11.7: a vehicle holds the Known enemy Infantry in Melee "unless in Motion": once it is
    non-stopped, Infantry held by it alone (no enemy Infantry in the Melee) are freed."""
    v = state.vehicles[vehicle]
    lock = state.melee.get(v.location)
    if lock is None or vehicle not in lock.vehicles:
        return state
    if any(state.units[u].side == v.side for u in lock.units):
        return state
    return (
        yield from emit(
            MeleeFreed(
                rule="A11.7",
                location=v.location,
                freed=lock.units,
                cause=f"{vehicle} is non-stopped and holds no one in Melee",
            ),
            State,
        )
    )


def _attack(state: State, c: ReactionFire, cc: CCContext, attackers: tuple[str, ...]) -> Gen:
    """A11.5 with the A11.8 DRM: the ATMM check, the CCV, the DR and its result, the Unlikely
    Kill (A11.501), the vehicle's fate and Crew Small Arms (A11.621); no Infiltration (A11.22
    is of the CCPh)."""
    v = state.vehicles[c.vehicle]
    d = Designation(
        number=1,
        side=state.units[attackers[0]].side,
        attackers=attackers,
        targets=(v.id,),
        leader=None,
        capture=False,
        hth=False,
        atmm=c.atmm if c.atmm in attackers else None,
        weapons=(),
        extra=tuple(c.extra),
        vs_vehicle=True,
        by_vehicle=False,
    )
    non_stopped = c.non_stopped and not v.motion
    how = VehicleCC(
        rule="A11.8",
        purpose="Reaction Fire CC DR vs {vehicle} (colored, white)",
        extra=(
            (Modifier(value=NON_STOPPED_DRM, cause="non-stopped vehicle", rule="A11.51"),)
            if non_stopped
            else ()
        ),
        infiltrate=False,
    )
    return (yield from resolve_vs_vehicle(state, cc, d, attackers, how))


def _return(state: State, attackers: list[str], came_from: str, location: str) -> Gen:
    """A11.8: "following any CC attack returned to the same Locations they came from", unless
    broken or pinned."""
    if came_from == location:
        return state
    for uid in attackers:
        u = state.units[uid]
        if still_here(state, uid, location) and not u.broken and not u.pinned:
            state = yield from move_out(state, uid, came_from, "street-fighting", "A11.8")
    return state
