"""Every place where the Gangfight rules are ambiguous, contradict themselves or leave a value
open is a named ruling with a documented default. ``rule`` is the section it stands for, as
events cite it (see ``rulebook``); ``note`` says why it is a ruling. Rules read a ruling only as
``ctx.ruling(CONSTANT)``."""

from __future__ import annotations

from blowbyblow.domain.core import Ruling

INCAPACITATION = Ruling(
    name="incapacitation",
    default="zero-or-less",
    choices=("zero-or-less", "more-than-en"),
    summary=(
        "When a model is Incapacitated. zero-or-less: when the Endurance left is 0 or less, i.e. "
        "wounds >= EN. more-than-en: only when it has sustained more wounds than its EN."
    ),
    rule="GF Melee 6",
    note=(
        "The Combat page contradicts itself: Melee Combat step 6 (and Ranged Combat step 9) say "
        "a model with 0 or less Endurance left is Incapacitated, the Wounds and Incapacitation "
        "sections say a model with more Wounds than its EN is; the Model Profiles page agrees "
        "with step 6. The default follows the numbered procedure steps; the Wounds example (EN 4, "
        "2 taken, 'can sustain another 2 wounds') fits either reading."
    ),
)

VOLUNTARY_DROP = Ruling(
    name="voluntary-drop",
    default="allowed",
    choices=("allowed", "above-6-only"),
    summary=(
        "allowed: a roller may drop further dice, one per point, to lower any Target Number "
        "(never below 2). above-6-only: dice are dropped only to bring a TN above 6 down to 6."
    ),
    rule="GF Melee 2",
    note=(
        "Melee Combat steps 2 and 4 only speak of dropping dice to bring a TN above 6 down to 6, "
        "but the Wounds example drops 2 dice to go from 6+ to 4+, the Trample example lowers 4 to "
        "3, and Free Strikes 'may not drop dice to lower a Target Number', which only makes sense "
        "if other rolls may. The default follows the worked examples."
    ),
)

UNREACHABLE_TN = Ruling(
    name="unreachable-tn",
    default="keep-pool",
    choices=("keep-pool", "drop-to-one"),
    summary=(
        "When a TN above 6 cannot be brought down to 6 (the pool has too few dice to drop while "
        "still rolling one). keep-pool: no dice are dropped, the whole pool rolls, only 6s "
        "succeed. drop-to-one: all dice but one are dropped and that one needs a 6."
    ),
    rule="GF Melee 2",
    note=(
        "'If you are unable to reduce the target number to 6, you can only hit on 6s' does not "
        "say whether dice are still dropped; keeping the pool drops nothing for no gain."
    ),
)

TWO_WEAPON_DAMAGE = Ruling(
    name="two-weapon-damage",
    default="best",
    choices=("best", "first"),
    summary=(
        "The modified DAM of an attack made with two weapons: best = the wielder's DAM plus the "
        "larger weapon bonus; first = the bonus of the first weapon named."
    ),
    rule="GF Two Weapons",
    note="Attacking with Two Weapons gives +1 ATT but does not say whose damage bonus counts.",
)

SPECIAL_ATTACK_DAMAGE = Ruling(
    name="special-attack-damage",
    default="none",
    choices=("none", "split"),
    summary=(
        "What a Power or Finesse Attack does to Wounds. none: every success goes to the effect, "
        "no Wounds. split: the attacker chooses how many successes go to the effect, the rest "
        "are Wounds. Large and Huge models and marauder/skirmisher perks apply them to both "
        "anyway."
    ),
    rule="GF Special Attacks",
    note=(
        "A Power or Finesse Attack 'inflicts less damage … instead of applying all of the "
        "successes to damage, instead that is how many inches …': 'less' could be none or some. "
        "The default reads every success as going to the effect."
    ),
)

PRONE_DEFENCE = Ruling(
    name="prone-defence",
    default="always-2",
    choices=("always-2", "2-plus-modifiers"),
    summary=(
        "always-2: a Prone model's DEF is 2 whatever else applies. 2-plus-modifiers: 2 replaces "
        "its DEF, other DEF modifiers (Trample +1, Slam! on a larger model +1) still apply."
    ),
    rule="GF Knocked Down",
    note=(
        "Prone models are 'always considered to have a Defense Value of 2'; the rules do not say "
        "whether other Defense modifiers still apply. The default takes 'always' as written."
    ),
)

TRAMPLE_ROLL = Ruling(
    name="trample-roll",
    default="per-target",
    choices=("per-target", "one-roll"),
    summary=(
        "How the reduced Trample pool is rolled against every model trampled. per-target: one "
        "roll of the pool for each model. one-roll: a single roll, judged against each model's "
        "Target Number."
    ),
    rule="GF Trample",
    note=(
        "The Trample example says 'he can roll this 1 die against all 3 opponents': an attack "
        "against each, or one roll judged against each. The default makes one attack per model."
    ),
)

TRAMPLE_FRIENDS = Ruling(
    name="trample-friends",
    default="all-smaller",
    choices=("all-smaller", "enemies-only"),
    summary=(
        "Who a Trample strikes: all-smaller = every smaller model within the threat range, "
        "friends included; enemies-only = only enemy models."
    ),
    rule="GF Trample",
    note=(
        "A Trample attacks 'all smaller models within the threat range of the attacking model', "
        "which does not exclude friends; the default takes it as written."
    ),
)

FALLING_INCREMENTS = Ruling(
    name="falling-increments",
    default="whole-fall",
    choices=("whole-fall", "beyond-height"),
    summary=(
        "Hits from a fall further than the model's height. whole-fall: one per height increment "
        "of the whole fall, rounded up. beyond-height: one per increment after the first height."
    ),
    rule="GF Falling",
    note=(
        "'1 Damage 4 Hit for each increment they fall afterwards, rounding up' could count from "
        "the top or from the model's height; the worked example (a Large model falling 6\" "
        "takes 3 hits) only fits counting the whole fall, so that is the default "
        "(beyond-height would give 2)."
    ),
)

FALLING_ARMOUR = Ruling(
    name="falling-armour",
    default="armour",
    choices=("armour", "none"),
    summary=(
        "armour: a falling model rolls its ARM against the hits' Damage 4 like any Armour roll, "
        "each success negating one; none: every falling hit is a Wound."
    ),
    rule="GF Falling",
    note=(
        "Falling gives '1 Damage 4 Hit' per increment without saying whether Armour applies; "
        "the default reads it as a hit with DAM 4, negated by Armour as in Melee Combat step 4."
    ),
)

ATTACK_INCAPACITATED = Ruling(
    name="attack-incapacitated",
    default="allowed",
    choices=("allowed", "not-allowed"),
    summary=(
        "Whether a model may attack an Incapacitation token within its threat range (any damage "
        "then kills it)."
    ),
    rule="GF Incapacitation",
    note=(
        "A model that sustains any damage once Incapacitated is Dead, but the rules do not say "
        "how the damage may come; attacking its token is the simplest way, so it is allowed by "
        "default."
    ),
)

ACTION_POINTS = Ruling(
    name="action-points",
    default="iv",
    choices=("iv", "untracked"),
    summary=(
        "Action points per turn. iv: IV points each turn, spent by actions and refused when "
        "none are left; untracked: actions cost nothing here (the table keeps count)."
    ),
    rule="G2 Action Points",
    note=(
        "unconfirmed: the Initiative Value is the base of a model's Action Points, but no "
        "published source we could check gives the formula; the default is IV points per turn."
    ),
)

SPECIAL_ACTION_COST = Ruling(
    name="special-action-cost",
    default="1",
    choices=("1", "2"),
    summary=(
        "AP cost of a Special Action (Power Attack, Finesse Attack, Slam!, Trample); standard "
        "actions cost 1."
    ),
    rule="G2 Action Points",
    note=(
        "unconfirmed: Standard Actions cost 1 Action Point, but no published source we could "
        "check gives the cost of a Special Action; the default is 1, like a Standard Action."
    ),
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
