"""Charging: in the Movement Phase of the player whose turn it is, a model charges into
base-to-base contact with an enemy model; in the Hand-to-Hand Combat that follows it may add the
Combat Score Modifier for charging (ruling charge-bonus, applied in ``combat_score``). The
charge move itself (distance, the path) is the players' business: the rules record who charged
whom, and in which turn.
"""

from __future__ import annotations

from blowbyblow.domain.core import Context, RuleViolation, emit
from blowbyblow.domain.wh40k.combat_round import Gen
from blowbyblow.domain.wh40k.commands import Charge
from blowbyblow.domain.wh40k.events import Charged
from blowbyblow.domain.wh40k.rulebook import RULE_CHARGE
from blowbyblow.domain.wh40k.rulings import BROKEN_CHARGE
from blowbyblow.domain.wh40k.state import Wh40kState, require_living


def check_charge(state: Wh40kState, command: Charge, ctx: Context) -> None:
    """Only the player whose turn it is charges, in the Movement Phase, with a living model
    (unbroken, ruling broken-charge) not already in base contact, at a living enemy model.

    A model in base contact may not charge: the only ways out of Hand-to-Hand Combat are
    Breaking Off and the exception "Robots, Dreadnoughts, Greater Daemons, and Chaos Champions
    riding Juggernauts may move out of Hand-to-Hand Combat in their Movement Phase - and may
    then Charge or Shoot as normal", which would say nothing if any model could."""
    require_living(state, command.model, RULE_CHARGE)
    require_living(state, command.target, RULE_CHARGE)
    charger, target = state.profile(command.model), state.profile(command.target)
    if charger.player == target.player:
        raise RuleViolation(RULE_CHARGE, f"{command.target} is not an enemy of {command.model}")
    if charger.player != state.player:
        raise RuleViolation(
            RULE_CHARGE,
            f"it is {state.player}'s turn; {command.model} ({charger.player}) may not charge",
        )
    if state.phase != "movement":
        raise RuleViolation(
            RULE_CHARGE, "charges are made in the Movement Phase, before hand-to-hand combat"
        )
    if state.models[command.model].broken and ctx.ruling(BROKEN_CHARGE) == "refused":
        raise RuleViolation(
            RULE_CHARGE, f"{command.model} is Broken and may not charge (ruling broken-charge)"
        )
    if state.opponents(command.model):
        raise RuleViolation(
            RULE_CHARGE,
            f"{command.model} is already in hand-to-hand combat with "
            f"{', '.join(state.opponents(command.model))}",
        )


def charge_into_contact(state: Wh40kState, command: Charge) -> Gen:
    """The charger is now in base contact with its target. Returns the state."""
    return (
        yield from emit(
            Charged(rule=RULE_CHARGE, model=command.model, target=command.target, turn=state.turn),
            Wh40kState,
        )
    )


__all__ = ["charge_into_contact", "check_charge"]
