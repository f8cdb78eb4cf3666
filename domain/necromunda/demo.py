"""The demo battle shared by both Necromunda rulesets: a Goliath charges into a brawl with two
Escher while a third watches; one setup, recordable under either ruleset."""

from __future__ import annotations

from blowbyblow.domain.necromunda.commands import Allocation, Charge, Fight
from blowbyblow.domain.necromunda.model import (
    Engagement,
    Fighter,
    Gang,
    NecromundaSetup,
    Weapon,
)

AXE = Weapon(id="axe", name="fighting axe", s_bonus=1, ap=-1, d=1, traits=["Melee"])
STUB = Weapon(id="stub-gun", name="stub gun", s=3, ap=0, d=1, traits=["Sidearm"], ammo=4)
KNIFE = Weapon(id="knife", name="fighting knife", ap=-1, d=1, traits=["Melee"])
SWORD = Weapon(id="sword", name="power sword", s_bonus=1, ap=-2, d=1, traits=["Melee"])
LASPISTOL = Weapon(id="laspistol", name="laspistol", s=3, ap=0, d=1, traits=["Sidearm"], ammo=2)
MAUL = Weapon(
    id="maul", name="two-handed maul", s_bonus=2, ap=-1, d=2, traits=["Melee", "Unwieldy"]
)


def demo_setup() -> NecromundaSetup:
    return NecromundaSetup(
        gangs=[Gang(id="goliath", name="Goliath"), Gang(id="escher", name="Escher")],
        fighters=[
            Fighter(
                id="krug",
                name="Krug the Bruiser",
                gang="goliath",
                m=4,
                ws=3,
                bs=4,
                s=4,
                t=4,
                w=2,
                i=5,
                a=2,
                ld=8,
                cl=6,
                wil=8,
                int_=9,
                save=6,
                weapons=[AXE, STUB],
                vision=["vex", "lia"],
            ),
            Fighter(
                id="brak",
                name="Brak",
                gang="goliath",
                m=4,
                ws=4,
                bs=5,
                s=4,
                t=4,
                w=1,
                i=5,
                a=1,
                ld=8,
                cl=7,
                wil=8,
                int_=9,
                save=6,
                weapons=[MAUL],
                vision=["vex"],
            ),
            Fighter(
                id="vex",
                name="Vex",
                gang="escher",
                m=5,
                ws=3,
                bs=4,
                s=3,
                t=3,
                w=1,
                i=3,
                a=2,
                ld=7,
                cl=6,
                wil=7,
                int_=7,
                save=5,
                weapons=[SWORD, LASPISTOL],
                vision=["brak"],
            ),
            Fighter(
                id="lia",
                name="Lia",
                gang="escher",
                m=5,
                ws=4,
                bs=4,
                s=3,
                t=3,
                w=1,
                i=4,
                a=1,
                ld=7,
                cl=7,
                wil=7,
                int_=7,
                save=6,
                weapons=[KNIFE, LASPISTOL],
                vision=[],
            ),
            Fighter(
                id="zia",
                name="Zia",
                gang="escher",
                m=5,
                ws=4,
                bs=3,
                s=3,
                t=3,
                w=1,
                i=4,
                a=1,
                ld=7,
                cl=6,
                wil=7,
                int_=7,
                save=6,
                weapons=[LASPISTOL],
                vision=["krug"],
            ),
        ],
        engagements=[Engagement(a="brak", b="vex")],
        # who stands within 3" of whom (Nerve tests); Zia watches from the pipes, out of reach
        within_3=[["vex", "lia"], ["lia", "zia"], ["krug", "brak"]],
    )


def demo_commands() -> list[Charge | Fight]:
    return [
        # Krug charges Vex and Lia; his free Fight puts every die into Vex: Brak assists
        # (he engages Vex and no other Escher), Lia interferes (she engages Krug only).
        Charge(
            attacker="krug",
            targets=["vex", "lia"],
            weapons=("axe", "stub-gun"),
            allocation=(
                Allocation(weapon="axe", target="vex", dice=3),
                Allocation(weapon="stub-gun", target="vex", dice=1),
            ),
        ),
        # Krug turns on Lia, who is still fighting him.
        Fight(attacker="krug", weapons=("axe",), targets=("lia",)),
    ]
