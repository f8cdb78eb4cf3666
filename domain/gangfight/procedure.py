"""Which rule steps each command runs."""

from __future__ import annotations

from blowbyblow.domain.core import Context, Procedure, RuleViolation
from blowbyblow.domain.gangfight.action_points import new_turn
from blowbyblow.domain.gangfight.area_of_effect import area_attack
from blowbyblow.domain.gangfight.charge import charge
from blowbyblow.domain.gangfight.commands import (
    AreaAttack,
    Charge,
    Fall,
    Fight,
    FinesseAttack,
    GangfightCommand,
    Move,
    NewTurn,
    PowerAttack,
    Reload,
    Shoot,
    Slam,
    StandUp,
    TakeFreeStrike,
    Trample,
)
from blowbyblow.domain.gangfight.falling import fall
from blowbyblow.domain.gangfight.free_strikes import take_free_strike
from blowbyblow.domain.gangfight.knocked_down import stand_up
from blowbyblow.domain.gangfight.melee import fight
from blowbyblow.domain.gangfight.move import move
from blowbyblow.domain.gangfight.ranged import reload, shoot
from blowbyblow.domain.gangfight.slam import slam, trample
from blowbyblow.domain.gangfight.special_attacks import special_attack
from blowbyblow.domain.gangfight.state import GangfightState


def procedure(state: GangfightState, command: GangfightCommand, ctx: Context) -> Procedure:
    match command:
        case Fight():
            yield from fight(state, ctx, command)
        case PowerAttack() | FinesseAttack():
            yield from special_attack(state, ctx, command)
        case Slam():
            yield from slam(state, ctx, command)
        case Trample():
            yield from trample(state, ctx, command)
        case TakeFreeStrike():
            yield from take_free_strike(state, ctx, command)
        case Move():
            yield from move(state, ctx, command)
        case StandUp():
            yield from stand_up(state, ctx, command)
        case Fall():
            yield from fall(state, ctx, command)
        case NewTurn():
            yield from new_turn(state, ctx)
        case Shoot():
            yield from shoot(state, ctx, command)
        case AreaAttack():
            yield from area_attack(state, ctx, command)
        case Charge():
            yield from charge(state, ctx, command)
        case Reload():
            yield from reload(state, ctx, command)
        case _:  # pragma: no cover - the command union is closed
            raise RuleViolation("command", f"gangfight does not know {command!r}")
