"""Every place where the Gangfight text is ambiguous, contradicts itself or leaves a value open
(FACTS.md [U]) is a named ruling with a documented default. Procedures read ``ctx.rulings``."""

from __future__ import annotations

from blowbyblow.domain.core import Ruling

SRC = "shared/seeds/gangfight-combat.txt"

INCAPACITATION = Ruling(
    name="incapacitation",
    default="zero-or-less",
    choices=("zero-or-less", "more-than-en"),
    summary=(
        "When a model is Incapacitated. zero-or-less: when the Endurance left is 0 or less, i.e. "
        "wounds >= EN (Melee step 6, Ranged step 9, FACTS G1/G4). more-than-en: only when it has "
        "sustained more wounds than its EN (the Wounds and Incapacitation sections)."
    ),
    rule=f"{SRC}: Melee Combat 6 vs Wounds / Incapacitation; FACTS.md 4 (G1, G4)",
)

VOLUNTARY_DROP = Ruling(
    name="voluntary-drop",
    default="allowed",
    choices=("allowed", "above-6-only"),
    summary=(
        "allowed: a roller may drop further dice, one per point, to lower any Target Number "
        "(never below 2), as the Wounds example (ARM 4 vs DAM 6: drop 2 dice, 4+) and the "
        "Trample example do. above-6-only: dice are dropped only to bring a TN above 6 down to "
        "6 (Melee step 2 and 4, FACTS G2 as written)."
    ),
    rule=f"{SRC}: Wounds example, Slam! (Trample example), Free Strikes; FACTS.md G2",
)

UNREACHABLE_TN = Ruling(
    name="unreachable-tn",
    default="keep-pool",
    choices=("keep-pool", "drop-to-one"),
    summary=(
        "When a TN above 6 cannot be brought down to 6 (the pool has too few dice to drop while "
        "still rolling one). keep-pool: no dice are dropped, the whole pool rolls, only 6s succeed. "
        "drop-to-one: all dice but one are dropped and that one needs a 6."
    ),
    rule=f"{SRC}: Melee Combat 2 and 4 ('If you are unable to reduce the target number to 6')",
)

TWO_WEAPON_DAMAGE = Ruling(
    name="two-weapon-damage",
    default="best",
    choices=("best", "first"),
    summary=(
        "The modified DAM of an attack made with two weapons: best = the wielder's DAM plus the "
        "larger weapon bonus; first = the bonus of the first weapon named. The text only gives +1 ATT."
    ),
    rule=f"{SRC}: Attacking with Two Weapons",
)

SPECIAL_ATTACK_DAMAGE = Ruling(
    name="special-attack-damage",
    default="none",
    choices=("none", "split"),
    summary=(
        "What a Power or Finesse Attack does to Wounds ('inflicts less damage … instead of "
        "applying all of the successes to damage'). none: every success goes to the effect, no "
        "Wounds. split: the attacker chooses how many successes go to the effect, the rest are "
        "Wounds. Large and Huge models and marauder/skirmisher perks apply them to both anyway."
    ),
    rule=f"{SRC}: Special Attacks, Power Attacks, Finesse Attacks",
)

PRONE_DEFENCE = Ruling(
    name="prone-defence",
    default="always-2",
    choices=("always-2", "2-plus-modifiers"),
    summary=(
        "always-2: a Prone model's DEF is 2 whatever else applies ('always considered to have a "
        "Defense Value of 2'). 2-plus-modifiers: 2 replaces its DEF, other DEF modifiers "
        "(Trample +1, Slam! on a larger model +1) still apply."
    ),
    rule=f"{SRC}: Knocked Down",
)

TRAMPLE_ROLL = Ruling(
    name="trample-roll",
    default="per-target",
    choices=("per-target", "one-roll"),
    summary=(
        "How the reduced Trample pool is rolled 'against all 3 opponents'. per-target: one roll "
        "of the pool for each model trampled. one-roll: a single roll, judged against each "
        "model's Target Number."
    ),
    rule=f"{SRC}: Slam! (Trample example: 'he can roll this 1 die against all 3 opponents')",
)

TRAMPLE_FRIENDS = Ruling(
    name="trample-friends",
    default="all-smaller",
    choices=("all-smaller", "enemies-only"),
    summary=(
        "Who a Trample strikes: all-smaller = 'all smaller models within the threat range' as "
        "written, friends included; enemies-only = only enemy models."
    ),
    rule=f"{SRC}: Slam! (Trample)",
)

FALLING_INCREMENTS = Ruling(
    name="falling-increments",
    default="whole-fall",
    choices=("whole-fall", "beyond-height"),
    summary=(
        "Hits from a fall further than the model's height. whole-fall: one per height increment "
        'of the whole fall, rounded up (a Large model falling 6" takes 3 hits, the worked '
        "example). beyond-height: one per increment after the first height (that example would "
        "give 2)."
    ),
    rule=f"{SRC}: Falling",
)

FALLING_ARMOUR = Ruling(
    name="falling-armour",
    default="armour",
    choices=("armour", "none"),
    summary=(
        "armour: a falling model rolls its ARM against the hits' Damage 4 like any Armour roll, "
        "each success negating one; none: every falling hit is a Wound."
    ),
    rule=f"{SRC}: Falling ('1 Damage 4 Hit'), Melee Combat 4",
)

ATTACK_INCAPACITATED = Ruling(
    name="attack-incapacitated",
    default="allowed",
    choices=("allowed", "not-allowed"),
    summary=(
        "Whether a model may attack an Incapacitation token within its threat range (any damage "
        "then kills it). The text says a model that sustains any damage once Incapacitated is "
        "Dead, but not how the damage may come."
    ),
    rule=f"{SRC}: Incapacitation",
)

ACTION_POINTS = Ruling(
    name="action-points",
    default="iv",
    choices=("iv", "untracked"),
    summary=(
        "Action points per turn; the formula is unconfirmed (FACTS [U]). iv: IV points each turn, "
        "spent by actions and refused when none are left; untracked: actions cost nothing here "
        "(the table keeps count)."
    ),
    rule="FACTS.md 4: IV (G1), Action Points (G2, G3)",
)

SPECIAL_ACTION_COST = Ruling(
    name="special-action-cost",
    default="1",
    choices=("1", "2"),
    summary=(
        "AP cost of a Special Action (Power Attack, Finesse Attack, Slam!, Trample); standard "
        "actions cost 1, special costs are unconfirmed (FACTS [U])."
    ),
    rule="FACTS.md 4: Action Points (G2, G3); seed: Special Attacks",
)

RULINGS: tuple[Ruling, ...] = (
    INCAPACITATION,
    VOLUNTARY_DROP,
    UNREACHABLE_TN,
    TWO_WEAPON_DAMAGE,
    SPECIAL_ATTACK_DAMAGE,
    PRONE_DEFENCE,
    TRAMPLE_ROLL,
    TRAMPLE_FRIENDS,
    FALLING_INCREMENTS,
    FALLING_ARMOUR,
    ATTACK_INCAPACITATED,
    ACTION_POINTS,
    SPECIAL_ACTION_COST,
)
