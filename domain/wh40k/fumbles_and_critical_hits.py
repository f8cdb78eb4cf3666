"""Hand-to-Hand Combat, Combat Score Modifiers: Fumbles and Critical Hits.

"When Rolling Attack Dice, each score of 1 represents a Fumble" (+1 to the opponent's Combat
Score); "the first score of 6 has no special effect. Each additional 6 represents a Critical Hit"
(+1 to the model's own). Counted on the final Attack dice, after parries, or on the dice as
rolled (ruling dice-counted).
"""

from __future__ import annotations

from blowbyblow.domain.core import emit
from blowbyblow.domain.wh40k.combat_round import CombatRound, Gen
from blowbyblow.domain.wh40k.events import CriticalHitsCounted, FumblesCounted
from blowbyblow.domain.wh40k.rulebook import RULE_CRITICALS, RULE_FUMBLES
from blowbyblow.domain.wh40k.state import Wh40kState


def count_fumbles(dice: list[int]) -> int:
    """Each 1 rolled is a Fumble."""
    return dice.count(1)


def count_critical_hits(dice: list[int]) -> int:
    """The first 6 has no effect; each further 6 is a Critical Hit."""
    return max(0, dice.count(6) - 1)


def count_dice(state: Wh40kState, rnd: CombatRound, model: str, dice: list[int]) -> Gen:
    """Emits FumblesCounted when ``model`` rolled a 1 and CriticalHitsCounted when it rolled two
    or more 6s. Returns the state."""
    fumbles = count_fumbles(dice)
    if fumbles:
        state = yield from emit(
            FumblesCounted(
                rule=RULE_FUMBLES,
                model=model,
                opponent=rnd.opponent(model),
                dice=tuple(dice),
                fumbles=fumbles,
            ),
            Wh40kState,
        )
    sixes = dice.count(6)
    if sixes >= 2:
        state = yield from emit(
            CriticalHitsCounted(
                rule=RULE_CRITICALS,
                model=model,
                dice=tuple(dice),
                sixes=sixes,
                critical_hits=count_critical_hits(dice),
            ),
            Wh40kState,
        )
    return state


__all__ = ["count_critical_hits", "count_dice", "count_fumbles"]
