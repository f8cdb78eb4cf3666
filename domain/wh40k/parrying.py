"""Hand-to-Hand Combat, Combat Score Modifiers: Parrying.

"For every weapon a model has with the Parry rule, it can turn aside one attack during each
Combat Round, however, this is always optional. Once both players have rolled their Attack
Dice, the Parrying player may force their opponent to re-roll their highest scoring dice; the
re-rolled result stands, even if it is better. If both combatants can Parry, they cancel out one
for one." A model breaking off may not Parry (Breaking Off). Whether a second parry may turn
aside the die a first one re-rolled is the ruling parry-dice.
"""

from __future__ import annotations

from dataclasses import dataclass

from blowbyblow.domain.core import Recorded, ask, emit, roll
from blowbyblow.domain.wh40k.combat_round import CombatRound, Dice, Gen
from blowbyblow.domain.wh40k.events import ParriesCompared, ParryDeclined, ParryResponse, ParryUsed
from blowbyblow.domain.wh40k.rulebook import RULE_PARRY
from blowbyblow.domain.wh40k.rulings import PARRY_DICE, PARRY_RESPONSE
from blowbyblow.domain.wh40k.state import Wh40kState


def parries_of(state: Wh40kState, model: str) -> int:
    """One parry per weapon with the Parry rule."""
    return sum(1 for w in state.weapons_of(model) if w.parry)


def highest_index(dice: list[int], skip: list[bool] | None = None) -> int:
    """Index of the (first) highest die, leaving out those ``skip`` marks; -1 when none is
    left."""
    best = -1
    for i, v in enumerate(dice):
        if (skip is None or not skip[i]) and (best < 0 or v > dice[best]):
            best = i
    return best


def usable_parries(state: Wh40kState, model: str) -> int:
    """The parries ``model`` may use: none while breaking off (Breaking Off)."""
    return 0 if model in state.breaking_off else parries_of(state, model)


def parries_against(state: Wh40kState, rnd: CombatRound, model: str) -> int:
    """The parries ``model``'s opponent keeps against it once both have rolled, theirs and its
    own cancelled one for one."""
    return max(0, usable_parries(state, rnd.opponent(model)) - usable_parries(state, model))


def compare_parries(state: Wh40kState, rnd: CombatRound) -> Gen:
    """Both models' parries (none while breaking off) cancel one for one. Returns (state, the
    parries each keeps), or (state, None) when neither model has a Parry weapon."""
    a, b = rnd.models
    own = {m: parries_of(state, m) for m in rnd.models}
    if own[a] == 0 and own[b] == 0:
        return state, None
    notes = [
        f"{m} is breaking off and may not parry"
        for m in rnd.models
        if m in state.breaking_off and own[m]
    ]
    counted = {m: usable_parries(state, m) for m in rnd.models}
    net = {m: max(0, counted[m] - counted[rnd.opponent(m)]) for m in rnd.models}
    state = yield from emit(
        ParriesCompared(
            rule=RULE_PARRY,
            models=(a, b),
            parries=(counted[a], counted[b]),
            net=(net[a], net[b]),
            notes=tuple(notes),
        ),
        Wh40kState,
    )
    return state, net


def choose_response(rnd: CombatRound, parrier: str, n: int, theirs: list[int], i: int) -> Gen:
    """How the parried model gives up its highest die: re-roll it (the rulebook), or, under ruling
    parry-response=reroll-or-next-highest and with two dice or more, its choice (ask
    ``<pair>/parry/<parrier>/<n>/response``) for the die at ``i``. Returns the ParryResponse."""
    if rnd.ctx.ruling(PARRY_RESPONSE) != "reroll-or-next-highest" or len(theirs) < 2:
        return "reroll"
    opponent = rnd.opponent(parrier)
    highest = theirs[i]
    next_highest = max(theirs[:i] + theirs[i + 1 :])
    answer = yield from ask(
        rnd.key("parry", parrier, str(n), "response"),
        ("reroll", "next-highest"),
        default="next-highest" if next_highest >= 4 else "reroll",
        prompt=f"{opponent}: re-roll the {highest} or use the next-highest die ({next_highest})?",
    )
    response: ParryResponse = "next-highest" if answer == "next-highest" else "reroll"
    return response


@dataclass
class Parried:
    """The opponent's Attack dice as parries change them, and which of them a parry re-rolled."""

    dice: list[int]
    marks: list[bool]


def parry_once(state: Wh40kState, rnd: CombatRound, parrier: str, n: int, at: Parried) -> Gen:
    """The ``n``-th parry of ``parrier``, optional (ask ``<pair>/parry/<parrier>/<n>``), at the
    opponent's then-highest die, or (ruling parry-dice each-die-once) its highest die no parry
    has turned aside yet. Returns (state, whether it was used); ``at`` changes in place."""
    opponent = rnd.opponent(parrier)
    theirs, parried = at.dice, at.marks
    once = rnd.ctx.ruling(PARRY_DICE) == "each-die-once"
    i = highest_index(theirs, parried if once else None)
    if i < 0:  # every die already parried: nothing left to turn aside
        return state, False
    highest = theirs[i]
    choice = yield from ask(
        rnd.key("parry", parrier, str(n)),
        ("parry", "decline"),
        default="parry" if highest >= 4 else "decline",
        prompt=f"{parrier}: parry {opponent}'s highest Attack die ({highest})?",
    )
    if choice == "decline":
        state = yield from emit(
            ParryDeclined(
                rule=RULE_PARRY, parrier=parrier, opponent=opponent, parry=n, highest=highest
            ),
            Wh40kState,
        )
        return state, False
    response = yield from choose_response(rnd, parrier, n, theirs, i)
    # The die is given up either way: its face, where it stood and the dice before the parry are
    # only recorded (ParryUsed) from here on, so branches that differ in them alone meet.
    record = Recorded((i, tuple(theirs)))
    del theirs[i]
    del parried[i]
    rerolled: int | None = None
    if response == "reroll":
        (rerolled,) = yield from roll(
            rnd.key("parry", parrier, str(n), "reroll"),
            1,
            6,
            purpose=f"{opponent} re-rolls its highest Attack die ({parrier} parries)",
        )
        # where the die stood: the dice's order is only recorded, and kept as it was rolled
        theirs.insert(record.value[0], rerolled)
        parried.insert(record.value[0], True)
    at_die, before = record.value
    state = yield from emit(
        ParryUsed(
            rule=RULE_PARRY,
            parrier=parrier,
            opponent=opponent,
            parry=n,
            highest=before[at_die],
            response=response,
            rerolled=rerolled,
            dice_before=before,
            dice_after=tuple(theirs),
        ),
        Wh40kState,
    )
    return state, True


def parry(state: Wh40kState, rnd: CombatRound, dice: Dice) -> Gen:
    """Parrying, once both models have rolled: the parries are compared, then each parry left
    is offered in turn (first model first) until one is declined. Returns the state; ``dice``
    is updated in place."""
    state, net = yield from compare_parries(state, rnd)
    if net is None:
        return state
    for parrier in rnd.models:
        theirs = dice[rnd.opponent(parrier)]
        at = Parried(theirs, [False] * len(theirs))
        for n in range(1, net[parrier] + 1):
            state, used = yield from parry_once(state, rnd, parrier, n, at)
            if not used:
                break
    return state


__all__ = [
    "Parried",
    "compare_parries",
    "highest_index",
    "parries_against",
    "parries_of",
    "parry",
    "parry_once",
    "usable_parries",
]
