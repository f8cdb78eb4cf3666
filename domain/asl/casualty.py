"""Random Selection (A.9), Casualty Reduction (A7.302), Wounds (A17.11) and the fate of the SW
of a unit eliminated in CC (A11.13). Numbers: shared/rules/FACTS.md 1.3 to 1.5."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from blowbyblow.domain.asl.events import (
    CasualtyReduced,
    ConcealmentLost,
    RandomSelectionRolled,
    SupportWeaponDropped,
    SupportWeaponLost,
    UnitEliminated,
    WoundSeverityRolled,
)
from blowbyblow.domain.asl.units import State, UnitState, is_smc
from blowbyblow.domain.core import Modifier, Step, emit, roll

Gen = Generator[Step, Any, State]

KIA_FROM = 5  # Wound Severity Final dr 5-6: mortal, treated as KIA (A17.11)


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


def eliminate(
    state: State,
    unit_id: str,
    cause: str,
    rule: str,
    colored: int | None,
    black_kn: int,
    key: str,
    sw_ruling: str,
) -> Gen:
    """Eliminate a unit; A11.13: on an Original colored dr of 1 each of its SW is lost on a
    subsequent dr < the black KN (ruling sw-loss-dr), otherwise it stays in the Location."""
    u = state.units[unit_id]
    state = yield from emit(UnitEliminated(rule=rule, unit=unit_id, cause=cause), State)
    state = yield from drop_sws(
        state, unit_id, u.sws, u.location, colored, black_kn, key, sw_ruling
    )
    return state


def drop_sws(
    state: State,
    unit_id: str,
    sws: list[str],
    location: str,
    colored: int | None,
    black_kn: int,
    key: str,
    sw_ruling: str,
) -> Gen:
    for index, sw in enumerate(sws):
        if colored == 1:
            (dr,) = yield from roll(
                f"{key}/sw/{unit_id}/{index}", purpose=f"SW loss dr for {unit_id}'s {sw}"
            )
            lost = dr < black_kn if sw_ruling == "below-kn" else dr <= black_kn
            if lost:
                state = yield from emit(
                    SupportWeaponLost(
                        rule="A11.13",
                        unit=unit_id,
                        sw=sw,
                        colored_dr=colored,
                        dr=dr,
                        kill_number=black_kn,
                    ),
                    State,
                )
                continue
        state = yield from emit(
            SupportWeaponDropped(rule="A11.13", unit=unit_id, sw=sw, location=location), State
        )
    return state


def casualty_reduce(
    state: State,
    unit_id: str,
    cause: str,
    key: str,
    colored: int | None,
    black_kn: int,
    sw_ruling: str,
) -> Gen:
    """A7.302: squad -> HS; HS or crew -> eliminated; SMC -> wounded (Wound Severity dr)."""
    u = state.units[unit_id]
    if u.concealed:
        state = yield from emit(
            ConcealmentLost(rule="A11.19", unit=unit_id, cause="Casualty Reduction"), State
        )
    if u.kind == "squad":
        return (yield from reduce_to_hs(state, u, "A7.302", cause))
    if is_smc(u):
        return (yield from wound(state, unit_id, key))
    return (
        yield from eliminate(
            state,
            unit_id,
            f"Casualty Reduction ({cause})",
            "A7.302",
            colored,
            black_kn,
            key,
            sw_ruling,
        )
    )


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
    result = "killed" if final >= KIA_FROM else "wounded"
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
