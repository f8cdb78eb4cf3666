"""The demo battle of ``wh40k-2e`` (``bxb demo --ruleset wh40k-2e``): the Orks charge two
Ultramarines. The same battle is the example scenario file of this system."""

from __future__ import annotations

from decimal import Decimal

from blowbyblow.domain.system import Scenario
from blowbyblow.domain.wh40k.commands import (
    BreakOff,
    Charge,
    EndTurn,
    Fight,
    FollowUp,
    Wh40kCommand,
)
from blowbyblow.domain.wh40k.setup import ModelProfile, Weapon, Wh40kSetup

RULESET_ID = "wh40k-2e"

DEMO_DICE = [
    # Fight cato (breaking off, WS 0) against zog (charging)
    5,  # cato's Attack die
    3,
    1,  # zog's Attack dice (choppa + slugga: +1 die): a Fumble
    3,
    4,  # zog's 2 hits, to wound (choppa S4 vs T4, 4+): miss, wound
    5,  # cato's save 3+ with -1 (S4): 4+, saved
    4,
    3,  # cato survives and breaks off 2D6": 7"
    # Multiple Combat around varro, duel 1: snagga (charging) against varro
    5,
    1,  # snagga's Attack dice: a Fumble
    6,
    6,
    3,  # varro's Attack dice (chainsword + bolt pistol: +1 die): one Critical Hit
    2,  # varro parries snagga's 5: the re-roll (2) stands
    5,  # varro's first of 6 hits, to wound (chainsword S4 vs T4, 4+); 6+ -1 = no save; slain
    # duel 2: gorg (charging, +1 Attack die as the second duel) against varro
    6,
    4,
    3,
    2,  # gorg's Attack dice
    4,
    2,
    1,  # varro's Attack dice: a Fumble
    3,  # varro parries gorg's 6: re-rolled 3
    4,  # gorg's 1 hit, to wound (choppa S5 vs T4, 3+)
    2,  # varro's save 3+ with -2 (S5): 5+, failed; slain
]


def _ork_boy(ident: str, name: str) -> ModelProfile:
    """An Ork Boy of the demo's mob, with choppa and slugga."""
    return ModelProfile(
        id=ident,
        name=name,
        player="Orks",
        squad="boyz",
        ws=4,
        s=3,
        t=4,
        w=1,
        i=2,
        a=1,
        save=6,
        weapons=["choppa", "slugga"],
    )


def demo() -> Scenario[Wh40kSetup, Wh40kCommand]:
    """Orks charge two Ultramarines: a break off (Cato), then a Multiple Combat around Sergeant
    Varro with a charge bonus, a parry (re-roll), a fumble, a critical hit and the outnumbering
    side's extra Attack die, ending in a Follow-Up Move. Listed physical dice."""
    weapons = [
        Weapon(id="chainsword", name="chainsword", strength=4, save_modifier=-1, parry=True),
        Weapon(id="bolt-pistol", name="bolt pistol", strength=4, save_modifier=-1),
        Weapon(id="choppa", name="choppa (axe, user +1)", strength_bonus=1),
        Weapon(id="slugga", name="slugga (autopistol)", strength=3, save_modifier=0),
        Weapon(id="bolter", name="bolter", close_combat=False, strength=4, save_modifier=-1),
    ]
    models = [
        ModelProfile(
            id="varro",
            name="Sergeant Varro",
            player="Ultramarines",
            squad="tactical",
            ws=5,
            s=4,
            t=4,
            w=1,
            i=5,
            a=2,
            save=3,
            weapons=["chainsword", "bolt-pistol"],
        ),
        ModelProfile(
            id="cato",
            name="Brother Cato",
            player="Ultramarines",
            squad="tactical",
            ws=4,
            s=4,
            t=4,
            w=1,
            i=4,
            a=1,
            save=3,
            weapons=["bolter"],
        ),
        ModelProfile(
            id="gorg",
            name="Nob Gorg",
            player="Orks",
            squad="boyz",
            ws=4,
            s=4,
            t=4,
            w=2,
            i=3,
            a=2,
            save=6,
            weapons=["choppa", "slugga"],
        ),
        _ork_boy("snagga", "Snagga"),
        _ork_boy("zog", "Zog"),
    ]
    return Scenario[Wh40kSetup, Wh40kCommand](
        ruleset=RULESET_ID,
        label="Orks charge the Ultramarines (40K 2nd edition hand-to-hand demo)",
        setup=Wh40kSetup(models=models, weapons=weapons, first_player="Orks"),
        commands=[
            Charge(model="gorg", target="varro"),
            Charge(model="snagga", target="varro"),
            Charge(model="zog", target="cato"),
            BreakOff(model="cato"),
            Fight(model="cato"),
            Fight(model="varro", order=("snagga", "gorg")),
            FollowUp(model="gorg", inches=Decimal(2)),
            EndTurn(),
        ],
        dice=DEMO_DICE,
    )


__all__ = ["DEMO_DICE", "RULESET_ID", "demo"]
