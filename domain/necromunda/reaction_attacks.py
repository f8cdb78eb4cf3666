"""Close Combat step 7, Reaction Attacks (Necromunda Core Rulebook (2023); the older rules'
step 7 and its "N17 (improved version)" box): each enemy still Standing and Engaged with the
attacker may make Reaction attacks, following steps 1 to 6. Vehicles never make Reaction
attacks (they are never engaged). A charged Prone & Pinned fighter counts as having turned to
face (2023; ruling ``charged-prone-reaction``); in the older rules' variant, Reaction attacks
must target the attacker (ruling ``reaction-target``), and their step list's "steps 1 to 5"
leaves the hits unresolved (ruling ``reaction-attack-steps``). ``react`` is also what a fighter
makes against a vehicle moving out of engagement (``leave_engagement``), at the vehicle alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator, Sequence
from typing import Any

from blowbyblow.domain.core import Step, ask
from blowbyblow.domain.necromunda.combat import Attack, emit
from blowbyblow.domain.necromunda.events import (
    FightDeclared,
    HitDiscarded,
    ReactionAttacksBegun,
    ReactionForgone,
)
from blowbyblow.domain.necromunda.fight import (
    Profile,
    arc_with,
    attack_dice,
    choice_name,
    choose_weapons,
    eligible_targets,
    step1_turn_to_face,
    step2_choose_weapons,
    step3_determine_attack_dice,
    step4_declare_targets,
    weapon_choices,
)
from blowbyblow.domain.necromunda.hit_rolls import Hit, step5_make_hit_rolls
from blowbyblow.domain.necromunda.resolve_hits import step6_resolve_hits
from blowbyblow.domain.necromunda.rulings import (
    CHARGED_PRONE_REACTION,
    REACTION_ATTACK_STEPS,
    REACTION_TARGET,
)
from blowbyblow.domain.necromunda.state import FighterState, NecromundaState, engaged_with


def step7_reaction_attacks(
    at: Attack, state: NecromundaState
) -> Generator[Step, Any, NecromundaState]:
    """Step 7: every enemy Engaged with the attacker, in turn, may make Reaction attacks."""
    reactors = engaged_with(state, at.attacker)
    at.combat.struck.reactors = tuple(reactors)  # the attacker's own hits are resolved
    if not reactors:
        return state
    state = yield from emit(
        ReactionAttacksBegun(rule=at.rule("CC 7"), attacker=at.attacker, reactors=reactors)
    )
    struck = at.combat.struck
    for reactor in reactors:
        struck.to_hit = None  # this reactor's targets are unknown until its step 6
        state = yield from reaction_attacks(at, state, reactor)
        struck.reacted += 1
    return state


def reaction_attacks(
    at: Attack, state: NecromundaState, reactor: str
) -> Generator[Step, Any, NecromundaState]:
    """One fighter's Reaction attacks against ``at.attacker``: steps 1 to 6."""
    attacker = at.attacker
    if reactor not in engaged_with(state, attacker):
        return (
            yield from emit(
                ReactionForgone(
                    rule=at.rule("CC 7"),
                    fighter=reactor,
                    reason=f"no longer Standing and Engaged with {attacker}",
                )
            )
        )
    return (yield from react(at, state, reactor, only_attacker=False))


def react(
    at: Attack, state: NecromundaState, reactor: str, *, only_attacker: bool
) -> Generator[Step, Any, NecromundaState]:
    """``reactor`` makes Reaction attacks against ``at.attacker`` (at it alone if
    ``only_attacker``: a vehicle leaving engagement), following steps 1 to 6 (or 1 to 5 under
    the older rules' ruling ``reaction-attack-steps``)."""
    rule = at.rule("CC 7")
    attacker = at.attacker
    me = state.fighters[reactor]  # as it was before FightDeclared used up its mark
    react = Attack(combat=at.combat, attacker=reactor, key=f"react/{reactor}/", reaction=True)
    answer = yield from ask(
        react.key + "react",
        ("react", "decline"),
        default="react",
        prompt=f"{me.label}: make Reaction attacks against {attacker}?",
    )
    if answer == "decline":
        return (
            yield from emit(
                ReactionForgone(rule=rule, fighter=reactor, reason="its player declined")
            )
        )
    state = yield from emit(
        FightDeclared(
            rule=rule,
            fighter=reactor,
            kind="reaction",
            engaged_with=tuple(engaged_with(state, reactor)),
        )
    )
    state, react = yield from _turn_to_face(react, state, me, attacker)
    weapons = yield from _choose_weapons(react, state, me)
    state, target = yield from _choose_target(react, state, attacker, weapons, only_attacker)
    if target is None:
        return state
    state = yield from step2_choose_weapons(react, state, weapons)
    dice = attack_dice(react.edition, me, weapons, charging=False)
    state, split = yield from step3_determine_attack_dice(react, state, weapons, dice, None)
    state, groups = yield from step4_declare_targets(react, state, split, [target], [])
    state, hits = yield from step5_make_hit_rolls(react, state, groups)
    if (
        react.edition.reaction_steps_variant
        and react.ctx.ruling(REACTION_ATTACK_STEPS) == "steps-1-5"
    ):
        return (yield from _hits_not_resolved(react, state, hits))
    return (yield from step6_resolve_hits(react, state, hits))


def _must_target(must: bool, only_attacker: bool, attacker: str) -> str:
    if only_attacker:
        return f" (its Reaction attacks may target only {attacker})"
    return " (Reaction attacks must target the attacker)" if must else ""


def _hits_not_resolved(
    react: Attack, state: NecromundaState, hits: Sequence[Hit]
) -> Generator[Step, Any, NecromundaState]:
    """The older rules' step list: Reaction attacks follow steps 1 to 5, so no hit is
    resolved."""
    for hit in hits:
        state = yield from emit(
            HitDiscarded(
                rule=react.rule("CC 7"),
                attacker=react.attacker,
                target=hit.target,
                weapon=hit.weapon,
                reason=(
                    "Reaction attacks follow steps 1 to 5 (ruling reaction-attack-steps): "
                    "the hit is not resolved"
                ),
            )
        )
    return state


def _turn_to_face(
    react: Attack, state: NecromundaState, me: FighterState, attacker: str
) -> Generator[Step, Any, tuple[NecromundaState, Attack]]:
    """Step 1 for Reaction attacks: a fighter charged while Prone & Pinned counts as having
    turned (2023); one whose arc does not hold the attacker is asked whether to turn."""
    turned: str | None = None
    if me.counts_as_turned:
        if react.ctx.ruling(CHARGED_PRONE_REACTION) == "counts-as-turned":
            turned = "counts as having turned to face (charged while Prone & Pinned)"
    elif attacker not in state.vision.get(react.attacker, ()):
        answer = yield from ask(
            react.key + "turn",
            ("turn-to-face", "do-not-turn"),
            default="turn-to-face",
            prompt=f"{me.label}: turn to face {attacker} (-1 to hit)?",
        )
        if answer == "turn-to-face":
            arc = arc_with(state, react.attacker, [attacker])
            state = yield from step1_turn_to_face(react, state, arc)
            turned = "turned to face"
    return state, dataclasses.replace(react, turned=turned)


def _choose_weapons(
    react: Attack, state: NecromundaState, me: FighterState
) -> Generator[Step, Any, tuple[Profile, ...]]:
    """Step 2 for Reaction attacks: the player picks among the choices step 2 allows."""
    options = weapon_choices(me)
    names = tuple(choice_name(o) for o in options)
    choice = names[0]
    if len(names) > 1:
        choice = yield from ask(
            react.key + "weapons",
            names,
            default=names[0],
            prompt=f"{me.label}: weapons for Reaction attacks",
        )
    return choose_weapons(react.edition, me, options[names.index(choice)])


def _choose_target(
    react: Attack,
    state: NecromundaState,
    attacker: str,
    weapons: tuple[Profile, ...],
    only_attacker: bool,
) -> Generator[Step, Any, tuple[NecromundaState, str | None]]:
    """Step 4 for Reaction attacks: the attacker by default, or another eligible target the
    player picks (the older rules' variant, and attacks on a vehicle leaving engagement: the
    attacker only). None: no eligible target."""
    must_target_attacker = only_attacker or (
        react.edition.reaction_target_variant
        and react.ctx.ruling(REACTION_TARGET) == "attacker-only"
    )
    eligible = eligible_targets(
        state, react.attacker, state.vision.get(react.attacker, ()), weapons
    )
    if must_target_attacker:
        eligible = [e for e in eligible if e == attacker]
    if not eligible:
        state = yield from emit(
            ReactionForgone(
                rule=react.rule("CC 4"),
                fighter=react.attacker,
                reason="no eligible target in its vision arc"
                + _must_target(must_target_attacker, only_attacker, attacker),
            )
        )
        return state, None
    target = eligible[0] if attacker not in eligible else attacker
    if len(eligible) > 1:
        label = state.fighters[react.attacker].label
        target = yield from ask(
            react.key + "target",
            tuple(eligible),
            default=target,
            prompt=f"{label}: target of the Reaction attacks",
        )
    return state, target
