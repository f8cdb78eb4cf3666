"""A vehicle moving out of engagement (Necromunda Core Rulebook (2023), Close Combat, box:
Attacking Vehicles): "A vehicle never counts as being engaged and may freely move out of
engagement range of enemy fighters, however when it does those fighters may make an Initiative
test, and can make Reaction attacks against the vehicle if they pass."

Each enemy fighter within 1" of the vehicle that is Standing tests its Initiative (D6, passing on
its Initiative or more); one that passes may make Reaction attacks against the vehicle (steps 1
to 6, at the vehicle alone). Then the vehicle leaves contact with all of them, unless they have
Wrecked it. The rules before 2023 do not say what happens; ruling
``vehicle-leaving-engagement`` assumes the 2023 rule. No table geometry: the vehicle leaves the
engagement range of every enemy fighter within 1" of it.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from blowbyblow.domain.core import RuleViolation, Step, roll
from blowbyblow.domain.necromunda.combat import Combat, emit
from blowbyblow.domain.necromunda.commands import LeaveEngagement
from blowbyblow.domain.necromunda.editions import Edition
from blowbyblow.domain.necromunda.events import (
    InitiativeTested,
    ReactionForgone,
    VehicleLeavesEngagement,
)
from blowbyblow.domain.necromunda.fight import known_fighter
from blowbyblow.domain.necromunda.reaction_attacks import react
from blowbyblow.domain.necromunda.rulings import VEHICLE_LEAVING_ENGAGEMENT
from blowbyblow.domain.necromunda.state import WRECKED, NecromundaState
from blowbyblow.domain.necromunda.status import end_contact, resync_statuses


def fighters_left_behind(state: NecromundaState, edition: Edition, vehicle: str) -> list[str]:
    """The enemy fighters within 1" of a vehicle that may move out of engagement range; a
    RuleViolation if ``vehicle`` is no Mobile vehicle with an enemy fighter within 1"."""
    rule = edition.rule(edition.vehicle_leaving_section)
    v = known_fighter(state, vehicle, rule, "vehicle")
    if not v.is_vehicle:
        raise RuleViolation(rule, f"{vehicle} is not a vehicle")
    if v.status == WRECKED:
        raise RuleViolation(rule, f"{vehicle} is Wrecked and does not move")
    fighters = [o for o in state.linked(vehicle) if state.fighters[o].gang != v.gang]
    if not fighters:
        raise RuleViolation(rule, f'{vehicle} is within 1" of no enemy fighter')
    return fighters


def leave_engagement(
    combat: Combat, state: NecromundaState, command: LeaveEngagement
) -> Generator[Step, Any, NecromundaState]:
    """The vehicle leaves; each fighter it leaves behind may test for Reaction attacks first."""
    ed = combat.edition
    rule = ed.rule(ed.vehicle_leaving_section)
    fighters = fighters_left_behind(state, ed, command.vehicle)
    attacks = not (
        ed.vehicle_leaving_unsaid and combat.ctx.ruling(VEHICLE_LEAVING_ENGAGEMENT) == "no-attacks"
    )
    state = yield from emit(
        VehicleLeavesEngagement(
            rule=rule, vehicle=command.vehicle, fighters=fighters, attacks=attacks
        )
    )
    if attacks:
        for fighter in fighters:
            if state.fighters[command.vehicle].status == WRECKED:
                break
            state = yield from _test_and_react(combat, state, fighter, command.vehicle)
    if state.fighters[command.vehicle].status == WRECKED:
        return state  # Wrecked, it left every engagement and moves no more
    left = [f for f in fighters if state.link(command.vehicle, f) is not None]
    state = yield from end_contact(
        state, command.vehicle, left, rule, f"{command.vehicle} moved out of engagement range"
    )
    return (yield from resync_statuses(state, f"{command.vehicle} moved away", rule))


def _test_and_react(
    combat: Combat, state: NecromundaState, fighter: str, vehicle: str
) -> Generator[Step, Any, NecromundaState]:
    """One fighter left behind: a Standing fighter tests its Initiative; if it passes, it may
    make Reaction attacks against the vehicle."""
    ed = combat.edition
    rule = ed.rule(ed.vehicle_leaving_section)
    f = state.fighters[fighter]
    if not f.standing:
        return (
            yield from emit(
                ReactionForgone(
                    rule=rule, fighter=fighter, reason=f"it is {f.status}, not Standing"
                )
            )
        )
    (natural,) = yield from roll(
        f"initiative/{fighter}", 1, purpose=f"{f.label}: Initiative test as {vehicle} moves away"
    )
    passed = natural >= f.i
    state = yield from emit(
        InitiativeTested(
            rule=rule,
            fighter=fighter,
            cause=f"{vehicle} moves out of engagement range",
            natural=natural,
            target_number=f.i,
            passed=passed,
        )
    )
    if not passed:
        return state
    return (yield from react(combat.attack(vehicle), state, fighter, only_attacker=True))
