"""The demo duel (``bxb demo --ruleset duel``): Ser Aldric against Mira the Swift.

It shows every rule step of the game: a hit (D2.1), a Guard (D1.3) and a tie it decides (the
ruling ``ties``), a telling blow that knocks Aldric Down (D3.2, a player's choice), rising (D1.4),
a natural 1 (D2.3), and a telling blow of two Wounds that puts Mira out of action (D4.1).
"""

from __future__ import annotations

from blowbyblow.domain.system import Scenario

from bxb_duel.commands import DuelCommand, Guard, Rise, Strike
from bxb_duel.setup import DuelSetup, Fighter

# copy me: physical dice in the order the rules ask for them (or a ``seed`` for seeded dice).
DEMO_DICE = [
    4,  # Aldric strikes: 4 +1 Skill = 5 beats Mira's Defence 4, a hit
    4,  # Aldric strikes: 4 +1 Skill -1 (Mira on Guard) = 4, a tie: the defender's by default
    6,  # Mira strikes: a natural 6, a telling blow
    1,  # Mira strikes: a natural 1 always misses
    6,  # Aldric strikes: a telling blow, two Wounds: Mira is out of action
]

# The answers to the rules' questions, by key: "c<command number>/<the ask's key>".
DEMO_CHOICES = {"c4/telling-blow": "knock-down"}

FIGHTERS = (
    Fighter(id="aldric", name="Ser Aldric", side="Lions", skill=1, defence=4, wounds=3),
    Fighter(id="mira", name="Mira the Swift", side="Wolves", skill=0, defence=4, wounds=3),
)


def demo() -> Scenario[DuelSetup, DuelCommand]:
    return Scenario[DuelSetup, DuelCommand](
        ruleset="duel",
        label="Ser Aldric against Mira the Swift (Duel demo)",
        setup=DuelSetup(fighters=FIGHTERS, first="aldric"),
        commands=[
            Strike(attacker="aldric", target="mira"),
            Guard(fighter="mira"),
            Strike(attacker="aldric", target="mira"),
            Strike(attacker="mira", target="aldric"),
            Rise(fighter="aldric"),
            Strike(attacker="mira", target="aldric"),
            Strike(attacker="aldric", target="mira"),
        ],
        dice=DEMO_DICE,
        choices=DEMO_CHOICES,
    )
