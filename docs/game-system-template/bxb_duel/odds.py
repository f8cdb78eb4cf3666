"""What the odds count in Duel (``bxb odds``, ``bxb luck``), beyond what every system gets (each
fighter's status and Wounds lost, each event type): the tallies, in the players' words, and how
bad each status is."""

from __future__ import annotations

from blowbyblow.domain.system import Count, OddsRules, Tally

from bxb_duel.events import HitRolled, KnockedDown, OutOfAction, WoundsLost

# copy me: one Tally per thing players count, each typed against your own events. ``by`` names
# the fighter (or side) that scored it; ``against``, the one it befell (the other side's then).
# ``severity`` ranks the statuses of ``view`` (0 unharmed, 3 out of the fight); a roll whose dice
# count only as a multiset (a pool of successes) may be listed in ``order_insensitive``.
ODDS = OddsRules(
    tallies=(
        Tally("hits", (Count(HitRolled, lambda e: int(e.hit), by=lambda e: e.attacker),)),
        Tally("wounds", (Count(WoundsLost, lambda e: e.wounds, by=lambda e: e.by),)),
        Tally("knock-downs", (Count(KnockedDown, lambda e: 1, by=lambda e: e.by),)),
        Tally("wins", (Count(OutOfAction, lambda e: 1, by=lambda e: e.by),)),
    ),
    severity={"Down": 1, "out of action": 3},
)
