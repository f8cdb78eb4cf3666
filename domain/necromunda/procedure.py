"""Which rule steps each Necromunda command runs, under either book:

- ``fight``: a Fight (Basic) action, the close combat sequence, steps 1 to 8;
- ``charge``: a Charge (Double) action, then its free Fight (steps 1 to 8);
- ``coup-de-grace``: a Coup de Grace (Simple) action;
- ``granted-attack``: a close combat attack outside the normal sequence of the battle (a skill,
  a gang tactic or the Mounted condition allows it), steps 1 to 8;
- ``leave-engagement``: a vehicle moves out of engagement range; the fighters it leaves may
  test their Initiative to make Reaction attacks against it.

Every command is checked whole before its first event: a command the rules do not allow raises
RuleViolation and records nothing.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from blowbyblow.domain.core import Context, Event, LastAnswer, Procedure, RuleViolation, Step
from blowbyblow.domain.necromunda.charge import charge_events
from blowbyblow.domain.necromunda.combat import Attack, Combat, emit
from blowbyblow.domain.necromunda.commands import (
    Charge,
    CoupDeGraceAction,
    Fight,
    GrantedAttack,
    LeaveEngagement,
    NecromundaCommand,
)
from blowbyblow.domain.necromunda.consolidate import step8_consolidate_or_coup_de_grace
from blowbyblow.domain.necromunda.coup_de_grace import coup_de_grace_action
from blowbyblow.domain.necromunda.editions import LEGACY, N23, Edition
from blowbyblow.domain.necromunda.events import AttackGranted, FightDeclared
from blowbyblow.domain.necromunda.fight import (
    FightOrder,
    FightPlan,
    plan_fight,
    step1_turn_to_face,
    step2_choose_weapons,
    step3_determine_attack_dice,
    step4_declare_targets,
)
from blowbyblow.domain.necromunda.granted_attacks import grant_source
from blowbyblow.domain.necromunda.hit_rolls import step5_make_hit_rolls
from blowbyblow.domain.necromunda.leave_engagement import leave_engagement
from blowbyblow.domain.necromunda.projection import evolve
from blowbyblow.domain.necromunda.reaction_attacks import step7_reaction_attacks
from blowbyblow.domain.necromunda.resolve_hits import step6_resolve_hits
from blowbyblow.domain.necromunda.state import UNARMED, NecromundaState, engaged_with
from blowbyblow.domain.necromunda.status import resync_events, resync_statuses


def procedure(state: NecromundaState, command: NecromundaCommand, ctx: Context) -> Procedure:
    """necromunda-2023: run ``command`` under the 2023 Core Rulebook."""
    return run_command(Combat(edition=N23, ctx=ctx), state, command)


def legacy_procedure(state: NecromundaState, command: NecromundaCommand, ctx: Context) -> Procedure:
    """necromunda-legacy: run ``command`` under the rules before 2023."""
    return run_command(Combat(edition=LEGACY, ctx=ctx), state, command)


def run_command(combat: Combat, state: NecromundaState, command: NecromundaCommand) -> Procedure:
    if isinstance(command, Fight):
        yield from fight_action(combat, state, command)
    elif isinstance(command, Charge):
        yield from charge_action(combat, state, command)
    elif isinstance(command, CoupDeGraceAction):
        yield from coup_de_grace_action(combat, state, command)
    elif isinstance(command, GrantedAttack):
        yield from granted_attack(combat, state, command)
    elif isinstance(command, LeaveEngagement):
        yield from leave_engagement(combat, state, command)
    else:
        raise RuleViolation(combat.rule("CC"), f"unknown command {type(command).__name__}")


def fight_action(
    combat: Combat, state: NecromundaState, command: Fight
) -> Generator[Step, Any, NecromundaState]:
    """A Fight (Basic) action (or the free Fight of a charge recorded elsewhere)."""
    order = FightOrder.of_fight(command)
    plan = _planned(lambda: plan_fight(state, combat.edition, order), state, combat.edition, order)
    return (yield from fight_sequence(combat, state, plan))


# The last Fight planned and the last charge's events and Fight (``LastAnswer``): the odds run
# one command from one state hundreds of times, and a charge's events, its state folded and its
# Fight checked were a sixth of each run of the 2023 charge.
_planned: LastAnswer[FightPlan] = LastAnswer()
_charged: LastAnswer[tuple[tuple[Event, ...], FightPlan]] = LastAnswer()


def _charge(
    state: NecromundaState, ed: Edition, command: Charge
) -> tuple[tuple[Event, ...], FightPlan]:
    """A charge's events, and its Fight checked against the state they leave."""
    events = charge_events(state, ed, command)
    after = state
    for event in events:
        after = evolve(after, event)
    for status_event in resync_events(after, "", ""):
        after = evolve(after, status_event)
    return tuple(events), plan_fight(after, ed, FightOrder.of_charge(command))


def charge_action(
    combat: Combat, state: NecromundaState, command: Charge
) -> Generator[Step, Any, NecromundaState]:
    """A Charge (Double) action and its free Fight. The Fight is checked against the state the
    charge leaves, before the charge is recorded."""
    ed = combat.edition
    events, plan = _charged(lambda: _charge(state, ed, command), state, ed, command)
    if not command.fight_targets and not command.allocation and len(command.targets) > 1:
        raise RuleViolation(
            ed.rule("CC 4"), "charging several targets: give fight_targets or allocation"
        )
    for event in events:
        state = yield from emit(event)
    state = yield from resync_statuses(state, f"{command.attacker} charged", ed.rule("Charge"))
    return (yield from fight_sequence(combat, state, plan))


def granted_attack(
    combat: Combat, state: NecromundaState, command: GrantedAttack
) -> Generator[Step, Any, NecromundaState]:
    """A close combat attack outside the normal sequence: what grants it, then steps 1 to 8."""
    ed = combat.edition
    plan = plan_fight(state, ed, FightOrder.of_granted(command))
    me = state.fighters[command.attacker]
    source = grant_source(state, ed, me, command.granted_by)
    state = yield from emit(
        AttackGranted(
            rule=ed.rule(ed.granted_attack_section),
            fighter=me.id,
            granted_by=command.granted_by,
            source=source,
        )
    )
    return (yield from fight_sequence(combat, state, plan))


def fight_sequence(
    combat: Combat, state: NecromundaState, plan: FightPlan
) -> Generator[Step, Any, NecromundaState]:
    """The close combat sequence of one Fight (Basic) action, steps 1 to 8."""
    order = plan.order
    me = state.fighters[order.attacker]
    opponents = [
        o
        for o in state.linked(order.attacker)
        if state.fighters[o].gang != me.gang
        and (o in engaged_with(state, order.attacker) or state.fighters[o].is_vehicle)
    ]
    state = yield from emit(
        FightDeclared(
            rule=combat.rule("CC"),
            fighter=order.attacker,
            kind=order.kind,
            charging=order.charging,
            engaged_with=tuple(opponents),
        )
    )
    at = Attack(
        combat=combat,
        attacker=order.attacker,
        turned=None if order.turn_to_face is None else "turned to face",
        out_of_sight=bool(order.out_of_sight),
    )
    if order.turn_to_face is not None:
        state = yield from step1_turn_to_face(at, state, order.turn_to_face)
    state = yield from step2_choose_weapons(at, state, plan.weapons)
    state, split = yield from step3_determine_attack_dice(
        at, state, plan.weapons, plan.dice, plan.targets.odd_die
    )
    state, groups = yield from step4_declare_targets(
        at, state, split, plan.targets.targets, plan.targets.allocation
    )
    state, hits = yield from step5_make_hit_rolls(at, state, groups)
    state = yield from step6_resolve_hits(at, state, hits)
    state = yield from step7_reaction_attacks(at, state)
    weapon = plan.weapons[0].id if plan.weapons else UNARMED
    return (yield from step8_consolidate_or_coup_de_grace(at, state, opponents, weapon))
