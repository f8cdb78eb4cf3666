"""The demo battle shared by both Necromunda systems: a Goliath charges into a brawl with two
Escher while a third watches; one setup, recorded under each system with seeded dice.

Each seed was found by trying ``<system>-demo-0``, ``-1``, … for a log that shows every event
kind the demo is meant to show (tests/necromunda checks that it still does):
- ``necromunda-2023``: a charge, two weapons, an assist and an interference, hits and a natural
  1, saves, Injury dice, a Flesh Wound from an extra Serious Injury, Nerve tests, Reaction
  attacks with a turn to face, a Coup de Grace;
- ``necromunda-legacy``: the same, plus the Firepower dice of pistols and the YAQ's skipped
  second Nerve test.

The second command (Krug fights Lia) needs Krug Standing after the first, so the demo plays
through with nearly any dice, not every one: Krug charges two Escher and both react (Vex with
three dice, a power sword at AP -2 and Lia's assist; Lia with two), and Krug (2 Wounds,
Toughness 4, a 6+ save) is left Seriously Injured or Out of Action by 156 of seeds 1-3,000 under
each system (the same seeds: 58 is the first), and the Fight is then refused, naming command 2
(N23 CC / N17 CC: only a Standing fighter can fight). A correct refusal: the rules followed step
by step, as the seed's log shows. ``bxb demo`` records the fixed seed above, which plays through.
"""

from __future__ import annotations

from blowbyblow.domain.necromunda.commands import Allocation, Charge, Fight, NecromundaCommand
from blowbyblow.domain.necromunda.setup import (
    Engagement,
    Fighter,
    Gang,
    NecromundaSetup,
    Weapon,
)
from blowbyblow.domain.system import Scenario

DEMO_SEED = "necromunda-2023-demo-60"
LEGACY_DEMO_SEED = "necromunda-legacy-demo-1"
DEMO_CHOICES: dict[str, str] = {}

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


def demo_commands() -> list[NecromundaCommand]:
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


def demo_scenario(
    ruleset: str, label: str, seed: str
) -> Scenario[NecromundaSetup, NecromundaCommand]:
    """The demo battle under ``ruleset``, with seeded dice."""
    return Scenario[NecromundaSetup, NecromundaCommand](
        ruleset=ruleset,
        label=label,
        setup=demo_setup(),
        commands=demo_commands(),
        seed=seed,
        choices=dict(DEMO_CHOICES),
    )


def demo() -> Scenario[NecromundaSetup, NecromundaCommand]:
    """The necromunda-2023 demo."""
    return demo_scenario(
        "necromunda-2023",
        "Demo: Krug the Bruiser charges into the Escher (Necromunda 2023)",
        DEMO_SEED,
    )


def legacy_demo() -> Scenario[NecromundaSetup, NecromundaCommand]:
    """The necromunda-legacy demo: the same battle under the rules before 2023."""
    return demo_scenario(
        "necromunda-legacy",
        "Demo: Krug the Bruiser charges into the Escher (Necromunda before 2023)",
        LEGACY_DEMO_SEED,
    )
