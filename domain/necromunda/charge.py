"""The Charge (Double) action (Necromunda Core Rulebook (2023), Actions, and Close Combat's box
"Charging Prone or Out of Line of Sight Fighters"): the fighter moves into engagement with its
targets and faces them, then makes a free Fight (Basic) action with +1 Attack dice. A charged
Prone & Pinned fighter becomes Standing & Engaged (both books: a fighter is never Prone & Pinned
and Engaged) and, in 2023, counts as having turned to face the charger.

No table geometry is modelled: a charge always reaches.
"""

from __future__ import annotations

from blowbyblow.domain.core import Event, RuleViolation
from blowbyblow.domain.necromunda.commands import Charge
from blowbyblow.domain.necromunda.editions import Edition
from blowbyblow.domain.necromunda.events import (
    Charged,
    EngagementFormed,
    StatusChanged,
    TurnedToFace,
    VisionChanged,
)
from blowbyblow.domain.necromunda.fight import arc_with, known_fighter
from blowbyblow.domain.necromunda.state import (
    FACINGS,
    OUT_OF_ACTION,
    PRONE_PINNED,
    SERIOUSLY_INJURED,
    STANDING_ACTIVE,
    STANDING_ENGAGED,
    WRECKED,
    FighterState,
    NecromundaState,
)


def charge_events(state: NecromundaState, edition: Edition, command: Charge) -> list[Event]:
    """The events of the charge itself, checked before anything is recorded."""
    rule = edition.rule("Charge")
    may_charge(state, edition, command.attacker)
    _check_named(command, rule)
    events: list[Event] = [
        Charged(
            rule=rule,
            fighter=command.attacker,
            targets=list(command.targets),
            out_of_sight=tuple(command.out_of_sight),
        )
    ]
    events.extend(_engagement(state, command, t, rule) for t in command.targets)
    events.append(
        VisionChanged(
            rule=rule,
            fighter=command.attacker,
            in_arc=list(arc_with(state, command.attacker, command.targets)),
            reason="faces the fighters it charged",
        )
    )
    for t in command.targets:
        if state.fighters[t].status == PRONE_PINNED:
            events.extend(_charged_prone(state, edition, command.attacker, t))
    return events


def may_charge(state: NecromundaState, edition: Edition, attacker: str) -> FighterState:
    """A charger is a Standing & Active fighter that is not Broken; vehicles do not charge here."""
    rule = edition.rule("Charge")
    me = known_fighter(state, attacker, rule, "charger")
    if me.is_vehicle:
        raise RuleViolation(rule, "vehicles do not charge here")
    if me.status != STANDING_ACTIVE:
        raise RuleViolation(rule, f"{attacker} is {me.status}; a charger must be Standing & Active")
    if me.broken:
        raise RuleViolation(edition.rule("Broken"), f"{attacker} is Broken and cannot charge")
    return me


def may_be_charged(charger: FighterState, target: FighterState) -> bool:
    """An enemy that is not Seriously Injured, Out of Action or Wrecked."""
    return target.gang != charger.gang and target.status not in (
        OUT_OF_ACTION,
        WRECKED,
        SERIOUSLY_INJURED,
    )


def _check_named(command: Charge, rule: str) -> None:
    if not command.targets or len(set(command.targets)) != len(command.targets):
        raise RuleViolation(rule, "name each charged target once")
    for t in command.out_of_sight:
        if t not in command.targets:
            raise RuleViolation(rule, f"out_of_sight names {t}, which is not charged")
    for t in [*command.across, *command.facing]:
        if t not in command.targets:
            raise RuleViolation(rule, f"{t} is not among the charged targets")


def _engagement(state: NecromundaState, command: Charge, t: str, rule: str) -> EngagementFormed:
    """The charger ends in base contact with ``t`` (across a barricade, or against a facing of
    a vehicle, as the command says)."""
    me = state.fighters[command.attacker]
    tgt = known_fighter(state, t, rule, "charged target")
    if tgt.gang == me.gang:
        raise RuleViolation(rule, f"{t} is a friend")
    if not may_be_charged(me, tgt):
        raise RuleViolation(rule, f"{t} is {tgt.status}")
    across = command.across.get(t)
    if across is not None and across not in state.barricades:
        raise RuleViolation(rule, f"unknown barricade {across!r}")
    facing = command.facing.get(t)
    if tgt.is_vehicle:
        if facing not in FACINGS:
            raise RuleViolation(rule, f"say which facing of {t} the charger ends against")
    elif facing is not None:
        raise RuleViolation(rule, f"{t} is not a vehicle; it has no facing")
    if state.link(command.attacker, t) is not None:
        raise RuleViolation(rule, f"{command.attacker} is already in contact with {t}")
    return EngagementFormed(
        rule=rule,
        a=min(command.attacker, t),
        b=max(command.attacker, t),
        across=across,
        facing=facing,
    )


def _charged_prone(
    state: NecromundaState, edition: Edition, charger: str, target: str
) -> list[Event]:
    """A charged Prone & Pinned fighter stands: 2023, the box "Charging Prone or Out of Line of
    Sight Fighters" (and it counts as having turned to face the charger); older rules, only the
    general rule (the FAQ and errata: never Prone & Pinned and Engaged)."""
    stand_rule = (
        edition.rule("CC Charging Prone")
        if edition.charged_prone_turn
        else edition.rule("Charge (errata)")
    )
    events: list[Event] = [
        StatusChanged(
            rule=stand_rule,
            fighter=target,
            before=PRONE_PINNED,
            after=STANDING_ENGAGED,
            cause=f"charged by {charger} while Prone & Pinned",
        )
    ]
    if edition.charged_prone_turn:
        events.append(
            TurnedToFace(
                rule=edition.rule("CC Charging Prone"),
                fighter=target,
                in_arc=list(arc_with(state, target, [charger])),
                counted=True,
            )
        )
    return events
