"""Special Attacks (Combat): Power Attacks (knock back, then down) and Finesse Attacks
(disengage without a Free Strike); large models and the marauder and skirmisher Perks apply
their successes to both the effect and damage."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from blowbyblow.domain.core import Context, Step, emit
from blowbyblow.domain.gangfight.action_points import check_points, special_cost, spend
from blowbyblow.domain.gangfight.commands import FinesseAttack, PowerAttack
from blowbyblow.domain.gangfight.dice_pool import ask_count
from blowbyblow.domain.gangfight.events import Disengaged, KnockedBack, KnockedDown
from blowbyblow.domain.gangfight.melee import (
    Attack,
    attack_roll,
    check_melee,
    check_threat_range,
    hits_to_wounds,
    inflict_wounds,
)
from blowbyblow.domain.gangfight.rulings import SPECIAL_ATTACK_DAMAGE
from blowbyblow.domain.gangfight.setup import KNOWN_PERKS, size_rank
from blowbyblow.domain.gangfight.state import GangfightState, Gen, fighter, gap, status
from blowbyblow.domain.gangfight.two_weapons import weapons_used

POWER = "GF Power Attacks"
FINESSE = "GF Finesse Attacks"


def both_effect_and_damage(state: GangfightState, fid: str) -> bool:
    """GF Special Attacks: creatures larger than Medium and models with the marauder or
    skirmisher Perk apply their successes to the effect *and* to damage."""
    f = fighter(state, fid)
    return size_rank(f.size) > size_rank("medium") or any(p in KNOWN_PERKS for p in f.perks)


def allocate(
    state: GangfightState, attack: Attack, successes: int
) -> Generator[Step, Any, tuple[int, int]]:
    """GF Power Attacks / GF Finesse Attacks: instead of damage, the successes become the
    effect (ruling special-attack-damage); GF Special Attacks: large models and the two
    Perks get both. Returns (wounds, effect)."""
    if both_effect_and_damage(state, attack.attacker):
        return hits_to_wounds(successes), successes
    if attack.ctx.ruling(SPECIAL_ATTACK_DAMAGE) == "none" or successes == 0:
        return 0, successes
    effect = yield from ask_count(
        f"{attack.key}/effect",
        successes,
        default=successes,
        prompt=(
            f"{attack.attacker}: how many of {successes} successes go to the effect (rest wound)?"
        ),
    )
    return hits_to_wounds(successes - effect), effect


def knock_back(state: GangfightState, attack: Attack, inches: int) -> Gen:
    """GF Power Attacks (and GF Slam!): the target is knocked back ``inches`` (straight away from
    the attacker) and, once it reaches that distance, knocked down (GF Knocked Down: Prone).
    Both events cite the attack's rule."""
    if inches <= 0 or status(state, attack.target).condition != "active":
        return state
    before = gap(state, attack.attacker, attack.target) or 0
    state = yield from emit(
        KnockedBack(
            rule=attack.rule,
            fighter=attack.target,
            by=attack.attacker,
            inches=inches,
            gap_before=before,
            gap_after=before + inches,
        ),
        GangfightState,
    )
    return (
        yield from emit(
            KnockedDown(rule=attack.rule, fighter=attack.target, by=attack.attacker),
            GangfightState,
        )
    )


def disengage(state: GangfightState, attack: Attack, allowed: int) -> Gen:
    """GF Finesse Attacks: the attacker may move up to ``allowed`` inches from its position,
    away from the model it attacked, suffering no Free Strike from it."""
    attacker, target = attack.attacker, attack.target
    if allowed <= 0 or status(state, attacker).condition != "active":
        return state
    inches = yield from ask_count(
        f"{attack.key}/disengage",
        allowed,
        default=allowed,
        prompt=f"{attacker}: move how many inches away from {target}?",
    )
    before = gap(state, attacker, target) or 0
    return (
        yield from emit(
            Disengaged(
                rule=FINESSE,
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


def special_attack(
    state: GangfightState, ctx: Context, command: PowerAttack | FinesseAttack
) -> Gen:
    """A Power Attack or a Finesse Attack (a Special Action): attack as normal (GF Melee 1-6),
    then the effect, which applies even when no damage is done (GF Melee 6 note)."""
    power = isinstance(command, PowerAttack)
    kind = "power" if power else "finesse"
    cost = special_cost(ctx)
    check_melee(state, ctx, command.attacker, command.target)
    check_points(state, ctx, command.attacker, cost)
    used = weapons_used(state, command.attacker, command.weapons)
    state = yield from spend(state, ctx, command.attacker, f"{kind} attack", cost)
    state = yield from emit(
        check_threat_range(state, command.attacker, command.target), GangfightState
    )
    attack = Attack(
        ctx=ctx,
        attacker=command.attacker,
        target=command.target,
        weapons=used,
        kind="power" if power else "finesse",
        key=kind,
        rule=POWER if power else FINESSE,
    )
    state, test = yield from attack_roll(state, attack)
    wounds, effect = yield from allocate(state, attack, test.successes)
    state = yield from inflict_wounds(state, attack, test.successes, wounds, effect)
    if power:
        return (yield from knock_back(state, attack, effect))
    return (yield from disengage(state, attack, effect))
