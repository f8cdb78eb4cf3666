"""A11.4 Ambush: when Infantry advance into CC (not reinforcing a Melee) in a woods/building
Location or with/against a concealed unit, both players make an Ambush status dr before
designation; the side whose Final dr is at least three less Ambushes the other (ruling
ambush-threshold). Its attacks get -1, attacks on it +1, until Melee; it resolves all of its
attacks first (A11.32) and may withdraw (A11.41); the ambushed side loses all concealment."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from blowbyblow.domain.asl.context import CCContext
from blowbyblow.domain.asl.events import (
    AmbushDeclared,
    AmbushRoll,
    AmbushStatusRolled,
    ConcealmentLost,
)
from blowbyblow.domain.asl.leadership import able_leaders, best_leader, leader_modifier
from blowbyblow.domain.asl.rulings import (
    AMBUSH_CONCEALED_DRM,
    AMBUSH_DRM_COUNT,
    AMBUSH_THRESHOLD,
    AMBUSH_VEHICLE_SIDE,
)
from blowbyblow.domain.asl.state import State, aboard, other_side, units_in, vehicles_in
from blowbyblow.domain.core import Modifier, Step, emit, roll

AMBUSH_TERRAIN = ("woods", "building")


def ambush_possible(state: State, ctx: CCContext, override: bool | None) -> bool:
    """A11.4: both sides take part (ruling ambush-vehicle-side: a side of vehicles alone too),
    one with Infantry; then the command's word if it gives one; otherwise Infantry advanced
    into CC (how units arrived, when the battle records it; else the Location's units are taken
    as having advanced into CC), not reinforcing a Melee, in woods/building or with/against a
    concealed unit."""
    location = ctx.location
    if not _both_sides(state, location, ctx.ruling(AMBUSH_VEHICLE_SIDE) == "takes-part"):
        return False
    if override is not None:
        return override
    came = [a for a in state.arrivals.values() if a.location == location]
    if came:
        if not any(a.how == "advanced" and not a.reinforcing for a in came):
            return False  # nobody advanced into CC here, or they reinforced a Melee
    elif location in state.melee:
        return False  # reinforcing a Melee
    if state.locations[location].terrain in AMBUSH_TERRAIN:
        return True
    return any(u.concealed or u.hidden for u in units_in(state, location))


def _both_sides(state: State, location: str, vehicles_count: bool) -> bool:
    """Units of both sides in ``location``: Personnel only (version 1.0), or Personnel and
    vehicles with Infantry (not PRC) on at least one side."""
    personnel = units_in(state, location)
    if not vehicles_count:
        return len({u.side for u in personnel}) >= 2
    on_board = aboard(state)
    infantry = [u for u in personnel if u.id not in on_board]
    sides = {u.side for u in personnel} | {v.side for v in vehicles_in(state, location)}
    return len(sides) >= 2 and bool(infantry)


def ambush_drms(
    state: State, location: str, side: str, concealed_drm: int, per_unit: bool = False
) -> tuple[Modifier, ...]:
    """The A11.4 drm table; each cause counts once if any part of the force qualifies (BU and
    Stunned AFV: each)."""
    rule = "A11.4"
    units = units_in(state, location, side)
    vehicles = vehicles_in(state, location, side)
    mods: list[Modifier] = []
    # "+2 Cavalry, Vehicle, or in Pillbox": one row, no "(each)": +2 once for any of them
    big: tuple[tuple[str, bool], ...] = (
        ("Vehicle", bool(vehicles)),
        ("Cavalry", any(u.cavalry for u in units)),
        ("in Pillbox", any(u.in_pillbox for u in units)),
    )
    first = next((cause for cause, on in big if on), None)
    if first is not None:
        mods.append(Modifier(value=2, cause=first, rule=rule))
    for v in vehicles:
        if v.afv and not v.ce:
            mods.append(Modifier(value=1, cause=f"BU AFV {v.id}", rule=rule))
        if v.afv and v.stunned:
            mods.append(Modifier(value=1, cause=f"Stunned AFV {v.id}", rule=rule))
    flags: tuple[tuple[str, list[bool]], ...] = (
        ("CX", [u.cx for u in units]),
        ("Lax", [u.lax or u.inexperienced for u in units]),
        ("broken", [u.broken for u in units]),
        ("pinned", [u.pinned for u in units]),
        ("berserk", [u.berserk for u in units]),
    )
    for cause, qualifies in flags:
        count = sum(qualifies) if per_unit else min(1, sum(qualifies))
        if count:
            r = "A11.18" if cause == "Lax" else rule
            mods.append(Modifier(value=count, cause=cause, rule=r))
    if any(u.stealthy or u.kind == "hero" for u in units):
        mods.append(Modifier(value=-1, cause="Stealthy", rule="A11.17"))
    if concealed_drm and any(u.concealed or u.hidden for u in units):
        mods.append(Modifier(value=concealed_drm, cause="Concealed", rule=rule))
    if len(units) + len(vehicles) > 1:
        mods += leader_modifier(best_leader(able_leaders(units)), "A11.4/A10.7")
    return tuple(mods)


def ambushes(mine: int, theirs: int, threshold: str) -> bool:
    """Ruling ambush-threshold: at-least-3 (mine <= theirs - 3) or more-than-3."""
    return mine <= theirs - 3 if threshold == "at-least-3" else mine < theirs - 3


def ambush_step(state: State, ctx: CCContext) -> Generator[Step, Any, State]:
    """Both players' Ambush status drs (ATTACKER first), the Ambush and its loss of concealment."""
    threshold = ctx.ruling(AMBUSH_THRESHOLD)
    concealed_drm = int(ctx.ruling(AMBUSH_CONCEALED_DRM))
    per_unit = ctx.ruling(AMBUSH_DRM_COUNT) == "per-unit"
    rolls: list[AmbushRoll] = []
    for side in (ctx.attacker, other_side(state, ctx.attacker)):
        (dr,) = yield from roll(f"ambush/{side}", purpose=f"Ambush status dr, {side}")
        mods = ambush_drms(state, ctx.location, side, concealed_drm, per_unit)
        rolls.append(
            AmbushRoll(
                side=side, original=dr, modifiers=mods, final=dr + sum(m.value for m in mods)
            )
        )
    a, d = rolls
    ambusher: str | None = None
    if ambushes(a.final, d.final, threshold):
        ambusher, ambushed_roll, ambusher_roll = a.side, d, a
    elif ambushes(d.final, a.final, threshold):
        ambusher, ambushed_roll, ambusher_roll = d.side, a, d
    state = yield from emit(
        AmbushStatusRolled(
            rule="A11.4", rolls=tuple(rolls), threshold=threshold, ambusher=ambusher
        ),
        State,
    )
    if ambusher is None:
        return state
    state = yield from emit(
        AmbushDeclared(
            rule="A11.4",
            ambusher=ambusher,
            ambushed=ambushed_roll.side,
            ambusher_final=ambusher_roll.final,
            ambushed_final=ambushed_roll.final,
        ),
        State,
    )
    for u in units_in(state, ctx.location, ambushed_roll.side):
        if u.concealed or u.hidden:
            state = yield from emit(
                ConcealmentLost(rule="A11.4", unit=u.id, cause="Ambushed"), State
            )
    return state
