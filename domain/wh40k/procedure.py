"""Which rule steps each command of 40K 2nd edition hand-to-hand combat runs.

- ``charge``: Charging (Movement Phase).
- ``breakoff``: Breaking Off, the declaration before the model's Combat Round.
- ``leavecombat``: Breaking Off, its last paragraph: a Robot, a Dreadnought, a Greater Daemon or
  a Juggernaut rider moves out of Hand-to-Hand Combat in its Movement Phase.
- ``fight``: Who Fights (the combat the model is in), then its Combat Rounds: one for a
  one-on-one fight, a series of duels for a Multiple Combat; then Breaking Off (the escape of a
  survivor) and Follow-Up Moves (who may make one).
- ``followup``: the Follow-Up Move.
- ``endturn``: Who Fights (combat is mandatory), then the next player's turn.

Every illegal command raises RuleViolation before anything is yielded.
"""

from __future__ import annotations

from blowbyblow.domain.core import Context, LastAnswer, Procedure, RuleViolation
from blowbyblow.domain.wh40k.attack_dice import roll_attack_dice
from blowbyblow.domain.wh40k.breaking_off import (
    check_break_off,
    declare_break_off,
    escape_survivors,
)
from blowbyblow.domain.wh40k.charging import charge_into_contact, check_charge
from blowbyblow.domain.wh40k.combat_round import CombatRound, Dice, Gen, begin_round
from blowbyblow.domain.wh40k.combat_score import combat_score
from blowbyblow.domain.wh40k.commands import (
    BreakOff,
    Charge,
    EndTurn,
    Fight,
    FollowUp,
    LeaveCombat,
    Wh40kCommand,
)
from blowbyblow.domain.wh40k.follow_up import allow_follow_ups, check_follow_up, follow_up_move
from blowbyblow.domain.wh40k.fumbles_and_critical_hits import count_dice
from blowbyblow.domain.wh40k.hits import resolve_hits
from blowbyblow.domain.wh40k.leaving_combat import check_leave_combat, leave_combat
from blowbyblow.domain.wh40k.multiple_combat import (
    begin_multiple_combat,
    choose_order,
    duels,
    first_round,
)
from blowbyblow.domain.wh40k.parrying import parry
from blowbyblow.domain.wh40k.rulebook import RULE_GAME
from blowbyblow.domain.wh40k.rulings import DICE_COUNTED
from blowbyblow.domain.wh40k.state import Wh40kState
from blowbyblow.domain.wh40k.turn import begin_next_turn
from blowbyblow.domain.wh40k.who_fights import Combat, check_end_turn, find_combat
from blowbyblow.domain.wh40k.winner import determine_winner

# --- one Combat Round ---------------------------------------------------------------------------


def combat_round(state: Wh40kState, rnd: CombatRound) -> Gen:
    """Combat Rounds: both models roll Attack dice (step 1), parries are used, Fumbles and
    Critical Hits counted, both Combat Scores worked out (step 2), the winner determined (step 3)
    and its hits resolved (step 4). Returns the state."""
    state = yield from begin_round(state, rnd)
    dice: Dice = {}
    for m, _ in rnd.sides():
        state, dice[m] = yield from roll_attack_dice(state, rnd, m)
    # Fumbles and Critical Hits on the final dice or the dice as rolled (ruling dice-counted):
    # a copy as rolled only when it is read (parries change ``dice`` in place), so that the die
    # a parry turns aside is not held on where nothing reads it (docs/odds.md).
    counted = dice
    if rnd.ctx.ruling(DICE_COUNTED) == "as-rolled":
        counted = {m: list(d) for m, d in dice.items()}
    state = yield from parry(state, rnd, dice)
    for m, _ in rnd.sides():
        state = yield from count_dice(state, rnd, m, counted[m])
    scores: dict[str, int] = {}
    for m, _ in rnd.sides():
        state, scores[m] = yield from combat_score(state, rnd, m, dice, counted)
    state, won = yield from determine_winner(state, rnd, scores)
    if won is not None and won.hits > 0:
        state = yield from resolve_hits(state, rnd, won.winner, won.hits)
    return state


# --- the commands -------------------------------------------------------------------------------


def charge(state: Wh40kState, command: Charge, ctx: Context) -> Procedure:
    check_charge(state, command, ctx)
    yield from charge_into_contact(state, command)


def break_off(state: Wh40kState, command: BreakOff, ctx: Context) -> Procedure:
    check_break_off(state, command.model)
    yield from declare_break_off(state, command.model)


def leave(state: Wh40kState, command: LeaveCombat, ctx: Context) -> Procedure:
    check_leave_combat(state, command)
    yield from leave_combat(state, command)


def multiple_combat(state: Wh40kState, lone: str, combat: Combat, ctx: Context) -> Gen:
    """Multiple Combat against ``lone``: the order of the duels (the command's, else asked),
    then each duel while the lone model lives. Returns (state, the participants)."""
    order = yield from choose_order(lone, combat.models, combat.order)
    state = yield from begin_multiple_combat(state, lone, order)
    for rnd in duels(lone, order, ctx, first_round(state, lone, ctx)):
        if not state.alive(lone):
            break
        state = yield from combat_round(state, rnd)
    return state, [*order, lone]


# The last combat found (``LastAnswer``): the odds run one command from one state hundreds of
# times, and finding its combat again was a twenty-fifth of each sample of the second fight.
_found: LastAnswer[Combat] = LastAnswer()


def fight(state: Wh40kState, command: Fight, ctx: Context) -> Procedure:
    model, order = command.model, command.order
    combat = _found(lambda: find_combat(state, model, order), state, model, order)
    before = state
    if combat.lone is None:
        a, b = combat.models
        participants = [a, b]
        state = yield from combat_round(state, CombatRound(models=(a, b), duel=0, ctx=ctx))
    else:
        state, participants = yield from multiple_combat(state, combat.lone, combat, ctx)
    state = yield from escape_survivors(state, participants)
    yield from allow_follow_ups(state, before, participants, ctx)


def follow_up(state: Wh40kState, command: FollowUp, ctx: Context) -> Procedure:
    check_follow_up(state, command)
    yield from follow_up_move(state, command, ctx)


def end_turn(state: Wh40kState, command: EndTurn, ctx: Context) -> Procedure:
    check_end_turn(state)
    yield from begin_next_turn(state)


def procedure(state: Wh40kState, command: Wh40kCommand, ctx: Context) -> Procedure:
    """The procedure of ``command``."""
    if isinstance(command, Charge):
        return charge(state, command, ctx)
    if isinstance(command, BreakOff):
        return break_off(state, command, ctx)
    if isinstance(command, LeaveCombat):
        return leave(state, command, ctx)
    if isinstance(command, Fight):
        return fight(state, command, ctx)
    if isinstance(command, FollowUp):
        return follow_up(state, command, ctx)
    if isinstance(command, EndTurn):
        return end_turn(state, command, ctx)
    raise RuleViolation(RULE_GAME, f"not a 40K 2nd edition command: {command!r}")


__all__ = ["combat_round", "procedure"]
