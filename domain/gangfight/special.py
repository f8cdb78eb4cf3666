"""Special Attacks (Power, Finesse), Free Strikes, Slam! and Trample, Knocked Down."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from blowbyblow.domain.core import Context, Modifier, RuleViolation, Step, ask, emit, roll
from blowbyblow.domain.gangfight.action_points import check_points, special_cost, spend
from blowbyblow.domain.gangfight.events import (
    AttackRolled,
    Disengaged,
    FreeStrike,
    FreeStrikeDeclined,
    KnockedBack,
    KnockedDown,
    Slammed,
    SlamTreatedAsTrample,
    Trampled,
)
from blowbyblow.domain.gangfight.melee import (
    Gen,
    attack_roll,
    check_can_act,
    check_melee,
    check_threat_range,
    defence,
    hits_to_wounds,
    inflict_wounds,
)
from blowbyblow.domain.gangfight.pool import ask_count, complete, plan
from blowbyblow.domain.gangfight.profiles import size_rank
from blowbyblow.domain.gangfight.rulings import (
    ATTACK_INCAPACITATED,
    SPECIAL_ATTACK_DAMAGE,
    TRAMPLE_FRIENDS,
    TRAMPLE_ROLL,
)
from blowbyblow.domain.gangfight.state import (
    GangfightState,
    fighter,
    gap,
    status,
)
from blowbyblow.domain.gangfight.weapons import two_weapon_bonus, weapons_used

SPECIAL_PERKS = ("marauder", "skirmisher")


# --- Special Attacks -------------------------------------------------------------------------


def both_effect_and_damage(state: GangfightState, fid: str) -> bool:
    """GF Special Attacks: creatures larger than Medium and models with the marauder or
    skirmisher Perk apply their successes to the effect *and* to damage."""
    f = fighter(state, fid)
    return size_rank(f.size) > size_rank("medium") or any(p in SPECIAL_PERKS for p in f.perks)


def allocate(
    state: GangfightState, ctx: Context, *, key: str, attacker: str, successes: int
) -> Generator[Step, Any, tuple[int, int]]:
    """GF Power Attacks / GF Finesse Attacks: instead of damage, the successes become the
    effect (ruling special-attack-damage); GF Special Attacks: large models and the two
    Perks get both. Returns (wounds, effect)."""
    if both_effect_and_damage(state, attacker):
        return hits_to_wounds(successes), successes
    if ctx.rulings[SPECIAL_ATTACK_DAMAGE.name] == "none" or successes == 0:
        return 0, successes
    effect = yield from ask_count(
        f"{key}/effect",
        successes,
        default=successes,
        prompt=f"{attacker}: how many of {successes} successes go to the effect (rest wound)?",
    )
    return hits_to_wounds(successes - effect), effect


def knock_back(
    state: GangfightState, ctx: Context, *, attacker: str, target: str, inches: int, rule: str
) -> Gen:
    """GF Power Attacks: the target is knocked back ``inches`` (straight away from the attacker)
    and, once it reaches that distance, knocked down (GF Knocked Down: Prone)."""
    if inches <= 0 or status(state, target).condition != "active":
        return state
    before = gap(state, attacker, target) or 0
    state = yield from emit(
        KnockedBack(
            rule=rule,
            fighter=target,
            by=attacker,
            inches=inches,
            gap_before=before,
            gap_after=before + inches,
        ),
        GangfightState,
    )
    return (yield from emit(KnockedDown(rule=rule, fighter=target, by=attacker), GangfightState))


def disengage(
    state: GangfightState, ctx: Context, *, key: str, attacker: str, target: str, allowed: int
) -> Gen:
    """GF Finesse Attacks: the attacker may move up to ``allowed`` inches from its position,
    away from the model it attacked, suffering no Free Strike from it."""
    if allowed <= 0 or status(state, attacker).condition != "active":
        return state
    inches = yield from ask_count(
        f"{key}/disengage",
        allowed,
        default=allowed,
        prompt=f"{attacker}: move how many inches away from {target}?",
    )
    before = gap(state, attacker, target) or 0
    return (
        yield from emit(
            Disengaged(
                rule="GF Finesse Attacks",
                fighter=attacker,
                from_fighter=target,
                allowed=allowed,
                inches=inches,
                gap_before=before,
                gap_after=before + inches,
            ),
            GangfightState,
        )
    )


def check_attack(
    state: GangfightState, ctx: Context, attacker: str, target: str, cost: int
) -> None:
    check_melee(state, attacker, target, ctx.rulings)
    check_points(state, attacker, cost, ctx.rulings)


def special_attack(
    state: GangfightState,
    ctx: Context,
    *,
    attacker: str,
    target: str,
    weapons: tuple[str, ...],
    kind: str,
) -> Gen:
    """A Power Attack or a Finesse Attack: attack as normal (GF Melee 1-6), then the effect,
    which applies even when no damage is done (GF Melee 6 note)."""
    rule = "GF Power Attacks" if kind == "power" else "GF Finesse Attacks"
    cost = special_cost(ctx.rulings)
    check_attack(state, ctx, attacker, target, cost)
    used = weapons_used(state, attacker, weapons)
    key = kind
    state = yield from spend(state, ctx, attacker, f"{kind} attack", cost)
    state = yield from emit(check_threat_range(state, attacker, target), GangfightState)
    state, test = yield from attack_roll(
        state, ctx, key=key, attacker=attacker, target=target, attack=kind, used=used
    )
    wounds, effect = yield from allocate(
        state, ctx, key=key, attacker=attacker, successes=test.successes
    )
    state = yield from inflict_wounds(
        state,
        ctx,
        key=key,
        attacker=attacker,
        target=target,
        used=used,
        successes=test.successes,
        wounds=wounds,
        effect=effect,
        rule=rule,
    )
    if kind == "power":
        return (
            yield from knock_back(
                state, ctx, attacker=attacker, target=target, inches=effect, rule=rule
            )
        )
    return (
        yield from disengage(state, ctx, key=key, attacker=attacker, target=target, allowed=effect)
    )


# --- Free Strikes ----------------------------------------------------------------------------


def free_strike_refusal(state: GangfightState, ctx: Context, striker: str, target: str) -> str:
    """Why ``striker`` cannot make a Free Strike on ``target`` now ("" if it can)."""
    s = status(state, striker)
    if s.condition != "active":
        return f"{striker} is {s.condition}"
    if s.prone:
        return f"{striker} is Prone (GF Knocked Down: must stand up before any action)"
    cond = status(state, target).condition
    if cond == "dead" or (
        cond == "incapacitated" and ctx.rulings[ATTACK_INCAPACITATED.name] == "not-allowed"
    ):
        return f"{target} is {cond}"
    return ""


def free_strike(
    state: GangfightState,
    ctx: Context,
    *,
    key: str,
    striker: str,
    target: str,
    reason: str,
    weapons: tuple[str, ...] = (),
    offer: bool = True,
) -> Gen:
    """GF Free Strikes: a free action; the striker attacks as in GF Melee 2-6 but may not drop
    dice to lower the Target Number. When ``offer``, its player is asked first."""
    refusal = free_strike_refusal(state, ctx, striker, target)
    if refusal:
        return (
            yield from emit(
                FreeStrikeDeclined(
                    rule="GF Free Strikes", striker=striker, target=target, reason=refusal
                ),
                GangfightState,
            )
        )
    used = weapons_used(state, striker, weapons)
    if offer:
        answer = yield from ask(
            f"{key}/free-strike",
            ("strike", "decline"),
            default="strike",
            prompt=f"{striker}: make a Free Strike on {target} ({reason})?",
        )
        if answer == "decline":
            return (
                yield from emit(
                    FreeStrikeDeclined(
                        rule="GF Free Strikes", striker=striker, target=target, reason="declined"
                    ),
                    GangfightState,
                )
            )
    state = yield from emit(
        FreeStrike(rule="GF Free Strikes", striker=striker, target=target, reason=reason),
        GangfightState,
    )
    state, test = yield from attack_roll(
        state,
        ctx,
        key=key,
        attacker=striker,
        target=target,
        attack="free-strike",
        used=used,
        may_drop=False,
    )
    return (
        yield from inflict_wounds(
            state,
            ctx,
            key=key,
            attacker=striker,
            target=target,
            used=used,
            successes=test.successes,
        )
    )


# --- Slam! and Trample -----------------------------------------------------------------------


def check_big(state: GangfightState, fid: str, what: str) -> None:
    """GF Slam!: only Large or Huge models may Slam! or Trample."""
    size = fighter(state, fid).size
    if size_rank(size) < size_rank("large"):
        raise RuleViolation("GF Slam!", f"{fid} is {size}; only Large or Huge models may {what}")


def slam_modifiers(
    attacker_size: str, target_size: str
) -> tuple[tuple[Modifier, ...], tuple[Modifier, ...]]:
    """GF Slam!: same size, no modifiers; attacking a larger model, -1 ATT and the target +1
    DEF. Returns (pool modifiers, DEF modifiers)."""
    if size_rank(attacker_size) < size_rank(target_size):
        return (
            (Modifier(value=-1, cause="Slam! on a larger model", rule="GF Slam!"),),
            (Modifier(value=1, cause="Slammed by a smaller model", rule="GF Slam!"),),
        )
    return (), ()


def slam(
    state: GangfightState, ctx: Context, *, attacker: str, target: str, weapons: tuple[str, ...]
) -> Gen:
    """GF Slam!: resolved like a Power Attack, but the successes apply to damage as well as
    knocking the target back and then over; a miss lets the target make a Free Strike. Against
    a smaller model it is a Trample instead."""
    a_size = fighter(state, attacker).size
    t_size = fighter(state, target).size
    check_big(state, attacker, "Slam!")
    if size_rank(t_size) < size_rank(a_size):
        cost = special_cost(ctx.rulings)
        check_melee(state, attacker, target, ctx.rulings)
        weapons_used(state, attacker, weapons)
        _trample_targets(state, ctx, attacker)
        check_points(state, attacker, cost, ctx.rulings)
        state = yield from emit(
            SlamTreatedAsTrample(
                rule="GF Slam!",
                attacker=attacker,
                target=target,
                attacker_size=a_size,
                target_size=t_size,
            ),
            GangfightState,
        )
        return (yield from trample(state, ctx, attacker=attacker, weapons=weapons))
    cost = special_cost(ctx.rulings)
    check_attack(state, ctx, attacker, target, cost)
    used = weapons_used(state, attacker, weapons)
    pool_mods, def_mods = slam_modifiers(a_size, t_size)
    state = yield from spend(state, ctx, attacker, "Slam!", cost)
    state = yield from emit(check_threat_range(state, attacker, target), GangfightState)
    state = yield from emit(
        Slammed(
            rule="GF Slam!",
            attacker=attacker,
            target=target,
            attacker_size=a_size,
            target_size=t_size,
            modifiers=(*pool_mods, *def_mods),
        ),
        GangfightState,
    )
    state, test = yield from attack_roll(
        state,
        ctx,
        key="slam",
        attacker=attacker,
        target=target,
        attack="slam",
        used=used,
        pool_modifiers=pool_mods,
        def_modifiers=def_mods,
    )
    state = yield from inflict_wounds(
        state,
        ctx,
        key="slam",
        attacker=attacker,
        target=target,
        used=used,
        successes=test.successes,
        effect=test.successes,
        rule="GF Slam!",
    )
    if test.successes == 0:
        return (
            yield from free_strike(
                state,
                ctx,
                key="slam/reply",
                striker=target,
                target=attacker,
                reason="the Slam! missed",
            )
        )
    return (
        yield from knock_back(
            state, ctx, attacker=attacker, target=target, inches=test.successes, rule="GF Slam!"
        )
    )


def _trample_targets(state: GangfightState, ctx: Context, attacker: str) -> tuple[str, ...]:
    """GF Trample: every smaller model within the attacker's threat range (ruling
    trample-friends), still on the table."""
    a = fighter(state, attacker)
    side_ok = ctx.rulings[TRAMPLE_FRIENDS.name] == "all-smaller"
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
    if not found:
        raise RuleViolation(
            "GF Trample", f"there is no smaller model within {attacker}'s threat range"
        )
    return tuple(found)


def trample_levels(pool: int, targets: int) -> int:
    """GF Trample: lowering every target's TN by one point costs one die per model struck; at
    least one die must be left to roll."""
    return max(0, (pool - 1) // targets)


def trample(state: GangfightState, ctx: Context, *, attacker: str, weapons: tuple[str, ...]) -> Gen:
    """GF Trample (a Special Action): attack every smaller model within threat range; each gets
    +1 DEF; dice dropped to lower the TN are dropped for each model struck; then every model
    the Trample failed against may make a Free Strike on the attacker."""
    check_big(state, attacker, "Trample")
    check_can_act(state, attacker)
    cost = special_cost(ctx.rulings)
    targets = _trample_targets(state, ctx, attacker)
    used = weapons_used(state, attacker, weapons)
    check_points(state, attacker, cost, ctx.rulings)
    state = yield from spend(state, ctx, attacker, "Trample", cost)
    a = fighter(state, attacker)
    pool = a.profile.att + sum(m.value for m in two_weapon_bonus(used))
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
            rule="GF Trample",
            attacker=attacker,
            targets=targets,
            level=level,
            dropped=dropped,
            pool=pool - dropped,
        ),
        GangfightState,
    )
    pool_mods = (
        (Modifier(value=-dropped, cause=f"Trample: {level} per model", rule="GF Trample"),)
        if dropped
        else ()
    )
    lower = (
        (Modifier(value=-level, cause="Trample: dice dropped", rule="GF Trample"),) if level else ()
    )
    trampled = Modifier(value=1, cause="being trampled", rule="GF Trample")
    one_roll: tuple[int, ...] | None = None
    missed: list[str] = []
    for t in targets:
        if status(state, attacker).condition != "active":
            break
        key = f"trample/{t}"
        base, mods = defence(state, t, (trampled,), ctx.rulings)
        if ctx.rulings[TRAMPLE_ROLL.name] == "one-roll":
            test, _ = plan(
                pool_base=a.profile.att,
                pool_modifiers=(*two_weapon_bonus(used), *pool_mods),
                tn_base=base,
                tn_modifiers=(*mods, *lower),
                may_drop=False,
                rulings=ctx.rulings,
            )
            if one_roll is None:
                one_roll = (
                    (yield from roll("trample/hit", test.dice, 6, "trample")) if test.dice else ()
                )
            test = complete(test, one_roll)
            state = yield from emit(
                AttackRolled(
                    rule="GF Melee 2",
                    attacker=attacker,
                    target=t,
                    attack="trample",
                    weapons=tuple(w.id for w in used),
                    test=test,
                ),
                GangfightState,
            )
        else:
            state, test = yield from attack_roll(
                state,
                ctx,
                key=key,
                attacker=attacker,
                target=t,
                attack="trample",
                used=used,
                pool_modifiers=pool_mods,
                def_modifiers=(trampled,),
                tn_modifiers=lower,
                may_drop=False,
            )
        state = yield from inflict_wounds(
            state, ctx, key=key, attacker=attacker, target=t, used=used, successes=test.successes
        )
        if test.successes == 0:
            missed.append(t)
    for t in missed:
        state = yield from free_strike(
            state,
            ctx,
            key=f"trample/{t}/reply",
            striker=t,
            target=attacker,
            reason="the Trample failed against it",
        )
    return state
