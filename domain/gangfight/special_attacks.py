"""Special Attacks (Combat): Power Attacks (knock back, then down) and Finesse Attacks
(disengage without a Free Strike); large models and the marauder and skirmisher Perks apply
their successes to both the effect and damage."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from blowbyblow.domain.core import Context, RuleViolation, Step, emit
from blowbyblow.domain.gangfight.action_points import check_points, special_cost, spend
from blowbyblow.domain.gangfight.commands import FinesseAttack, PowerAttack
from blowbyblow.domain.gangfight.dice_pool import ask_count
from blowbyblow.domain.gangfight.events import (
    Disengaged,
    DisengagedTo,
    KnockedBack,
    KnockedDown,
)
from blowbyblow.domain.gangfight.melee import (
    Attack,
    attack_roll,
    check_melee,
    check_threat_range,
    hits_to_wounds,
    inflict_wounds,
)
from blowbyblow.domain.gangfight.move import check_gaps, enters_threat, leaves_threat
from blowbyblow.domain.gangfight.rulings import POWER_NO_SUCCESS, SPECIAL_ATTACK_DAMAGE
from blowbyblow.domain.gangfight.setup import KNOWN_PERKS, Inches, inches, size_rank
from blowbyblow.domain.gangfight.state import (
    GangfightState,
    Gen,
    enemies,
    fighter,
    gap,
    gaps_of,
    status,
)
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


def power_missed(state: GangfightState, attack: Attack) -> Gen:
    """GF Power Attacks with no success: the target stands, or (ruling power-no-success
    knocked-down) has reached its 0 inches of knock-back and is knocked down."""
    if attack.ctx.ruling(POWER_NO_SUCCESS) != "knocked-down":
        return state
    if status(state, attack.target).condition != "active":
        return state
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


def check_finesse_move(state: GangfightState, command: FinesseAttack) -> Inches:
    """GF Finesse Attacks: "may not move through another enemy's Threat Range, though can move
    in any direction through the model who he executed the successful attack". A move given by
    ``to`` may not enter or leave the threat range of an enemy other than the model attacked,
    and ``through`` may name only that model. Returns the inches the move needs."""
    fid, target = command.attacker, command.target
    check_gaps(state, fid, float("inf"), command.to, FINESSE)
    for t in command.through:
        if t != target:
            raise RuleViolation(
                FINESSE, f"{fid} may not move through {t}'s threat range, only through {target}"
            )
    need: float = 0
    for other, new in command.to.items():
        old = gap(state, fid, other)
        if old is None:
            raise RuleViolation(
                FINESSE,
                f"no gap records how far {other} is from {fid}: a Finesse move cannot "
                "be measured to it",
            )
        need = max(need, abs(new - old))
    for e in enemies(state, fid):
        if e == target or status(state, e).condition != "active":
            continue
        if leaves_threat(state, fid, e, command.to) or enters_threat(state, fid, e, command.to):
            raise RuleViolation(FINESSE, f"{fid} may not move through {e}'s threat range")
    return inches(need)


def finesse_move(state: GangfightState, attack: Attack, allowed: int, to: dict[str, Inches]) -> Gen:
    """GF Finesse Attacks with a destination: the model goes there when its successes reach
    that far, and stays where it is otherwise (it "may move", and not elsewhere than it said)."""
    fid = attack.attacker
    if allowed <= 0 or status(state, fid).condition != "active":
        return state
    need = inches(max(abs(n - (gap(state, fid, o) or 0)) for o, n in to.items()))
    reached = need <= allowed
    return (
        yield from emit(
            DisengagedTo(
                rule=FINESSE,
                fighter=fid,
                from_fighter=attack.target,
                allowed=allowed,
                needed=need,
                moved=reached,
                gaps=gaps_of((fid, o, n) for o, n in to.items()) if reached else (),
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
    used = weapons_used(state, ctx, command.attacker, command.weapons)
    if isinstance(command, FinesseAttack) and (command.to or command.through):
        check_finesse_move(state, command)
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
    if isinstance(command, PowerAttack):
        if test.successes == 0:
            return (yield from power_missed(state, attack))
        return (yield from knock_back(state, attack, effect))
    if command.to:
        return (yield from finesse_move(state, attack, effect, command.to))
    return (yield from disengage(state, attack, effect))
