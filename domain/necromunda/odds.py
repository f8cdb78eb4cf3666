"""What the odds count in Necromunda (both books): the tallies, the scale of statuses, and the
rolls whose order the rules ignore.

Order-insensitive: each Hit roll die is a hit or a miss and the hits are numbered in turn (N23 CC
step 2); a Nerve test is the sum of its 2D6. Injury dice are applied in order, so they are not."""

from __future__ import annotations

from blowbyblow.domain.necromunda.events import (
    CoupDeGrace,
    HitRolled,
    SaveRolled,
    StatusChanged,
    WoundRolled,
)
from blowbyblow.domain.system import Count, OddsRules, Tally

ODDS = OddsRules(
    tallies=(
        Tally("hits", (Count(HitRolled, lambda e: int(e.hit), by=lambda e: e.attacker),)),
        Tally("wounds", (Count(WoundRolled, lambda e: int(e.wounded), by=lambda e: e.attacker),)),
        Tally(
            "unsaved", (Count(SaveRolled, lambda e: int(not e.saved), against=lambda e: e.target),)
        ),
        Tally(
            "seriously injured",
            (
                Count(
                    StatusChanged,
                    lambda e: int(e.after == "Prone & Seriously Injured"),
                    against=lambda e: e.fighter,
                ),
            ),
        ),
        Tally(
            "out of action",
            (
                Count(
                    StatusChanged,
                    lambda e: int(e.after == "Out of Action"),
                    against=lambda e: e.fighter,
                ),
            ),
        ),
        Tally("coups de grace", (Count(CoupDeGrace, lambda e: 1, by=lambda e: e.fighter),)),
    ),
    severity={
        "Prone & Pinned": 1,
        "Prone & Seriously Injured": 2,
        "Out of Action": 3,
        "Wrecked": 3,
    },
    flag_severity={"Broken": 1},
    order_insensitive=("hit/*", "*/hit/*", "nerve/*", "*/nerve/*"),
)

__all__ = ["ODDS"]
