"""CC vs a vehicle (A11.5, A11.501, A11.51, A11.6 to A11.622, A11.8) and a vehicle's CC
attacks vs Infantry (A11.62, A11.622).

Infantry attack a vehicle with the Close Combat Value of the attackers as the Basic Kill Number:
Final DR < CCV eliminates it (a burning wreck if the DR is <= half the CCV, ruling burn-dr),
= CCV immobilizes it. At most two units combine, one of them an SMC adding +1."""

from __future__ import annotations

from collections.abc import Generator
from fractions import Fraction
from typing import Any, NamedTuple

from blowbyblow.domain.asl.casualty import CCDr, casualty_reduce, random_selection
from blowbyblow.domain.asl.commands import CloseCombat, Weapon
from blowbyblow.domain.asl.context import CCContext
from blowbyblow.domain.asl.designation import Designation
from blowbyblow.domain.asl.events import (
    ATMMChecked,
    ATMMResult,
    CCVCalculated,
    CloseDefenseWeaponFired,
    PAATCTaken,
    UnitEliminated,
    UnitStatusChanged,
    UnlikelyKillRolled,
    VehicleCCResolved,
    VehicleEliminated,
    VehicleImmobilized,
    VehicleResult,
)
from blowbyblow.domain.asl.leadership import (
    best_leader,
    choose_director,
    directing_candidates,
    leader_modifier,
)
from blowbyblow.domain.asl.rulings import (
    BURN_DR,
    LEADER_CHOICE,
    PASSENGERS_INSIDE,
    PINNED_LEADER_DIRECTS,
)
from blowbyblow.domain.asl.setup import base_ccv, cc_fp, is_smc
from blowbyblow.domain.asl.state import (
    State,
    UnitState,
    VehicleState,
    enclosed,
    units_in,
    vehicles_in,
)
from blowbyblow.domain.asl.withdrawal import infiltration
from blowbyblow.domain.core import Context, Modifier, RuleViolation, Step, ask, emit, roll

Gen = Generator[Step, Any, State]

RESULT_ORDER: tuple[VehicleResult, ...] = ("none", "immobilized", "eliminated", "burning")
UNLIKELY: dict[int, VehicleResult] = {1: "burning", 2: "eliminated", 3: "immobilized"}
ATMM_DRM = -3


def ccv(units: list[UnitState]) -> tuple[int, int, tuple[Modifier, ...]]:
    """A11.5: squad 5, crew 4, HS 3, SMC 2; +1 Assault Engineer, -1 Inexperienced, +1 for an
    SMC combining, -1 per halving penalty (pinned)."""
    main = next((u for u in units if not is_smc(u)), units[0])
    base = base_ccv(main)
    adj: list[Modifier] = []
    if main.assault_engineer:
        adj.append(Modifier(value=1, cause="Assault Engineer", rule="A11.5"))
    if main.inexperienced:
        adj.append(Modifier(value=-1, cause="Inexperienced", rule="A11.5"))
    if any(is_smc(u) and u is not main for u in units):
        adj.append(Modifier(value=1, cause="SMC combining", rule="A11.5"))
    if main.pinned:
        adj.append(Modifier(value=-1, cause="pinned (halving penalty)", rule="A11.5"))
    return base, base + sum(m.value for m in adj), tuple(adj)


def vehicle_director(
    ctx: CCContext, d: Designation, attackers: list[UnitState]
) -> Generator[Step, Any, UnitState | None]:
    """A11.51: "A leadership DRM applies to CC vs a vehicle only when that leader is combining
    with another unit in that attack"; he may direct it (A11.141, ruling leader-choice)."""
    pinned_may = ctx.ruling(PINNED_LEADER_DIRECTS) == "yes"
    leaders = directing_candidates(attackers, pinned_may) if len(attackers) > 1 else []
    first = leaders[0] if leaders else None
    asked = ctx.ruling(LEADER_CHOICE) == "asked"
    return (yield from choose_director(leaders, first, f"direct/{d.number}", asked))


def escorts(state: State, ctx: Context, v: VehicleState, location: str) -> list[UnitState]:
    """A11.51: the vehicle's side's Personnel in the Location that count as its escort: not
    broken, pinned, withdrawing or an SMC, and (ruling passengers-inside) not BU inside an
    armored vehicle as a Passenger."""
    inside = ctx.ruling(PASSENGERS_INSIDE) == "inside"
    return [
        u
        for u in units_in(state, location, v.side)
        if not (u.broken or u.pinned or u.id in state.withdrawing or is_smc(u))
        and not (inside and enclosed(state, u.id))
    ]


def _target_drms(state: State, ctx: CCContext, v: VehicleState) -> list[Modifier]:
    """A11.51 and A11.61: the vehicle's armour, MG, escort, Motion, exposure and mobility."""
    mods: list[Modifier] = []
    if not v.armored:
        mods.append(Modifier(value=-3, cause="unarmored vehicle", rule="A11.51"))
    has_mg = v.crewed and not v.abandoned and (v.cmg or v.aamg or v.rmg or v.bmg)
    if not has_mg:
        mods.append(Modifier(value=-1, cause="no manned MG", rule="A11.51"))
    for u in escorts(state, ctx, v, ctx.location):
        value = 2 if u.kind == "squad" else 1
        mods.append(Modifier(value=value, cause=f"escorting {u.id}", rule="A11.51"))
    if v.motion:
        mods.append(Modifier(value=2, cause="Motion/non-stopped vehicle", rule="A11.51"))
    if v.afv and v.armored and v.open_topped:
        mods.append(Modifier(value=-2, cause="OT/partially armored AFV", rule="A11.61"))
    elif v.afv and v.ce:
        mods.append(Modifier(value=-1, cause="CE AFV", rule="A11.61"))
    if v.afv and not v.mobile:
        mods.append(Modifier(value=-1, cause="Immobile AFV", rule="A11.61"))
    return mods


def _attacker_drms(
    state: State,
    d: Designation,
    v: VehicleState,
    attackers: list[UnitState],
    leader: UnitState | None,
) -> list[Modifier]:
    """Leadership (A11.51), heroes (A15.24), Ambush (A11.4) or Street Fighting (A11.8), CX
    (A4.51) and DRM given with the command."""
    mods: list[Modifier] = list(leader_modifier(leader, "A11.51"))
    for u in attackers:
        if u.kind == "hero":
            mods.append(Modifier(value=-1, cause=f"hero {u.id}", rule="A15.24"))
    if state.ambusher == d.side:
        mods.append(Modifier(value=-1, cause="Ambush", rule="A11.4"))
    elif state.ambusher == v.side:
        mods.append(Modifier(value=1, cause="target has Ambush status", rule="A11.4"))
    elif state.ambusher is None and (
        v.bypass or any(u.street_fighting_from is not None for u in attackers)
    ):
        mods.append(Modifier(value=-1, cause="Street Fighting Ambush", rule="A11.8"))
    if any(u.cx for u in attackers):
        mods.append(Modifier(value=1, cause="CX attacker", rule="A4.51"))
    for e in d.extra:
        mods.append(Modifier(value=e.value, cause=e.cause, rule=e.rule))
    return mods


def atmm_check(state: State, d: Designation) -> Generator[Step, Any, tuple[State, Modifier | None]]:
    """Ruling atmm-check: Final dr <= 3 gives -3; an Original 6 pins the unit."""
    assert d.atmm is not None
    unit = state.units[d.atmm]
    (dr,) = yield from roll(f"atmm/{d.number}", purpose=f"ATMM check dr of {unit.id}")
    mods = (
        (Modifier(value=2, cause="leader checking", rule="C13.7"),) if unit.kind == "leader" else ()
    )
    final = dr + sum(m.value for m in mods)
    result: ATMMResult = "pinned" if dr == 6 else "atmm" if final <= 3 else "none"
    state = yield from emit(
        ATMMChecked(
            rule="C13.7",
            attack=d.number,
            unit=unit.id,
            original=dr,
            modifiers=mods,
            final=final,
            result=result,
        ),
        State,
    )
    if result == "pinned":
        state = yield from emit(
            UnitStatusChanged(
                rule="C13.7", unit=unit.id, broken=unit.broken, pinned=True, cause="ATMM check 6"
            ),
            State,
        )
    if result == "atmm":
        return state, Modifier(value=ATMM_DRM, cause="ATMM", rule="C13.7")
    return state, None


class VehicleCC(NamedTuple):
    """What differs between a CC attack on a vehicle in the CCPh (A11.5) and one made as
    Reaction Fire (A11.8)."""

    rule: str = "A11.5"  # the rule its result is recorded under
    purpose: str = "CC DR of attack {number} vs {vehicle} (colored, white)"
    extra: tuple[Modifier, ...] = ()  # DRMs beside A11.5's (A11.8: a non-stopped vehicle)
    infiltrate: bool = True  # A11.22 Infiltration after an Original 2: of the CCPh only


IN_THE_CCPH = VehicleCC()


def resolve_vs_vehicle(
    state: State,
    ctx: CCContext,
    d: Designation,
    attackers: tuple[str, ...],
    how: VehicleCC = IN_THE_CCPH,
) -> Gen:
    """A11.5: an Infantry attack vs a vehicle: the ATMM check (C13.7), the attackers' CCV, the CC
    DR and its result, the Unlikely Kill (A11.501), the vehicle's fate and its PRC (A11.611),
    Crew Small Arms (A11.621), Infiltration (A11.22) when ``how`` says so."""
    v = state.vehicles[d.targets[0]]
    atmm: Modifier | None = None
    if d.atmm is not None:
        state, atmm = yield from atmm_check(state, d)
    units = [state.units[a] for a in attackers]
    base, value, adj = ccv(units)
    state = yield from emit(
        CCVCalculated(
            rule="A11.5", attack=d.number, vehicle=v.id, base=base, adjustments=adj, ccv=value
        ),
        State,
    )
    leader = yield from vehicle_director(ctx, d, units)
    # A11.51, A11.61, A11.8, A11.4 (Ambush), A15.24 (hero), the directing leader's DRM: the
    # DRM the vehicle brings, then those of its attackers.
    mods = [
        *_target_drms(state, ctx, v),
        *_attacker_drms(state, d, v, units, leader),
        *how.extra,
    ]
    if atmm is not None:
        mods.append(atmm)
    colored, white = yield from roll(
        f"cc/{d.number}", n=2, purpose=how.purpose.format(number=d.number, vehicle=v.id)
    )
    original = colored + white
    final = original + sum(m.value for m in mods)
    burn_dr = original if ctx.ruling(BURN_DR) == "original" else final
    result = vehicle_result(final, value, burn_dr)
    state = yield from emit(
        VehicleCCResolved(
            rule=how.rule,
            attack=d.number,
            vehicle=v.id,
            ccv=value,
            original=original,
            modifiers=tuple(mods),
            final_dr=final,
            result=result,
        ),
        State,
    )
    if original == 2:
        state, result = yield from unlikely_kill(state, d, result)
    state = yield from vehicle_fate(state, v, result)
    if original == 12 and v.crewed and not v.abandoned and not v.shocked and not v.stunned:
        state = yield from crew_small_arms(state, ctx, d, attackers, colored)
    if original == 2 and how.infiltrate:
        state = yield from infiltration(state, attackers, original, d.number, ctx)
    return state


def vehicle_result(final: int, ccv_value: int, burn_dr: int) -> VehicleResult:
    """A11.5: Final DR < CCV eliminates (burning if ``burn_dr`` <= half the CCV), = CCV
    immobilizes, > CCV has no effect."""
    if final < ccv_value:
        return "burning" if 2 * burn_dr <= ccv_value else "eliminated"
    if final == ccv_value:
        return "immobilized"
    return "none"


def unlikely_kill(
    state: State, d: Designation, result: VehicleResult
) -> Generator[Step, Any, tuple[State, VehicleResult]]:
    """A11.501: after an Original 2, a third die; the better of its result and the DR's."""
    (dr,) = yield from roll(f"unlikely/{d.number}", purpose="Unlikely Kill dr")
    extra = UNLIKELY.get(dr, "none")
    better = max(result, extra, key=RESULT_ORDER.index)
    state = yield from emit(
        UnlikelyKillRolled(rule="A11.501", attack=d.number, dr=dr, result=better), State
    )
    return state, better


def vehicle_fate(state: State, v: VehicleState, result: VehicleResult) -> Gen:
    """A11.5 Immobilized or eliminated (burning); A11.611: its PRC are eliminated with it."""
    if result == "immobilized":
        state = yield from emit(VehicleImmobilized(rule="A11.5", vehicle=v.id), State)
    elif result in ("eliminated", "burning"):
        state = yield from emit(
            VehicleEliminated(rule="A11.5", vehicle=v.id, burning=result == "burning"), State
        )
        for p in [*v.passengers, *v.riders]:
            if p in state.units and state.units[p].status == "active":
                state = yield from emit(
                    UnitEliminated(rule="A11.611", unit=p, cause=f"PRC of {v.id} destroyed"), State
                )
    return state


def crew_small_arms(
    state: State, ctx: CCContext, d: Designation, attackers: tuple[str, ...], colored: int
) -> Gen:
    """A11.621: an Original 12 vs a crewed vehicle: the attackers suffer Casualty Reduction
    (Random Selection among those still active)."""
    alive = tuple(a for a in attackers if state.units[a].status == "active")
    state, chosen = yield from random_selection(state, f"rs/{d.number}", alive, "Crew Small Arms")
    dr = CCDr(key=f"cc/{d.number}", colored=colored, black_kn=0)
    for uid in chosen:
        state = yield from casualty_reduce(state, ctx, uid, "Crew Small Arms (A11.621)", dr)
    return state


def paatc(state: State, c: CloseCombat) -> Gen:
    """A11.6 Pre-AFV Advance Task Check of each unit the command names."""
    for check in c.paatc:
        state, _ = yield from take_paatc(
            state, PaatcOf(check.unit, check.from_location, c.location, check.leader)
        )
    return state


class PaatcOf(NamedTuple):
    """Who takes a PAATC (A11.6): ``unit`` advancing (or attacking, A11.8) from ``came_from``
    into ``into``, aided by ``leader`` (None: the best able leader of its side in either)."""

    unit: str
    came_from: str
    into: str
    leader: str | None = None


def needs_paatc(state: State, unit: UnitState, into: str) -> bool:
    """A11.6: an MMC entering a Location with a manned Known enemy AFV; SMC, Fanatic and
    Berserk units are exempt."""
    if is_smc(unit) or unit.fanatic or unit.berserk:
        return False
    return any(
        v.afv and v.crewed and not v.abandoned and v.side != unit.side
        for v in vehicles_in(state, into)
    )


def take_paatc(state: State, check: PaatcOf) -> Generator[Step, Any, tuple[State, bool]]:
    """A11.6 Pre-AFV Advance Task Check: Inexperienced take a 1TC (+1); a leader's modifier
    aids it; failure pins the unit, which stays where it came from."""
    u = state.units[check.unit]
    leaders = [
        x
        for x in state.units.values()
        if x.side == u.side
        and x.kind == "leader"
        and x.status == "active"
        and not x.broken
        and not x.pinned
        and x.location in (check.came_from, check.into)
        and (check.leader is None or x.id == check.leader)
    ]
    mods = leader_modifier(best_leader(leaders), "A11.6")
    if u.inexperienced:
        mods.append(Modifier(value=1, cause="Inexperienced: 1TC", rule="A11.6"))
    dice = yield from roll(f"paatc/{u.id}", n=2, purpose=f"PAATC of {u.id}")
    original = sum(dice)
    final = original + sum(m.value for m in mods)
    passed = final <= u.morale
    state = yield from emit(
        PAATCTaken(
            rule="A11.6",
            unit=u.id,
            original=original,
            modifiers=tuple(mods),
            final=final,
            morale=u.morale,
            passed=passed,
            back_to=None if passed else check.came_from,
        ),
        State,
    )
    return state, passed


def vehicle_fp(state: State, v: VehicleState, weapons: tuple[Weapon, ...]) -> Fraction:
    """A11.62: CMG, AAMG (if CE) and RMG FP; never the BMG; "CE Passengers in a halftrack" when
    ``passengers`` is named."""
    chosen: tuple[Weapon, ...] = weapons or ("cmg", "aamg", "rmg")
    fp = Fraction(0)
    if "cmg" in chosen:
        fp += v.cmg
    if "aamg" in chosen and v.ce:
        fp += v.aamg
    if "rmg" in chosen:
        fp += v.rmg
    if "passengers" in chosen:
        fp += passengers_fp(state, v)
    return fp


def usable_fp(state: State, v: VehicleState, weapons: tuple[Weapon, ...]) -> Fraction:
    """The FP of a vehicle's CC attack (A11.62), refusing Passengers' FP named for a vehicle
    that is not a CE halftrack with Passengers able to attack."""
    if "passengers" in weapons and passengers_fp(state, v) <= 0:
        raise RuleViolation(
            "A11.62", f"{v.id}: only the Passengers of a CE halftrack who may attack add FP"
        )
    return vehicle_fp(state, v, weapons)


def passengers_fp(state: State, v: VehicleState) -> Fraction:
    """A11.62: "An AFV may combine any CMG, RMG, halftrack Passenger's FP, and AAMG FP": the FP
    of a CE halftrack's Passengers that may attack (not broken, A11.16), halved for a pinned one
    ("halved ... by Pinned units")."""
    if not (v.halftrack and v.ce):
        return Fraction(0)
    total = Fraction(0)
    for pid in v.passengers:
        u = state.units.get(pid)
        if u is None or u.status != "active" or u.broken:
            continue
        total += Fraction(cc_fp(u), 2 if u.pinned else 1)
    return total


def close_defense(state: State, d: Designation, ctx: CCContext) -> Gen:
    """A11.622: the sN attacks every unarmored unit in the Location (not Passengers BU inside an
    armored vehicle, ruling passengers-inside) with 16 FP on the IFT; no effect if the Original
    IFT DR > its Usage Number. The IFT result and each Morale Check are outside chapter A11:
    their outcome is asked per unit."""
    v = state.vehicles[d.attackers[0]]
    dice = yield from roll(f"sn/{d.number}", n=2, purpose=f"IFT DR of {v.id} sN (16 FP)")
    original = sum(dice)
    effective = original <= v.close_defense_usage
    inside = ctx.ruling(PASSENGERS_INSIDE) == "inside"
    targets = tuple(
        u.id for u in units_in(state, ctx.location) if not (inside and enclosed(state, u.id))
    )
    state = yield from emit(
        CloseDefenseWeaponFired(
            rule="A11.622",
            attack=d.number,
            vehicle=v.id,
            original=original,
            usage=v.close_defense_usage,
            effective=effective,
            targets=targets,
        ),
        State,
    )
    if not effective:
        return state
    for t in targets:
        u = state.units[t]
        outcome = yield from ask(
            f"mc/{d.number}/{t}",
            ("pass", "pin", "break", "eliminate"),
            "pass",
            f"IFT/Morale Check result of {t} (not adjudicated here)",
        )
        if outcome == "eliminate":
            state = yield from emit(
                UnitEliminated(rule="A11.622", unit=t, cause="sN IFT attack"), State
            )
        elif outcome in ("pin", "break"):
            state = yield from emit(
                UnitStatusChanged(
                    rule="A11.622",
                    unit=t,
                    broken=u.broken or outcome == "break",
                    pinned=u.pinned or outcome == "pin",
                    cause="sN IFT attack (result entered)",
                ),
                State,
            )
    return state
