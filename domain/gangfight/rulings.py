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
        "Whether a model may attack an Incapacitation token within its threat range, or shoot "
        "or charge it (any damage then kills it)."
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

# --- added in version 1.1 (each with the value that gives the rules of 1.0) ---------------------

SPARE_WEAPONS = Ruling(
    name="spare-weapons",
    default="allowed",
    choices=("allowed", "not-allowed"),
    summary=(
        "Whether a model fighting with two hand weapons may carry another weapon besides them. "
        "allowed: a spare weapon is carried, not held in the off-hand; only a shield or another "
        "off-hand item forbids fighting with two (as 1.0 did). not-allowed: anything else "
        "carried forbids it."
    ),
    rule="GF Two Weapons",
    note=(
        "'A model attacking with two weapons cannot carry a shield, or anything else in their "
        "off-hand': a third weapon carried on the belt is not in the off-hand, but 'cannot carry "
        "... anything else' can be read as forbidding it. The default reads 'in their off-hand' "
        "as the limit."
    ),
    since="1.1",
    before="allowed",
)

RANGED_RANGE = Ruling(
    name="ranged-range",
    default="long-range",
    choices=("long-range", "within-range"),
    summary=(
        "How far a ranged weapon reaches. long-range: within its range is Point Blank (+1 die); "
        'from 6" beyond it is Long Range (-1 die, -1 more for each further 6"); no maximum. '
        "within-range: a target beyond the weapon's range cannot be shot, so every shot is at "
        "Point Blank and Long Range never applies."
    ),
    rule="GF Ranged 2",
    note=(
        "Ranged Combat step 2 asks for the target 'within the threat range of the weapon', but "
        "step 5 penalises a target '6\" or more of your weapon's range' away, which can only "
        "be beyond it; step 4 calls the weapon's range or less Short (Point Blank) Range. The "
        "default reads steps 4 and 5 together; within-range takes step 2 as a limit. No battle "
        "of 1.0 shoots."
    ),
    since="1.1",
    before="long-range",
)

SHOOTING_INTO_COMBAT = Ruling(
    name="shooting-into-combat",
    default="dice-rolled",
    choices=("dice-rolled", "marksmanship"),
    summary=(
        "The 3-dice limit on shooting at a target in close combat. dice-rolled: at most 3 dice "
        "are rolled, after Point Blank and Long Range. marksmanship: MRK counts as at most 3, "
        "then Point Blank and Long Range apply (4 dice at Point Blank)."
    ),
    rule="GF Ranged 3",
    note=(
        "'You can only roll a maximum of 3 dice to hit with, even if your Marksmanship attribute "
        "is higher than 3' speaks of the dice rolled and of the attribute; step 3 comes before "
        "the Point Blank bonus of step 4. The default caps the dice rolled. No battle of 1.0 "
        "shoots."
    ),
    since="1.1",
    before="dice-rolled",
)

SHOOTER_THREAT_RANGE = Ruling(
    name="shooter-threat-range",
    default="any-model",
    choices=("any-model", "enemies-only"),
    summary=(
        "Which models in a shooter's threat range stop it from making a ranged attack. "
        "any-model: any model still in the fight, friends too (as written); enemies-only: only "
        "enemy models."
    ),
    rule="GF Ranged Combat",
    note=(
        "A model making a ranged attack 'cannot have any models in their Threat range': as "
        "written, friends count too, though the point is plainly that it is not in a fight. "
        "The default takes it as written. No battle of 1.0 shoots."
    ),
    since="1.1",
    before="any-model",
)

DODGE_TN = Ruling(
    name="dodge-tn",
    default="4",
    choices=("4", "3", "5"),
    summary=(
        "The Target Number of the Opposed Initiative Value Test a model caught by an Area of "
        "Effect makes (IV dice)."
    ),
    rule="GF Area of Effect",
    note=(
        "unconfirmed: the Area of Effect sections call for an Opposed Initiative Value Test "
        "without its Target Number; the Opposed Initiative Value Test of the Setting up the Game "
        "page is rolled at 4+, which is the default. No battle of 1.0 has an Area of Effect."
    ),
    since="1.1",
    before="4",
)

DODGE_REDUCES = Ruling(
    name="dodge-reduces",
    default="wounds",
    choices=("wounds", "damage"),
    summary=(
        "What each success of a model's dodge (that does not dodge completely) reduces. "
        "wounds: the Wounds the attack inflicts on it, one each; damage: the attack's Damage, "
        "the Target Number of its Armour roll, one each."
    ),
    rule="GF Area of Effect",
    note=(
        "'For each success they get, it reduces the damage of the attack by 1': the Damage "
        "section calls damage what successes inflict (Wounds), while DAM is also the Damage "
        "attribute. The default follows the Damage section. No battle of 1.0 has an Area of "
        "Effect."
    ),
    since="1.1",
    before="wounds",
)

CHARGE_ACTION = Ruling(
    name="charge-action",
    default="standard",
    choices=("standard", "special"),
    summary=(
        "What a Charge! costs: standard = a Standard Action (1 AP); special = a Special Action "
        "(ruling special-action-cost)."
    ),
    rule="GF Charge!",
    note=(
        "unconfirmed: the Actions and Action Points page lists Charge! among the actions without "
        "saying whether it is a Standard or a Special Action; the default counts it with Move "
        "and Fight! as Standard. No battle of 1.0 charges."
    ),
    since="1.1",
    before="standard",
)

AREA_POINT_BLANK = Ruling(
    name="area-point-blank",
    default="applies",
    choices=("applies", "not-applied"),
    summary=(
        "Whether an Area of Effect attack's roll to hit gets Ranged step 4's +1 die for Point "
        "Blank Range. applies: it is 'a special sort of ranged attack' and its target 'must be "
        "in range of your attack', so the die always applies (version 1.1). not-applied: the "
        "Area of Effect paragraphs give their own roll ('rolls to hit with their ability or "
        "weapon') and no range bands: no Point Blank die."
    ),
    rule="GF Area of Effect",
    note=(
        "The Area of Effect paragraphs neither apply nor exclude Ranged steps 4 and 5; with the "
        "target always in range, step 4 would always add a die. applies is how 1.1 read it."
    ),
    since="1.2",
    before="applies",
)

# --- added in version 1.3 (each with the value that gives the rules of 1.2) ---------------------

POWER_NO_SUCCESS = Ruling(
    name="power-no-success",
    default="stands",
    choices=("stands", "knocked-down"),
    summary=(
        "What a Power Attack with no success does to its target. stands: nothing, it is neither "
        "knocked back nor down (version 1.2). knocked-down: it is knocked back 0 inches, so it "
        "has reached that distance and is knocked down (Prone)."
    ),
    rule="GF Power Attacks",
    note=(
        "'instead of applying all of the successes to damage, instead that is how many inches "
        "the model is knocked back. Once the models reaches that distance, they are knocked "
        "down': with no success the distance is 0, reached at once, or there was no knock-back "
        "to reach. Step 6 adds that a model 'will still suffer the effects of the attack (such "
        "as those from a Power Attack)' even without damage. stands is how 1.2 read it."
    ),
    since="1.3",
    before="stands",
)

SHOT_DAMAGE = Ruling(
    name="shot-damage",
    default="modified",
    choices=("modified", "attribute"),
    summary=(
        "The Target Number of the Armour roll against a shot or an Area of Effect attack. "
        "modified: the shooter's DAM plus its ranged weapon's bonus, as in melee (version 1.2). "
        "attribute: the shooter's Damage attribute alone."
    ),
    rule="GF Ranged 7",
    note=(
        "Ranged Combat step 7: 'The target number is your model's Damage attribute. If your "
        "modified Damage attribute is higher than 6, ...': the first sentence names the "
        "attribute, the second a modified one, where Melee Combat step 4 says 'modified' in "
        "both. modified is how 1.2 read it."
    ),
    since="1.3",
    before="modified",
)

# --- added in version 1.4: the readings 1.3 fixed (each ``before`` is 1.3's) ----------------------

FIGHT_ATTACKS = Ruling(
    name="fight-attacks",
    default="one-target",
    choices=("one-target", "each-in-reach", "both-sides"),
    summary=(
        "Who attacks in one Fight! (and a Charge!'s free Fight!). one-target: the model attacks "
        "the one opposing model named (1.3). each-in-reach: then each other opposing model "
        "within its threat range. both-sides: as each-in-reach, then each opposing model that "
        "has it within its own threat range attacks it back (no action point)."
    ),
    rule="GF Melee 6",
    note=(
        "'Once this has been done with each model that has an opposing model within their "
        "threat range, the Fight! Action has been resolved': the steps done for the target "
        "named, for each opposing model in the attacker's reach, or with each model of the "
        "fight as the attacker. one-target is how 1.3 read it."
    ),
    since="1.4",
    before="one-target",
)

FREE_STRIKE_TRIGGER = Ruling(
    name="free-strike-trigger",
    default="leaving",
    choices=("leaving", "entering-too"),
    summary=(
        "Which moves provoke a Free Strike. leaving: moving out of an enemy's threat range, or "
        "across one (named in through) (1.3). entering-too: also moving into one and stopping."
    ),
    rule="GF Free Strikes",
    note=(
        "'A Free Strike occurs when a model moves through the threatened area of an enemy "
        "model': leaving it is 'through' (a Finesse Attack lets a model 'move out an opponent's "
        "threat without ... a Free-Strike'); whether moving into it and stopping is, the words "
        "do not settle."
    ),
    since="1.4",
    before="leaving",
)

TOKEN_DEFENCE = Ruling(
    name="token-defence",
    default="keeps",
    choices=("keeps", "2"),
    summary=(
        "The Defense of an Incapacitation token that is attacked (ruling attack-incapacitated). "
        "keeps: the model's DEF (1.3). 2: DEF 2, the lowest Target Number there is, as for a "
        "Prone model."
    ),
    rule="GF Incapacitation",
    note=(
        "An Incapacitated model 'is removed from the table' and 'cannot perform any actions'; "
        "the Combat page gives its token no Defense. 2 reads a model that cannot act as one "
        "that cannot avoid a blow, as 'Prone models are always considered to have a Defense "
        "Value of 2'."
    ),
    since="1.4",
    before="keeps",
)

AREA_HITS = Ruling(
    name="area-hits",
    default="successes",
    choices=("successes", "one"),
    summary=(
        "How many hits an Area of Effect attack scores on each model it catches that does not "
        "dodge. successes: the roll to hit's successes, as every attack (1.3). one: one hit."
    ),
    rule="GF Area of Effect",
    note=(
        "'If they fail, they are hit, and then must attempt to soak the damage using their "
        "Armour' gives no number; the Damage section says 'The more successes you score during "
        "an attack, the more Damage you will inflict', whether it is 'a Melee Attack or a "
        "Ranged Attack'."
    ),
    since="1.4",
    before="successes",
)


def _action_ruling(name: str, action: str, rule: str) -> Ruling:
    return Ruling(
        name=name,
        default="standard",
        choices=("standard", "special"),
        summary=(
            f"What {action} costs: standard = a Standard Action (1 AP); special = a Special "
            "Action (ruling special-action-cost)."
        ),
        rule=rule,
        note=(
            "unconfirmed: the rules name the action but not its kind, and no published "
            f"source we could check says whether {action} is a Standard or a Special Action; "
            "the default counts it with Move and Fight! as Standard, as 1.3 did."
        ),
        since="1.4",
        before="standard",
    )


SHOOT_ACTION = _action_ruling("shoot-action", "a Shoot!", "GF Ranged Combat")
AREA_ACTION = _action_ruling("area-action", "an Area of Effect attack", "GF Area of Effect")
RELOAD_ACTION = _action_ruling("reload-action", "a Reload", "GF Reload")

CHARGE_WITHIN_REACH = Ruling(
    name="charge-within-reach",
    default="allowed",
    choices=("allowed", "refused"),
    summary=(
        "Whether a model may Charge! an opposing model already within its threat range "
        "(allowed, 1.3), or must Fight! it instead (refused)."
    ),
    rule="GF Charge!",
    note=(
        "unconfirmed: 'Close combat begins when a model falls within another model's threat "
        "range via the result of a Charge! Action' does not say whether a model already within "
        "it may charge; the Charge! rules are not on the Combat page."
    ),
    since="1.4",
    before="allowed",
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
    SPARE_WEAPONS,
    RANGED_RANGE,
    SHOOTING_INTO_COMBAT,
    SHOOTER_THREAT_RANGE,
    DODGE_TN,
    DODGE_REDUCES,
    CHARGE_ACTION,
    AREA_POINT_BLANK,
    POWER_NO_SUCCESS,
    SHOT_DAMAGE,
    FIGHT_ATTACKS,
    FREE_STRIKE_TRIGGER,
    TOKEN_DEFENCE,
    AREA_HITS,
    SHOOT_ACTION,
    AREA_ACTION,
    RELOAD_ACTION,
    CHARGE_WITHIN_REACH,
)
