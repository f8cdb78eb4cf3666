"""Hand-to-Hand Combat, Combat Rounds, step 1: Roll Attack Dice.

"Each player rolls a number of D6 equal to their model's Attacks characteristic. If they have two
or more weapons with the Close Combat rule, they add 1 D6 to their roll." In a Multiple Combat
the outnumbering side adds +1 D6 in the second round, +2 in the third, and so on.
"""

from __future__ import annotations

from blowbyblow.domain.core import Modifier, emit, roll
from blowbyblow.domain.wh40k.combat_round import CombatRound, Gen
from blowbyblow.domain.wh40k.events import AttackDiceRolled
from blowbyblow.domain.wh40k.parrying import parries_against
from blowbyblow.domain.wh40k.rulebook import RULE_ATTACK_DICE, RULE_MULTIPLE
from blowbyblow.domain.wh40k.state import Wh40kState


def attack_dice_modifiers(state: Wh40kState, model: str, extra: int) -> tuple[Modifier, ...]:
    """+1 D6 with two or more Close Combat weapons; in a Multiple Combat the outnumbering
    side's ``extra`` dice."""
    mods: list[Modifier] = []
    cc = state.close_combat_weapons(model)
    if len(cc) >= 2:
        mods.append(
            Modifier(
                value=1,
                cause=f"two Close Combat weapons ({', '.join(w.label for w in cc)})",
                rule=RULE_ATTACK_DICE,
            )
        )
    if extra:
        mods.append(
            Modifier(
                value=extra,
                cause=f"Multiple Combat: duel {extra + 1} after the lone model survived",
                rule=RULE_MULTIPLE,
            )
        )
    return tuple(mods)


def roll_attack_dice(state: Wh40kState, rnd: CombatRound, model: str) -> Gen:
    """D6 equal to the model's Attacks, plus the modifiers. Returns (state, dice)."""
    attacks = state.profile(model).a
    mods = attack_dice_modifiers(state, model, rnd.extra_dice(model))
    count = attacks + sum(m.value for m in mods)
    # What the rules read of these dice: their single highest (Calculate Combat Score), and one
    # more for each parry the opponent keeps against them, as each re-rolls the then-highest
    # (Parrying); of the others only how many are 1s (Fumbles) and 6s (Critical Hits).
    dice = yield from roll(
        rnd.key("attack", model),
        count,
        6,
        purpose=f"Attack dice of {model}",
        counts=(2, 6),
        highest=1 + parries_against(state, rnd, model),
    )
    state = yield from emit(
        AttackDiceRolled(
            rule=RULE_ATTACK_DICE,
            model=model,
            opponent=rnd.opponent(model),
            attacks=attacks,
            modifiers=mods,
            count=count,
            dice=dice,
        ),
        Wh40kState,
    )
    return state, list(dice)


__all__ = ["attack_dice_modifiers", "roll_attack_dice"]
