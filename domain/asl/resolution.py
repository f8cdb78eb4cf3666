"""Resolving one CC attack against Personnel (A11.11 to A11.141, A11.16, A11.19, A11.2,
A11.22, A20.22); also used for a vehicle's MG attack vs Infantry (A11.62), which forms its odds
against the defenders' CCV instead of their FP."""

from __future__ import annotations

from collections.abc import Generator
from fractions import Fraction
from typing import Any

from blowbyblow.domain.asl import capture as cap
from blowbyblow.domain.asl.casualty import casualty_reduce, drop_sws, eliminate, random_selection
from blowbyblow.domain.asl.cct import fmt, kill_number, odds_column, result_of
from blowbyblow.domain.asl.common import Designation, able_leaders, best_leader, leader_modifier
from blowbyblow.domain.asl.concealment import ambusher_attack_failed
from blowbyblow.domain.asl.events import (
    CCAttackRolled,
    CloseCombatResolved,
    OddsCalculated,
    PartialKill,
    TargetOutcome,
)
from blowbyblow.domain.asl.units import (
    State,
    UnitState,
    active,
    base_ccv,
    cc_fp,
    is_smc,
)
from blowbyblow.domain.asl.withdrawal import infiltration, withdrawal_modifier
from blowbyblow.domain.core import Modifier, Step, emit, roll

Gen = Generator[Step, Any, State]


def directing_leader(src: State, d: Designation) -> UnitState | None:
    """A11.141: one leader may direct (not when attacking alone); a pinned or broken leader
    cannot (A7.831). Default: the best modifier among the attackers."""
    units = [src.units[a] for a in d.attackers if a in src.units]
    if len(units) < 2:
        return None
    leaders = able_leaders(units)
    if d.leader is not None:
        leaders = [u for u in leaders if u.id == d.leader]
    return best_leader(leaders)


def attack_modifiers(src: State, d: Designation) -> list[Modifier]:
    """DRM that apply to the whole attack (A11.141 leader, A15.24 hero, A4.51 CX, A11.4 Ambush,
    A20.22 capture is per target, other DRM given with the command)."""
    mods = leader_modifier(directing_leader(src, d), "A11.141")
    attackers = [src.units[a] for a in d.attackers if a in src.units]
    for u in attackers:
        if u.kind == "hero":
            mods.append(Modifier(value=-1, cause=f"hero {u.id}", rule="A15.24"))
    if any(u.cx for u in attackers):
        mods.append(Modifier(value=1, cause="CX attacker", rule="A4.51"))
    riders = {r for v in src.vehicles.values() for r in v.riders}
    if any(u.id in riders for u in attackers):
        mods.append(Modifier(value=1, cause="Rider attacking", rule="A11.611"))
    if src.ambusher is not None and src.ambusher == d.side:
        mods.append(Modifier(value=-1, cause="Ambush", rule="A11.4"))
    for e in d.extra:
        mods.append(Modifier(value=e.value, cause=e.cause, rule=e.rule))
    return mods


def target_modifiers(
    state: State,
    src: State,
    d: Designation,
    target: UnitState,
    location: str,
    bypass: bool | None,
) -> list[Modifier]:
    """Per-target DRM: ``bypass`` is None for an Infantry attack, else whether the attacking
    vehicle is in Bypass (Street Fighting from the obstacle, A11.8)."""
    mods: list[Modifier] = []
    if target.broken:
        mods.append(Modifier(value=-2, cause="broken target", rule="A11.16"))
    w = withdrawal_modifier(state, target, location)
    if w is not None:
        mods.append(w)
    if target.cx:
        mods.append(Modifier(value=-1, cause="CX target", rule="A4.51"))
    if any(target.id in v.riders for v in src.vehicles.values()):
        mods.append(Modifier(value=-1, cause="Rider defending", rule="A11.611"))
    if src.ambusher is not None and src.ambusher == target.side:
        mods.append(Modifier(value=1, cause="target has Ambush status", rule="A11.4"))
    elif bypass is not None and (bypass or target.street_fighting_from is not None):
        mods.append(Modifier(value=1, cause="Street Fighting Ambush", rule="A11.8"))
    if d.capture:
        mods.append(cap.capture_modifier(target))
    return mods


def defender_ccv(src: State, targets: tuple[str, ...]) -> int:
    """A11.62/A11.5: a vehicle's attack is against the CCV of the Personnel it attacks; an SMC
    with its MMC adds one (the PzIVJ EX: 5-16 vs three squads and a leader), alone it is 2; a
    halving penalty (pinned) costs one (I5: pinned HS 3 - 1 = 2)."""
    total = 0
    for t in targets:
        u = src.units[t]
        if is_smc(u):
            if u.stacked_on in targets:
                total += 1
                continue
            total += max(0, 2 - (1 if u.pinned else 0))
            continue
        ccv = base_ccv(u) + (1 if u.assault_engineer else 0) - (1 if u.inexperienced else 0)
        total += max(0, ccv - (1 if u.pinned else 0))
    return total


def odds(
    src: State,
    d: Designation,
    attackers: tuple[str, ...],
    targets: tuple[str, ...],
    rulings: dict[str, str],
    vehicle_fp: int | None,
) -> tuple[OddsCalculated, int]:
    halvings: list[str] = []
    if vehicle_fp is not None:
        attack = Fraction(vehicle_fp)
        v = src.vehicles[attackers[0]]
        if v.motion:
            attack /= 2
            halvings.append(f"{v.id} in Motion (A11.62)")
        defense = Fraction(defender_ccv(src, targets))
    else:
        attack = Fraction(0)
        for a in attackers:
            u = src.units[a]
            fp = Fraction(cc_fp(u))
            if u.pinned:
                fp /= 2
                halvings.append(f"{a} pinned (A7.8)")
            attack += fp
        defense = Fraction(sum(cc_fp(src.units[t]) for t in targets))
    if any(src.units[t].concealed or src.units[t].hidden for t in targets):
        attack /= 2
        halvings.append("vs concealed unit (A11.19)")
    column, black = odds_column(attack, defense, rulings["odds-above-10"])
    hth = rulings["hand-to-hand"]
    red = vehicle_fp is None and (hth == "always" or (hth == "declared" and d.hth))
    event = OddsCalculated(
        rule="A11.62" if vehicle_fp is not None else "A11.11",
        attack=d.number,
        attack_fp=fmt(attack),
        defense_fp=fmt(defense),
        halvings=tuple(halvings),
        column=column,
        kill_number=kill_number(black, red),
        kn_color="red" if red else "black",
    )
    return event, black


def resolve_vs_personnel(
    state: State,
    src: State,
    d: Designation,
    attackers: tuple[str, ...],
    targets: tuple[str, ...],
    location: str,
    rulings: dict[str, str],
    vehicle_fp: int | None = None,
) -> Generator[Step, Any, tuple[State, list[cap.Capture]]]:
    """One attack: odds, the CC DR (colored + white), each target's Final DR, the results."""
    odds_event, black = odds(src, d, attackers, targets, rulings, vehicle_fp)
    state = yield from emit(odds_event, State)
    kn = odds_event.kill_number
    colored, white = yield from roll(
        f"cc/{d.number}", n=2, purpose=f"CC DR of attack {d.number} (colored, white)"
    )
    original = colored + white
    state = yield from emit(
        CCAttackRolled(
            rule=odds_event.rule, attack=d.number, colored=colored, white=white, original=original
        ),
        State,
    )
    common = attack_modifiers(src, d)
    bypass = src.vehicles[attackers[0]].bypass if vehicle_fp is not None else None
    outcomes: list[TargetOutcome] = []
    for t in targets:
        target = state.units[t]
        mods = (*common, *target_modifiers(state, src, d, target, location, bypass))
        final = original + sum(m.value for m in mods)
        result = result_of(final, kn)
        if d.capture:
            result = {"eliminated": "captured", "partial": "partial-capture"}.get(result, result)
        outcomes.append(TargetOutcome(unit=t, modifiers=mods, final_dr=final, result=result))
    state = yield from emit(
        CloseCombatResolved(
            rule=odds_event.rule,
            attack=d.number,
            side=d.side,
            column=odds_event.column,
            kill_number=kn,
            original=original,
            outcomes=tuple(outcomes),
        ),
        State,
    )
    sw_ruling = rulings["sw-loss-dr"]
    key = f"cc/{d.number}"
    captures: list[cap.Capture] = []
    if d.capture:
        guard = cap.guard_for(state, attackers, location)
        taken = [o.unit for o in outcomes if o.result == "captured"]
        state, made = yield from cap.capture_all(state, taken, guard)
        captures += made
        partial = [o.unit for o in outcomes if o.result == "partial-capture"]
        if partial:
            state, made = yield from cap.capture_one(state, partial, guard, d.number)
            captures += made
        for c in captures:
            if c.restored is None:
                u = state.units[c.prisoner]
                state = yield from drop_sws(
                    state, u.id, u.sws, location, None, black, key, sw_ruling
                )
    else:
        for o in outcomes:
            if o.result == "eliminated":
                state = yield from eliminate(
                    state,
                    o.unit,
                    f"CC attack {d.number}",
                    odds_event.rule,
                    colored,
                    black,
                    key,
                    sw_ruling,
                )
        eligible = tuple(o.unit for o in outcomes if o.result == "partial")
        if eligible:
            state = yield from emit(
                PartialKill(rule="A11.11", attack=d.number, kill_number=kn, eligible=eligible),
                State,
            )
            state, chosen = yield from random_selection(
                state, f"rs/{d.number}", eligible, f"Partial Kill of attack {d.number}"
            )
            for uid in chosen:
                state = yield from casualty_reduce(
                    state, uid, f"Partial Kill, attack {d.number}", key, colored, black, sw_ruling
                )
    if state.ambusher == d.side and vehicle_fp is None:
        cleared = all(o.result in ("eliminated", "captured") for o in outcomes)
        state = yield from ambusher_attack_failed(state, attackers, cleared)
    # A11.22 Infiltration: Original 2 for the attacker, Original 12 for the attacked units.
    if original == 2 and vehicle_fp is None:
        state = yield from infiltration(state, attackers, original, d.number, location)
    elif original == 12:
        state = yield from infiltration(state, targets, original, d.number, location)
    return state, captures


def still_here(state: State, unit_id: str, location: str) -> bool:
    u = state.units.get(unit_id)
    return u is not None and active(u) and u.guard is None and u.location == location
