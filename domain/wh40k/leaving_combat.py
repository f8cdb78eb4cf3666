"""Hand-to-Hand Combat, Breaking Off, its last paragraph: "Robots, Dreadnoughts, Greater Daemons,
and Chaos Champions riding Juggernauts may move out of Hand-to-Hand Combat in their Movement
Phase—and may then Charge or Shoot as normal. However, if they are engaged with another model in
this category, the standard Breaking Off rules apply."

The setup marks such a model (``leaves_combat``). In the Movement Phase of its player's turn it
leaves base contact with every enemy it touches, unless one of them is such a model too (then it
may only break off, declared before its Combat Round); it may charge afterwards. Shooting is not
modelled.
"""

from __future__ import annotations

from blowbyblow.domain.core import RuleViolation, emit
from blowbyblow.domain.wh40k.combat_round import Gen
from blowbyblow.domain.wh40k.commands import LeaveCombat
from blowbyblow.domain.wh40k.events import LeftCombat
from blowbyblow.domain.wh40k.rulebook import RULE_BREAK_OFF
from blowbyblow.domain.wh40k.setup import LEAVES_COMBAT_WORDS
from blowbyblow.domain.wh40k.state import Wh40kState, require_living


def check_leave_combat(state: Wh40kState, command: LeaveCombat) -> None:
    """Such a model, of the player whose turn it is, in its Movement Phase, in base contact with
    enemies none of which is such a model."""
    model = command.model
    require_living(state, model, RULE_BREAK_OFF)
    me = state.profile(model)
    if me.leaves_combat is None:
        raise RuleViolation(
            RULE_BREAK_OFF,
            f"only Robots, Dreadnoughts, Greater Daemons and Chaos Champions riding Juggernauts "
            f"move out of Hand-to-Hand Combat; {model} may only break off",
        )
    if me.player != state.player or state.phase != "movement":
        raise RuleViolation(
            RULE_BREAK_OFF,
            f"{model} may move out of Hand-to-Hand Combat only in its own Movement Phase "
            f"(now: {state.player}'s turn, {state.phase} phase)",
        )
    opponents = state.opponents(model)
    if not opponents:
        raise RuleViolation(RULE_BREAK_OFF, f"{model} is not in hand-to-hand combat")
    alike = [o for o in opponents if state.profile(o).leaves_combat is not None]
    if alike:
        what = LEAVES_COMBAT_WORDS[state.profile(alike[0]).leaves_combat or "robot"]
        raise RuleViolation(
            RULE_BREAK_OFF,
            f"{model} is engaged with {alike[0]} ({what}): the standard Breaking Off rules apply",
        )


def leave_combat(state: Wh40kState, command: LeaveCombat) -> Gen:
    """The model leaves base contact with every enemy it touches. Returns the state."""
    me = state.profile(command.model)
    assert me.leaves_combat is not None
    return (
        yield from emit(
            LeftCombat(
                rule=RULE_BREAK_OFF,
                model=command.model,
                what=LEAVES_COMBAT_WORDS[me.leaves_combat],
                away_from=tuple(state.opponents(command.model)),
                turn=state.turn,
            ),
            Wh40kState,
        )
    )


__all__ = ["check_leave_combat", "leave_combat"]
