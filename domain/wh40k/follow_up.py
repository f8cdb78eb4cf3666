"""Hand-to-Hand Combat, Follow-Up Moves.

"If a model has killed all of its Hand-to-Hand Combat opponents, it may immediately make a
Follow-Up Move, regardless of whose turn it is. When making a Follow-Up Move, the model moves up
to 2" in any direction ... This move can be used to engage another model (or multiple models) in
Hand-to-Hand Combat, but does not apply the Combat Score Modifier for charging." Who may follow
up is ruling follow-up-who; whether a newly engaged pair fights again this phase is ruling
follow-up-fights; whether an enemy with no Weapon Skill value in base contact is one of "its
Hand-to-Hand Combat opponents" is ruling no-ws-opponents. Any command other than the move ends
the chance to make it.
"""

from __future__ import annotations

from decimal import Decimal

from blowbyblow.domain.core import Context, RuleViolation, emit
from blowbyblow.domain.wh40k.combat_round import Gen
from blowbyblow.domain.wh40k.commands import FollowUp
from blowbyblow.domain.wh40k.events import BaseContactLeft, FollowUpAllowed, FollowUpMove
from blowbyblow.domain.wh40k.rulebook import RULE_FOLLOW_UP
from blowbyblow.domain.wh40k.rulings import FOLLOW_UP_FIGHTS, FOLLOW_UP_WHO, NO_WS_OPPONENTS
from blowbyblow.domain.wh40k.state import Wh40kState, require_living

MAX_FOLLOW_UP = Decimal(2)


def opponents(state: Wh40kState, model: str, ctx: Context) -> list[str]:
    """ "Its Hand-to-Hand Combat opponents": every enemy in base contact, or (ruling
    no-ws-opponents = ignored) only those it fights, which have a Weapon Skill value."""
    if ctx.ruling(NO_WS_OPPONENTS) == "ignored":
        return state.hth_opponents(model)
    return state.opponents(model)


def may_follow_up(
    state: Wh40kState, before: Wh40kState, model: str, who: str, ctx: Context
) -> bool:
    """``model`` survived with no opponent left, and every opponent it had before the fight is
    dead (under ruling follow-up-who=killer: slain by ``model`` itself)."""
    if not state.alive(model) or opponents(state, model, ctx):
        return False
    had = opponents(before, model, ctx)
    if not had or not all(not state.alive(o) for o in had):
        return False
    return who != "killer" or all(state.models[o].slain_by == model for o in had)


def allow_follow_ups(
    state: Wh40kState, before: Wh40kState, participants: list[str], ctx: Context
) -> Gen:
    """After the fight: each participant that has killed all its opponents may follow up now.
    ``before`` is the state before the fight. Returns the state."""
    who = ctx.ruling(FOLLOW_UP_WHO)
    for m in participants:
        if not may_follow_up(state, before, m, who, ctx):
            continue
        state = yield from emit(
            FollowUpAllowed(
                rule=RULE_FOLLOW_UP,
                model=m,
                killed=tuple(opponents(before, m, ctx)),
                ruling=f"follow-up-who={who}",
            ),
            Wh40kState,
        )
    return state


def check_follow_up(state: Wh40kState, command: FollowUp) -> None:
    """Only a model that has just killed all its opponents, up to 2", engaging living enemies
    only."""
    require_living(state, command.model, RULE_FOLLOW_UP)
    if command.model not in state.follow_up:
        raise RuleViolation(
            RULE_FOLLOW_UP,
            f"{command.model} may not make a Follow-Up Move now (only immediately after it has "
            "killed all its hand-to-hand opponents)",
        )
    if not Decimal(0) <= command.inches <= MAX_FOLLOW_UP:
        raise RuleViolation(RULE_FOLLOW_UP, f'a Follow-Up Move is up to 2", not {command.inches}"')
    player = state.profile(command.model).player
    for other in command.engage:
        require_living(state, other, RULE_FOLLOW_UP)
        if state.profile(other).player == player:
            raise RuleViolation(RULE_FOLLOW_UP, f"{other} is not an enemy of {command.model}")
    if len(set(command.engage)) != len(command.engage):
        raise RuleViolation(RULE_FOLLOW_UP, "engage lists a model twice")


def follow_up_move(state: Wh40kState, command: FollowUp, ctx: Context) -> Gen:
    """The move, engaging the enemies it names (without the charge bonus); first, under ruling
    no-ws-opponents = ignored, it leaves base contact with the enemies with no Weapon Skill value
    it still touched and does not engage again. Returns the state."""
    left = tuple(o for o in state.opponents(command.model) if o not in command.engage)
    if left:
        state = yield from emit(
            BaseContactLeft(
                rule=f"{RULE_FOLLOW_UP} (ruling no-ws-opponents)", model=command.model, left=left
            ),
            Wh40kState,
        )
    return (
        yield from emit(
            FollowUpMove(
                rule=RULE_FOLLOW_UP,
                model=command.model,
                inches=command.inches,
                engaged=tuple(command.engage),
                fights_this_phase=ctx.ruling(FOLLOW_UP_FIGHTS) == "this-phase",
            ),
            Wh40kState,
        )
    )


__all__ = [
    "MAX_FOLLOW_UP",
    "allow_follow_ups",
    "check_follow_up",
    "follow_up_move",
    "may_follow_up",
    "opponents",
]
