"""Resolving one CC attack against Personnel (A11.11 to A11.141, A11.16, A11.19, A11.2,
A11.22, A20.22); also used for a vehicle's MG attack vs Infantry (A11.62), which forms its odds
against the defenders' CCV instead of their FP."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from blowbyblow.domain.asl import capture as cap
from blowbyblow.domain.asl.casualty import (
    CCDr,
    casualty_reduce,
    drop_sws,
    eliminate,
    random_selection,
)
from blowbyblow.domain.asl.cct import fmt, kill_number, odds_column, result_of
from blowbyblow.domain.asl.concealment import ambusher_attack_failed
from blowbyblow.domain.asl.context import CCContext
from blowbyblow.domain.asl.designation import Designation
from blowbyblow.domain.asl.events import (
    CCAttackRolled,
    CCResult,
    CloseCombatResolved,
    OddsCalculated,
    PartialKill,
    TargetOutcome,
    UnitEliminated,
)
from blowbyblow.domain.asl.leadership import (
    best_leader,
    choose_director,
    directing_candidates,
    leader_modifier,
)
from blowbyblow.domain.asl.rulings import (
    HAND_TO_HAND,
    INFILTRATION_ON_12,
    LEADER_CHOICE,
    LEADER_DIRECTION,
    ODDS_ABOVE_TEN,
    PINNED_LEADER_DIRECTS,
)
from blowbyblow.domain.asl.setup import base_ccv, cc_fp, is_mmc, is_smc
from blowbyblow.domain.asl.state import State, UnitState, capturable_passenger, units_in
from blowbyblow.domain.asl.withdrawal import infiltration, withdrawal_modifier
from blowbyblow.domain.core import Context, Modifier, Step, emit, roll

Gen = Generator[Step, Any, State]
Resolved = Generator[Step, Any, tuple[State, list[cap.Capture]]]

CAPTURE_RESULTS: dict[CCResult, CCResult] = {
    "eliminated": "captured",
    "partial": "partial-capture",
}


@dataclass(frozen=True)
class Blow:
    """One CC attack being resolved: its designation, the attackers and targets still in it,
    ``src`` the state its odds and DRM are taken from (in simultaneous CC the designation moment,
    A11.12) and, for a vehicle's MG attack, its FP (A11.62)."""

    d: Designation
    attackers: tuple[str, ...]
    targets: tuple[str, ...]
    src: State
    vehicle_fp: Fraction | None = None

    @property
    def key(self) -> str:
        return f"cc/{self.d.number}"


@dataclass(frozen=True)
class Rolled:
    """The CC DR of a blow: its odds, the colored and white dice, each target's outcome."""

    odds: OddsCalculated
    black: int
    colored: int
    original: int
    outcomes: tuple[TargetOutcome, ...]


def directing_leaders(src: State, d: Designation, ctx: Context) -> list[UnitState]:
    """A11.141: the leaders who may direct the attack of the MMC they defend with (ruling
    leader-direction; not-alone: any attack but his own alone); a pinned or broken leader
    cannot (A7.831); the one the command names, if it names one."""
    units = [src.units[a] for a in d.attackers if a in src.units]
    if len(units) < 2:
        return []
    if ctx.ruling(LEADER_DIRECTION) == "with-its-mmc" and not any(is_mmc(u) for u in units):
        return []
    leaders = directing_candidates(units, ctx.ruling(PINNED_LEADER_DIRECTS) == "yes")
    if d.leader is not None:
        leaders = [u for u in leaders if u.id == d.leader]
    return leaders


def directing_leader(
    src: State, d: Designation, ctx: Context
) -> Generator[Step, Any, UnitState | None]:
    """A11.141 "may direct": the best modifier among the leaders who may, unless the owner
    answers otherwise (ruling leader-choice; not asked when the command names the leader)."""
    leaders = directing_leaders(src, d, ctx)
    asked = ctx.ruling(LEADER_CHOICE) == "asked" and d.leader is None
    return (yield from choose_director(leaders, best_leader(leaders), f"direct/{d.number}", asked))


def attack_modifiers(src: State, d: Designation, leader: UnitState | None) -> list[Modifier]:
    """DRM that apply to the whole attack (A11.141 the directing ``leader``, A15.24 hero, A4.51
    CX, A11.611 Rider, A11.4 Ambush, other DRM given with the command); A20.22 capture is per
    target."""
    mods = leader_modifier(leader, "A11.141")
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
    if attackers and all(capturable_passenger(src, u.id) for u in attackers):
        mods.append(Modifier(value=2, cause="Passengers attacking", rule="A11.52"))
    for e in d.extra:
        mods.append(Modifier(value=e.value, cause=e.cause, rule=e.rule))
    return mods


def target_modifiers(state: State, ctx: CCContext, blow: Blow, target: UnitState) -> list[Modifier]:
    """Per-target DRM (A11.16 broken, A11.2 withdrawing, A4.51 CX, A11.611 Rider, A11.4 Ambush
    or, for a vehicle's attack, A11.8 Street Fighting Ambush, A20.22 capture)."""
    src, d = blow.src, blow.d
    mods: list[Modifier] = []
    if target.broken:
        mods.append(Modifier(value=-2, cause="broken target", rule="A11.16"))
    w = withdrawal_modifier(state, target, ctx.location)
    if w is not None:
        mods.append(w)
    if target.cx:
        mods.append(Modifier(value=-1, cause="CX target", rule="A4.51"))
    if any(target.id in v.riders for v in src.vehicles.values()):
        mods.append(Modifier(value=-1, cause="Rider defending", rule="A11.611"))
    if src.ambusher is not None and src.ambusher == target.side:
        mods.append(Modifier(value=1, cause="target has Ambush status", rule="A11.4"))
    elif _street_fighting(blow, target):
        mods.append(Modifier(value=1, cause="Street Fighting Ambush", rule="A11.8"))
    if d.capture and capturable_passenger(src, target.id):
        mods.append(Modifier(value=-2, cause="capturing Passengers", rule="A11.52"))
    if d.capture:
        mods.append(cap.capture_modifier(target))
    return mods


def _street_fighting(blow: Blow, target: UnitState) -> bool:
    """A11.8: a vehicle's attack on a Street Fighter, or from Bypass (the obstacle)."""
    if blow.vehicle_fp is None:
        return False
    return blow.src.vehicles[blow.attackers[0]].bypass or target.street_fighting_from is not None


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


def _strengths(blow: Blow) -> tuple[Fraction, Fraction, list[str]]:
    """Attack and defense strength and the halvings applied: FP vs FP (A11.11, pinned A7.8), or
    a vehicle's FP (halved in Motion) vs the defenders' CCV (A11.62); vs a concealed unit the
    attack is halved (A11.19)."""
    src = blow.src
    halvings: list[str] = []
    if blow.vehicle_fp is not None:
        attack = Fraction(blow.vehicle_fp)
        v = src.vehicles[blow.attackers[0]]
        if v.motion:
            attack /= 2
            halvings.append(f"{v.id} in Motion (A11.62)")
        defense = Fraction(defender_ccv(src, blow.targets))
    else:
        whole = halved = 0  # the attackers' FP, the pinned ones' to be halved (A7.8)
        for a in blow.attackers:
            u = src.units[a]
            if u.pinned:
                halved += cc_fp(u)
                halvings.append(f"{a} pinned (A7.8)")
            else:
                whole += cc_fp(u)
        attack = Fraction(2 * whole + halved, 2)
        defense = Fraction(sum(cc_fp(src.units[t]) for t in blow.targets))
    if any(src.units[t].concealed or src.units[t].hidden for t in blow.targets):
        attack /= 2
        halvings.append("vs concealed unit (A11.19)")
    return attack, defense, halvings


def odds(blow: Blow, ctx: CCContext) -> tuple[OddsCalculated, int]:
    """A11.11: the CCT column and the Kill Number (red in Hand-to-Hand CC, ruling hand-to-hand);
    the black KN is returned too (A11.13 judges SW loss by it)."""
    attack, defense, halvings = _strengths(blow)
    column, black = odds_column(attack, defense, ctx.ruling(ODDS_ABOVE_TEN))
    hth = ctx.ruling(HAND_TO_HAND)
    red = blow.vehicle_fp is None and (hth == "always" or (hth == "declared" and blow.d.hth))
    event = OddsCalculated(
        rule="A11.62" if blow.vehicle_fp is not None else "A11.11",
        attack=blow.d.number,
        attack_fp=fmt(attack),
        defense_fp=fmt(defense),
        halvings=tuple(halvings),
        column=column,
        kill_number=kill_number(black, red),
        kn_color="red" if red else "black",
    )
    return event, black


def resolve_vs_personnel(state: State, ctx: CCContext, blow: Blow) -> Resolved:
    """One attack: odds, the CC DR (colored + white), each target's Final DR, the results, then
    the Ambusher's concealment (A11.4) and Infiltration (A11.22)."""
    state, rolled = yield from _roll(state, ctx, blow)
    captures: list[cap.Capture] = []
    if blow.d.capture:
        state, captures = yield from _captures(state, ctx, blow, rolled)
    else:
        state = yield from _kills(state, ctx, blow, rolled)
    d = blow.d
    if state.ambusher == d.side and blow.vehicle_fp is None:
        cleared = all(o.result in ("eliminated", "captured") for o in rolled.outcomes)
        state = yield from ambusher_attack_failed(state, blow.attackers, cleared)
    # A11.22 Infiltration: Original 2 for the attacker, Original 12 for the attacked units.
    if rolled.original == 2 and blow.vehicle_fp is None:
        state = yield from infiltration(state, blow.attackers, rolled.original, d.number, ctx)
    elif rolled.original == 12:
        state = yield from infiltration(
            state, _infiltrating(state, ctx, blow), rolled.original, d.number, ctx
        )
    return state, captures


def _infiltrating(state: State, ctx: CCContext, blow: Blow) -> tuple[str, ...]:
    """Who may withdraw after an Original 12 (ruling infiltration-on-12): the units attacked, or
    every unit of their side in the Location (the K4 example's "either or both squads")."""
    if ctx.ruling(INFILTRATION_ON_12) == "attacked-units" or not blow.targets:
        return blow.targets
    side = state.units[blow.targets[0]].side
    rest = tuple(u.id for u in units_in(state, ctx.location, side) if u.id not in blow.targets)
    return (*blow.targets, *rest)


def _roll(state: State, ctx: CCContext, blow: Blow) -> Generator[Step, Any, tuple[State, Rolled]]:
    """A11.11: the odds, the CC DR, each target's DRM and Final DR against the Kill Number."""
    d = blow.d
    leader = yield from directing_leader(blow.src, d, ctx)
    odds_event, black = odds(blow, ctx)
    state = yield from emit(odds_event, State)
    kn = odds_event.kill_number
    colored, white = yield from roll(
        blow.key, n=2, purpose=f"CC DR of attack {d.number} (colored, white)"
    )
    original = colored + white
    state = yield from emit(
        CCAttackRolled(
            rule=odds_event.rule, attack=d.number, colored=colored, white=white, original=original
        ),
        State,
    )
    common = attack_modifiers(blow.src, d, leader)
    outcomes: list[TargetOutcome] = []
    for t in blow.targets:
        mods = (*common, *target_modifiers(state, ctx, blow, state.units[t]))
        final = original + sum(m.value for m in mods)
        result: CCResult = result_of(final, kn)
        if d.capture:
            result = CAPTURE_RESULTS.get(result, result)
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
    rolled = Rolled(
        odds=odds_event, black=black, colored=colored, original=original, outcomes=tuple(outcomes)
    )
    return state, rolled


def _captures(state: State, ctx: CCContext, blow: Blow, rolled: Rolled) -> Resolved:
    """A20.22: Final DR < KN captures every defender, = KN one of the defender's choice; A20.24:
    the captured units' SW stay behind."""
    guard = cap.guard_for(state, blow.attackers, ctx.location)
    taken = [o.unit for o in rolled.outcomes if o.result == "captured"]
    state, captures = yield from cap.capture_all(state, taken, guard)
    partial = [o.unit for o in rolled.outcomes if o.result == "partial-capture"]
    if partial:
        state, made = yield from cap.capture_one(state, partial, guard, blow.d.number)
        captures += made
    dr = CCDr(key=blow.key, colored=None, black_kn=rolled.black)
    for c in captures:
        if c.restored is None:
            state = yield from drop_sws(state, ctx, state.units[c.prisoner], ctx.location, dr)
    return state, captures


def _kills(state: State, ctx: CCContext, blow: Blow, rolled: Rolled) -> Gen:
    """A11.11: Final DR < KN eliminates (A11.13 for its SW), = KN is a Partial Kill: Casualty
    Reduction by Random Selection (A.9)."""
    d = blow.d
    dr = CCDr(key=blow.key, colored=rolled.colored, black_kn=rolled.black)
    for o in rolled.outcomes:
        if o.result == "eliminated":
            elimination = UnitEliminated(
                rule=rolled.odds.rule, unit=o.unit, cause=f"CC attack {d.number}"
            )
            state = yield from eliminate(state, ctx, elimination, dr)
    eligible = tuple(o.unit for o in rolled.outcomes if o.result == "partial")
    if not eligible:
        return state
    state = yield from emit(
        PartialKill(
            rule="A11.11", attack=d.number, kill_number=rolled.odds.kill_number, eligible=eligible
        ),
        State,
    )
    state, chosen = yield from random_selection(
        state, f"rs/{d.number}", eligible, f"Partial Kill of attack {d.number}"
    )
    for uid in chosen:
        state = yield from casualty_reduce(state, ctx, uid, f"Partial Kill, attack {d.number}", dr)
    return state
