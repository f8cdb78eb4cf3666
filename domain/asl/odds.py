"""What the odds count in ASL Close Combat: the tallies and the scale of statuses. No roll is
order-insensitive: the colored die of a CC DR matters on its own (A11.13), and a Random
Selection is one dr per unit."""

from __future__ import annotations

from blowbyblow.domain.asl.events import (
    AmbushDeclared,
    CasualtyReduced,
    PartialKill,
    UnitCaptured,
    UnitEliminated,
)
from blowbyblow.domain.system import Count, OddsRules, Tally


def _first_eligible(e: PartialKill) -> str:
    return e.eligible[0] if e.eligible else ""


ODDS = OddsRules(
    tallies=(
        Tally("kills", (Count(UnitEliminated, lambda e: 1, against=lambda e: e.unit),)),
        Tally("Partial Kills", (Count(PartialKill, lambda e: 1, against=_first_eligible),)),
        Tally(
            "casualty reductions", (Count(CasualtyReduced, lambda e: 1, against=lambda e: e.unit),)
        ),
        Tally("captures", (Count(UnitCaptured, lambda e: 1, by=lambda e: e.guard),)),
        Tally("ambushes", (Count(AmbushDeclared, lambda e: 1, by=lambda e: e.ambusher),)),
    ),
    severity={"pinned": 1, "broken": 1, "prisoner": 3, "eliminated": 3},
)

__all__ = ["ODDS"]
