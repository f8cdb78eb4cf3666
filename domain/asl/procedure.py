"""The CC of one Location in a CCPh (one ``closecombat`` command), in the order of chapter A11:

1. A11.12 the CC begins; A11.6 the PAATC of units that advanced into an enemy AFV's Location.
2. A11.19 Dummies removed, concealed units reveal their strength; A11.52 an unarmed vehicle
   alone with enemy Infantry is captured.
3. A11.2 Withdrawal from Melee announced, ATTACKER first (A11.16: broken units in Melee must).
4. A11.4 Ambush status drs (not when reinforcing a Melee); A11.41 Ambush Withdrawal before CC.
5. A11.12 designation (ATTACKER, then DEFENDER) and resolution: simultaneous (A11.1, A11.12),
   or sequential (A11.3) for a vehicle (A11.31), an Ambush (A11.32) or prisoners (A11.33), the
   higher number taking precedence (A11.34); A11.22 Infiltration suspends simultaneity.
6. A11.41 Ambush Withdrawal after CC, A11.8 Street Fighters return, A11.2 withdrawals completed
   (A11.21: carrying only the IPC), A11.16 Failure to Rout, A11.52 a vehicle whose Passengers
   are all captured, A11.15 Melee.

Everything the rules refuse is refused before the first event (``legal.validate``).

Between phases, ``advance``, ``move`` and ``restack`` (``movement``) and ``reactionfire``
(``reaction``) record how units came into a Location, which steps 4 (A11.4) and 5 (A11.15:
units reinforcing a Melee must attack) ask about.
"""

from __future__ import annotations

from blowbyblow.domain.asl import capture, withdrawal
from blowbyblow.domain.asl.ambush import ambush_possible, ambush_step
from blowbyblow.domain.asl.commands import (
    Advance,
    AslCommand,
    CloseCombat,
    FireIntoMelee,
    Move,
    ReactionFire,
    Restack,
)
from blowbyblow.domain.asl.concealment import reveal_strength
from blowbyblow.domain.asl.context import CCContext
from blowbyblow.domain.asl.events import CloseCombatEnded, CloseCombatPhaseBegun
from blowbyblow.domain.asl.fire import fire_into_melee
from blowbyblow.domain.asl.legal import validate
from blowbyblow.domain.asl.melee import disrupted_staying, failure_to_rout, melee_step
from blowbyblow.domain.asl.movement import advance, move, restack
from blowbyblow.domain.asl.reaction import reaction_fire
from blowbyblow.domain.asl.sequence import resolve
from blowbyblow.domain.asl.state import State, other_side
from blowbyblow.domain.asl.vehicles import paatc
from blowbyblow.domain.core import Context, LastAnswer, Procedure, emit

BetweenPhases = Advance | Move | Restack | ReactionFire | FireIntoMelee


def procedure(state: State, command: AslCommand, ctx: Context) -> Procedure:
    """A ``closecombat`` as above; the commands between phases by their own modules, each
    validated first (``legal.validate``)."""
    if isinstance(command, CloseCombat):
        return close_combat(state, command, ctx)
    validate(state, command, ctx)
    return between_phases(state, command, ctx)


def between_phases(state: State, command: BetweenPhases, ctx: Context) -> Procedure:
    """A command of the MPh or APh, already validated: the CX counters that rest as its Player
    Turn begins (ruling withdrawal-cx), then the command."""
    state = yield from withdrawal.rest_cx(state, command.turn, command.attacker, ctx)
    if isinstance(command, Advance):
        yield from advance(state, command, ctx)
    elif isinstance(command, Move):
        yield from move(state, command, ctx)
    elif isinstance(command, Restack):
        yield from restack(state, command, ctx)
    elif isinstance(command, FireIntoMelee):
        yield from fire_into_melee(state, command)
    else:
        yield from reaction_fire(state, command, ctx)


# The last close combat found legal (``LastAnswer``): checking it again was a tenth of each of
# the odds' runs.
_legal: LastAnswer[None] = LastAnswer()


def close_combat(state: State, command: CloseCombat, ctx: Context) -> Procedure:
    cc = CCContext.of(ctx, command)
    _legal(lambda: validate(state, command, cc), state, command, cc)
    state = yield from withdrawal.rest_cx(state, command.turn, command.attacker, ctx)
    loc = command.location
    lock = state.melee.get(loc)
    state = yield from emit(
        CloseCombatPhaseBegun(
            rule="A11.12",
            turn=command.turn,
            attacker=command.attacker,
            defender=other_side(state, command.attacker),
            location=loc,
            in_melee=lock is not None,
            melee_since=lock.since if lock else None,
        ),
        State,
    )
    state = yield from paatc(state, command)
    state = yield from reveal_strength(state, loc)
    state = yield from capture.alone_with_enemy_infantry(state, cc)
    state, unable = yield from withdrawal.announce(state, command)
    unable += disrupted_staying(state, cc)
    if ambush_possible(state, cc, command.ambush_possible):
        state = yield from ambush_step(state, cc)
    state = yield from withdrawal.ambush_withdrawal(state, cc, "before")
    state = yield from resolve(state, command, cc)
    state = yield from withdrawal.ambush_withdrawal(state, cc, "after")
    state = yield from withdrawal.street_fighters_return(state, loc)
    state = yield from withdrawal.complete(state, command)
    state = yield from failure_to_rout(state, unable, loc)
    state = yield from capture.passengers_captured(state, cc)
    state = yield from melee_step(state, cc)
    yield from emit(CloseCombatEnded(rule="A11.12", location=loc, turn=command.turn), State)
