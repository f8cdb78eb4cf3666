"""Hand-to-Hand Combat, Who Fights.

"In the Hand-to-Hand Combat Phase, all models with a Weapon Skill value that are in base-to-base
contact with an enemy model fight in Hand-to-Hand Combat; combat is mandatory for every eligible
model. Both sides fight and can inflict casualties, regardless of which player's turn it is."
A ``fight`` command names one model; the combat it is in is a one-on-one fight or, when two or
more enemies touch one model, a Multiple Combat. A model with no Weapon Skill value does not
fight: a pair in base contact with such a model has no Combat Round, and combat is not mandatory
for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from blowbyblow.domain.core import RuleViolation
from blowbyblow.domain.wh40k.rulebook import RULE_MULTIPLE, RULE_WHO
from blowbyblow.domain.wh40k.state import Wh40kState, require_living


@dataclass(frozen=True)
class Combat:
    """The combat a model is in: ``lone`` is None for a one-on-one fight (``models`` the pair,
    the named model first); in a Multiple Combat ``lone`` is the outnumbered model and
    ``models`` its opponents not fought this phase, in the order contact was made, and
    ``order`` the order of the duels the command gives (empty: the player is asked)."""

    lone: str | None
    models: tuple[str, ...]
    order: tuple[str, ...] = ()


def lone_model(state: Wh40kState, model: str) -> str | None:
    """The model touched by two or more enemies not fought this phase: ``model`` itself, else
    its single opponent; None for a one-on-one fight. ``model`` has an unfought opponent."""
    mine = state.unfought_opponents(model)
    if len(mine) >= 2:
        return model
    if len(state.unfought_opponents(mine[0])) >= 2:
        return mine[0]
    return None


def find_combat(state: Wh40kState, model: str, order: tuple[str, ...] = ()) -> Combat:
    """The combat ``model`` is in, checking the Multiple Combat ``order`` a command gives."""
    require_living(state, model, RULE_WHO)
    if not state.fights(model):
        raise RuleViolation(
            RULE_WHO, f"{model} has no Weapon Skill value: it does not fight in Hand-to-Hand Combat"
        )
    mine = state.unfought_opponents(model)
    if not mine:
        raise RuleViolation(
            RULE_WHO,
            f"{model} is not in base contact with an enemy it has not fought this phase",
        )
    lone = lone_model(state, model)
    if lone is None:
        if order:
            raise RuleViolation(RULE_MULTIPLE, "order is only for a Multiple Combat")
        return Combat(lone=None, models=(model, mine[0]))
    opponents = state.unfought_opponents(lone)
    if order and sorted(order) != sorted(opponents):
        raise RuleViolation(
            RULE_MULTIPLE,
            f"order must list each model fighting {lone} once: {', '.join(opponents)}",
        )
    return Combat(lone=lone, models=tuple(opponents), order=order)


def still_to_fight(state: Wh40kState) -> list[tuple[str, str]]:
    """The pairs in base contact that fight (both have a Weapon Skill value) and have not
    fought this phase."""
    return [
        p
        for p in state.contacts
        if p not in state.fought and state.fights(p[0]) and state.fights(p[1])
    ]


def check_end_turn(state: Wh40kState) -> None:
    """Combat is mandatory: the turn does not end while a pair in base contact has not fought."""
    waiting = still_to_fight(state)
    if waiting:
        raise RuleViolation(
            RULE_WHO,
            "combat is mandatory; still to fight: " + ", ".join(f"{a} and {b}" for a, b in waiting),
        )


__all__ = ["Combat", "check_end_turn", "find_combat", "lone_model", "still_to_fight"]
