"""Hand-to-Hand Combat, Breaking Off.

"A model may attempt to disengage from Hand-to-Hand Combat and escape. This must be declared
before that model's Combat Round. During the combat the model attempting to break off fights with
a Weapon Skill of 0, and may not Parry. If the escaping model survives, it moves 2D6" directly
away from its attacker. The retreating model and its squad are automatically Broken and may not
attempt to Rally until the following turn." (WS 0 is applied in ``combat_score``, no parry in
``parrying``.)
"""

from __future__ import annotations

from blowbyblow.domain.core import RuleViolation, emit, roll
from blowbyblow.domain.wh40k.combat_round import Gen
from blowbyblow.domain.wh40k.events import BreakOffAttempted, BrokeOff
from blowbyblow.domain.wh40k.rulebook import RULE_BREAK_OFF
from blowbyblow.domain.wh40k.state import Wh40kState, require_living


def check_break_off(state: Wh40kState, model: str) -> None:
    """The model must be in hand-to-hand combat and must not have fought this phase."""
    require_living(state, model, RULE_BREAK_OFF)
    if not state.hth_opponents(model):
        raise RuleViolation(RULE_BREAK_OFF, f"{model} is not in hand-to-hand combat")
    if model in state.breaking_off:
        raise RuleViolation(RULE_BREAK_OFF, f"{model} has already declared a break off")
    if state.has_fought(model):
        raise RuleViolation(
            RULE_BREAK_OFF,
            f"{model} has already fought this phase; a break off must be declared "
            "before its Combat Round",
        )


def declare_break_off(state: Wh40kState, model: str) -> Gen:
    """The declaration, before the model's Combat Round. Returns the state."""
    return (
        yield from emit(
            BreakOffAttempted(
                rule=RULE_BREAK_OFF, model=model, opponents=tuple(state.opponents(model))
            ),
            Wh40kState,
        )
    )


def escape(state: Wh40kState, model: str) -> Gen:
    """The escaping model survived: it moves 2D6" directly away from every enemy it touches;
    it and the living models of its squad are Broken. Returns the state."""
    away_from = tuple(state.opponents(model))
    dice = yield from roll(f"breakoff/{model}", 2, 6, purpose=f'{model} breaks off (2D6")')
    squad = state.profile(model).squad
    broken = [model]
    if squad:
        broken += [
            m.id
            for m in state.setup.models
            if m.squad == squad and m.id != model and state.alive(m.id)
        ]
    return (
        yield from emit(
            BrokeOff(
                rule=RULE_BREAK_OFF,
                model=model,
                away_from=away_from,
                dice=dice,
                inches=sum(dice),
                broken=tuple(broken),
                turn=state.turn,
            ),
            Wh40kState,
        )
    )


def escape_survivors(state: Wh40kState, participants: list[str]) -> Gen:
    """After the fight, each participant that declared a break off, survived and is still in
    base contact escapes. Returns the state."""
    for m in participants:
        if m in state.breaking_off and state.alive(m) and state.opponents(m):
            state = yield from escape(state, m)
    return state


__all__ = ["check_break_off", "declare_break_off", "escape", "escape_survivors"]
