"""The named rulings of the 40K 2nd edition hand-to-hand rules: every place where the seed text is
silent or ambiguous, or where FACTS.md section 3 marks a value secondary [S] or unconfirmed [U].
The procedure reads each one from ``ctx.rulings``; the values in force are recorded at battle
start."""

from __future__ import annotations

from blowbyblow.domain.core import Ruling

SEED = "shared/seeds/hand-to-hand-combat-score.txt"
FACTS = "shared/rules/FACTS.md section 3"

CHARGE_BONUS = Ruling(
    name="charge-bonus",
    default="+1",
    choices=("+1", "none"),
    summary=(
        "A model that charged this turn adds +1 to its Combat Score. The seed names 'the Combat "
        "Score Modifier for charging' (Follow-Up Moves) but its modifier table does not give it."
    ),
    rule=f"{FACTS}: charging +1 [S] (W3 Eldar entry 'count as +1 WS for charging'); {SEED}",
)

PARRY_RESPONSE = Ruling(
    name="parry-response",
    default="reroll",
    choices=("reroll", "reroll-or-next-highest"),
    summary=(
        "reroll: a parried model re-rolls its highest Attack die and the re-roll stands (the "
        "seed). reroll-or-next-highest: it may instead set the highest die aside and use its "
        "next-highest original die (FACTS W3), chosen before the re-roll is made."
    ),
    rule=f"{SEED} (Parrying); {FACTS}: Parry [C, W3]",
)

TO_WOUND_CHART = Ruling(
    name="to-wound-chart",
    default="difference",
    choices=("difference", "ratio"),
    summary=(
        "difference: the classic chart by S minus T: +2 or more 2+, +1 3+, 0 4+, -1 5+, "
        "-2 and -3 6+, -4 or less cannot wound. ratio: the Necromunda 2023 chart (S >= 2T 2+, "
        "S > T 3+, S = T 4+, S < T 5+, S <= T/2 6+)."
    ),
    rule=f"{FACTS}: 'the standard S-vs-T chart shared with shooting' [U for exact cells]",
)

STRENGTH_SAVE_MODIFIER = Ruling(
    name="strength-save-modifier",
    default="by-strength",
    choices=("by-strength", "none"),
    summary=(
        "Save modifier of a hit whose weapon gives none ('as user' weapons, a model's own "
        "Strength): by-strength is S4 -1, S5 -2 and so on, -1 per point above 3; none is 0."
    ),
    rule=f"{FACTS}: WFB convention [U] for 40K2; W3 'as user' blades use 'the user's S and save "
    "modifier', which implies one derived from S",
)

IMPROVISED_ATTACK = Ruling(
    name="improvised-attack",
    default="0",
    choices=("0", "-1"),
    summary=(
        "Combat Score modifier of a model with no Close Combat weapon. The seed's modifier table "
        "has none; W3 implies -1 ('ignores penalty for fighting with an improvised attack (-1)')."
    ),
    rule=f"{FACTS}: improvised attack -1 [S]",
)

SAVE_NATURAL_ONE = Ruling(
    name="save-natural-one",
    default="fails",
    choices=("fails", "as-rolled"),
    summary=(
        "fails: an armour save of 1 always fails (a save can never be better than 2+). "
        "as-rolled: a modified save of 1+ or better passes on any roll. A save needing more "
        "than 6 is never rolled."
    ),
    rule=f"{FACTS}: saves 'as for shooting'; the 2nd edition save rules were not found [U]",
)

FOLLOW_UP_FIGHTS = Ruling(
    name="follow-up-fights",
    default="next-phase",
    choices=("next-phase", "this-phase"),
    summary=(
        "A model that engages a new enemy with its Follow-Up Move fights that enemy in the next "
        "Hand-to-Hand Combat Phase (next-phase), or again in this one (this-phase). The seed "
        "only says the move 'can be used to engage another model'."
    ),
    rule=f"{SEED} (Follow-Up Moves)",
)

FOLLOW_UP_WHO = Ruling(
    name="follow-up-who",
    default="killer",
    choices=("killer", "all-opponents-dead"),
    summary=(
        "killer: only a model that killed an opponent itself and has no opponent left may follow "
        "up ('has killed all of its opponents'). all-opponents-dead: any model whose opponents "
        "all died in the fight, whoever killed them."
    ),
    rule=f"{SEED} (Follow-Up Moves)",
)

RULINGS: tuple[Ruling, ...] = (
    CHARGE_BONUS,
    PARRY_RESPONSE,
    TO_WOUND_CHART,
    STRENGTH_SAVE_MODIFIER,
    IMPROVISED_ATTACK,
    SAVE_NATURAL_ONE,
    FOLLOW_UP_FIGHTS,
    FOLLOW_UP_WHO,
)
