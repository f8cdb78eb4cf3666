"""Which rule steps each command runs (D1.2: a turn is one thing, then the turn passes).

A procedure is a generator: it yields dice requests (``roll``), questions to a player (``ask``)
and rule-step events (``emit``); the engine answers, folds each event into the state at once and
records everything. It never rolls, reads a clock or asks anyone itself.
"""

from __future__ import annotations

from typing import assert_never

from blowbyblow.domain.core import Context, Procedure

from bxb_duel.commands import DuelCommand, Guard, Rise, Strike
from bxb_duel.state import DuelState
from bxb_duel.strike import strike
from bxb_duel.turns import check_turn, pass_turn, rise, take_guard


def procedure(state: DuelState, command: DuelCommand, ctx: Context) -> Procedure:
    # copy me: check what every command needs first, then one step module per command.
    check_turn(state, command)
    match command:
        case Strike():
            state = yield from strike(state, command, ctx)
        case Guard():
            state = yield from take_guard(state, command)
        case Rise():
            state = yield from rise(state, command)
        case _:
            assert_never(command)
    yield from pass_turn(state)
