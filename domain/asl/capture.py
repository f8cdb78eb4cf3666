"""A11.52 Capture of a vehicle in CC and A20.22 Capture in CC: declared before the DR; +1 to the CC DR, or -1 against
Inexperienced Personnel (A19.35), applied to each defender. Final DR < KN: every defender is
captured; = KN: one defender of the defender's choice is captured, a squad only as one HS (the
other HS stays free). A20.221: a side wiped out in simultaneous CC has its captures voided
(ruling capture-voided). A20.24: captured units abandon their SW. A11.33/A20.55: a prisoner
whose guard it eliminated is released (ruling prisoner-attacks).

A11.52 (ruling unarmed-vehicle-capture): "An unarmed, stopped/non-Motion vehicle without
Personnel Escort is captured instantly in any CCPh in which it is alone with opposing
Infantry"; "If all the Passengers are captured, so is the vehicle" (of an unarmored stationary
vehicle, once no other Personnel of its side are left in the Location)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import msgspec

from blowbyblow.domain.asl.casualty import reduce_to_hs
from blowbyblow.domain.asl.context import CCContext
from blowbyblow.domain.asl.events import (
    CaptureVoided,
    PrisonerReleased,
    UnitCaptured,
    VehicleCaptured,
)
from blowbyblow.domain.asl.rulings import UNARMED_VEHICLE_CAPTURE
from blowbyblow.domain.asl.setup import is_mmc, is_unarmed
from blowbyblow.domain.asl.state import (
    State,
    UnitState,
    is_prisoner,
    other_side,
    units_in,
    vehicles_in,
)
from blowbyblow.domain.core import Modifier, Step, ask, emit

CAPTURE_DRM = 1
CAPTURE_VS_INEXPERIENCED_DRM = -1


class Capture(msgspec.Struct, frozen=True, kw_only=True):
    prisoner: str
    guard: str
    restored: UnitState | None  # the squad as it was, when only a HS of it was captured


def capture_modifier(target: UnitState) -> Modifier:
    if target.inexperienced:
        return Modifier(
            value=CAPTURE_VS_INEXPERIENCED_DRM, cause="Capture vs Inexperienced", rule="A20.22"
        )
    return Modifier(value=CAPTURE_DRM, cause="Capture attempt", rule="A20.22")


def guard_for(state: State, attackers: tuple[str, ...], location: str) -> str:
    present = [state.units[a] for a in attackers if a in state.units]
    alive = [u for u in present if u.status == "active" and u.location == location]
    for pool in (alive, present):
        for u in pool:
            if is_mmc(u):
                return u.id
    return (alive or present)[0].id


def capture_all(
    state: State, units: list[str], guard: str
) -> Generator[Step, Any, tuple[State, list[Capture]]]:
    made: list[Capture] = []
    for uid in units:
        state = yield from emit(UnitCaptured(rule="A20.22", unit=uid, guard=guard), State)
        made.append(Capture(prisoner=uid, guard=guard, restored=None))
    return state, made


def capture_one(
    state: State, eligible: list[str], guard: str, attack: int
) -> Generator[Step, Any, tuple[State, list[Capture]]]:
    """Final DR = KN: the defender chooses the unit; a squad gives up one HS only."""
    choice = yield from ask(
        f"capture/{attack}", tuple(eligible), eligible[0], "Defender: which unit is captured?"
    )
    u = state.units[choice]
    if u.kind != "squad":
        state = yield from emit(UnitCaptured(rule="A20.22", unit=choice, guard=guard), State)
        return state, [Capture(prisoner=choice, guard=guard, restored=None)]
    state = yield from reduce_to_hs(state, u, "A20.22", "one HS captured")
    prisoner = msgspec.structs.replace(
        state.units[choice],
        id=f"{choice}-prisoner",
        sws=[],
        stacked_on=None,
        status="captured",
        guard=guard,
        concealed=False,
    )
    state = yield from emit(
        UnitCaptured(rule="A20.22", unit=prisoner.id, guard=guard, created=prisoner), State
    )
    return state, [Capture(prisoner=prisoner.id, guard=guard, restored=u)]


def void_if_wiped_out(
    state: State, captures: list[Capture], location: str
) -> Generator[Step, Any, State]:
    """A20.221: captures by a side with no unit left in the Location do not count."""
    for c in captures:
        side = state.units[c.guard].side
        if units_in(state, location, side):
            continue
        restored = c.restored
        if restored is not None and state.units[restored.id].status != "active":
            restored = None
        state = yield from emit(
            CaptureVoided(rule="A20.221", unit=c.prisoner, restored=restored), State
        )
    return state


def release(state: State, prisoners: tuple[str, ...]) -> Generator[Step, Any, State]:
    """Ruling prisoner-attacks=captor-first: a prisoner whose guard is gone is released."""
    for p in prisoners:
        u = state.units[p]
        guard = state.units.get(u.guard or "")
        if is_prisoner(state, p) and (guard is None or guard.status != "active"):
            state = yield from emit(
                PrisonerReleased(rule="A20.55", unit=p, cause="its captor was eliminated"), State
            )
    return state


def alone_with_enemy_infantry(state: State, ctx: CCContext) -> Generator[Step, Any, State]:
    """A11.52: an unarmed, stopped vehicle with none of its side's Personnel in the Location
    (no escort, no Passengers) is captured at once by the opposing Infantry there."""
    if ctx.ruling(UNARMED_VEHICLE_CAPTURE) != "captured-when-alone":
        return state
    for v in vehicles_in(state, ctx.location):
        enemy = other_side(state, v.side)
        if v.motion or not is_unarmed(v) or units_in(state, ctx.location, v.side):
            continue
        if not [u for u in units_in(state, ctx.location, enemy) if not u.dummy]:
            continue
        state = yield from emit(
            VehicleCaptured(
                rule="A11.52",
                vehicle=v.id,
                by=enemy,
                cause="unarmed, stopped and alone with opposing Infantry",
            ),
            State,
        )
    return state


def passengers_captured(state: State, ctx: CCContext) -> Generator[Step, Any, State]:
    """A11.52: an unarmored stationary vehicle whose Passengers are all captured, with no other
    Personnel of its side left in the Location, is captured too."""
    if ctx.ruling(UNARMED_VEHICLE_CAPTURE) != "captured-when-alone":
        return state
    for v in vehicles_in(state, ctx.location):
        if v.armored or v.motion or not v.passengers:
            continue
        guards = [state.units[p].guard for p in v.passengers if is_prisoner(state, p)]
        if len(guards) != len(v.passengers) or units_in(state, ctx.location, v.side):
            continue
        state = yield from emit(
            VehicleCaptured(
                rule="A11.52",
                vehicle=v.id,
                by=other_side(state, v.side),
                cause="all its Passengers are captured",
            ),
            State,
        )
    return state
