"""Slam! (Combat): Large or Huge models may Slam! a model of the same size or larger (resolved
like a Power Attack whose successes also wound; a miss gives the target a Free Strike), and
Trample every smaller model within their threat range (+1 DEF each; lowering the Target Number
costs one die per model; a failed Trample gives that model a Free Strike)."""

from __future__ import annotations

import dataclasses
from collections.abc import Generator
from typing import Any

from blowbyblow.domain.core import Context, Modifier, RuleViolation, Step, emit, roll
from blowbyblow.domain.gangfight.action_points import (
    check_can_act,
    check_points,
    special_cost,
    spend,
)
from blowbyblow.domain.gangfight.commands import Slam, Trample
from blowbyblow.domain.gangfight.dice_pool import ask_count, complete, plan
from blowbyblow.domain.gangfight.events import (
    PoolTest,
    Slammed,
    SlamTreatedAsTrample,
    Trampled,
)
from blowbyblow.domain.gangfight.free_strikes import Provoked, free_strike
from blowbyblow.domain.gangfight.melee import (
    Attack,
    attack_pool,
    attack_roll,
    attack_rolled,
    check_melee,
    check_threat_range,
    inflict_wounds,
)
from blowbyblow.domain.gangfight.move import ahead, check_action_movement, move_on
from blowbyblow.domain.gangfight.rulings import TRAMPLE_FRIENDS, TRAMPLE_ROLL
from blowbyblow.domain.gangfight.setup import Size, Weapon, size_rank
from blowbyblow.domain.gangfight.special_attacks import knock_back
from blowbyblow.domain.gangfight.state import GangfightState, Gen, fighter, gap, status
from blowbyblow.domain.gangfight.two_weapons import two_weapon_bonus, weapons_used

SLAM = "GF Slam!"
TRAMPLE = "GF Trample"


def may_slam(size: Size) -> bool:
    """GF Slam!: only Large or Huge models may Slam! or Trample."""
    return size_rank(size) >= size_rank("large")


def check_big(state: GangfightState, fid: str, what: str) -> None:
    """GF Slam!: only Large or Huge models may Slam! or Trample."""
    size = fighter(state, fid).size
    if not may_slam(size):
        raise RuleViolation(SLAM, f"{fid} is {size}; only Large or Huge models may {what}")


# --- Slam! ------------------------------------------------------------------------------------


def slam_modifiers(
    attacker_size: Size, target_size: Size
) -> tuple[tuple[Modifier, ...], tuple[Modifier, ...]]:
    """GF Slam!: same size, no modifiers; attacking a larger model, -1 ATT and the target +1
    DEF. Returns (pool modifiers, DEF modifiers)."""
    if size_rank(attacker_size) < size_rank(target_size):
        return (
            (Modifier(value=-1, cause="Slam! on a larger model", rule=SLAM),),
            (Modifier(value=1, cause="Slammed by a smaller model", rule=SLAM),),
        )
    return (), ()


def slam_as_trample(state: GangfightState, ctx: Context, command: Slam) -> Gen:
    """GF Slam!: a Slam! on a smaller model is treated as a Trample, checked as both."""
    attacker, target = command.attacker, command.target
    cost = special_cost(ctx)
    parts = (command.approach, command.follow_through)
    check_action_movement(state, attacker, parts, TRAMPLE)
    there = ahead(state, attacker, command.approach)
    check_melee(there, ctx, attacker, target)
    weapons_used(state, ctx, attacker, command.weapons)
    trample_targets(there, ctx, attacker)
    check_points(state, ctx, attacker, cost)
    state = yield from emit(
        SlamTreatedAsTrample(
            rule=SLAM,
            attacker=attacker,
            target=target,
            attacker_size=fighter(state, attacker).size,
            target_size=fighter(state, target).size,
        ),
        GangfightState,
    )
    instead = Trample(
        attacker=attacker,
        weapons=command.weapons,
        approach=command.approach,
        follow_through=command.follow_through,
    )
    return (yield from trample(state, ctx, instead))


def check_slam(state: GangfightState, ctx: Context, command: Slam) -> tuple[Weapon, ...]:
    """GF Slam! (after its approach): the target within threat range, the action points, the
    weapons; the approach and follow-through within MOV."""
    attacker, target = command.attacker, command.target
    parts = (command.approach, command.follow_through)
    check_action_movement(state, attacker, parts, SLAM, moving_target=target)
    check_melee(ahead(state, attacker, command.approach), ctx, attacker, target)
    check_points(state, ctx, attacker, special_cost(ctx))
    return weapons_used(state, ctx, attacker, command.weapons)


def slam_attack(state: GangfightState, attack: Attack) -> Gen:
    """GF Slam!: the attack, its successes wounding as well as knocking the target back and
    then over; a miss lets the target make a Free Strike."""
    state, test = yield from attack_roll(state, attack)
    state = yield from inflict_wounds(state, attack, test.successes, effect=test.successes)
    if test.successes == 0:
        reply = Provoked(
            key="slam/reply",
            striker=attack.target,
            target=attack.attacker,
            reason="the Slam! missed",
        )
        return (yield from free_strike(state, attack.ctx, reply))
    return (yield from knock_back(state, attack, test.successes))


def slam(state: GangfightState, ctx: Context, command: Slam) -> Gen:
    """GF Slam!: the approach, then an attack resolved like a Power Attack, but the successes
    apply to damage as well as knocking the target back and then over; a miss lets the target
    make a Free Strike; then the follow-through with the rest of the model's movement. Against a
    smaller model it is a Trample instead."""
    attacker, target = command.attacker, command.target
    a_size = fighter(state, attacker).size
    t_size = fighter(state, target).size
    check_big(state, attacker, "Slam!")
    if size_rank(t_size) < size_rank(a_size):
        return (yield from slam_as_trample(state, ctx, command))
    used = check_slam(state, ctx, command)
    pool_mods, def_mods = slam_modifiers(a_size, t_size)
    state = yield from spend(state, ctx, attacker, "Slam!", special_cost(ctx))
    state = yield from move_on(state, ctx, attacker, command.approach, (SLAM, "slam/approach", ()))
    if status(state, attacker).condition != "active":
        return state
    state = yield from emit(check_threat_range(state, attacker, target), GangfightState)
    state = yield from emit(
        Slammed(
            rule=SLAM,
            attacker=attacker,
            target=target,
            attacker_size=a_size,
            target_size=t_size,
            modifiers=(*pool_mods, *def_mods),
        ),
        GangfightState,
    )
    attack = Attack(
        ctx=ctx,
        attacker=attacker,
        target=target,
        weapons=used,
        kind="slam",
        key="slam",
        rule=SLAM,
        pool_modifiers=pool_mods,
        def_modifiers=def_mods,
    )
    state = yield from slam_attack(state, attack)
    follow = (SLAM, "slam/follow", (target,))
    return (yield from move_on(state, ctx, attacker, command.follow_through, follow))


# --- Trample ----------------------------------------------------------------------------------


def smaller_in_range(state: GangfightState, ctx: Context, attacker: str) -> tuple[str, ...]:
    """GF Trample: every smaller model within the attacker's threat range (ruling
    trample-friends), still on the table, in setup order."""
    a = fighter(state, attacker)
    side_ok = ctx.ruling(TRAMPLE_FRIENDS) == "all-smaller"
    found = []
    for f in state.setup.fighters:
        if f.id == attacker or size_rank(f.size) >= size_rank(a.size):
            continue
        if not side_ok and f.side == a.side:
            continue
        if status(state, f.id).condition != "active":
            continue
        d = gap(state, attacker, f.id)
        if d is not None and d <= a.threat:
            found.append(f.id)
    return tuple(found)


def trample_targets(state: GangfightState, ctx: Context, attacker: str) -> tuple[str, ...]:
    """The models a Trample strikes: refused when there is none."""
    found = smaller_in_range(state, ctx, attacker)
    if not found:
        raise RuleViolation(TRAMPLE, f"there is no smaller model within {attacker}'s threat range")
    return found


def trample_levels(pool: int, targets: int) -> int:
    """GF Trample: lowering every target's TN by one point costs one die per model struck; at
    least one die must be left to roll."""
    return max(0, (pool - 1) // targets)


def trample_attack(
    ctx: Context, attacker: str, used: tuple[Weapon, ...], level: int, targets: int
) -> Attack:
    """The attack a Trample makes on each model: +1 DEF for being trampled, ``level`` points off
    the TN at ``level`` dice per model, no further dice dropped."""
    dropped = level * targets
    return Attack(
        ctx=ctx,
        attacker=attacker,
        target="",
        weapons=used,
        kind="trample",
        key="trample",
        pool_modifiers=(
            (Modifier(value=-dropped, cause=f"Trample: {level} per model", rule=TRAMPLE),)
            if dropped
            else ()
        ),
        def_modifiers=(Modifier(value=1, cause="being trampled", rule=TRAMPLE),),
        tn_modifiers=(
            (Modifier(value=-level, cause="Trample: dice dropped", rule=TRAMPLE),) if level else ()
        ),
        may_drop=False,
    )


def one_roll_attack(
    state: GangfightState, attack: Attack, rolled: tuple[int, ...] | None
) -> Generator[Step, Any, tuple[GangfightState, PoolTest, tuple[int, ...]]]:
    """Ruling trample-roll one-roll: the pool is rolled once ("trample/hit") and that roll is
    judged against each model's Target Number."""
    test, _ = plan(attack_pool(state, attack), attack.ctx)
    if rolled is None:
        rolled = (yield from roll("trample/hit", test.dice, 6, "trample")) if test.dice else ()
    test = complete(test, rolled)
    state = yield from emit(attack_rolled(attack, test), GangfightState)
    return state, test, rolled


def strike_each(
    state: GangfightState, attack: Attack, targets: tuple[str, ...]
) -> Generator[Step, Any, tuple[GangfightState, list[str]]]:
    """GF Melee 2-6 on each model trampled, while the attacker is still in the fight. Returns
    the models the Trample failed against."""
    one_roll = attack.ctx.ruling(TRAMPLE_ROLL) == "one-roll"
    rolled: tuple[int, ...] | None = None
    missed: list[str] = []
    for t in targets:
        if status(state, attack.attacker).condition != "active":
            break
        on = dataclasses.replace(attack, target=t, key=f"trample/{t}")
        if one_roll:
            state, test, rolled = yield from one_roll_attack(state, on, rolled)
        else:
            state, test = yield from attack_roll(state, on)
        state = yield from inflict_wounds(state, on, test.successes)
        if test.successes == 0:
            missed.append(t)
    return state, missed


def trample(state: GangfightState, ctx: Context, command: Trample) -> Gen:
    """GF Trample (a Special Action): the approach; attack every smaller model within threat
    range; each gets +1 DEF; dice dropped to lower the TN are dropped for each model struck;
    every model the Trample failed against may make a Free Strike on the attacker; then "he
    continues to move the rest of his movement" (the follow-through)."""
    attacker = command.attacker
    check_big(state, attacker, "Trample")
    check_can_act(state, attacker)
    cost = special_cost(ctx)
    check_action_movement(state, attacker, (command.approach, command.follow_through), TRAMPLE)
    trample_targets(ahead(state, attacker, command.approach), ctx, attacker)
    used = weapons_used(state, ctx, attacker, command.weapons)
    check_points(state, ctx, attacker, cost)
    state = yield from spend(state, ctx, attacker, "Trample", cost)
    approach = (TRAMPLE, "trample/approach", ())
    state = yield from move_on(state, ctx, attacker, command.approach, approach)
    if status(state, attacker).condition != "active":
        return state
    targets = trample_targets(state, ctx, attacker)
    state = yield from trample_attacks(state, ctx, attacker, used, targets)
    follow = (TRAMPLE, "trample/follow", targets)
    return (yield from move_on(state, ctx, attacker, command.follow_through, follow))


def trample_attacks(
    state: GangfightState,
    ctx: Context,
    attacker: str,
    used: tuple[Weapon, ...],
    targets: tuple[str, ...],
) -> Gen:
    """The level the TNs are lowered to, the attack on each model, then the Free Strikes of
    those it failed against."""
    pool = fighter(state, attacker).profile.att + sum(m.value for m in two_weapon_bonus(used))
    most = trample_levels(pool, len(targets))
    level = 0
    if most > 0:
        level = yield from ask_count(
            "trample/level",
            most,
            default=0,
            prompt=f"{attacker}: lower every TN by how much ({len(targets)} dice each)?",
        )
    dropped = level * len(targets)
    state = yield from emit(
        Trampled(
            rule=TRAMPLE,
            attacker=attacker,
            targets=targets,
            level=level,
            dropped=dropped,
            pool=pool - dropped,
        ),
        GangfightState,
    )
    attack = trample_attack(ctx, attacker, used, level, len(targets))
    state, missed = yield from strike_each(state, attack, targets)
    for t in missed:
        reply = Provoked(
            key=f"trample/{t}/reply",
            striker=t,
            target=attacker,
            reason="the Trample failed against it",
        )
        state = yield from free_strike(state, ctx, reply)
    return state
