"""Hand-to-Hand Combat, Combat Rounds, step 2: Calculate Combat Score.

"Each player picks their single highest scoring dice and adds the result to the model's Weapon
Skill. They then apply Combat Score Modifiers to this total": the opponent's Fumbles, the model's
own Critical Hits, charging (ruling charge-bonus) and an improvised attack (ruling
improvised-attack). A model breaking off fights with a Weapon Skill of 0 (Breaking Off).
"""

from __future__ import annotations

from blowbyblow.domain.core import Modifier, emit
from blowbyblow.domain.wh40k.combat_round import CombatRound, Dice, Gen
from blowbyblow.domain.wh40k.events import CombatScoreCalculated
from blowbyblow.domain.wh40k.fumbles_and_critical_hits import count_critical_hits, count_fumbles
from blowbyblow.domain.wh40k.rulebook import RULE_CHARGE, RULE_CRITICALS, RULE_FUMBLES, RULE_SCORE
from blowbyblow.domain.wh40k.rulings import CHARGE_BONUS, CHARGE_BONUS_AGAINST, IMPROVISED_ATTACK
from blowbyblow.domain.wh40k.state import Wh40kState


def _dice_modifiers(opponent: str, own: list[int], theirs: list[int]) -> list[Modifier]:
    mods: list[Modifier] = []
    fumbles = count_fumbles(theirs)
    if fumbles:
        mods.append(
            Modifier(value=fumbles, cause=f"{opponent} fumbled {fumbles} (1s)", rule=RULE_FUMBLES)
        )
    crits = count_critical_hits(own)
    if crits:
        mods.append(
            Modifier(
                value=crits,
                cause=f"{crits} Critical Hit(s) (6s after the first)",
                rule=RULE_CRITICALS,
            )
        )
    return mods


def charges_at(state: Wh40kState, rnd: CombatRound, model: str) -> bool:
    """Whether ``model`` fights this round as the charger: it charged this turn, and (ruling
    charge-bonus-against) this round is against the model it charged: "This move [a Follow-Up
    Move] can be used to engage another model ... but does not apply the Combat Score Modifier
    for charging"."""
    if not state.charged_this_turn(model):
        return False
    if rnd.ctx.ruling(CHARGE_BONUS_AGAINST) == "any-opponent":
        return True
    return state.models[model].charged == rnd.opponent(model)


def _ruled_modifiers(state: Wh40kState, rnd: CombatRound, model: str) -> list[Modifier]:
    mods: list[Modifier] = []
    if rnd.ctx.ruling(CHARGE_BONUS) == "+1" and charges_at(state, rnd, model):
        mods.append(
            Modifier(
                value=1, cause="charged this turn", rule=f"{RULE_CHARGE} (ruling charge-bonus)"
            )
        )
    if rnd.ctx.ruling(IMPROVISED_ATTACK) == "-1" and not state.close_combat_weapons(model):
        mods.append(
            Modifier(
                value=-1,
                cause="improvised attack (no Close Combat weapon)",
                rule=f"{RULE_SCORE} (ruling improvised-attack)",
            )
        )
    return mods


def score_modifiers(
    state: Wh40kState, rnd: CombatRound, model: str, dice: Dice
) -> tuple[Modifier, ...]:
    """The cumulative Combat Score Modifiers of ``model``, in this order: the opponent's
    Fumbles, its own Critical Hits, charging, improvised attack."""
    opponent = rnd.opponent(model)
    return (
        *_dice_modifiers(opponent, dice[model], dice[opponent]),
        *_ruled_modifiers(state, rnd, model),
    )


def combat_score(state: Wh40kState, rnd: CombatRound, model: str, dice: Dice, counted: Dice) -> Gen:
    """The single highest die of the final ``dice`` + WS (0 when breaking off) + the modifiers,
    Fumbles and Critical Hits taken from the ``counted`` dice (ruling dice-counted). Returns
    (state, score)."""
    own = dice[model]
    profile_ws = state.profile(model).weapon_skill
    ws = 0 if model in state.breaking_off else profile_ws
    mods = score_modifiers(state, rnd, model, counted)
    highest = max(own)
    score = highest + ws + sum(m.value for m in mods)
    state = yield from emit(
        CombatScoreCalculated(
            rule=RULE_SCORE,
            model=model,
            opponent=rnd.opponent(model),
            dice=tuple(own),
            highest=highest,
            profile_ws=profile_ws,
            ws=ws,
            modifiers=mods,
            score=score,
        ),
        Wh40kState,
    )
    return state, score


__all__ = ["charges_at", "combat_score", "score_modifiers"]
