"""Hand-to-Hand Combat, Multiple Combat.

"When two or more friendly models are in base-to-base contact with an enemy model ... a Multiple
Combat is resolved as a series of one-on-one duels. The player whose models outnumber the lone
enemy may choose the order in which the models fight. If the outnumbered model survives the first
Combat Round, the opposing player gains +1 Attack Dice for each subsequent Combat Round (+1 on
round 2, +2 on round 3, and so on)." If the lone model dies, the duels left are not fought.
Whether the count goes on in the next phase is ruling multiple-combat-rounds.
"""

from __future__ import annotations

from blowbyblow.domain.core import Context, ask, emit
from blowbyblow.domain.wh40k.combat_round import CombatRound, Gen
from blowbyblow.domain.wh40k.events import MultipleCombatBegun
from blowbyblow.domain.wh40k.rulebook import RULE_MULTIPLE
from blowbyblow.domain.wh40k.rulings import MULTIPLE_COMBAT_ROUNDS
from blowbyblow.domain.wh40k.state import Wh40kState


def choose_order(lone: str, opponents: tuple[str, ...], given: tuple[str, ...]) -> Gen:
    """The outnumbering player chooses the order of the duels: the command's ``order``, else
    ask ``order/<n>`` for each place (default: contact order). Returns the order."""
    if given:
        return list(given)
    left = list(opponents)
    order: list[str] = []
    n = 1
    while len(left) > 1:
        pick = yield from ask(
            f"order/{n}",
            tuple(left),
            default=left[0],
            prompt=f"Multiple Combat against {lone}: which model fights duel {n}?",
        )
        order.append(pick)
        left.remove(pick)
        n += 1
    order += left
    return order


def begin_multiple_combat(state: Wh40kState, lone: str, order: list[str]) -> Gen:
    """Records the order chosen by the outnumbering player. Returns the state."""
    return (
        yield from emit(
            MultipleCombatBegun(
                rule=RULE_MULTIPLE,
                lone=lone,
                order=tuple(order),
                outnumbering_player=state.profile(order[0]).player,
            ),
            Wh40kState,
        )
    )


def first_round(state: Wh40kState, lone: str, ctx: Context) -> int:
    """The rounds of ``lone``'s Multiple Combat already fought in earlier phases, which the count
    goes on from (ruling multiple-combat-rounds=continue); 0 otherwise."""
    if ctx.ruling(MULTIPLE_COMBAT_ROUNDS) != "continue":
        return 0
    return state.multiple_rounds.get(lone, 0)


def duels(lone: str, order: list[str], ctx: Context, first: int = 0) -> list[CombatRound]:
    """The Combat Rounds of the series, the outnumbering model first in each: round k gives it
    k - 1 extra Attack dice (``CombatRound.extra_dice``); the rounds are numbered from
    ``first`` + 1."""
    return [
        CombatRound(models=(other, lone), duel=first + k, ctx=ctx)
        for k, other in enumerate(order, 1)
    ]


__all__ = ["begin_multiple_combat", "choose_order", "duels", "first_round"]
