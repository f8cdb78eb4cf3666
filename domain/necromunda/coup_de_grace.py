"""The Coup de Grace (Simple) action (Necromunda Core Rulebook (2023), Actions): against a Prone
& Seriously Injured enemy in contact; free at step 8 of a fight, or an action of a Standing &
Active fighter. What it does is the ruling ``coup-de-grace-effect``: Out of Action at once (the
2017 wording), or Injury dice from a weapon. A Broken fighter makes none (ruling
``broken-coup-de-grace``); before 2023 the enemy must be inside the fighter's vision arc (ruling
``coup-de-grace-vision-arc``)."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from blowbyblow.domain.core import RuleViolation, Step, ruling_value
from blowbyblow.domain.necromunda.combat import Attack, Combat, emit
from blowbyblow.domain.necromunda.commands import CoupDeGraceAction
from blowbyblow.domain.necromunda.editions import Edition
from blowbyblow.domain.necromunda.events import CoupDeGrace
from blowbyblow.domain.necromunda.fight import known_fighter, profile
from blowbyblow.domain.necromunda.resolve_hits import injury_dice
from blowbyblow.domain.necromunda.rulings import (
    BROKEN_COUP_DE_GRACE,
    COUP_DE_GRACE_EFFECT,
    COUP_DE_GRACE_VISION_ARC,
)
from blowbyblow.domain.necromunda.state import (
    OUT_OF_ACTION,
    SERIOUSLY_INJURED,
    STANDING_ACTIVE,
    UNARMED,
    NecromundaState,
)
from blowbyblow.domain.necromunda.status import Because, set_status


def coup_de_grace(
    at: Attack, state: NecromundaState, target: str, weapon: str, rule: str
) -> Generator[Step, Any, NecromundaState]:
    """``at.attacker`` performs a Coup de Grace on ``target`` with ``weapon`` (a weapon id or
    "unarmed")."""
    effect = at.ctx.ruling(COUP_DE_GRACE_EFFECT)
    at.combat.nerve.coup_de_grace = target
    state = yield from emit(
        CoupDeGrace(rule=rule, fighter=at.attacker, target=target, effect=effect, weapon=weapon)
    )
    if effect == "out-of-action":
        return (
            yield from set_status(at, state, target, OUT_OF_ACTION, Because("Coup de Grace", rule))
        )
    prof = profile(state.fighters[at.attacker], weapon)
    return (
        yield from injury_dice(
            at, state, target, max(1, prof.damage), f"{at.key}coup-de-grace/injury"
        )
    )


def arc_required(edition: Edition, rulings: Mapping[str, str]) -> bool:
    """The 2017 Coup de Grace chooses an enemy inside the fighter's vision arc (ruling
    ``coup-de-grace-vision-arc``, since 1.1)."""
    return (
        edition.coup_de_grace_arc
        and ruling_value(rulings, COUP_DE_GRACE_VISION_ARC.name) == "required"
    )


def coup_de_grace_action(
    combat: Combat, state: NecromundaState, command: CoupDeGraceAction
) -> Generator[Step, Any, NecromundaState]:
    """The Coup de Grace (Simple) action, checked before anything is recorded."""
    rule = combat.rule("Coup de Grace")
    me = known_fighter(state, command.attacker, rule, "fighter")
    tgt = known_fighter(state, command.target, rule, "target")
    if not me.standing or me.is_vehicle:
        raise RuleViolation(rule, f"{me.id} is {me.status}")
    if me.status != STANDING_ACTIVE:
        raise RuleViolation(
            rule, "a Coup de Grace (Simple) is an action of a Standing & Active fighter"
        )
    if me.broken and combat.ctx.ruling(BROKEN_COUP_DE_GRACE) == "refused":
        raise RuleViolation(
            combat.rule("Broken"), f"{me.id} is Broken and must Run for Cover, not Coup de Grace"
        )
    if tgt.gang == me.gang or tgt.status != SERIOUSLY_INJURED:
        raise RuleViolation(rule, f"{tgt.id} is not a Prone & Seriously Injured enemy")
    if state.link(me.id, tgt.id) is None:
        raise RuleViolation(rule, f'{tgt.id} is not within 1" (in contact) of {me.id}')
    if arc_required(combat.edition, combat.ctx.rulings) and not state.in_arc(me.id, tgt.id):
        raise RuleViolation(rule, f"{tgt.id} is not inside {me.id}'s vision arc")
    weapon = command.weapon or UNARMED
    if weapon != UNARMED and me.weapon(weapon) is None:
        raise RuleViolation(rule, f"{me.id} has no weapon {weapon!r}")
    return (yield from coup_de_grace(combat.attack(me.id), state, tgt.id, weapon, rule))
