"""Designating and resolving the attacks of one Location's CC in the rule's order: simultaneous
(A11.1, A11.12: all designated, ATTACKER first, then resolved, ATTACKER's first) or sequential
(A11.3) for a vehicle (A11.31), an Ambush (A11.32) or prisoners attacking their captor (A11.33),
the highest numbered criterion taking precedence (A11.34). A11.22 Infiltration suspends
simultaneity: units gone by it do not attack."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from blowbyblow.domain.asl import capture as cap
from blowbyblow.domain.asl.commands import CloseCombat
from blowbyblow.domain.asl.concealment import lose_by_attacking
from blowbyblow.domain.asl.context import CCContext
from blowbyblow.domain.asl.designation import Designation, designation, expand_targets
from blowbyblow.domain.asl.events import (
    AttackDesignated,
    AttackForfeited,
    CaptureAttempted,
    Sequence,
)
from blowbyblow.domain.asl.resolution import Blow, resolve_vs_personnel
from blowbyblow.domain.asl.rulings import CAPTURE_VOIDED
from blowbyblow.domain.asl.state import (
    State,
    is_prisoner,
    other_side,
    still_here,
    units_in,
    vehicles_in,
)
from blowbyblow.domain.asl.vehicles import close_defense, resolve_vs_vehicle, vehicle_fp
from blowbyblow.domain.core import Step, emit

Gen = Generator[Step, Any, State]


def sequence_mode(state: State, location: str, ds: list[Designation] | None = None) -> Sequence:
    """A11.34: the highest numbered sequential criterion wins: Prisoners attacking their captor
    (A11.33) over Ambush (A11.32) over vehicle (A11.31); otherwise simultaneous."""
    if ds and any(d.by_prisoners for d in ds):
        return "prisoners"
    if state.ambusher is not None:
        return "ambush"
    if vehicles_in(state, location):
        return "vehicle"
    return "simultaneous"


def order(state: State, ds: list[Designation], mode: Sequence, attacker: str) -> list[Designation]:
    """The order the attacks are resolved in: prisoners' attacks first (A11.33); the Ambusher's
    (A11.32); vs a vehicle one at a time, the non-vehicular side first, alternating (A11.31);
    otherwise the ATTACKER's, then the DEFENDER's (A11.12)."""
    if mode == "prisoners":
        first_ones = [d for d in ds if d.by_prisoners]
        rest = [d for d in ds if not d.by_prisoners]
        return first_ones + order(state, rest, sequence_mode(state, state.current or ""), attacker)
    defender = other_side(state, attacker)
    first = attacker
    if mode == "ambush":
        first = state.ambusher or attacker
    elif mode == "vehicle":
        vsides = {v.side for v in vehicles_in(state, state.current or "")}
        if len(vsides) == 1:
            first = other_side(state, vsides.pop())
    second = defender if first == attacker else attacker
    a = [d for d in ds if d.side == first]
    b = [d for d in ds if d.side == second]
    if mode != "vehicle":
        return a + b
    out: list[Designation] = []
    while a or b:
        if a:
            out.append(a.pop(0))
        if b:
            out.append(b.pop(0))
    return out


def resolve(state: State, c: CloseCombat, ctx: CCContext) -> Gen:
    """A11.12 designation and resolution of every attack of the command, in A11.3 order."""
    withdrawing = {w.unit: w.with_unit for w in c.withdrawals}
    solo = set(c.solo)
    ds = [
        designation(state, n, a, expand_targets(state, ctx.location, a.targets, solo, withdrawing))
        for n, a in enumerate(c.attacks, start=1)
    ]
    mode = sequence_mode(state, ctx.location, ds)
    ds = order(state, ds, mode, c.attacker)
    if mode == "simultaneous":
        return (yield from _simultaneous(state, ds, ctx))
    return (yield from _sequential(state, ds, mode, ctx))


def _designate(state: State, d: Designation, targets: tuple[str, ...], mode: Sequence) -> Gen:
    state = yield from emit(
        AttackDesignated(
            rule="A11.12" if mode == "simultaneous" else "A11.3",
            attack=d.number,
            side=d.side,
            attackers=d.attackers,
            targets=targets,
            leader=d.leader,
            capture=d.capture,
            vs_vehicle=d.vs_vehicle,
            sequence=mode,
        ),
        State,
    )
    if d.capture:
        state = yield from emit(
            CaptureAttempted(rule="A20.22", attack=d.number, side=d.side, targets=targets), State
        )
    return state


def _forfeit(state: State, d: Designation, cause: str) -> Gen:
    return (
        yield from emit(
            AttackForfeited(rule="A11.3", attack=d.number, units=d.attackers, cause=cause), State
        )
    )


def _targets_left(
    state: State, d: Designation, loc: str
) -> Generator[Step, Any, tuple[State, tuple[str, ...]]]:
    """The attack's targets still in the Location; with none left it is forfeited (A11.3)."""
    targets = tuple(t for t in d.targets if still_here(state, t, loc))
    if not targets:
        state = yield from _forfeit(state, d, "no target left in the Location")
    return state, targets


def _simultaneous(state: State, ds: list[Designation], ctx: CCContext) -> Gen:
    """A11.12: all attacks designated (ATTACKER first), then resolved, ATTACKER's first; units
    eliminated, Reduced or captured meanwhile still attack, at the odds designated."""
    loc = ctx.location
    concealed = tuple(a for d in ds for a in d.attackers)
    state = yield from lose_by_attacking(state, concealed, None)
    for d in ds:
        state = yield from _designate(state, d, d.targets, "simultaneous")
    snapshot = state
    captures: list[cap.Capture] = []
    for d in ds:
        attackers = tuple(a for a in d.attackers if state.units[a].location == loc)
        if not attackers:
            state = yield from _forfeit(state, d, "attackers withdrew (Infiltration)")
            continue
        state, targets = yield from _targets_left(state, d, loc)
        if not targets:
            continue
        blow = Blow(d=d, attackers=attackers, targets=targets, src=snapshot)
        state, made = yield from resolve_vs_personnel(state, ctx, blow)
        captures += made
    if ctx.ruling(CAPTURE_VOIDED) == "wiped-out-side":
        state = yield from cap.void_if_wiped_out(state, captures, loc)
    return state


@dataclass
class _Sequential:
    """A sequential CC in progress (A11.3): its criterion, its context, and the vehicles attacked
    so far (an sN fires only after its AFV was attacked, A11.622)."""

    mode: Sequence
    ctx: CCContext
    attacked_vehicles: set[str] = field(default_factory=set)


def _sequential(state: State, ds: list[Designation], mode: Sequence, ctx: CCContext) -> Gen:
    """A11.3: attacks resolved one by one in the A11.31/A11.32/A11.33 order; a unit eliminated
    before its attack forfeits it."""
    run = _Sequential(mode=mode, ctx=ctx)
    for d in ds:
        state, attackers = yield from _still_attacking(state, d, ctx.location)
        if not attackers:
            continue
        if d.by_vehicle and "sn" in d.weapons:
            state = yield from _close_defense(state, d, run)
        elif d.vs_vehicle:
            state = yield from _vs_vehicle(state, d, attackers, run)
        else:
            state = yield from _vs_personnel(state, d, attackers, run)
    return state


def _still_attacking(
    state: State, d: Designation, loc: str
) -> Generator[Step, Any, tuple[State, tuple[str, ...]]]:
    """A11.3: the attackers able to attack now; those eliminated, captured, broken or gone
    forfeit their attack."""
    if d.by_vehicle:
        v = state.vehicles[d.attackers[0]]
        if v.status != "active":
            state = yield from _forfeit(state, d, f"{v.id} eliminated before its attack")
            return state, ()
        return state, d.attackers
    if d.by_prisoners:
        attackers = tuple(
            a for a in d.attackers if is_prisoner(state, a) and state.units[a].location == loc
        )
        if not attackers:
            state = yield from _forfeit(state, d, "no prisoner left to attack")
        return state, attackers
    attackers = tuple(
        a for a in d.attackers if still_here(state, a, loc) and not state.units[a].broken
    )
    if len(attackers) != len(d.attackers):
        gone = tuple(a for a in d.attackers if a not in attackers)
        state = yield from emit(
            AttackForfeited(
                rule="A11.3",
                attack=d.number,
                units=gone,
                cause="eliminated, captured, broken or gone before attacking",
            ),
            State,
        )
    return state, attackers


def _close_defense(state: State, d: Designation, run: _Sequential) -> Gen:
    """A11.622: the sN fires only after its AFV was attacked this CCPh, or as the Ambusher."""
    v = state.vehicles[d.attackers[0]]
    if v.id not in run.attacked_vehicles and state.ambusher != v.side:
        return (yield from _forfeit(state, d, "sN only after being attacked (A11.622)"))
    everyone = tuple(u.id for u in units_in(state, run.ctx.location))
    state = yield from _designate(state, d, everyone, run.mode)
    return (yield from close_defense(state, d, run.ctx))


def _vs_vehicle(state: State, d: Designation, attackers: tuple[str, ...], run: _Sequential) -> Gen:
    """A11.5: unless the vehicle is already destroyed; it counts as attacked (A11.622)."""
    v = state.vehicles[d.targets[0]]
    if v.status != "active":
        return (yield from _forfeit(state, d, f"{v.id} already destroyed"))
    state = yield from lose_by_attacking(state, attackers, state.ambusher)
    state = yield from _designate(state, d, d.targets, run.mode)
    run.attacked_vehicles.add(v.id)
    return (yield from resolve_vs_vehicle(state, run.ctx, d, attackers))


def _vs_personnel(
    state: State, d: Designation, attackers: tuple[str, ...], run: _Sequential
) -> Gen:
    """A11.11 (A11.62 for a vehicle's MG): the attack on the targets still here; a prisoner whose
    guard it eliminated is released (A20.55)."""
    state, targets = yield from _targets_left(state, d, run.ctx.location)
    if not targets:
        return state
    if not d.by_vehicle:
        state = yield from lose_by_attacking(state, attackers, state.ambusher)
    state = yield from _designate(state, d, targets, run.mode)
    fp = vehicle_fp(state, state.vehicles[attackers[0]], d.weapons) if d.by_vehicle else None
    blow = Blow(d=d, attackers=attackers, targets=targets, src=state, vehicle_fp=fp)
    state, _ = yield from resolve_vs_personnel(state, run.ctx, blow)
    if d.by_prisoners:
        state = yield from cap.release(state, attackers)
    return state
