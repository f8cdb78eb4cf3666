"""What the odds count in Warhammer 40,000 2nd edition hand-to-hand combat: the tallies, the scale
of statuses, and the rolls whose order the rules ignore.

Order-insensitive: of the Attack dice only the highest, the 1s (fumbles) and the 6s (critical
hits) count, and a parry re-rolls the highest; breaking off moves 2D6".

Choices keyed by numbers that are no labels: a parry's number (``<pair>/parry/<parrier>/<n>``
and its ``/response``) is its place in the round. Parrying: "For every weapon a model has with
the Parry rule, it can turn aside one attack during each Combat Round"; the n-th parry is offered
only once the n-1-th was used, and no more than the parries kept (``parrying.parry``'s loop reads
n). The n-th duel's pick (``order/<n>``) is its place in the series (Multiple Combat: "The
player whose models outnumber the lone enemy may choose the order in which the models fight")."""

from __future__ import annotations

from blowbyblow.domain.system import Count, OddsRules, Tally
from blowbyblow.domain.wh40k.events import FumblesCounted, HitsScored, ModelSlain, WoundsLost

ODDS = OddsRules(
    tallies=(
        Tally("hits", (Count(HitsScored, lambda e: e.hits, by=lambda e: e.winner),)),
        Tally("wounds lost", (Count(WoundsLost, lambda e: e.damage, against=lambda e: e.model),)),
        Tally("kills", (Count(ModelSlain, lambda e: 1, by=lambda e: e.by),)),
        Tally("fumbles", (Count(FumblesCounted, lambda e: e.fumbles, by=lambda e: e.model),)),
    ),
    severity={"Broken": 1, "slain": 3},
    flag_severity={"Broken": 1},
    order_insensitive=("*/attack/*", "breakoff/*"),
    unlabelled=("*/parry/*", "order/*"),
)

__all__ = ["ODDS"]
