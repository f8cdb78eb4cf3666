"""Which leader's modifier counts: A11.141 (one leader directs a CC attack, not when attacking
alone), A7.831 (a pinned or broken leader cannot), A10.7 (the best Good Order leader's modifier,
as the Ambush dr, A11.4, and the PAATC, A11.6, use it)."""

from __future__ import annotations

from collections.abc import Generator, Iterable
from typing import Any

from blowbyblow.domain.asl.setup import leadership_drm
from blowbyblow.domain.asl.state import UnitState
from blowbyblow.domain.core import Modifier, Step, ask

NOT_DIRECTED = "none"


def able_leaders(units: Iterable[UnitState]) -> list[UnitState]:
    """The leaders among ``units`` whose modifier counts: neither pinned nor broken (A7.831)."""
    return [u for u in units if u.kind == "leader" and not u.pinned and not u.broken]


def directing_candidates(units: Iterable[UnitState], pinned_may: bool) -> list[UnitState]:
    """The leaders among ``units`` who may direct a CC attack (A11.141): not broken, and not
    pinned unless ruling pinned-leader-directs=yes (A7.831 as secondary sources read it)."""
    return [
        u for u in units if u.kind == "leader" and not u.broken and (pinned_may or not u.pinned)
    ]


def best_leader(leaders: Iterable[UnitState]) -> UnitState | None:
    """The leader with the best (lowest) leadership DRM, the lower id on a tie."""
    return min(leaders, key=lambda u: (leadership_drm(u), u.id), default=None)


def leader_modifier(leader: UnitState | None, rule: str) -> list[Modifier]:
    """The leader's DRM as a modifier under ``rule``; none without a leader or for a DRM of 0."""
    if leader is None or not leadership_drm(leader):
        return []
    return [Modifier(value=leadership_drm(leader), cause=f"leader {leader.id}", rule=rule)]


def choose_director(
    candidates: list[UnitState], default: UnitState | None, key: str, asked: bool
) -> Generator[Step, Any, UnitState | None]:
    """A11.141: "One leader *may* direct the CC attack": with ruling leader-choice=asked the
    owner is asked (``key``) which of the ``candidates`` directs, or ``none``; ``default``
    (the engine's pick, what 1.1 always did) is the default answer. Not asked when no candidate
    has a leadership DRM (directing would change nothing)."""
    if default is None or not asked or not any(leadership_drm(u) for u in candidates):
        return default
    ordered = sorted(candidates, key=lambda u: (leadership_drm(u), u.id))
    options = (*(u.id for u in ordered), NOT_DIRECTED)
    answer = yield from ask(
        key, options, default.id, prompt="A11.141: which leader directs this CC attack (none)?"
    )
    return next((u for u in candidates if u.id == answer), None)
