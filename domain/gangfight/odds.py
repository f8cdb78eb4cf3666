"""What the odds count in Gangfight: the tallies, the scale of statuses, and the rolls whose order
the rules ignore (every Gangfight roll is a dice pool: its successes and Critical Successes are
counted, GF Dice)."""

from __future__ import annotations

from blowbyblow.domain.gangfight.events import (
    AttackRolled,
    Incapacitated,
    Killed,
    KnockedDown,
    WoundsApplied,
)
from blowbyblow.domain.system import Count, OddsRules, Tally

ODDS = OddsRules(
    tallies=(
        Tally("hits", (Count(AttackRolled, lambda e: e.test.successes, by=lambda e: e.attacker),)),
        Tally(
            "wounds taken",
            (Count(WoundsApplied, lambda e: e.wounds, against=lambda e: e.fighter),),
        ),
        Tally("knocked down", (Count(KnockedDown, lambda e: 1, against=lambda e: e.fighter),)),
        Tally("incapacitated", (Count(Incapacitated, lambda e: 1, against=lambda e: e.fighter),)),
        Tally("kills", (Count(Killed, lambda e: 1, against=lambda e: e.fighter),)),
    ),
    severity={"prone": 1, "incapacitated": 2, "dead": 3},
    order_insensitive=("*",),
)

__all__ = ["ODDS"]
