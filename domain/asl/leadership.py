"""Which leader's modifier counts: A11.141 (one leader directs a CC attack, not when attacking
alone), A7.831 (a pinned or broken leader cannot), A10.7 (the best Good Order leader's modifier,
as the Ambush dr, A11.4, and the PAATC, A11.6, use it)."""

from __future__ import annotations

from collections.abc import Iterable

from blowbyblow.domain.asl.setup import leadership_drm
from blowbyblow.domain.asl.state import UnitState
from blowbyblow.domain.core import Modifier


def able_leaders(units: Iterable[UnitState]) -> list[UnitState]:
    """The leaders among ``units`` whose modifier counts: neither pinned nor broken (A7.831)."""
    return [u for u in units if u.kind == "leader" and not u.pinned and not u.broken]


def best_leader(leaders: Iterable[UnitState]) -> UnitState | None:
    """The leader with the best (lowest) leadership DRM, the lower id on a tie."""
    return min(leaders, key=lambda u: (leadership_drm(u), u.id), default=None)


def leader_modifier(leader: UnitState | None, rule: str) -> list[Modifier]:
    """The leader's DRM as a modifier under ``rule``; none without a leader or for a DRM of 0."""
    if leader is None or not leadership_drm(leader):
        return []
    return [Modifier(value=leadership_drm(leader), cause=f"leader {leader.id}", rule=rule)]
