"""A11.12 designation of CC attacks and A11.14 who defends with whom: an MMC is attacked together
with the SMC stacked on it, unless the SMC attacks solo or withdraws without it (A11.2)."""

from __future__ import annotations

import msgspec

from blowbyblow.domain.asl.commands import Attack, ExtraDrm, Weapon
from blowbyblow.domain.asl.setup import is_mmc, is_smc
from blowbyblow.domain.asl.state import State, is_prisoner, side_of, units_in


class Designation(msgspec.Struct, frozen=True, kw_only=True):
    """An attack as the procedure handles it (numbered in command order)."""

    number: int
    side: str
    attackers: tuple[str, ...]
    targets: tuple[str, ...]
    leader: str | None
    capture: bool
    hth: bool
    atmm: str | None
    weapons: tuple[Weapon, ...]
    extra: tuple[ExtraDrm, ...]
    vs_vehicle: bool
    by_vehicle: bool
    by_prisoners: bool = False


def designation(
    state: State, number: int, attack: Attack, expanded: tuple[str, ...]
) -> Designation:
    by_vehicle = attack.by[0] in state.vehicles
    vs_vehicle = any(t in state.vehicles for t in attack.targets)
    return Designation(
        number=number,
        side=side_of(state, attack.by[0]),
        attackers=tuple(attack.by),
        targets=expanded,
        leader=attack.leader,
        capture=attack.capture,
        hth=attack.hth,
        atmm=attack.atmm,
        weapons=tuple(attack.weapons),
        extra=tuple(attack.extra),
        vs_vehicle=vs_vehicle,
        by_vehicle=by_vehicle,
        by_prisoners=all(is_prisoner(state, b) for b in attack.by),
    )


def expand_targets(
    state: State,
    location: str,
    targets: list[str],
    solo: set[str],
    withdrawing: dict[str, str | None],
) -> tuple[str, ...]:
    """A11.14/A11.2: an MMC is attacked together with the SMC stacked on it (unless the SMC
    attacks solo or withdraws without it); an SMC withdrawing with an MMC defends with it."""
    out = list(targets)
    for t in targets:
        u = state.units.get(t)
        if u is None or not is_mmc(u):
            continue
        for s in units_in(state, location, u.side):
            if not is_smc(s) or s.id in out or s.id in solo:
                continue
            # A Known SMC never defends with a concealed unit, nor vice versa (A11.14 EXC).
            paired = s.stacked_on == t and (s.concealed or s.hidden) == (u.concealed or u.hidden)
            if s.id in withdrawing:
                paired = withdrawing[s.id] == t
            elif t in withdrawing:
                paired = False
            if paired:
                out.append(s.id)
    return tuple(out)
