"""The Turn: each player in turn has a Movement Phase (charges), then a Hand-to-Hand Combat
Phase in which every pair in base contact fights; when it is over the other player's turn
begins.
"""

from __future__ import annotations

from blowbyblow.domain.core import emit
from blowbyblow.domain.wh40k.combat_round import Gen
from blowbyblow.domain.wh40k.events import TurnBegun
from blowbyblow.domain.wh40k.rulebook import RULE_TURN
from blowbyblow.domain.wh40k.state import Wh40kState


def next_player(state: Wh40kState) -> str:
    """The player after the one whose turn it is, in the order of the setup."""
    players = state.players()
    return players[(players.index(state.player) + 1) % len(players)] if players else ""


def begin_next_turn(state: Wh40kState) -> Gen:
    """The other player's turn begins, with its Movement Phase. Returns the state."""
    return (
        yield from emit(
            TurnBegun(rule=RULE_TURN, turn=state.turn + 1, player=next_player(state)),
            Wh40kState,
        )
    )


__all__ = ["begin_next_turn", "next_player"]
