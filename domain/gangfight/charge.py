"""Charge! (Actions and Action Points): a model that can see its target rolls its MOV in dice
against a Target Number set by the ground (2+ open, 4+ light terrain, 6+ dense terrain); each
success adds 1" to its normal move (MOV). It moves towards the target; a charge that falls short
still moves its full distance. An enemy then within its threat range gets a free Fight! (Melee
Combat steps 1-6, no action point): close combat begins "via the result of a Charge! Action"
(Combat, Melee Combat). Leaving or crossing enemies' threat ranges gives them Free Strikes, as
any move does.

The table gives the line of sight, the distance to the target when no gap records it, and where
the charge means to end (``to``: the target's gap defaults to base contact)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from blowbyblow.domain.core import Context, RuleViolation, Step, ask, emit
from blowbyblow.domain.gangfight.action_points import (
    action_cost,
    check_can_act,
    check_points,
    spend,
)
from blowbyblow.domain.gangfight.commands import Charge
from blowbyblow.domain.gangfight.dice_pool import Pool, pool_test
from blowbyblow.domain.gangfight.events import ChargeRolled
from blowbyblow.domain.gangfight.melee import (
    Attack,
    check_target,
    rest_of_the_fight,
    strike,
    targets_in_reach,
)
from blowbyblow.domain.gangfight.move import (
    check_gaps,
    check_through,
    free_strikes_on,
    moved,
    strikers,
)
from blowbyblow.domain.gangfight.ranged import distance_to
from blowbyblow.domain.gangfight.rulings import CHARGE_ACTION, CHARGE_WITHIN_REACH
from blowbyblow.domain.gangfight.setup import Inches, Terrain, inches
from blowbyblow.domain.gangfight.state import GangfightState, Gen, fighter, gap, status
from blowbyblow.domain.gangfight.two_weapons import weapons_used

RULE = "GF Charge!"
TERRAIN_TN: dict[Terrain, int] = {"open": 2, "light": 4, "dense": 6}


def charge_cost(ctx: Context) -> int:
    """A Standard Action, or a Special Action (ruling charge-action)."""
    return action_cost(ctx, CHARGE_ACTION)


def needed(state: GangfightState, command: Charge, start: float) -> Inches:
    """How far the charge must go to end where the command says: the ground closed on the
    target, and the most any other gap named changes."""
    fid = command.fighter
    aim = command.to.get(command.target, 0)
    most = start - aim
    for other, new in command.to.items():
        old = gap(state, fid, other)
        if other != command.target and old is not None:
            most = max(most, abs(new - old))
    return inches(most)


def check_charge(state: GangfightState, ctx: Context, command: Charge) -> Inches:
    """A model able to act charging an opposing model in sight, towards it, with sensible gaps
    and weapons and the action points; returns the distance to the target now."""
    fid, target = command.fighter, command.target
    check_can_act(state, fid)
    check_target(state, ctx, fid, target, RULE)
    if not command.line_of_sight:
        raise RuleViolation(RULE, f"{fid} must see {target} to charge it")
    start = distance_to(state, fid, target, command.distance, RULE)
    if start <= fighter(state, fid).threat and ctx.ruling(CHARGE_WITHIN_REACH) == "refused":
        raise RuleViolation(
            RULE,
            f"{target} is already within {fid}'s threat range: Fight! it "
            "(ruling charge-within-reach)",
        )
    aim = command.to.get(target, 0)
    if aim > start:
        raise RuleViolation(RULE, f'a charge closes on {target} ({start}" away), not to {aim}"')
    farthest = 2 * fighter(state, fid).profile.mov  # MOV, and every die a success
    check_gaps(state, fid, farthest, {k: v for k, v in command.to.items() if k != target}, RULE)
    if aim < 0:
        raise RuleViolation(RULE, f"gap to {target} cannot be {aim}")
    check_through(state, fid, command.through)
    weapons_used(state, ctx, fid, command.weapons)
    check_points(state, ctx, fid, charge_cost(ctx))
    return start


def charge_roll(
    state: GangfightState, ctx: Context, command: Charge, start: float
) -> Generator[Step, Any, tuple[GangfightState, ChargeRolled]]:
    """MOV dice against the ground's TN; the charge reaches MOV plus one inch per success."""
    mov = fighter(state, command.fighter).profile.mov
    test = yield from pool_test(
        "charge/roll",
        Pool(base=mov, tn_base=TERRAIN_TN[command.terrain]),
        ctx,
        purpose=f"{command.fighter} charges {command.target}",
    )
    reach = mov + test.successes
    need = needed(state, command, start)
    rolled = ChargeRolled(
        rule=RULE,
        fighter=command.fighter,
        target=command.target,
        terrain=command.terrain,
        distance=inches(start),
        test=test,
        mov=mov,
        reach=reach,
        needed=need,
        reached=need <= reach,
    )
    state = yield from emit(rolled, GangfightState)
    return state, rolled


def free_fight(state: GangfightState, ctx: Context, command: Charge) -> Gen:
    """The free Fight! after the charge on an enemy within the charger's threat range (asked
    "charge/fight" when there are several; the target charged by default), then the rest of
    the fight (ruling fight-attacks)."""
    fid = command.fighter
    if status(state, fid).condition != "active" or status(state, fid).prone:
        return state
    within = targets_in_reach(state, ctx, fid)
    if not within:
        return state
    default = command.target if command.target in within else within[0]
    target = default
    if len(within) > 1:
        target = yield from ask(
            "charge/fight", within, default=default, prompt=f"{fid}: a free Fight! on whom?"
        )
    attack = Attack(
        ctx=ctx,
        attacker=fid,
        target=target,
        weapons=weapons_used(state, ctx, fid, command.weapons),
        kind="fight",
        key="charge/fight",
    )
    state = yield from strike(state, attack)
    return (yield from rest_of_the_fight(state, ctx, attack, "charge/fight"))


def charge(state: GangfightState, ctx: Context, command: Charge) -> Gen:
    """Charge!: the charge roll, the move (to the gaps in ``to`` when the charge reaches that far;
    otherwise its full distance straight at the target, other gaps unchanged), Free Strikes from
    the enemies whose threat range it leaves or crosses, then a free Fight!."""
    fid, target = command.fighter, command.target
    start = check_charge(state, ctx, command)
    state = yield from spend(state, ctx, fid, "Charge!", charge_cost(ctx))
    state, rolled = yield from charge_roll(state, ctx, command, start)
    aim = command.to.get(target, 0)
    if rolled.reached:
        to = {**command.to, target: aim}
        distance = rolled.needed
    else:
        to = {target: max(aim, start - rolled.reach)}
        distance = rolled.reach
    who = strikers(state, ctx, fid, to, command.through)
    state = yield from free_strikes_on(state, ctx, fid, "charge", who)
    if status(state, fid).condition != "active":
        return state
    state = yield from emit(moved(RULE, fid, distance, to), GangfightState)
    return (yield from free_fight(state, ctx, command))
