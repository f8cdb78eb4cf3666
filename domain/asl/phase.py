"""The CC of one Location in a CCPh, in the order of chapter A11:

1. A11.19 Dummies removed, concealed units reveal their strength.
2. A11.2 Withdrawal from Melee announced, ATTACKER first (A11.16: broken units in Melee must).
3. A11.4 Ambush status drs (not when reinforcing a Melee); A11.41 Ambush Withdrawal before CC.
4. A11.12 designation (ATTACKER, then DEFENDER) and resolution: simultaneous (A11.1, A11.12),
   or sequential (A11.3) for a vehicle (A11.31) or an Ambush (A11.32), the higher number taking
   precedence (A11.34); A11.22 Infiltration suspends simultaneity.
5. A11.41 Ambush Withdrawal after CC, A11.8 Street Fighters return, A11.2 withdrawals completed,
   A11.16 Failure to Rout, A11.15 Melee.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from blowbyblow.domain.asl import capture as cap
from blowbyblow.domain.asl import withdrawal
from blowbyblow.domain.asl.ambush import ambush_possible, ambush_step
from blowbyblow.domain.asl.commands import Attack, CloseCombat
from blowbyblow.domain.asl.common import (
    Designation,
    designation,
    destinations,
    expand_targets,
    is_prisoner,
    present,
    side_of,
)
from blowbyblow.domain.asl.concealment import lose_by_attacking, reveal_strength
from blowbyblow.domain.asl.events import (
    AttackDesignated,
    AttackForfeited,
    CaptureAttempted,
    CloseCombatEnded,
    CloseCombatPhaseBegun,
    PrisonerReleased,
)
from blowbyblow.domain.asl.melee import failure_to_rout, melee_step
from blowbyblow.domain.asl.resolution import resolve_vs_personnel, still_here
from blowbyblow.domain.asl.units import (
    State,
    is_mmc,
    is_smc,
    other_side,
    units_in,
    vehicles_in,
)
from blowbyblow.domain.asl.vehicles import close_defense, paatc, resolve_vs_vehicle, vehicle_fp
from blowbyblow.domain.core import Context, Procedure, RuleViolation, Step, emit

Gen = Generator[Step, Any, State]
WEAPONS = ("cmg", "aamg", "rmg", "sn")


# --- validation: everything that can be refused before anything is written ------------------


def validate(state: State, c: CloseCombat, rulings: dict[str, str]) -> None:
    loc = c.location
    if loc not in state.locations:
        raise RuleViolation("A11.1", f"unknown Location {loc!r}")
    if c.attacker not in state.sides:
        raise RuleViolation("A11.12", f"{c.attacker!r} is not a side ({', '.join(state.sides)})")
    if c.turn < state.turn:
        raise RuleViolation("A11.12", f"Player Turn {c.turn} is before the current {state.turn}")
    same_turn = c.turn == state.turn
    if same_turn and state.attacker is not None and c.attacker != state.attacker:
        raise RuleViolation("A11.12", f"{state.attacker} is the ATTACKER of Player Turn {c.turn}")
    if same_turn and loc in state.resolved:
        raise RuleViolation("A11.12", f"CC in {loc} is already resolved this Player Turn")
    lock = state.melee.get(loc)

    def unit_here(uid: str, rule: str) -> None:
        if uid not in state.units or not present(state, uid, loc):
            raise RuleViolation(rule, f"{uid!r} is not a unit in {loc}")

    afv_here = [v for v in vehicles_in(state, loc) if v.afv and v.crewed and not v.abandoned]
    checked: set[str] = set()
    for check in c.paatc:
        unit_here(check.unit, "A11.6")
        u = state.units[check.unit]
        if check.unit in checked or not any(v.side != u.side for v in afv_here):
            raise RuleViolation("A11.6", f"{check.unit}: no (second) PAATC here")
        if is_smc(u) or u.fanatic or u.berserk:
            raise RuleViolation("A11.6", f"{check.unit} is exempt from PAATC")
        if check.from_location not in state.locations or check.from_location == loc:
            raise RuleViolation("A11.6", f"{check.unit}: unknown Location {check.from_location!r}")
        checked.add(check.unit)
    withdrawing: dict[str, str | None] = {}
    for w in c.withdrawals:
        unit_here(w.unit, "A11.2")
        u = state.units[w.unit]
        if w.unit in withdrawing:
            raise RuleViolation("A11.2", f"{w.unit} announced twice")
        if lock is None or w.unit not in lock.units:
            raise RuleViolation("A11.2", f"{w.unit} is not engaged in Melee in {loc}")
        if u.pinned or u.berserk:
            raise RuleViolation("A11.2", f"{w.unit} is pinned or berserk and may not withdraw")
        dests = destinations(state, u, loc)
        if w.to not in dests:
            raise RuleViolation(
                "A11.21",
                f"{w.unit} cannot withdraw to {w.to!r}; possible: {', '.join(dests) or 'none'}",
            )
        withdrawing[w.unit] = w.with_unit
    for w in c.withdrawals:
        if w.with_unit is not None:
            partner = next((x for x in c.withdrawals if x.unit == w.with_unit), None)
            if not is_smc(state.units[w.unit]) or partner is None or partner.to != w.to:
                raise RuleViolation(
                    "A11.2",
                    f"{w.unit} may withdraw with {w.with_unit} only as an SMC with a "
                    "withdrawing MMC going to the same Location",
                )
    solo = set(c.solo)
    for s in c.solo:
        unit_here(s, "A11.14")
        if not is_smc(state.units[s]):
            raise RuleViolation("A11.14", f"{s} is not an SMC")
    aboard = {p for v in state.vehicles.values() for p in v.passengers}
    for a in c.attacks:
        for x in [*a.by, *a.targets]:
            if x in aboard:
                raise RuleViolation(
                    "A11.611",
                    f"{x} is a Passenger/Rider: it shares its vehicle's fate (not covered)",
                )
    for a in c.attacks:
        for x in [*a.by, *a.targets]:
            if x in state.units and state.units[x].dummy:
                raise RuleViolation("A11.19", f"Dummy {x} is removed before designation")
    attacked: set[str] = set(state.phase_targets) if same_turn else set()
    attacked_by: set[str] = set(state.phase_attackers) if same_turn else set()
    weapons_used: set[tuple[str, str]] = set()
    for number, a in enumerate(c.attacks, start=1):
        where = f"attack {number}"
        if not a.by:
            raise RuleViolation("A11.12", f"{where}: no attacker")
        if all(is_prisoner(state, b) and state.units[b].location == loc for b in a.by):
            _validate_prisoner_attack(state, a, loc, where, rulings, attacked_by, attacked)
            continue
        for b in a.by:
            if not present(state, b, loc):
                raise RuleViolation("A11.1", f"{where}: {b!r} is not in {loc}")
        sides = {side_of(state, b) for b in a.by}
        if len(sides) != 1:
            raise RuleViolation("A11.12", f"{where}: attackers of both sides")
        side = sides.pop()
        if any(b in state.vehicles for b in a.by):
            _validate_vehicle_attack(state, a.by, a.targets, a.weapons, a.capture, side, loc, where)
            for weapon in a.weapons or ["cmg", "aamg", "rmg"]:
                if (a.by[0], weapon) in weapons_used:
                    raise RuleViolation("A11.62", f"{where}: {a.by[0]} {weapon} already used")
                weapons_used.add((a.by[0], weapon))
            continue
        for b in a.by:
            u = state.units[b]
            if u.broken:
                raise RuleViolation("A11.16", f"{where}: broken {b} may never attack")
            if b in withdrawing:
                raise RuleViolation("A11.2", f"{where}: withdrawing {b} may not attack")
            _once(attacked_by, b, f"{where}: {b} attacks")
            if a.capture and u.berserk:
                raise RuleViolation("A20.2", f"{where}: berserk {b} may not capture")
        if not a.targets:
            raise RuleViolation("A11.12", f"{where}: no target")
        if any(t in state.vehicles for t in a.targets):
            _validate_vs_vehicle(
                state, a.by, a.targets, a.capture, a.atmm, side, loc, where, rulings
            )
            continue
        _validate_smc(state, a.by, a.targets, solo, withdrawing, side, loc, where)
        if a.leader is not None and (
            a.leader not in a.by or state.units[a.leader].kind != "leader"
        ):
            raise RuleViolation("A11.141", f"{where}: {a.leader} is not a leader in the attack")
        if a.atmm is not None:
            raise RuleViolation("C13.7", f"{where}: ATMM only in an attack vs an AFV")
        for t in expand_targets(state, loc, a.targets, solo, withdrawing):
            _once(attacked, t, f"{where}: {t} is attacked")


def _once(seen: set[str], unit: str, what: str) -> None:
    """A11.12: a unit attacks, and is attacked, at most once per CCPh; ``seen`` records it."""
    if unit in seen:
        raise RuleViolation("A11.12", f"{what} more than once this CCPh")
    seen.add(unit)


def _validate_prisoner_attack(
    state: State,
    a: Attack,
    loc: str,
    where: str,
    rulings: dict[str, str],
    attacked_by: set[str],
    attacked: set[str],
) -> None:
    """A11.33/A20.55 (ruling prisoner-attacks): prisoners may attack only their captor."""
    if rulings["prisoner-attacks"] == "not-allowed":
        raise RuleViolation("A20.55", f"{where}: prisoners may not attack (prisoner-attacks)")
    guards = {state.units[b].guard for b in a.by}
    if not a.targets or any(t not in guards or not present(state, t, loc) for t in a.targets):
        raise RuleViolation("A11.33", f"{where}: prisoners may attack only their captor here")
    if a.capture or a.atmm or a.weapons:
        raise RuleViolation("A11.33", f"{where}: a prisoners' attack is a plain CC attack")
    for b in a.by:
        _once(attacked_by, b, f"{where}: {b} attacks")
    for t in a.targets:
        _once(attacked, t, f"{where}: {t} is attacked")


def _validate_smc(
    state: State,
    by: list[str],
    targets: list[str],
    solo: set[str],
    withdrawing: dict[str, str | None],
    side: str,
    loc: str,
    where: str,
) -> None:
    enemy_mmc = [u.id for u in units_in(state, loc) if u.side != side and is_mmc(u)]
    friendly_mmc = [u.id for u in units_in(state, loc, side) if is_mmc(u)]
    for t in targets:
        if t not in state.units or not present(state, t, loc):
            raise RuleViolation("A11.1", f"{where}: target {t!r} is not in {loc}")
        u = state.units[t]
        if u.side == side:
            raise RuleViolation("A11.1", f"{where}: {t} is not an enemy unit")
        if is_smc(u):
            free = (
                not enemy_mmc
                or t in solo
                or (t in withdrawing and withdrawing[t] is None)
                or u.stacked_on not in enemy_mmc
                or u.concealed != state.units[u.stacked_on].concealed
            )
            if not free:
                raise RuleViolation(
                    "A11.14", f"{where}: SMC {t} defends with {u.stacked_on}; attack that MMC"
                )
    smc = [b for b in by if is_smc(state.units[b])]
    mmc = [b for b in by if is_mmc(state.units[b])]
    if len(by) == 1 and smc and friendly_mmc and by[0] not in solo:
        raise RuleViolation("A11.14", f"{where}: {by[0]} must announce its solo attack (solo)")
    for s in smc:
        if mmc and by and s not in solo:
            base = state.units[s].stacked_on
            if base in friendly_mmc and base not in mmc:
                raise RuleViolation(
                    "A11.14", f"{where}: {s} must attack with the MMC it is stacked on ({base})"
                )


def _validate_vs_vehicle(
    state: State,
    by: list[str],
    targets: list[str],
    capture: bool,
    atmm: str | None,
    side: str,
    loc: str,
    where: str,
    rulings: dict[str, str],
) -> None:
    if len(targets) != 1:
        raise RuleViolation(
            "A11.5", f"{where}: one attack cannot affect a vehicle and anything else"
        )
    v = state.vehicles[targets[0]]
    if v.side == side or not present(state, v.id, loc):
        raise RuleViolation("A11.5", f"{where}: {v.id} is not an enemy vehicle in {loc}")
    if len(by) > 2 or (len(by) == 2 and not any(is_smc(state.units[b]) for b in by)):
        raise RuleViolation(
            "A11.5", f"{where}: at most two units, one of them an SMC, combine vs a vehicle"
        )
    if capture:
        raise RuleViolation("A11.52", f"{where}: capture of a vehicle in CC is not covered")
    if atmm is not None:
        if rulings["atmm-check"] == "not-allowed":
            raise RuleViolation("C13.7", f"{where}: ATMM not allowed (ruling atmm-check)")
        if atmm not in by or not v.afv:
            raise RuleViolation(
                "C13.7", f"{where}: the ATMM check is made by an attacker vs an AFV"
            )


def _validate_vehicle_attack(
    state: State,
    by: list[str],
    targets: list[str],
    weapons: list[str],
    capture: bool,
    side: str,
    loc: str,
    where: str,
) -> None:
    if len(by) != 1:
        raise RuleViolation("A11.62", f"{where}: a vehicle's CC attack is its own")
    v = state.vehicles[by[0]]
    if not v.crewed or v.abandoned or v.shocked or v.stunned:
        raise RuleViolation("A11.62", f"{where}: {v.id} cannot attack in CC")
    if capture:
        raise RuleViolation("A20.22", f"{where}: a vehicle may not capture")
    for w in weapons:
        if w not in WEAPONS:
            raise RuleViolation("A11.62", f"{where}: unknown weapon {w!r} ({', '.join(WEAPONS)})")
    if "sn" in weapons:
        if len(weapons) != 1:
            raise RuleViolation("A11.622", f"{where}: the sN cannot combine with other FP")
        if v.close_defense_usage <= 0 or v.ce:
            raise RuleViolation("A11.622", f"{where}: {v.id} has no sN or is not BU")
        return
    if vehicle_fp(v, tuple(weapons)) <= 0:
        raise RuleViolation("A11.62", f"{where}: {v.id} has no usable CC FP")
    if not targets:
        raise RuleViolation("A11.12", f"{where}: no target")
    for t in targets:
        if t not in state.units or not present(state, t, loc) or state.units[t].side == side:
            raise RuleViolation("A11.62", f"{where}: {t!r} is not enemy Personnel in {loc}")


# --- the procedure ----------------------------------------------------------------------------


def procedure(state: State, command: CloseCombat, ctx: Context) -> Procedure:
    rulings = ctx.rulings
    validate(state, command, rulings)
    loc = command.location
    attacker = command.attacker
    lock = state.melee.get(loc)
    state = yield from emit(
        CloseCombatPhaseBegun(
            rule="A11.12",
            turn=command.turn,
            attacker=attacker,
            defender=other_side(state, attacker),
            location=loc,
            in_melee=lock is not None,
            melee_since=lock.since if lock else None,
        ),
        State,
    )
    state = yield from paatc(state, command)
    state = yield from reveal_strength(state, loc)
    state, unable = yield from withdrawal.announce(state, command)
    if ambush_possible(state, loc, command.ambush_possible):
        state = yield from ambush_step(state, loc, attacker, rulings)
    state = yield from withdrawal.ambush_withdrawal(state, loc, "before")
    state = yield from resolve(state, command, rulings)
    state = yield from withdrawal.ambush_withdrawal(state, loc, "after")
    state = yield from street_fighters_return(state, loc)
    state = yield from withdrawal.complete(state, loc)
    state = yield from failure_to_rout(state, unable, loc)
    state = yield from melee_step(state, loc, command.turn)
    yield from emit(CloseCombatEnded(rule="A11.12", location=loc, turn=command.turn), State)


def sequence_mode(state: State, location: str, ds: list[Designation] | None = None) -> str:
    """A11.34: the highest numbered sequential criterion wins: Prisoners attacking their captor
    (A11.33) over Ambush (A11.32) over vehicle (A11.31); otherwise simultaneous."""
    if ds and any(d.by_prisoners for d in ds):
        return "prisoners"
    if state.ambusher is not None:
        return "ambush"
    if vehicles_in(state, location):
        return "vehicle"
    return "simultaneous"


def order(state: State, ds: list[Designation], mode: str, attacker: str) -> list[Designation]:
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


def resolve(state: State, c: CloseCombat, rulings: dict[str, str]) -> Gen:
    loc = c.location
    withdrawing = {w.unit: w.with_unit for w in c.withdrawals}
    solo = set(c.solo)
    ds = [
        designation(state, n, a, expand_targets(state, loc, a.targets, solo, withdrawing))
        for n, a in enumerate(c.attacks, start=1)
    ]
    mode = sequence_mode(state, loc, ds)
    ds = order(state, ds, mode, c.attacker)
    if mode == "simultaneous":
        return (yield from _simultaneous(state, ds, loc, rulings))
    return (yield from _sequential(state, ds, loc, mode, rulings))


def _designate(state: State, d: Designation, targets: tuple[str, ...], mode: str) -> Gen:
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


def _simultaneous(state: State, ds: list[Designation], loc: str, rulings: dict[str, str]) -> Gen:
    """A11.12: all attacks designated (ATTACKER first), then resolved, ATTACKER's first; units
    eliminated, Reduced or captured meanwhile still attack, at the odds designated."""
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
        state, made = yield from resolve_vs_personnel(
            state, snapshot, d, attackers, targets, loc, rulings
        )
        captures += made
    if rulings["capture-voided"] == "wiped-out-side":
        state = yield from cap.void_if_wiped_out(state, captures, loc)
    return state


def _sequential(
    state: State, ds: list[Designation], loc: str, mode: str, rulings: dict[str, str]
) -> Gen:
    """A11.3: attacks resolved one by one in the A11.31/A11.32 order; a unit eliminated before
    its attack forfeits it."""
    attacked_vehicles: set[str] = set()
    for d in ds:
        if d.by_vehicle:
            v = state.vehicles[d.attackers[0]]
            if v.status != "active":
                state = yield from _forfeit(state, d, f"{v.id} eliminated before its attack")
                continue
            attackers = d.attackers
        elif d.by_prisoners:
            attackers = tuple(
                a for a in d.attackers if is_prisoner(state, a) and state.units[a].location == loc
            )
            if not attackers:
                state = yield from _forfeit(state, d, "no prisoner left to attack")
                continue
        else:
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
            if not attackers:
                continue
        if d.by_vehicle and "sn" in d.weapons:
            v = state.vehicles[d.attackers[0]]
            if v.id not in attacked_vehicles and state.ambusher != v.side:
                state = yield from _forfeit(state, d, "sN only after being attacked (A11.622)")
                continue
            state = yield from _designate(state, d, tuple(u.id for u in units_in(state, loc)), mode)
            state = yield from close_defense(state, d, loc)
            continue
        if d.vs_vehicle:
            v = state.vehicles[d.targets[0]]
            if v.status != "active":
                state = yield from _forfeit(state, d, f"{v.id} already destroyed")
                continue
            state = yield from lose_by_attacking(state, attackers, state.ambusher)
            state = yield from _designate(state, d, d.targets, mode)
            attacked_vehicles.add(v.id)
            state = yield from resolve_vs_vehicle(state, d, attackers, loc, rulings)
            continue
        state, targets = yield from _targets_left(state, d, loc)
        if not targets:
            continue
        if not d.by_vehicle:
            state = yield from lose_by_attacking(state, attackers, state.ambusher)
        state = yield from _designate(state, d, targets, mode)
        fp = vehicle_fp(state.vehicles[attackers[0]], d.weapons) if d.by_vehicle else None
        state, _ = yield from resolve_vs_personnel(
            state, state, d, attackers, targets, loc, rulings, vehicle_fp=fp
        )
        if d.by_prisoners:
            state = yield from _release(state, attackers)
    return state


def _release(state: State, prisoners: tuple[str, ...]) -> Gen:
    """Ruling prisoner-attacks=captor-first: a prisoner whose guard is gone is released."""
    for p in prisoners:
        u = state.units[p]
        guard = state.units.get(u.guard or "")
        if is_prisoner(state, p) and (guard is None or guard.status != "active"):
            state = yield from emit(
                PrisonerReleased(rule="A20.55", unit=p, cause="its captor was eliminated"), State
            )
    return state


def street_fighters_return(state: State, loc: str) -> Gen:
    """A11.8: Street Fighters return to the building Location they came from after CC, unless
    broken or pinned (or held by Wire, comprehensive EX F4)."""
    if state.locations[loc].wire:
        return state
    for u in units_in(state, loc):
        if u.street_fighting_from is None or u.broken or u.pinned:
            continue
        state = yield from withdrawal.move_out(
            state, u.id, u.street_fighting_from, "street-fighting", "A11.8", loc
        )
    return state
