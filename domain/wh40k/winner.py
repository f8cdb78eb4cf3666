"""Hand-to-Hand Combat, Combat Rounds, step 3: Determine the Winner.

"The model with the highest Combat Score is declared the winner of the Combat Round. The winner
scores a number of hits equal to the difference between Combat Scores. If Combat Scores are tied,
the model with the highest Initiative wins and scores a single hit. If Initiative is also tied,
the Combat Round is a stalemate and no hits are scored."
"""

from __future__ import annotations

from dataclasses import dataclass

from blowbyblow.domain.core import emit
from blowbyblow.domain.wh40k.combat_round import CombatRound, Gen
from blowbyblow.domain.wh40k.events import RoundWon, Stalemate
from blowbyblow.domain.wh40k.rulebook import RULE_WINNER
from blowbyblow.domain.wh40k.state import Wh40kState


@dataclass(frozen=True)
class Outcome:
    """Who won a Combat Round and how many hits it scored."""

    winner: str
    loser: str
    hits: int
    by_initiative: bool


def outcome(state: Wh40kState, models: tuple[str, str], scores: dict[str, int]) -> Outcome | None:
    """The round's outcome, None for a stalemate."""
    a, b = models
    ia, ib = state.profile(a).i, state.profile(b).i
    if scores[a] != scores[b]:
        winner, loser = (a, b) if scores[a] > scores[b] else (b, a)
        return Outcome(winner, loser, scores[winner] - scores[loser], by_initiative=False)
    if ia == ib:
        return None
    winner, loser = (a, b) if ia > ib else (b, a)
    return Outcome(winner, loser, 1, by_initiative=True)


def determine_winner(state: Wh40kState, rnd: CombatRound, scores: dict[str, int]) -> Gen:
    """Emits RoundWon or Stalemate. Returns (state, Outcome or None)."""
    a, b = rnd.models
    won = outcome(state, rnd.models, scores)
    if won is None:
        state = yield from emit(
            Stalemate(
                rule=RULE_WINNER, models=(a, b), score=scores[a], initiative=state.profile(a).i
            ),
            Wh40kState,
        )
        return state, None
    state = yield from emit(
        RoundWon(
            rule=RULE_WINNER,
            winner=won.winner,
            loser=won.loser,
            winner_score=scores[won.winner],
            loser_score=scores[won.loser],
            winner_initiative=state.profile(won.winner).i,
            loser_initiative=state.profile(won.loser).i,
            by_initiative=won.by_initiative,
            hits=won.hits,
        ),
        Wh40kState,
    )
    return state, won


__all__ = ["Outcome", "determine_winner", "outcome"]
