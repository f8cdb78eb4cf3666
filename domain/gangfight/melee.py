"""Melee Combat (Combat page), steps 1 to 6, and what Wounds do (Wounds, Incapacitation): the
attack context every attack runs on, Fight!, the Attack Roll, Wounds, the Armour roll,
negation, Endurance, Incapacitation and death."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from blowbyblow.domain.core import Context, Modifier, RuleViolation, Step, emit
from blowbyblow.domain.gangfight.action_points import (
    STANDARD,
    check_can_act,
    check_points,
    spend,
)
from blowbyblow.domain.gangfight.commands import Fight
from blowbyblow.domain.gangfight.dice_pool import Pool, pool_test
from blowbyblow.domain.gangfight.events import (
    ArmourRolled,
    AttackKind,
    AttackRolled,
    Incapacitated,
    InThreatRange,
    Killed,
    PoolTest,
    WoundsApplied,
    WoundsInflicted,
    WoundsNegated,
)
from blowbyblow.domain.gangfight.knocked_down import defence
from blowbyblow.domain.gangfight.rulings import (
    ATTACK_INCAPACITATED,
    FIGHT_ATTACKS,
    INCAPACITATION,
)
from blowbyblow.domain.gangfight.setup import Weapon, inches
from blowbyblow.domain.gangfight.state import GangfightState, Gen, fighter, gap, status
from blowbyblow.domain.gangfight.two_weapons import (
    damage_modifiers,
    two_weapon_bonus,
    weapons_used,
)


@dataclass(frozen=True)
class Steps:
    """The rules Wounds on a model cite: the Armour roll, negation and Endurance steps of Melee
    Combat (4-6) or of Ranged Combat (7-9)."""

    armour: str
    negate: str
    endurance: str


MELEE_STEPS = Steps("GF Melee 4", "GF Melee 5", "GF Melee 6")
RANGED_STEPS = Steps("GF Ranged 7", "GF Ranged 8", "GF Ranged 9")


@dataclass(frozen=True, kw_only=True)
class Wounding:
    """Wounds coming onto one model (Melee Combat steps 4-6, or Ranged Combat 7-9: ``steps``):
    ``against`` is who inflicted them (or "fall"); the Armour roll is ARM plus
    ``armour_modifiers`` (cover) dice against ``damage`` plus ``damage_modifiers``; no Armour
    roll is made when ``armour`` is False. Rolls and choices are asked under ``key``."""

    ctx: Context
    key: str
    fighter: str
    against: str
    damage: int
    damage_modifiers: tuple[Modifier, ...] = ()
    armour_modifiers: tuple[Modifier, ...] = ()
    armour: bool = True
    steps: Steps = MELEE_STEPS


@dataclass(frozen=True, kw_only=True)
class Attack:
    """One attack (a Fight!, a Special Attack, a Slam!, one model of a Trample, a Free Strike):
    who strikes whom with which weapons, the key its rolls and choices are asked under, the rule
    its Wounds cite (Melee Combat step 3 unless the attack has its own), and the modifiers and
    limits its kind brings to the Attack Roll."""

    ctx: Context
    attacker: str
    target: str
    weapons: tuple[Weapon, ...]
    kind: AttackKind
    key: str
    rule: str = "GF Melee 3"
    pool_modifiers: tuple[Modifier, ...] = ()
    def_modifiers: tuple[Modifier, ...] = ()
    tn_modifiers: tuple[Modifier, ...] = ()
    may_drop: bool = True

    def wounding(self, state: GangfightState) -> Wounding:
        """Its Wounds on the target: the Armour roll is against the attacker's modified DAM."""
        return Wounding(
            ctx=self.ctx,
            key=self.key,
            fighter=self.target,
            against=self.attacker,
            damage=fighter(state, self.attacker).profile.dam,
            damage_modifiers=damage_modifiers(self.weapons, self.ctx),
        )


# --- step 1: the target within the attacker's threat range ------------------------------------


def may_be_attacked(state: GangfightState, ctx: Context, target: str) -> bool:
    """A model still on the table, or its Incapacitation token (ruling attack-incapacitated); a
    Dead model is removed from the game."""
    cond = status(state, target).condition
    return cond == "active" or (
        cond == "incapacitated" and ctx.ruling(ATTACK_INCAPACITATED) == "allowed"
    )


def check_target(
    state: GangfightState, ctx: Context, attacker: str, target: str, rule: str = "GF Melee 1"
) -> None:
    """A target (of a melee attack, or ``rule``'s) is an opposing model that is still on the
    table (or its Incapacitation token, ruling attack-incapacitated)."""
    if attacker == target:
        raise RuleViolation(rule, f"{attacker} cannot attack itself")
    if fighter(state, attacker).side == fighter(state, target).side:
        raise RuleViolation(rule, f"{target} is not an opposing model of {attacker}")
    cond = status(state, target).condition
    if cond == "dead":
        raise RuleViolation("GF Incapacitation", f"{target} is Dead and removed from the game")
    if cond == "incapacitated" and ctx.ruling(ATTACK_INCAPACITATED) == "not-allowed":
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
        rule="GF Melee 1", attacker=attacker, target=target, inches=d, threat=inches(threat)
    )


def targets_in_reach(state: GangfightState, ctx: Context, attacker: str) -> tuple[str, ...]:
    """Opposing models (or their tokens, ruling attack-incapacitated) within the attacker's
    threat range (Melee Combat step 1), in setup order."""
    a = fighter(state, attacker)
    found = []
    for f in state.setup.fighters:
        d = gap(state, attacker, f.id)
        if f.side == a.side or d is None or d > a.threat:
            continue
        if may_be_attacked(state, ctx, f.id):
            found.append(f.id)
    return tuple(found)


def check_melee(state: GangfightState, ctx: Context, attacker: str, target: str) -> None:
    """GF Melee 1: an attacker able to act, an opposing target still on the table, within the
    attacker's threat range."""
    check_can_act(state, attacker)
    check_target(state, ctx, attacker, target)
    check_threat_range(state, attacker, target)


# --- step 2: the Attack Roll --------------------------------------------------------------------


def attack_pool(state: GangfightState, attack: Attack) -> Pool:
    """ATT dice (two weapons +1, the attack's own modifiers) against the target's DEF (Prone:
    2) and the attack's DEF and TN modifiers."""
    base, mods = defence(state, attack.ctx, attack.target, attack.def_modifiers)
    return Pool(
        base=fighter(state, attack.attacker).profile.att,
        modifiers=(*two_weapon_bonus(attack.weapons), *attack.pool_modifiers),
        tn_base=base,
        tn_modifiers=(*mods, *attack.tn_modifiers),
        may_drop=attack.may_drop,
    )


def attack_rolled(attack: Attack, test: PoolTest) -> AttackRolled:
    return AttackRolled(
        rule="GF Melee 2",
        attacker=attack.attacker,
        target=attack.target,
        attack=attack.kind,
        weapons=tuple(w.id for w in attack.weapons),
        test=test,
    )


def attack_roll(
    state: GangfightState, attack: Attack
) -> Generator[Step, Any, tuple[GangfightState, PoolTest]]:
    """GF Melee 2: roll ATT dice against the target's DEF; dice may be dropped to lower the TN
    unless this is a Free Strike."""
    test = yield from pool_test(
        f"{attack.key}/hit",
        attack_pool(state, attack),
        attack.ctx,
        purpose=f"{attack.attacker} {attack.kind} attack on {attack.target}",
    )
    state = yield from emit(attack_rolled(attack, test), GangfightState)
    return state, test


# --- step 3: hits are Wounds --------------------------------------------------------------------


def hits_to_wounds(successes: int) -> int:
    """GF Melee 3: for each success you inflict 1 Wound."""
    return successes


def inflict_wounds(
    state: GangfightState,
    attack: Attack,
    successes: int,
    wounds: int | None = None,
    effect: int = 0,
) -> Gen:
    """GF Melee 3: the attack's successes become Wounds (``wounds``, when a Special Attack put
    some of them into its ``effect``), then GF Melee 4-6 on the target."""
    if wounds is None:
        wounds = hits_to_wounds(successes)
    state = yield from emit(
        WoundsInflicted(
            rule=attack.rule,
            attacker=attack.attacker,
            target=attack.target,
            successes=successes,
            wounds=wounds,
            effect=effect,
        ),
        GangfightState,
    )
    return (yield from take_wounds(state, attack.wounding(state), wounds))


# --- steps 4 to 6: Armour, negation, Endurance ---------------------------------------------------


def armour_roll(
    state: GangfightState, wounding: Wounding, wounds: int
) -> Generator[Step, Any, tuple[GangfightState, PoolTest]]:
    """GF Melee 4: ARM dice against the attacker's modified DAM; the defender may drop dice."""
    fid = wounding.fighter
    test = yield from pool_test(
        f"{wounding.key}/armour",
        Pool(
            base=fighter(state, fid).profile.arm,
            modifiers=wounding.armour_modifiers,
            tn_base=wounding.damage,
            tn_modifiers=wounding.damage_modifiers,
        ),
        wounding.ctx,
        purpose=f"{fid} armour against {wounding.against}",
    )
    state = yield from emit(
        ArmourRolled(
            rule=wounding.steps.armour,
            fighter=fid,
            against=wounding.against,
            wounds=wounds,
            test=test,
        ),
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


def apply_wounds(
    state: GangfightState, ctx: Context, fid: str, wounds: int, steps: Steps = MELEE_STEPS
) -> Gen:
    """GF Melee 6 (GF Ranged 9): the remaining Wounds come off Endurance; the model is
    Incapacitated per ruling incapacitation; GF Incapacitation: any damage to an Incapacitated
    model kills it."""
    if wounds <= 0:
        return state
    s = status(state, fid)
    en = fighter(state, fid).profile.en
    after = s.wounds + wounds
    state = yield from emit(
        WoundsApplied(
            rule=steps.endurance,
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
        ruling = ctx.ruling(INCAPACITATION)
        if is_incapacitated(after, en, ruling):
            rule = "GF Incapacitation" if ruling == "more-than-en" else steps.endurance
            state = yield from emit(
                Incapacitated(rule=rule, fighter=fid, wounds=after, en=en, ruling=ruling),
                GangfightState,
            )
    return state


def take_wounds(state: GangfightState, wounding: Wounding, wounds: int) -> Gen:
    """GF Melee 4-6 for ``wounds`` on one model: Armour, negation, Endurance."""
    if wounds <= 0:
        return state
    left = wounds
    if wounding.armour:
        state, test = yield from armour_roll(state, wounding, wounds)
        negated = negate(wounds, test.successes)
        left = wounds - negated
        state = yield from emit(
            WoundsNegated(
                rule=wounding.steps.negate,
                fighter=wounding.fighter,
                wounds=wounds,
                successes=test.successes,
                negated=negated,
                remaining=left,
            ),
            GangfightState,
        )
    return (yield from apply_wounds(state, wounding.ctx, wounding.fighter, left, wounding.steps))


# --- Fight! ---------------------------------------------------------------------------------------


def strike(state: GangfightState, attack: Attack) -> Gen:
    """One attack of a Fight!: GF Melee 1 (recorded), then steps 2 to 6."""
    state = yield from emit(
        check_threat_range(state, attack.attacker, attack.target), GangfightState
    )
    state, test = yield from attack_roll(state, attack)
    return (yield from inflict_wounds(state, attack, test.successes))


def standing(state: GangfightState, fid: str) -> bool:
    s = status(state, fid)
    return s.condition == "active" and not s.prone


def replies_to(state: GangfightState, fid: str) -> list[str]:
    """Opposing models still standing in the fight that have ``fid`` within their own threat
    range, in setup order."""
    side = fighter(state, fid).side
    return [
        f.id
        for f in state.setup.fighters
        if f.side != side
        and standing(state, f.id)
        and (d := gap(state, f.id, fid)) is not None
        and d <= f.threat
    ]


def rest_of_the_fight(state: GangfightState, ctx: Context, first: Attack, key: str) -> Gen:
    """Combat, Melee Combat: "Once this has been done with each model that has an opposing
    model within their threat range, the Fight! Action has been resolved" (ruling
    fight-attacks). each-in-reach: the attacker, still standing, attacks each other opposing
    model on the table within its threat range (asked under ``key/also/<model>``);
    both-sides: then each opposing model standing with the attacker in its threat range
    attacks it back (``key/back/<model>``, its first weapon, no action point)."""
    how = ctx.ruling(FIGHT_ATTACKS)
    if how == "one-target":
        return state
    me = first.attacker
    for other in targets_in_reach(state, ctx, me):
        if other == first.target or status(state, other).condition != "active":
            continue
        if not standing(state, me):
            return state
        more = Attack(
            ctx=ctx,
            attacker=me,
            target=other,
            weapons=first.weapons,
            kind="fight",
            key=f"{key}/also/{other}",
        )
        state = yield from strike(state, more)
    if how != "both-sides":
        return state
    for other in replies_to(state, me):
        if status(state, me).condition == "dead":
            break
        if not may_be_attacked(state, ctx, me) or not standing(state, other):
            continue
        back = Attack(
            ctx=ctx,
            attacker=other,
            target=me,
            weapons=weapons_used(state, ctx, other, ()),
            kind="fight",
            key=f"{key}/back/{other}",
        )
        state = yield from strike(state, back)
    return state


def fight(state: GangfightState, ctx: Context, command: Fight) -> Gen:
    """Fight! (a Standard Action): GF Melee 1 to 6 on the target named, then the rest of the
    fight (ruling fight-attacks)."""
    check_melee(state, ctx, command.attacker, command.target)
    used = weapons_used(state, ctx, command.attacker, command.weapons)
    check_points(state, ctx, command.attacker, STANDARD)
    state = yield from spend(state, ctx, command.attacker, "Fight!", STANDARD)
    attack = Attack(
        ctx=ctx,
        attacker=command.attacker,
        target=command.target,
        weapons=used,
        kind="fight",
        key="fight",
    )
    state = yield from strike(state, attack)
    return (yield from rest_of_the_fight(state, ctx, attack, "fight"))
