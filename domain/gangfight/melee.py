"""Melee Combat, steps 1 to 6, and what Wounds do: Wounds, Incapacitation, death."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from blowbyblow.domain.core import Context, Modifier, RuleViolation, Step, emit
from blowbyblow.domain.gangfight.events import (
    ArmourRolled,
    AttackRolled,
    Incapacitated,
    InThreatRange,
    Killed,
    PoolTest,
    WoundsApplied,
    WoundsInflicted,
    WoundsNegated,
)
from blowbyblow.domain.gangfight.pool import pool_test
from blowbyblow.domain.gangfight.profiles import Weapon
from blowbyblow.domain.gangfight.rulings import (
    ATTACK_INCAPACITATED,
    INCAPACITATION,
    PRONE_DEFENCE,
)
from blowbyblow.domain.gangfight.state import (
    GangfightState,
    fighter,
    gap,
    in_threat_range,
    status,
)
from blowbyblow.domain.gangfight.weapons import damage_modifiers, two_weapon_bonus

Gen = Generator[Step, Any, GangfightState]


def check_can_act(state: GangfightState, fid: str) -> None:
    """GF Incapacitation: an Incapacitated model cannot perform actions; GF Knocked Down: a
    Prone model must stand up before any other action."""
    s = status(state, fid)
    if s.condition != "active":
        raise RuleViolation("GF Incapacitation", f"{fid} is {s.condition} and cannot act")
    if s.prone:
        raise RuleViolation(
            "GF Knocked Down", f"{fid} is Prone and must spend an action point to stand up first"
        )


def check_target(
    state: GangfightState, attacker: str, target: str, rulings: Mapping[str, str]
) -> None:
    """A melee target is an opposing model that is still on the table (or its Incapacitation
    token, ruling attack-incapacitated)."""
    if attacker == target:
        raise RuleViolation("GF Melee 1", f"{attacker} cannot attack itself")
    if fighter(state, attacker).side == fighter(state, target).side:
        raise RuleViolation("GF Melee 1", f"{target} is not an opposing model of {attacker}")
    cond = status(state, target).condition
    if cond == "dead":
        raise RuleViolation("GF Incapacitation", f"{target} is Dead and removed from the game")
    if cond == "incapacitated" and rulings[ATTACK_INCAPACITATED.name] == "not-allowed":
        raise RuleViolation(
            "GF Incapacitation", f"{target} is Incapacitated (ruling attack-incapacitated)"
        )


def check_threat_range(state: GangfightState, attacker: str, target: str) -> InThreatRange:
    """GF Melee 1: the model attacked must be within the attacker's threat range."""
    d = gap(state, attacker, target)
    threat = fighter(state, attacker).threat
    if d is None or d > threat:
        where = "far away" if d is None else f'{d}" away'
        raise RuleViolation(
            "GF Melee 1", f"{target} is {where}, outside {attacker}'s threat range of {threat}\""
        )
    return InThreatRange(
        rule="GF Melee 1", attacker=attacker, target=target, inches=d, threat=threat
    )


def check_melee(
    state: GangfightState, attacker: str, target: str, rulings: Mapping[str, str]
) -> None:
    """GF Melee 1: an attacker able to act, an opposing target still on the table, within the
    attacker's threat range."""
    check_can_act(state, attacker)
    check_target(state, attacker, target, rulings)
    check_threat_range(state, attacker, target)


def defence(
    state: GangfightState,
    target: str,
    modifiers: tuple[Modifier, ...],
    rulings: Mapping[str, str],
) -> tuple[int, tuple[Modifier, ...]]:
    """The target's DEF and its modifiers. GF Knocked Down: a Prone model's DEF is 2 (ruling
    prone-defence: whether other DEF modifiers still apply)."""
    base = fighter(state, target).profile.defense
    if not status(state, target).prone:
        return base, modifiers
    prone = Modifier(value=2 - base, cause="Prone: DEF 2", rule="GF Knocked Down")
    if rulings[PRONE_DEFENCE.name] == "always-2":
        return base, (prone,)
    return base, (prone, *modifiers)


def attack_roll(
    state: GangfightState,
    ctx: Context,
    *,
    key: str,
    attacker: str,
    target: str,
    attack: str,
    used: tuple[Weapon, ...],
    pool_modifiers: tuple[Modifier, ...] = (),
    def_modifiers: tuple[Modifier, ...] = (),
    tn_modifiers: tuple[Modifier, ...] = (),
    may_drop: bool = True,
) -> Generator[Step, Any, tuple[GangfightState, PoolTest]]:
    """GF Melee 2: roll ATT dice (two weapons +1) against the target's DEF; dice may be dropped
    to lower the TN unless this is a Free Strike."""
    base, mods = defence(state, target, def_modifiers, ctx.rulings)
    test = yield from pool_test(
        f"{key}/hit",
        pool_base=fighter(state, attacker).profile.att,
        pool_modifiers=(*two_weapon_bonus(used), *pool_modifiers),
        tn_base=base,
        tn_modifiers=(*mods, *tn_modifiers),
        may_drop=may_drop,
        rulings=ctx.rulings,
        purpose=f"{attacker} {attack} attack on {target}",
    )
    state = yield from emit(
        AttackRolled(
            rule="GF Melee 2",
            attacker=attacker,
            target=target,
            attack=attack,
            weapons=tuple(w.id for w in used),
            test=test,
        ),
        GangfightState,
    )
    return state, test


def hits_to_wounds(successes: int) -> int:
    """GF Melee 3: for each success you inflict 1 Wound."""
    return successes


def armour_roll(
    state: GangfightState,
    ctx: Context,
    *,
    key: str,
    fid: str,
    against: str,
    wounds: int,
    damage: int,
    damage_mods: tuple[Modifier, ...],
) -> Generator[Step, Any, tuple[GangfightState, PoolTest]]:
    """GF Melee 4: ARM dice against the attacker's modified DAM; the defender may drop dice."""
    test = yield from pool_test(
        f"{key}/armour",
        pool_base=fighter(state, fid).profile.arm,
        tn_base=damage,
        tn_modifiers=damage_mods,
        rulings=ctx.rulings,
        purpose=f"{fid} armour against {against}",
    )
    state = yield from emit(
        ArmourRolled(rule="GF Melee 4", fighter=fid, against=against, wounds=wounds, test=test),
        GangfightState,
    )
    return state, test


def negate(wounds: int, successes: int) -> int:
    """GF Melee 5: each Armour success negates 1 Wound (never more than were inflicted)."""
    return min(wounds, successes)


def is_incapacitated(wounds: int, en: int, ruling: str) -> bool:
    """GF Melee 6 ("0 or less" left) or GF Wounds/Incapacitation ("more Wounds than EN"),
    per ruling incapacitation."""
    return wounds > en if ruling == "more-than-en" else en - wounds <= 0


def apply_wounds(state: GangfightState, ctx: Context, fid: str, wounds: int) -> Gen:
    """GF Melee 6: the remaining Wounds come off Endurance; the model is Incapacitated per
    ruling incapacitation; GF Incapacitation: any damage to an Incapacitated model kills it."""
    if wounds <= 0:
        return state
    s = status(state, fid)
    en = fighter(state, fid).profile.en
    after = s.wounds + wounds
    state = yield from emit(
        WoundsApplied(
            rule="GF Melee 6",
            fighter=fid,
            wounds=wounds,
            before=s.wounds,
            after=after,
            en=en,
            en_left=en - after,
        ),
        GangfightState,
    )
    if s.condition == "incapacitated":
        state = yield from emit(
            Killed(rule="GF Incapacitation", fighter=fid, wounds=wounds), GangfightState
        )
    elif s.condition == "active":
        ruling = ctx.rulings[INCAPACITATION.name]
        if is_incapacitated(after, en, ruling):
            rule = "GF Incapacitation" if ruling == "more-than-en" else "GF Melee 6"
            state = yield from emit(
                Incapacitated(rule=rule, fighter=fid, wounds=after, en=en, ruling=ruling),
                GangfightState,
            )
    return state


def take_wounds(
    state: GangfightState,
    ctx: Context,
    *,
    key: str,
    fid: str,
    against: str,
    wounds: int,
    damage: int,
    damage_mods: tuple[Modifier, ...] = (),
    armour: bool = True,
) -> Gen:
    """GF Melee 4-6 for ``wounds`` inflicted on ``fid``: Armour, negation, Endurance."""
    if wounds <= 0:
        return state
    left = wounds
    if armour:
        state, test = yield from armour_roll(
            state,
            ctx,
            key=key,
            fid=fid,
            against=against,
            wounds=wounds,
            damage=damage,
            damage_mods=damage_mods,
        )
        negated = negate(wounds, test.successes)
        left = wounds - negated
        state = yield from emit(
            WoundsNegated(
                rule="GF Melee 5",
                fighter=fid,
                wounds=wounds,
                successes=test.successes,
                negated=negated,
                remaining=left,
            ),
            GangfightState,
        )
    return (yield from apply_wounds(state, ctx, fid, left))


def wound_target(
    state: GangfightState,
    ctx: Context,
    *,
    key: str,
    attacker: str,
    target: str,
    used: tuple[Weapon, ...],
    wounds: int,
) -> Gen:
    """GF Melee 4-6 for wounds an attacker inflicted: the TN is its modified DAM."""
    return (
        yield from take_wounds(
            state,
            ctx,
            key=key,
            fid=target,
            against=attacker,
            wounds=wounds,
            damage=fighter(state, attacker).profile.dam,
            damage_mods=damage_modifiers(used, ctx.rulings),
        )
    )


def inflict_wounds(
    state: GangfightState,
    ctx: Context,
    *,
    key: str,
    attacker: str,
    target: str,
    used: tuple[Weapon, ...],
    successes: int,
    wounds: int | None = None,
    effect: int = 0,
    rule: str = "GF Melee 3",
) -> Gen:
    """GF Melee 3: the attack's successes become Wounds (``wounds``, when a Special Attack put
    some of them into its ``effect``), then GF Melee 4-6 on the target."""
    if wounds is None:
        wounds = hits_to_wounds(successes)
    state = yield from emit(
        WoundsInflicted(
            rule=rule,
            attacker=attacker,
            target=target,
            successes=successes,
            wounds=wounds,
            effect=effect,
        ),
        GangfightState,
    )
    return (
        yield from wound_target(
            state, ctx, key=key, attacker=attacker, target=target, used=used, wounds=wounds
        )
    )


def still_standing(state: GangfightState, fid: str) -> bool:
    return status(state, fid).condition == "active"


def threatens(state: GangfightState, holder: str, other: str) -> bool:
    return in_threat_range(state, holder, other)
