"""The named rulings of 40K 2nd edition hand-to-hand combat: every place where the rulebook's
Hand-to-Hand Combat chapter is silent or ambiguous, or where a value rests on no published source
we could check. The rules read each one as ``ctx.ruling(CONSTANT)``; the values in force are
recorded when a battle starts."""

from __future__ import annotations

from blowbyblow.domain.core import Ruling
from blowbyblow.domain.wh40k.rulebook import (
    RULE_BREAK_OFF,
    RULE_CHARGE,
    RULE_FOLLOW_UP,
    RULE_FUMBLES,
    RULE_HITS,
    RULE_MULTIPLE,
    RULE_PARRY,
    RULE_SCORE,
)

CHARGE_BONUS = Ruling(
    name="charge-bonus",
    default="+1",
    choices=("+1", "none"),
    summary="A model that charged this turn adds +1 to its Combat Score (+1), or nothing (none).",
    rule=RULE_CHARGE,
    note=(
        "The rulebook names 'the Combat Score Modifier for charging' (Follow-Up Moves) but its "
        "table of Combat Score Modifiers does not give it. Unconfirmed: the +1 comes only from a "
        "secondary source (an army list's entry that a model 'counts as +1 WS for charging'); "
        "the default is +1."
    ),
)

PARRY_RESPONSE = Ruling(
    name="parry-response",
    default="reroll",
    choices=("reroll", "reroll-or-next-highest"),
    summary=(
        "reroll: a parried model re-rolls its highest Attack die and the re-roll stands. "
        "reroll-or-next-highest: it may instead set the highest die aside and use its "
        "next-highest original die, chosen before the re-roll is made."
    ),
    rule=RULE_PARRY,
    note=(
        "A variant: the rulebook says the re-rolled result stands; the Parry rule as worded "
        "with the army lists' weapons (a secondary source) lets the opponent use its "
        "next-highest original die instead. The rulebook's text is the default."
    ),
)

TO_WOUND_CHART = Ruling(
    name="to-wound-chart",
    default="difference",
    choices=("difference", "ratio"),
    summary=(
        "difference: the chart by S minus T: +2 or more 2+, +1 3+, 0 4+, -1 5+, -2 and -3 6+, "
        "-4 or less cannot wound. ratio: the Necromunda (2023) chart (S >= 2T 2+, S > T 3+, "
        "S = T 4+, S < T 5+, S <= T/2 6+)."
    ),
    rule=RULE_HITS,
    note=(
        "The rulebook works damage out 'as normal', with the Strength against Toughness chart "
        "shared with shooting. Unconfirmed: no published copy of the 2nd edition chart we could "
        "check gives its cells; the default is the S-minus-T chart of that era's Warhammer games."
    ),
)

STRENGTH_SAVE_MODIFIER = Ruling(
    name="strength-save-modifier",
    default="by-strength",
    choices=("by-strength", "none"),
    summary=(
        "Save modifier of a hit whose weapon gives none ('as user' weapons, a model's own "
        "Strength): by-strength is S4 -1, S5 -2 and so on, -1 per point above 3; none is 0."
    ),
    rule=RULE_HITS,
    note=(
        "Unconfirmed: -1 per point of Strength above 3 is the Warhammer Fantasy Battle "
        "convention; no published source we could check says it applies in 40K 2nd edition, "
        "though 'as user' blades that use 'the user's S and save modifier' imply a save "
        "modifier derived from Strength. The default is by-strength."
    ),
)

IMPROVISED_ATTACK = Ruling(
    name="improvised-attack",
    default="0",
    choices=("0", "-1"),
    summary="Combat Score modifier of a model with no Close Combat weapon: 0 or -1.",
    rule=RULE_SCORE,
    note=(
        "The rulebook's table of Combat Score Modifiers has no penalty for fighting without a "
        "Close Combat weapon. Unconfirmed: -1 is implied only by a secondary source (an army "
        "list's weapon that 'ignores the penalty for fighting with an improvised attack (-1)'); "
        "the default follows the rulebook's table, 0."
    ),
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
    rule=RULE_HITS,
    note=(
        "The rulebook works armour saves out 'as normal'. Unconfirmed: the 2nd edition save "
        "rules were not among the published sources we could check; the default is that a 1 "
        "always fails."
    ),
)

FOLLOW_UP_FIGHTS = Ruling(
    name="follow-up-fights",
    default="next-phase",
    choices=("next-phase", "this-phase"),
    summary=(
        "A model that engages a new enemy with its Follow-Up Move fights that enemy in the next "
        "Hand-to-Hand Combat Phase (next-phase), or again in this one (this-phase)."
    ),
    rule=RULE_FOLLOW_UP,
    note=(
        "The rulebook only says the move 'can be used to engage another model', not whether the "
        "new pair fights again in the same phase; the default is the next phase."
    ),
)

FOLLOW_UP_WHO = Ruling(
    name="follow-up-who",
    default="killer",
    choices=("killer", "all-opponents-dead"),
    summary=(
        "killer: only a model that killed an opponent itself and has no opponent left may follow "
        "up. all-opponents-dead: any model whose opponents all died in the fight, whoever killed "
        "them."
    ),
    rule=RULE_FOLLOW_UP,
    note=(
        "'If a model has killed all of its Hand-to-Hand Combat opponents' may mean that it slew "
        "each of them itself, or only that they are all dead; the default is the first reading."
    ),
)

MULTIPLE_COMBAT_ROUNDS = Ruling(
    name="multiple-combat-rounds",
    default="each-phase",
    choices=("each-phase", "continue"),
    summary=(
        "The extra Attack dice of a Multiple Combat that lasts into another Hand-to-Hand Combat "
        "Phase. each-phase: each phase's series of duels counts its rounds from 1 again (+0 in "
        "its first duel). continue: the rounds count on while the model stays outnumbered (a "
        "series of two duels, then next phase's first duel is round 3: +2)."
    ),
    rule=RULE_MULTIPLE,
    note=(
        "The rulebook gives +1 Attack dice 'for each subsequent Combat Round (+1 on round 2, +2 "
        "on round 3, and so on)' and does not say whether the count starts again in the next "
        "phase; the default, each-phase, is how version 1.0 counted."
    ),
    since="1.1",
    before="each-phase",
)

DICE_COUNTED = Ruling(
    name="dice-counted",
    default="after-parries",
    choices=("after-parries", "as-rolled"),
    summary=(
        "Which Attack dice Fumbles and Critical Hits are counted on. after-parries: the final "
        "dice, a parried die as it was re-rolled (version 1.1). as-rolled: the dice as rolled, "
        "before any parry."
    ),
    rule=RULE_FUMBLES,
    note=(
        "'When Rolling Attack Dice, each score of 1 represents a Fumble' (and each additional 6 "
        "a Critical Hit) can mean the dice as rolled; Parrying comes 'Once both players have "
        "rolled their Attack Dice' and its re-roll 'stands', which can mean the dice after it. "
        "after-parries is how version 1.1 counted."
    ),
    since="1.2",
    before="after-parries",
)

PARRY_DICE = Ruling(
    name="parry-dice",
    default="then-highest",
    choices=("then-highest", "each-die-once"),
    summary=(
        "Which die a model's second (third ...) parry makes the opponent re-roll. then-highest: "
        "its highest die as it now stands, which may be the one a parry already re-rolled "
        "(version 1.2). each-die-once: its highest die no parry has turned aside yet; when "
        "none is left, the parry is not offered."
    ),
    rule=RULE_PARRY,
    note=(
        "'For every weapon a model has with the Parry rule, it can turn aside one attack', and "
        "the parry forces the opponent 'to re-roll their highest scoring dice': a die already "
        "re-rolled may be the highest again, or each parry may turn aside an attack (a die) of "
        "its own. then-highest is how version 1.2 parried."
    ),
    since="1.3",
    before="then-highest",
)

CHARGE_BONUS_AGAINST = Ruling(
    name="charge-bonus-against",
    default="charged-model",
    choices=("charged-model", "any-opponent"),
    summary=(
        "In which Combat Rounds of the turn of its charge a model adds the charge bonus (ruling "
        "charge-bonus). charged-model: only in the round against the model it charged. "
        "any-opponent: in every round it fights that turn, also against a model it engaged with "
        "a Follow-Up Move after killing the one it charged (version 1.3)."
    ),
    rule=RULE_CHARGE,
    note=(
        "A Follow-Up Move 'can be used to engage another model (or multiple models) in "
        "Hand-to-Hand Combat - but does not apply the Combat Score Modifier for charging': the "
        "pair it engages gets no charge bonus (charged-model), or only the move itself earns "
        "none while a model that charged this turn keeps its own (any-opponent, how version 1.3 "
        "read it). The two differ only when the new pair fights in the same phase (ruling "
        "follow-up-fights = this-phase)."
    ),
    since="1.4",
    before="any-opponent",
)

BROKEN_CHARGE = Ruling(
    name="broken-charge",
    default="refused",
    choices=("refused", "allowed"),
    summary=(
        "Whether a Broken model (one that broke off, and its squad) may charge: refused, or "
        "allowed."
    ),
    rule=RULE_BREAK_OFF,
    note=(
        "The Hand-to-Hand Combat chapter says only that a model that breaks off 'and its squad "
        "are automatically Broken and may not attempt to Rally until the following turn'; what "
        "else Broken forbids is in rules outside it. Unconfirmed: the default, refused, is how "
        "every earlier version read it; allowed takes the chapter's words as all there is."
    ),
    since="1.4",
    before="refused",
)

NO_WS_OPPONENTS = Ruling(
    name="no-ws-opponents",
    default="count",
    choices=("count", "ignored"),
    summary=(
        "Whether an enemy with no Weapon Skill value in base contact is one of a model's "
        "'Hand-to-Hand Combat opponents' for a Follow-Up Move. count: while one touches it, a "
        "model has not killed all its opponents and may not follow up (version 1.3). ignored: "
        "only the enemies it fights count; its Follow-Up Move leaves base contact with the "
        "others unless it engages them again."
    ),
    rule=RULE_FOLLOW_UP,
    note=(
        "'If a model has killed all of its Hand-to-Hand Combat opponents, it may immediately "
        "make a Follow-Up Move', while only 'models with a Weapon Skill value that are in "
        "base-to-base contact with an enemy model fight in Hand-to-Hand Combat': a model with "
        "no Weapon Skill value in contact may be an opponent (it is an enemy in base contact) "
        "or not (it does not fight). The default is how version 1.3 read it."
    ),
    since="1.4",
    before="count",
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
    MULTIPLE_COMBAT_ROUNDS,
    DICE_COUNTED,
    PARRY_DICE,
    CHARGE_BONUS_AGAINST,
    BROKEN_CHARGE,
    NO_WS_OPPONENTS,
)

__all__ = [
    "BROKEN_CHARGE",
    "CHARGE_BONUS",
    "CHARGE_BONUS_AGAINST",
    "DICE_COUNTED",
    "FOLLOW_UP_FIGHTS",
    "FOLLOW_UP_WHO",
    "IMPROVISED_ATTACK",
    "MULTIPLE_COMBAT_ROUNDS",
    "NO_WS_OPPONENTS",
    "PARRY_DICE",
    "PARRY_RESPONSE",
    "RULINGS",
    "SAVE_NATURAL_ONE",
    "STRENGTH_SAVE_MODIFIER",
    "TO_WOUND_CHART",
]
