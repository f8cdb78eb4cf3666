"""What the rules decide on: every model's wounds, action points, posture and condition, and the
gaps between models (the Melee locks: who is in whose threat range), and ``initial_state``.
Folded by ``projection``; the setup is carried along so the rules can read profiles."""

from __future__ import annotations

from collections.abc import Generator, Iterable
from typing import Any, Literal

import msgspec

from blowbyblow.domain.core import RuleViolation, Step
from blowbyblow.domain.gangfight.setup import Fighter, GangfightSetup, Inches, Weapon, inches

# Combat, Incapacitation: a model in the fight, replaced by an Incapacitation token, or Dead.
Condition = Literal["active", "incapacitated", "dead"]
# Combat, Knocked Down: a model knocked down is Prone until it stands up.
Posture = Literal["standing", "prone"]


class FighterStatus(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    wounds: int = 0
    ap: int = 0
    prone: bool = False
    condition: Condition = "active"
    # Ranged weapons fired and not yet reloaded (an id once per weapon of that id unloaded).
    fired: tuple[str, ...] = ()

    @property
    def posture(self) -> Posture:
        return "prone" if self.prone else "standing"


class Gap(msgspec.Struct, frozen=True, kw_only=True):
    """Distance in inches (to the half inch) between the bases of ``a`` and ``b`` (``a`` < ``b``)."""

    a: str
    b: str
    inches: Inches


class GangfightState(msgspec.Struct, frozen=True, kw_only=True):
    setup: GangfightSetup
    turn: int = 1
    fighters: tuple[FighterStatus, ...] = ()  # in setup order
    gaps: tuple[Gap, ...] = ()  # sorted by (a, b)


# What a rule step is: a generator of dice, choices and events that returns the state after it.
Gen = Generator[Step, Any, GangfightState]


def pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def gaps_of(distances: Iterable[tuple[str, str, float]]) -> tuple[Gap, ...]:
    """Gaps from (model, model, inches), each with its ends in order, sorted by (a, b)."""
    gaps = (Gap(a=pair(a, b)[0], b=pair(a, b)[1], inches=inches(n)) for a, b, n in distances)
    return tuple(sorted(gaps, key=lambda g: (g.a, g.b)))


def initial_state(setup: GangfightSetup) -> GangfightState:
    """Turn 1: every model unhurt, standing, with its IV in action points (Model Profiles: IV;
    ruling action-points)."""
    return GangfightState(
        setup=setup,
        fighters=tuple(FighterStatus(id=f.id, ap=f.profile.iv) for f in setup.fighters),
        gaps=gaps_of((g.a, g.b, g.inches) for g in setup.gaps),
    )


# --- reading the state ------------------------------------------------------------------------


def fighter(state: GangfightState, fid: str) -> Fighter:
    for f in state.setup.fighters:
        if f.id == fid:
            return f
    raise RuleViolation("setup", f"there is no model {fid!r}")


def status(state: GangfightState, fid: str) -> FighterStatus:
    for s in state.fighters:
        if s.id == fid:
            return s
    raise RuleViolation("setup", f"there is no model {fid!r}")


def weapon(state: GangfightState, wid: str) -> Weapon:
    for w in state.setup.weapons:
        if w.id == wid:
            return w
    raise RuleViolation("setup", f"there is no weapon {wid!r}")


def gap(state: GangfightState, a: str, b: str) -> Inches | None:
    """Inches between ``a`` and ``b``, or None when they are far apart."""
    x, y = pair(a, b)
    for g in state.gaps:
        if g.a == x and g.b == y:
            return g.inches
    return None


def in_threat_range(state: GangfightState, holder: str, other: str) -> bool:
    """Is ``other`` within ``holder``'s threat range?"""
    d = gap(state, holder, other)
    return d is not None and d <= fighter(state, holder).threat


def enemies(state: GangfightState, fid: str) -> list[str]:
    side = fighter(state, fid).side
    return [f.id for f in state.setup.fighters if f.side != side]


def replace_fighter(state: GangfightState, new: FighterStatus) -> GangfightState:
    return msgspec.structs.replace(
        state, fighters=tuple(new if s.id == new.id else s for s in state.fighters)
    )


def set_gap(state: GangfightState, a: str, b: str, distance: float) -> GangfightState:
    x, y = pair(a, b)
    kept = [g for g in state.gaps if (g.a, g.b) != (x, y)]
    kept.append(Gap(a=x, b=y, inches=inches(distance)))
    return msgspec.structs.replace(state, gaps=tuple(sorted(kept, key=lambda g: (g.a, g.b))))
