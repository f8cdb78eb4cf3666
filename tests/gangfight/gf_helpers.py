"""Builders shared by the Gangfight tests (not a test module)."""

from __future__ import annotations

from typing import Any

from blowbyblow.domain.gangfight.setup import (
    Fighter,
    GangfightSetup,
    GapSpec,
    Profile,
    Size,
    Weapon,
    inches,
)
from blowbyblow.domain.system import Scenario
from blowbyblow.replay.engine.script import Played, play

WEAPONS = (
    Weapon(id="sword", name="Sword", kind="hand"),
    Weapon(id="axe", name="Axe", kind="hand", dam=1),
    Weapon(id="great-axe", name="Double Handed Weapon", kind="double-handed", dam=2),
    Weapon(id="shield", name="Shield", kind="shield"),
    Weapon(id="pistol", name="Pistol", kind="hand", range=6),
    Weapon(id="bow", name="Bow", kind="double-handed", range=12),
    Weapon(id="crossbow", name="Crossbow", kind="double-handed", dam=1, range=10, reload=True),
    Weapon(id="grenade", name="Grenade", kind="other", range=6, area="indirect", reload=True),
    Weapon(id="breath", name="Fire breath", kind="other", range=8, area="direct"),
)


def profile(**kw: int) -> Profile:
    base = dict(mov=4, att=3, mrk=3, defense=4, iv=3, wp=3, arm=3, en=4, dam=4)
    base.update(kw)
    return Profile(**base)


def model(
    fid: str,
    side: str,
    *,
    size: Size = "medium",
    weapons: tuple[str, ...] = ("sword",),
    **kw: Any,
) -> Fighter:
    """A model with a test profile: ``threat`` and ``perks`` go to the model, the rest of the
    keywords are profile attributes."""
    extra = {k: kw.pop(k) for k in ("threat", "perks") if k in kw}
    return Fighter(
        id=fid, name=fid, side=side, size=size, profile=profile(**kw), weapons=weapons, **extra
    )


# The Combat page's two worked-example models. The Veteran's profile is the published one (Model
# Profiles page) except ARM 4, which the Wounds example gives ("an Armour attribute of 4"; the
# profile says 3: the example wins). The Orc Brave's ARM 4 and DAM 6 with a double-handed weapon
# are the examples'; its ATT 4 and DEF 4 are assumed (its profile is not printed).
VETERAN = model("veteran", "humans", weapons=("sword",), att=3, defense=4, arm=4, en=4, dam=4)
BRAVE = model("brave", "orcs", weapons=("great-axe",), att=4, defense=4, arm=4, en=4, dam=4)


def setup(*fighters: Fighter, gaps: tuple[tuple[str, str, float], ...] = ()) -> GangfightSetup:
    return GangfightSetup(
        weapons=WEAPONS,
        fighters=fighters,
        gaps=tuple(GapSpec(a=a, b=b, inches=inches(n)) for a, b, n in gaps),
    )


def run(
    s: GangfightSetup,
    commands: list[Any],
    dice: list[int],
    *,
    rulings: dict[str, str] | None = None,
    choices: dict[str, str] | None = None,
) -> Played:
    return play(
        Scenario(
            ruleset="gangfight",
            label="test",
            rulings=rulings or {},
            setup=s,
            commands=commands,
            dice=dice,
            choices=choices or {},
        )
    )


def of_type(played: Played, cls: type[Any]) -> list[Any]:
    return [e for e in played.events if isinstance(e, cls)]


def one(played: Played, cls: type[Any]) -> Any:
    found = of_type(played, cls)
    assert len(found) == 1, f"expected one {cls.__name__}, got {found}"
    return found[0]


def status(played: Played, fid: str) -> Any:
    return next(s for s in played.state.fighters if s.id == fid)
