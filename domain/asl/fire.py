"""A11.15 fire into a Melee: "The Melee units may be attacked by non-Melee units during a fire
phase (or even the ATTACKER's MPh in some cases) but all friendly Melee and enemy units in the
Location must be attacked [EXC: A Sniper attacks a Melee hex without harming friendly units]."

Chapter A11 says who may fire and who must be attacked; the attack itself (the IFT, LOS, TEM
and the TPBF of A7.212, Morale Checks, a Sniper's own rules) is outside it, so each unit's
result is entered (asked: ``ift/<unit>``), as for the sN attack (A11.622). Who may fire:
"Units locked in Melee may not ... conduct any activity other than CC or Withdrawal from
Melee"; a unit that keeps its concealment in the Location "is not locked in Melee itself ... It
is free to fire in its next Fire Phase (into the Melee at TPBF; 7.212)". A Melee a fire
attack leaves with one side only ends ("If Infantry of both sides remain in the same Location
... they are considered to be locked in Melee")."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from blowbyblow.domain.asl.casualty import reduce_to_hs, wound
from blowbyblow.domain.asl.commands import FireIntoMelee
from blowbyblow.domain.asl.events import (
    MeleeEnded,
    MeleeFiredOn,
    UnitEliminated,
    UnitStatusChanged,
)
from blowbyblow.domain.asl.setup import is_smc
from blowbyblow.domain.asl.state import State, active, units_in, vehicles_in
from blowbyblow.domain.asl.turns import check_turn
from blowbyblow.domain.core import Procedure, RuleViolation, Step, ask, emit
from blowbyblow.domain.system import CommandOption

Gen = Generator[Step, Any, State]

# the results a judge enters from the IFT and the Morale Checks (A7, outside chapter A11)
RESULTS = ("no-effect", "pin", "break", "reduce", "eliminate")


def _firing_side(state: State, c: FireIntoMelee) -> str:
    """The side that fires: its Sniper's, or that of every unit in ``by``, none of them locked
    in Melee (A11.15)."""
    if c.sniper is not None:
        if c.by:
            raise RuleViolation("A11.15", "a Sniper attacks alone: give `by` or `sniper`, not both")
        if c.sniper not in state.sides:
            raise RuleViolation("A11.15", f"sniper: {c.sniper!r} is not a side")
        return c.sniper
    if not c.by:
        raise RuleViolation("A11.15", "no unit fires: name them in `by` (or a side's `sniper`)")
    if len(set(c.by)) != len(c.by):
        raise RuleViolation("A11.15", "a unit is named twice in `by`")
    sides: set[str] = set()
    for uid in c.by:
        u, v = state.units.get(uid), state.vehicles.get(uid)
        if u is not None and active(u) and u.guard is None:
            lock = state.melee.get(u.location)
            if lock is not None and uid in lock.units:
                raise RuleViolation(
                    "A11.15",
                    f"{uid} is locked in Melee in {u.location}: it may not conduct any activity "
                    "other than CC or Withdrawal from Melee",
                )
            sides.add(u.side)
        elif v is not None and v.status == "active":
            sides.add(v.side)
        else:
            raise RuleViolation("A11.15", f"{uid!r} is not a unit or vehicle in play")
    if len(sides) != 1:
        raise RuleViolation("A11.15", "the units in `by` are not all of one side")
    return sides.pop()


def validate_fire(state: State, c: FireIntoMelee) -> str:
    """A11.15: a Location locked in Melee; non-Melee firers of one side (or a Sniper); a
    Player Turn not gone by, before its APh (the fire phases and the MPh come before it).
    Returns the firing side."""
    check_turn(state, c.turn, c.attacker)
    if c.turn == state.turn and (
        state.resolved or any(a.how == "advanced" for a in state.arrivals.values())
    ):
        raise RuleViolation(
            "A11.15",
            f"the APh of Player Turn {c.turn} has begun: its fire phases and MPh are over",
        )
    if c.location not in state.locations:
        raise RuleViolation("A11.15", f"unknown Location {c.location!r}")
    if c.location not in state.melee:
        raise RuleViolation("A11.15", f"{c.location} is not locked in Melee")
    return _firing_side(state, c)


def fire_options(state: State, turn: int, attacker: str) -> list[CommandOption]:
    """For each Melee Location, each unit of either side that may fire into it."""
    return [
        CommandOption(
            type="fire",
            side=u.side,
            actor=u.id,
            fields={"turn": str(turn), "attacker": attacker, "location": location, "by": u.id},
            summary=f"Player Turn {turn}: {u.id} fires into the Melee in {location} (A11.15)",
        )
        for location in state.melee
        for u in state.units.values()
        if _may_fire(state, turn, attacker, location, u.id)
    ]


def _may_fire(state: State, turn: int, attacker: str, location: str, uid: str) -> bool:
    trial = FireIntoMelee(turn=turn, attacker=attacker, location=location, by=[uid])
    try:
        validate_fire(state, trial)
    except RuleViolation:
        return False
    return True


def targets(state: State, location: str, side: str, sniper: bool) -> tuple[str, ...]:
    """ "all friendly Melee and enemy units in the Location must be attacked"; a Sniper's attack
    harms no friendly unit. Units on board only: not HIP, not Dummies."""
    held = state.melee[location].units
    return tuple(
        u.id
        for u in units_in(state, location)
        if not (u.hidden or u.dummy) and (u.side != side or (not sniper and u.id in held))
    )


def fire_into_melee(state: State, c: FireIntoMelee) -> Procedure:
    side = validate_fire(state, c)
    attacked = targets(state, c.location, side, c.sniper is not None)
    state = yield from emit(
        MeleeFiredOn(
            rule="A11.15",
            turn=c.turn,
            attacker=c.attacker,
            side=side,
            location=c.location,
            by=tuple(c.by),
            sniper=c.sniper is not None,
            targets=attacked,
        ),
        State,
    )
    for uid in attacked:
        result = yield from ask(
            f"ift/{uid}",
            RESULTS,
            "no-effect",
            f"IFT/Morale Check result of {uid} (the attack is not adjudicated here)",
        )
        state = yield from _apply(state, uid, result)
    yield from _melee_left(state, c.location)


def _apply(state: State, uid: str, result: str) -> Gen:
    """The entered result: pinned or broken (A7), Casualty Reduction (A7.302: a squad to its
    HS, an SMC wounded, a HS or crew eliminated), eliminated."""
    u = state.units[uid]
    cause = "fire into the Melee (result entered)"
    if result in ("pin", "break"):
        event = UnitStatusChanged(
            rule="A11.15",
            unit=uid,
            broken=u.broken or result == "break",
            pinned=u.pinned or result == "pin",
            cause=cause,
        )
        return (yield from emit(event, State))
    if result == "reduce" and u.kind == "squad":
        return (yield from reduce_to_hs(state, u, "A7.302", cause))
    if result == "reduce" and is_smc(u):
        return (yield from wound(state, uid, "ift"))
    if result in ("reduce", "eliminate"):
        return (yield from emit(UnitEliminated(rule="A11.15", unit=uid, cause=cause), State))
    return state


def _melee_left(state: State, location: str) -> Gen:
    """A11.15: with the Infantry of one side only left of those locked, the Melee ends."""
    lock = state.melee[location]
    sides = {u.side for u in units_in(state, location) if u.id in lock.units}
    sides |= {
        v.side
        for v in vehicles_in(state, location)
        if v.id in lock.vehicles and v.status == "active"
    }
    if len(sides) >= 2:
        return state
    return (yield from emit(MeleeEnded(rule="A11.15", location=location), State))
