"""The demo battle: a concealed German stack advances from the X2 woods into CC in the X3
building (A4.7) and Ambushes two Russian squads (A11.4), a Partial Kill Reduces one of them
(A11.11), X3 locks in Melee (A11.15); next Player Turn the Russian HS tries to Withdraw from the
Melee (A11.2), which carries on."""

from __future__ import annotations

from typing import Any

from blowbyblow.domain.asl.commands import Advance, AslCommand, Attack, CloseCombat, Withdrawal
from blowbyblow.domain.asl.setup import LocationSetup, Setup, UnitSetup
from blowbyblow.domain.system import Scenario


def _squad(uid: str, side: str, name: str, location: str, **more: Any) -> UnitSetup:
    """A demo squad: 4 FP, Morale 7, Reduced to a 2-4-7 HS."""
    return UnitSetup(
        id=uid,
        side=side,
        kind="squad",
        name=name,
        fp=4,
        morale=7,
        hs_fp=2,
        hs_name="2-4-7",
        location=location,
        **more,
    )


def demo_setup() -> Setup:
    return Setup(
        sides=["German", "Russian"],
        locations=[
            LocationSetup(id="X3", terrain="building", adjacent=["X2", "Y3"]),
            LocationSetup(id="X2", terrain="woods", adjacent=["X3"]),
            LocationSetup(id="Y3", terrain="open", adjacent=["X3"]),
        ],
        units=[
            _squad("g-467a", "German", "4-6-7", "X2", concealed=True),
            UnitSetup(
                id="g-81",
                side="German",
                kind="leader",
                name="8-1",
                fp=0,
                morale=8,
                leadership=-1,
                location="X2",
                stacked_on="g-467a",
                concealed=True,
            ),
            _squad("g-467b", "German", "4-6-7", "X2", concealed=True),
            _squad("r-447a", "Russian", "4-4-7", "X3"),
            _squad("r-447b", "Russian", "4-4-7", "X3", sws=["LMG"]),
        ],
    )


DEMO_DICE: list[int] = [
    # Player Turn 1: the German stack advanced into CC in the X3 building. Ambush drs: German 1 (-2 concealed, -1 leader) = -2,
    # Russian 5: the German Ambushes; Russians resolve after him (A11.32).
    1,
    5,
    # attack 1: g-467a + 8-1 vs r-447a, 5 vs 4 = 1-1 (KN 5), -1 leader -1 Ambush: 3 + 4 = 7 -> 5:
    # Partial Kill, r-447a Reduced to a HS; the German stack loses its "?" (A11.4).
    3,
    4,
    # attack 2: the Reduced r-447a (2 FP) vs g-467a + 8-1 (5): 1-4 (KN 3), +1 Ambush: 5 + 4.
    5,
    4,
    # attack 3: r-447b vs the concealed g-467b: 4 halved = 2 vs 4, 1-2 (KN 4), +1: 6 + 2, no
    # effect; g-467b never attacked, keeps its "?" and is not locked in Melee (A11.15).
    6,
    2,
    # Player Turn 2, Russian CCPh, Melee: r-447a announces Withdrawal to X2.
    # attack 1: r-447b vs g-467a + 8-1, 4 vs 5 = 1-2 (KN 4): 4 + 5, no effect.
    4,
    5,
    # attack 2: g-467a + 8-1 vs the withdrawing HS, 5 vs 2 = 2-1 (KN 7), -1 leader, -2
    # withdrawing +1 (r-447b stands): 6 + 5 = 11 -> 9, no effect: the HS withdraws.
    6,
    5,
]


def demo() -> Scenario[Setup, AslCommand]:
    """Turn 1: the concealed German stack advances into X3 and Ambushes, a Partial Kill Reduces a
    Russian squad, the Russians strike back and X3 locks in Melee. Turn 2: the Russian HS tries
    to Withdraw from the Melee, which carries on."""
    return Scenario[Setup, AslCommand](
        ruleset="asl",
        label="X3: Ambush, Partial Kill, Melee and a Withdrawal attempt",
        setup=demo_setup(),
        commands=[
            Advance(turn=1, attacker="German", units=["g-467a", "g-81", "g-467b"], to="X3"),
            CloseCombat(
                turn=1,
                attacker="German",
                location="X3",
                attacks=[
                    Attack(by=["g-467a", "g-81"], targets=["r-447a"]),
                    Attack(by=["r-447a"], targets=["g-467a"]),
                    Attack(by=["r-447b"], targets=["g-467b"]),
                ],
            ),
            CloseCombat(
                turn=2,
                attacker="Russian",
                location="X3",
                withdrawals=[Withdrawal(unit="r-447a", to="X2")],
                attacks=[
                    Attack(by=["r-447b"], targets=["g-467a"]),
                    Attack(by=["g-467a", "g-81"], targets=["r-447a"]),
                ],
            ),
        ],
        dice=list(DEMO_DICE),
    )
