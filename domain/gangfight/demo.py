"""The demo battle: a two-weapon Fight!, a Power Attack with knock-back, a Free Strike as a model
walks away, standing up, and an Incapacitation (listed physical dice)."""

from __future__ import annotations

from blowbyblow.domain.gangfight.commands import (
    Fight,
    GangfightCommand,
    Move,
    NewTurn,
    PowerAttack,
    StandUp,
)
from blowbyblow.domain.gangfight.setup import Fighter, GangfightSetup, GapSpec, Profile, Weapon
from blowbyblow.domain.system import Scenario

WEAPONS = (
    Weapon(id="sword", name="Sword", kind="hand", dam=0),
    Weapon(id="axe", name="Axe", kind="hand", dam=1),
    Weapon(id="great-axe", name="Double Handed Weapon", kind="double-handed", dam=2),
    Weapon(id="shield", name="Shield", kind="shield"),
)


def demo_setup() -> GangfightSetup:
    """The Human Regular and Veteran have their published profiles (Model Profiles page); the
    Orc Brave's profile is not printed (its ARM 4, and DAM 6 with a double-handed weapon, are,
    in the Combat page's examples), so the rest is assumed."""
    return GangfightSetup(
        weapons=WEAPONS,
        fighters=(
            Fighter(
                id="veteran",
                name="Human Veteran",
                side="humans",
                profile=Profile(mov=4, att=3, mrk=3, defense=4, iv=3, wp=4, arm=3, en=4, dam=4),
                weapons=("sword", "axe"),
            ),
            Fighter(
                id="regular",
                name="Human Regular",
                side="humans",
                profile=Profile(mov=4, att=3, mrk=3, defense=4, iv=3, wp=3, arm=3, en=3, dam=4),
                weapons=("sword", "shield"),
            ),
            Fighter(
                id="brave",
                name="Orc Brave",
                side="orcs",
                profile=Profile(mov=4, att=4, mrk=2, defense=4, iv=3, wp=3, arm=4, en=4, dam=4),
                weapons=("great-axe",),
            ),
        ),
        gaps=(
            GapSpec(a="veteran", b="brave", inches=0),
            GapSpec(a="regular", b="brave", inches=1),
        ),
    )


# fmt: off
DEMO_DICE = [
    6, 5, 4, 2,  # 1. veteran Fight! with sword and axe: 4 dice at 4+
    5, 3, 2, 1,  #    brave's Armour: 4 dice against DAM 4 +1 (axe) = 5+
    5, 4, 3, 1,  # 2. brave's Power Attack on the veteran: 4 dice at 4+
    6, 4, 4, 1,  # 3. regular walks away: the brave's Free Strike, 4 dice at 4+, no dropping
    6, 2, 3,     #    regular's Armour: 3 dice against DAM 4 +2 (Double Handed Weapon) = 6+
    6, 6, 5, 4,  # 7. veteran Fight! again, two weapons: 4 dice at 4+
    5, 2, 3, 1,  #    brave's Armour at 5+
]
# fmt: on


def demo() -> Scenario[GangfightSetup, GangfightCommand]:
    """A short fight: a two-weapon Fight!, a Power Attack with knock-back, a Free Strike as the
    Regular walks away, the Veteran standing up and Incapacitating the Orc."""
    return Scenario[GangfightSetup, GangfightCommand](
        ruleset="gangfight",
        label="Gangfight demo: the Veteran and the Regular against an Orc Brave",
        setup=demo_setup(),
        commands=[
            Fight(attacker="veteran", target="brave", weapons=("sword", "axe")),
            PowerAttack(attacker="brave", target="veteran"),
            Move(fighter="regular", inches=3, to={"brave": 4}),
            NewTurn(),
            StandUp(fighter="veteran"),
            Move(fighter="veteran", inches=2, to={"brave": 0}),
            Fight(attacker="veteran", target="brave", weapons=("sword", "axe")),
        ],
        dice=list(DEMO_DICE),
    )
