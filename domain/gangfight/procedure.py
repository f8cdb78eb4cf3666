"""Which rule steps each command runs."""

from __future__ import annotations

from functools import partial
from typing import Protocol

from blowbyblow.domain.core import Context, Procedure, RuleViolation
from blowbyblow.domain.gangfight.action_points import new_turn
from blowbyblow.domain.gangfight.actions import fight, move, stand_up
from blowbyblow.domain.gangfight.commands import (
    Fall,
    Fight,
    FinesseAttack,
    GangfightCommand,
    Move,
    NewTurn,
    PowerAttack,
    Slam,
    StandUp,
    TakeFreeStrike,
    Trample,
)
from blowbyblow.domain.gangfight.falling import fall
from blowbyblow.domain.gangfight.melee import Gen, check_target
from blowbyblow.domain.gangfight.special import (
    free_strike,
    free_strike_refusal,
    slam,
    special_attack,
    trample,
)
from blowbyblow.domain.gangfight.state import GangfightState, fighter
from blowbyblow.domain.gangfight.weapons import weapons_used


class Attack(Protocol):
    """A one-target attack: Fight!, a Power or Finesse Attack, Slam!."""

    def __call__(
        self,
        state: GangfightState,
        ctx: Context,
        *,
        attacker: str,
        target: str,
        weapons: tuple[str, ...],
    ) -> Gen: ...


ATTACKS: dict[type[GangfightCommand], Attack] = {
    Fight: fight,
    PowerAttack: partial(special_attack, kind="power"),
    FinesseAttack: partial(special_attack, kind="finesse"),
    Slam: slam,
}


def procedure(state: GangfightState, command: GangfightCommand, ctx: Context) -> Procedure:
    match command:
        case Fight() | PowerAttack() | FinesseAttack() | Slam():
            yield from ATTACKS[type(command)](
                state,
                ctx,
                attacker=command.attacker,
                target=command.target,
                weapons=command.weapons,
            )
        case Trample():
            yield from trample(state, ctx, attacker=command.attacker, weapons=command.weapons)
        case TakeFreeStrike():
            fighter(state, command.striker)
            check_target(state, command.striker, command.target, ctx.rulings)
            weapons_used(state, command.striker, command.weapons)
            refusal = free_strike_refusal(state, ctx, command.striker, command.target)
            if refusal:
                raise RuleViolation("GF Free Strikes", refusal)
            yield from free_strike(
                state,
                ctx,
                key="free-strike",
                striker=command.striker,
                target=command.target,
                reason=command.reason,
                weapons=command.weapons,
                offer=False,
            )
        case Move():
            yield from move(
                state,
                ctx,
                fid=command.fighter,
                inches=command.inches,
                to=dict(command.to),
                through=command.through,
            )
        case StandUp():
            yield from stand_up(state, ctx, command.fighter)
        case Fall():
            fighter(state, command.fighter)
            yield from fall(state, ctx, command.fighter, command.inches)
        case NewTurn():
            yield from new_turn(state, ctx)
        case _:  # pragma: no cover - the command union is closed
            raise RuleViolation("command", f"gangfight does not know {command!r}")
