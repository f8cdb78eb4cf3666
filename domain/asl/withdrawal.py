"""A11.2 Withdrawal from Melee, A11.21 its mechanics, A11.22 Infiltration, A11.41 Ambush
Withdrawal, A11.16 (broken Infantry in Melee must withdraw; otherwise Failure to Rout) and the
A11.8 return of Street Fighters: every way a unit leaves the CC Location."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, Protocol

from blowbyblow.domain.asl.casualty import random_selection
from blowbyblow.domain.asl.commands import CloseCombat
from blowbyblow.domain.asl.context import CCContext
from blowbyblow.domain.asl.events import (
    ConcealmentLost,
    CXPlaced,
    CXRemoved,
    Infiltrated,
    SupportWeaponDropped,
    UnitEliminated,
    WithdrawalAttempted,
    WithdrawalKind,
    Withdrew,
)
from blowbyblow.domain.asl.rulings import WITHDRAWAL_CX
from blowbyblow.domain.asl.setup import ipc, is_open_ground
from blowbyblow.domain.asl.state import (
    State,
    UnitState,
    active,
    known,
    other_side,
    present,
    units_in,
    vehicles_in,
)
from blowbyblow.domain.core import Context, Modifier, RuleViolation, Step, ask, emit

Gen = Generator[Step, Any, State]

WITHDRAWING_DRM = -2
STANDING_DRM = 1


def enemy_known_in(state: State, location: str, side: str) -> bool:
    if any(known(u) and u.side != side for u in units_in(state, location)):
        return True
    return any(v.side != side for v in vehicles_in(state, location))


def destinations(state: State, unit: UnitState, location: str) -> tuple[str, ...]:
    """A11.21: adjacent Locations (from the setup) not occupied by a Known enemy unit."""
    loc = state.locations[location]
    return tuple(
        a for a in loc.adjacent if a in state.locations and not enemy_known_in(state, a, unit.side)
    )


class CCBeingChecked(Protocol):
    """A ``closecombat`` command being checked (legal.py)."""

    state: State
    command: CloseCombat


def check_cx_needed(chk: CCBeingChecked) -> None:
    """A11.21 for the withdrawals asked during the CC (A11.22 Infiltration, A11.41 Ambush
    Withdrawal): each ``cx_needed`` names a unit of this Location, not pinned ("Provided it has
    not already been eliminated /captured /pinned", "unless pinned"), whose withdrawal is not
    announced (that one says it with ``withdrawals[].cx``), and a Location it could withdraw
    into ("an adjacent Location ... The Location withdrawn to cannot be currently occupied by
    a Known enemy unit"), once."""
    state, c = chk.state, chk.command
    announced = {w.unit for w in c.withdrawals}
    seen: set[tuple[str, str]] = set()
    for need in c.cx_needed:
        u = state.units.get(need.unit)
        if u is None or not present(state, need.unit, c.location):
            raise RuleViolation("A11.21", f"cx_needed: {need.unit!r} is not a unit in {c.location}")
        if need.unit in announced:
            raise RuleViolation(
                "A11.21",
                f"cx_needed: {need.unit} announced its withdrawal; its CX counter is "
                "withdrawals[].cx",
            )
        if u.pinned:
            raise RuleViolation(
                "A11.22",
                f"cx_needed: {need.unit} is pinned: it neither Infiltrates (A11.22) nor makes an "
                "Ambush Withdrawal (A11.41)",
            )
        dests = destinations(state, u, c.location)
        if need.to not in dests:
            raise RuleViolation(
                "A11.21",
                f"cx_needed: {need.unit} cannot withdraw to {need.to!r}; possible: "
                f"{', '.join(dests) or 'none'}",
            )
        if (need.unit, need.to) in seen:
            raise RuleViolation("A11.21", f"cx_needed: {need.unit} to {need.to} named twice")
        seen.add((need.unit, need.to))


def withdrawal_modifier(state: State, unit: UnitState, location: str) -> Modifier | None:
    """A11.2: -2 to CC attacks on a withdrawing unit, +1 per friendly unit in the Melee not
    attempting to withdraw."""
    if unit.id not in state.withdrawing:
        return None
    lock = state.melee.get(location)
    held = lock.units if lock else ()
    standing = sum(
        1
        for u in units_in(state, location, unit.side)
        if u.id in held and u.id not in state.withdrawing
    )
    return Modifier(
        value=WITHDRAWING_DRM + STANDING_DRM * standing,
        cause=f"Withdrawing (-2, +1 x {standing} standing)",
        rule="A11.2",
    )


def must_withdraw(state: State, unit: UnitState, location: str) -> bool:
    """A11.16: broken Infantry in Melee "must attempt to Withdraw from Melee (11.2) unless
    Disrupted or guarding prisoners"."""
    lock = state.melee.get(location)
    return (
        lock is not None
        and unit.id in lock.units
        and unit.broken
        and not unit.disrupted
        and unit.id not in state.prisoners.values()
    )


def announce(state: State, command: CloseCombat) -> Generator[Step, Any, tuple[State, list[str]]]:
    """Withdrawal announcements, ATTACKER first (A11.2); broken units that must withdraw are
    announced too (destination asked); those unable to are returned for Failure to Rout."""
    location = command.location
    given = {w.unit: w for w in command.withdrawals}
    unable: list[str] = []
    planned: list[tuple[str, str, str | None, bool]] = []
    for side in (command.attacker, other_side(state, command.attacker)):
        for w in command.withdrawals:
            if state.units[w.unit].side == side:
                planned.append((w.unit, w.to, w.with_unit, False))
        for u in units_in(state, location, side):
            if u.id in given or not must_withdraw(state, u, location):
                continue
            dests = destinations(state, u, location)
            if u.pinned or not dests:
                unable.append(u.id)
                continue
            to = yield from ask(
                f"withdraw/{u.id}", dests, dests[0], f"{u.id} (broken, in Melee) must withdraw to"
            )
            planned.append((u.id, to, None, True))
    leaving = {p[0] for p in planned}
    lock = state.melee.get(location)
    held = lock.units if lock else ()
    for unit_id, to, with_unit, forced in planned:
        side = state.units[unit_id].side
        standing = sum(
            1 for x in units_in(state, location, side) if x.id in held and x.id not in leaving
        )
        state = yield from emit(
            WithdrawalAttempted(
                rule="A11.16" if forced else "A11.2",
                unit=unit_id,
                side=side,
                to=to,
                with_unit=with_unit,
                forced=forced,
                standing=standing,
                drm=WITHDRAWING_DRM + STANDING_DRM * standing,
            ),
            State,
        )
    return state, unable


def carry_only_ipc(state: State, unit_id: str, key: str) -> Gen:
    """A11.21: "Any unit withdrawing during the CCPh may carry only <= its IPC": it leaves SW
    (the player chooses which) in the Location until the Portage Points it carries (the
    setup's ``sw_portage``) are within its IPC (A4.42)."""
    u = state.units[unit_id]
    weights = {sw: state.sw_portage.get(sw, 0) for sw in u.sws}
    n = 0
    while sum(weights.values()) > ipc(u):
        heavy = tuple(sw for sw, pp in weights.items() if pp)
        sw = yield from ask(
            f"{key}/{n}",
            heavy,
            heavy[0],
            f"{unit_id} carries {sum(weights.values())} PP, IPC {ipc(u)}: which SW stays?",
        )
        state = yield from emit(
            SupportWeaponDropped(rule="A11.21", unit=unit_id, sw=sw, location=u.location), State
        )
        del weights[sw]
        n += 1
    return state


def move_out(state: State, unit_id: str, to: str, kind: WithdrawalKind, rule: str) -> Gen:
    """Leave the CC Location; A11.21: carrying only up to its IPC (not a Street Fighter going
    back, A11.8); into a concealed (not Dummy) enemy's Location the unit is eliminated and the
    enemy (Random Selection) forfeits concealment; HIP units are placed."""
    if kind != "street-fighting":
        state = yield from carry_only_ipc(state, unit_id, f"carry/{kind}/{unit_id}")
    u = state.units[unit_id]
    keeps = u.concealed and not is_open_ground(state.locations[to])
    state = yield from emit(
        Withdrew(rule=rule, unit=unit_id, kind=kind, to=to, keeps_concealment=keeps), State
    )
    return (yield from _entered(state, unit_id, to))


def _entered(state: State, unit_id: str, to: str) -> Gen:
    """A11.21: a unit that withdrew into a concealed (not Dummy) enemy's Location is eliminated;
    HIP enemies are placed on board unconcealed (comprehensive EX G5), and one concealed enemy
    (Random Selection) forfeits its concealment."""
    u = state.units[unit_id]
    hidden_enemy = [e for e in units_in(state, to) if e.side != u.side and e.hidden and not e.dummy]
    concealed_enemy = [
        e
        for e in units_in(state, to)
        if e.side != u.side and e.concealed and not e.hidden and not e.dummy
    ]
    if not hidden_enemy and not concealed_enemy:
        return state
    state = yield from emit(
        UnitEliminated(
            rule="A11.21", unit=unit_id, cause=f"withdrew into concealed enemy Location {to}"
        ),
        State,
    )
    for e in hidden_enemy:
        state = yield from emit(
            ConcealmentLost(rule="A11.21", unit=e.id, cause="HIP unit placed on board"), State
        )
    if concealed_enemy:
        state, chosen = yield from random_selection(
            state, f"forfeit/{unit_id}", tuple(e.id for e in concealed_enemy), "concealment forfeit"
        )
        for e_id in chosen:
            state = yield from emit(
                ConcealmentLost(rule="A11.21", unit=e_id, cause="enemy withdrew into it"), State
            )
    return state


def _may_withdraw(
    state: State, unit: UnitState, location: str, key: str, prompt: str
) -> Generator[Step, Any, str | None]:
    """A11.22/A11.41: ask whether ``unit`` withdraws, and where to (A11.21); None when it stays,
    also without asking when it has nowhere to go."""
    dests = destinations(state, unit, location)
    if not dests:
        return None
    choice = yield from ask(key, ("stay", *dests), "stay", prompt)
    return None if choice == "stay" else choice


def infiltration(
    state: State, unit_ids: tuple[str, ...], original: int, attack: int, cc: CCContext
) -> Gen:
    """A11.22: after an Original 2 (the attacker) / 12 (the attacked units) an Infantry unit not
    eliminated/captured/pinned may withdraw at once (asked); A11.21: CX if the command said its
    destination needs a CX counter."""
    location = cc.location
    for uid in unit_ids:
        u = state.units.get(uid)
        if u is None or not active(u) or u.guard or u.location != location or u.pinned:
            continue
        to = yield from _may_withdraw(
            state,
            u,
            location,
            f"infiltrate/{attack}/{uid}",
            f"Infiltration (Original {original}): may {uid} withdraw?",
        )
        if to is None:
            continue
        state = yield from carry_only_ipc(state, uid, f"carry/infiltration/{attack}/{uid}")
        state = yield from emit(
            Infiltrated(rule="A11.22", unit=uid, original=original, to=to), State
        )
        state = yield from _entered(state, uid, to)
        if (uid, to) in cc.cx_needed:
            state = yield from place_cx(state, uid, to)
    return state


def ambush_withdrawal(state: State, cc: CCContext, when: str) -> Gen:
    """A11.41: the Ambusher's non-pinned units may withdraw before CC resolution, or after all CC
    by and against them but before Melee (asked per unit); A11.21: CX if the command said its
    destination needs a CX counter."""
    location = cc.location
    if state.ambusher is None:
        return state
    for u in units_in(state, location, state.ambusher):
        if u.pinned:
            continue
        to = yield from _may_withdraw(
            state,
            u,
            location,
            f"ambush-withdraw/{when}/{u.id}",
            f"Ambush Withdrawal ({when} CC): may {u.id} withdraw?",
        )
        if to is not None:
            state = yield from move_out(state, u.id, to, "ambush", "A11.41")
            if (u.id, to) in cc.cx_needed:
                state = yield from place_cx(state, u.id, to)
    return state


def complete(state: State, command: CloseCombat) -> Gen:
    """A11.2: every withdrawing unit not eliminated or captured withdraws; a concealed one keeps
    its "?" into a non-Open Ground Location. A11.21: one whose withdrawal said ``cx`` enters a
    Location "Accessible to that Unit under normal APh conditions (even if it requires placement
    of a CX counter; 4.72)": it is CX, if it survived entering."""
    location = command.location
    with_cx = {w.unit for w in command.withdrawals if w.cx}
    for uid, to in list(state.withdrawing.items()):
        u = state.units[uid]
        if active(u) and u.guard is None and u.location == location:
            state = yield from move_out(state, uid, to, "melee", "A11.2")
            if uid in with_cx:
                state = yield from place_cx(state, uid, to)
    return state


def place_cx(state: State, unit_id: str, to: str) -> Gen:
    """A11.21: a unit that withdrew into ``to``, Accessible to it "even if it requires
    placement of a CX counter; 4.72", and survived entering it, is CX."""
    if not active(state.units[unit_id]):
        return state
    return (
        yield from emit(CXPlaced(rule="A11.21", unit=unit_id, location=to, turn=state.turn), State)
    )


def rest_cx(state: State, turn: int, attacker: str, ctx: Context) -> Gen:
    """Ruling withdrawal-cx = next-player-turn: as the Player Turn ``turn`` begins, the CX
    counters withdrawals placed on units of its ATTACKER in an earlier Player Turn are
    removed."""
    if ctx.ruling(WITHDRAWAL_CX) != "next-player-turn":
        return state
    rested = tuple(
        uid
        for uid, placed in state.cx_placed.items()
        if turn > placed and state.units[uid].side == attacker and active(state.units[uid])
    )
    if not rested:
        return state
    return (
        yield from emit(
            CXRemoved(rule="A11.21 (ruling withdrawal-cx)", units=rested, turn=turn), State
        )
    )


def street_fighters_return(state: State, location: str) -> Gen:
    """A11.8: Street Fighters return to the building Location they came from after CC, unless
    broken or pinned (or held by Wire, the A11 comprehensive example, hex F4)."""
    if state.locations[location].wire:
        return state
    for u in units_in(state, location):
        if u.street_fighting_from is None or u.broken or u.pinned:
            continue
        state = yield from move_out(state, u.id, u.street_fighting_from, "street-fighting", "A11.8")
    return state
