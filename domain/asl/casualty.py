"""Random Selection (A.9), Casualty Reduction (A7.302), Wounds (A17.11) and the fate of the SW
of a unit eliminated in CC (A11.13)."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from blowbyblow.domain.asl.events import (
    CasualtyReduced,
    ConcealmentLost,
    RandomSelectionRolled,
    SupportWeaponDropped,
    SupportWeaponLost,
    UnitEliminated,
    WoundResult,
    WoundSeverityRolled,
)
from blowbyblow.domain.asl.rulings import SW_LOSS_DR
from blowbyblow.domain.asl.setup import is_smc
from blowbyblow.domain.asl.state import State, UnitState
from blowbyblow.domain.core import Context, Modifier, Step, emit, roll

Gen = Generator[Step, Any, State]

KIA_FROM = 5  # Wound Severity Final dr 5-6: mortal, treated as KIA (A17.11)


@dataclass(frozen=True)
class CCDr:
    """The CC DR whose results are being applied: ``key`` is the roll key the dice that follow
    from it hang from, ``colored`` its colored dr (None when no SW can be lost, e.g. a capture)
    and ``black_kn`` the black Kill Number of its attack (A11.13)."""

    key: str
    colored: int | None
    black_kn: int


def random_selection(
    state: State, key: str, units: tuple[str, ...], purpose: str
) -> Generator[Step, Any, tuple[State, tuple[str, ...]]]:
    """A.9: one dr per unit; the highest is selected, all ties alike. One unit needs no dr."""
    if len(units) <= 1:
        return state, units
    drs = yield from roll(key, n=len(units), purpose=f"Random Selection: {purpose}")
    high = max(drs)
    selected = tuple(u for u, d in zip(units, drs, strict=True) if d == high)
    state = yield from emit(
        RandomSelectionRolled(rule="A.9", purpose=purpose, units=units, drs=drs, selected=selected),
        State,
    )
    return state, selected


def eliminate(state: State, ctx: Context, elimination: UnitEliminated, dr: CCDr) -> Gen:
    """Eliminate a unit; A11.13: on an Original colored dr of 1 each of its SW is lost on a
    subsequent dr < the black KN (ruling sw-loss-dr), otherwise it stays in the Location."""
    u = state.units[elimination.unit]
    state = yield from emit(elimination, State)
    return (yield from drop_sws(state, ctx, u, u.location, dr))


def drop_sws(state: State, ctx: Context, unit: UnitState, location: str, dr: CCDr) -> Gen:
    """A11.13 (and A20.24 for a captured unit): the SW of ``unit`` (as it was) is lost or stays
    unpossessed in ``location``."""
    for index, sw in enumerate(unit.sws):
        if dr.colored == 1:
            (sw_dr,) = yield from roll(
                f"{dr.key}/sw/{unit.id}/{index}", purpose=f"SW loss dr for {unit.id}'s {sw}"
            )
            below = ctx.ruling(SW_LOSS_DR) == "below-kn"
            lost = sw_dr < dr.black_kn if below else sw_dr <= dr.black_kn
            if lost:
                state = yield from emit(
                    SupportWeaponLost(
                        rule="A11.13",
                        unit=unit.id,
                        sw=sw,
                        colored_dr=dr.colored,
                        dr=sw_dr,
                        kill_number=dr.black_kn,
                    ),
                    State,
                )
                continue
        state = yield from emit(
            SupportWeaponDropped(rule="A11.13", unit=unit.id, sw=sw, location=location), State
        )
    return state


def casualty_reduce(state: State, ctx: Context, unit_id: str, cause: str, dr: CCDr) -> Gen:
    """A7.302: squad -> HS; HS or crew -> eliminated; SMC -> wounded (Wound Severity dr)."""
    u = state.units[unit_id]
    if u.concealed:
        state = yield from emit(
            ConcealmentLost(rule="A11.19", unit=unit_id, cause="Casualty Reduction"), State
        )
    if u.kind == "squad":
        return (yield from reduce_to_hs(state, u, "A7.302", cause))
    if is_smc(u):
        return (yield from wound(state, unit_id, dr.key))
    elimination = UnitEliminated(rule="A7.302", unit=unit_id, cause=f"Casualty Reduction ({cause})")
    return (yield from eliminate(state, ctx, elimination, dr))


def reduce_to_hs(state: State, squad: UnitState, rule: str, cause: str) -> Gen:
    """A squad Reduced to its HS (A7.302; one HS captured, A20.22): ``hs_fp``/``hs_name``, by
    default half its FP."""
    return (
        yield from emit(
            CasualtyReduced(
                rule=rule,
                unit=squad.id,
                from_name=squad.name,
                to_kind="hs",
                to_name=squad.hs_name or f"HS of {squad.name or squad.id}",
                to_fp=squad.hs_fp or squad.fp // 2,
                cause=cause,
            ),
            State,
        )
    )


def wound(state: State, unit_id: str, key: str) -> Gen:
    """A17.11: Wound Severity dr: 1-4 wounded, 5-6 killed; +1 if already wounded."""
    u = state.units[unit_id]
    (dr,) = yield from roll(f"{key}/wound/{unit_id}", purpose=f"Wound Severity dr for {unit_id}")
    mods = (Modifier(value=1, cause="already wounded", rule="A17.11"),) if u.wounded else ()
    final = dr + sum(m.value for m in mods)
    result: WoundResult = "killed" if final >= KIA_FROM else "wounded"
    state = yield from emit(
        WoundSeverityRolled(
            rule="A17.11", unit=unit_id, original=dr, modifiers=mods, final=final, result=result
        ),
        State,
    )
    if result == "killed":
        state = yield from emit(
            UnitEliminated(rule="A17.11", unit=unit_id, cause="mortal wound"), State
        )
    return state
