"""The rulings of both Necromunda systems: where a rulebook is ambiguous, has a variant, or relies
on a value no published source we could check confirms. Rules read them only as
``ctx.ruling(CONSTANT)``.

A ruling both systems have is one constant (the one the rules read); the older rules' copy
(``LEGACY_…``) has the same name and choices and cites the older book. ``RULINGS_2023`` and
``RULINGS_LEGACY`` are the rulings of each system, in the order ``bxb rulesets`` lists them.
"""

from __future__ import annotations

import msgspec

from blowbyblow.domain.core import Ruling

# --- both systems -----------------------------------------------------------------------------

COUP_DE_GRACE_EFFECT = Ruling(
    name="coup-de-grace-effect",
    default="out-of-action",
    choices=("out-of-action", "injury-dice"),
    summary=(
        "What a Coup de Grace does. out-of-action: the Seriously Injured target goes Out of "
        "Action at once (the 2017 wording). injury-dice: the target takes a hit from the "
        "fighter's weapon (the first chosen in the fight, else unarmed) with no hit, wound "
        "or save roll; roll as many Injury dice as its Damage (at least one)."
    ),
    rule="N23 Coup de Grace",
    note=(
        "unconfirmed: no published source we could check says whether a 2023 Coup de Grace "
        "takes the target Out of Action at once or rolls Injury dice from a weapon; the default "
        "is out-of-action, the wording of the 2017 rules."
    ),
)

INJURY_DICE_FACES = Ruling(
    name="injury-dice-faces",
    default="FFSSSO",
    choices=("FFSSSO", "FSSSSO", "FFFSSO"),
    summary=(
        "Injury dice faces 1 to 6: F = Flesh Wound, S = Serious Injury, O = Out of Action. "
        "Default 1-2 Flesh Wound, 3-5 Serious Injury, 6 Out of Action."
    ),
    rule="N23 Resolve Hits 3",
    note=(
        "The Injury dice are special dice with 2 Flesh Wound, 3 Serious Injury and 1 Out of "
        "Action faces, read as a D6 of 1-2, 3-5 and 6; the other splits are for what-if runs."
    ),
)

EXTRA_SERIOUS_INJURY = Ruling(
    name="extra-serious-injury",
    default="flesh-wound",
    choices=("flesh-wound", "no-effect"),
    summary=(
        "A second Serious Injury result from one hit, or any Serious Injury on a fighter "
        "already Seriously Injured: a Flesh Wound instead (2023), or no further effect."
    ),
    rule="N23 Resolve Hits 3",
    note="The 2023 rules give the Flesh Wound; no-effect is for what-if runs.",
)

VEHICLE_LOCATION_FACES = Ruling(
    name="vehicle-location-faces",
    default="BBBDDE",
    choices=("BBBDDE", "BBDDEE"),
    summary=(
        "Vehicle Location dice faces 1 to 6: B = Body, D = Drive, E = Engine. The location is "
        "recorded but only Hull Points are modelled."
    ),
    rule="N23 CC Attacking Vehicles",
    note=(
        "unconfirmed: no published source we could check gives the faces of the Location dice; "
        "the default is BBBDDE."
    ),
)

VEHICLE_DAMAGE = Ruling(
    name="vehicle-damage",
    default="wrecked-at-0",
    choices=("wrecked-at-0",),
    summary=(
        "Minimal vehicle model: each point of Damage removes a Hull Point; a vehicle with no "
        "Hull Points left is Wrecked. Vehicle Damage dice and location effects are not modelled."
    ),
    rule="N23 CC Attacking Vehicles",
    note="A limit of this implementation, not a reading of the rules.",
)

STEP8_DEFAULT = Ruling(
    name="step8-default",
    default="coup-de-grace",
    choices=("coup-de-grace", "consolidate", "none"),
    summary=(
        "What step 8 does when the player is not asked (scripted or recorded battles with no "
        "answer): this option if it is allowed, else nothing. The player is always asked "
        "when a prompt is available."
    ),
    rule="N23 CC 8",
    note="Not a rule: the answer used when nobody answers the step 8 choice.",
)

NERVE_TESTS = Ruling(
    name="nerve-tests",
    default="on",
    choices=("off", "on"),
    summary=(
        "on: when a fighter becomes Seriously Injured or goes Out of Action in close combat, "
        'each friend listed within 3" of it that is Standing and not Broken takes a Nerve test '
        '(2D6 + 1 per other such friend within 3", pass on its Cool); failing makes it Broken. '
        "Running for Cover is not modelled (no table geometry)."
    ),
    rule="N23 Nerve",
    note=(
        "Nerve tests are not part of the Close Combat section; off leaves them out of a "
        "close combat."
    ),
)

# --- both systems, since version 1.1 ---------------------------------------------------------
# Each changes how a command of version 1.0 was adjudicated; ``before`` ("as-1.0") gives 1.0's
# reading back, so a battle recorded under 1.0 re-adjudicates exactly.

VEHICLE_LOCATION = Ruling(
    name="vehicle-location",
    default="applied",
    choices=("applied", "as-1.0"),
    summary=(
        "applied: a wound on a vehicle that its crew do not save rolls the Location dice (one "
        "extra in close combat), the attacker chooses the result to apply, and the hit's Damage "
        "is applied to that Location (Hull Points lost; the vehicle keeps the Locations hit). "
        "as-1.0: the Location dice are rolled after the Wound roll, before the save, and the "
        "result is only recorded (version 1.0)."
    ),
    rule="N23 CC Attacking Vehicles",
    note=(
        "The Attacking Vehicles box has the attacker choose one Location result 'to apply'; "
        "version 1.0 rolled it but applied it to nothing, and rolled it for wounds that were "
        "then saved."
    ),
    since="1.1",
    before="as-1.0",
)

BROKEN_COUP_DE_GRACE = Ruling(
    name="broken-coup-de-grace",
    default="refused",
    choices=("refused", "as-1.0"),
    summary=(
        "refused: a Broken fighter may not make a Coup de Grace (Simple) action; it must Run "
        "for Cover when activated. as-1.0: the action was accepted from a Broken fighter "
        "(version 1.0)."
    ),
    rule="N23 Broken",
    note=(
        "A fix: a Broken fighter must Run for Cover whenever it is activated, as it may not "
        "Fight or Charge; version 1.0 refused those but accepted its Coup de Grace."
    ),
    since="1.1",
    before="as-1.0",
)

NERVE_WRECKED_VEHICLE = Ruling(
    name="nerve-wrecked-vehicle",
    default="test",
    choices=("test", "as-1.0"),
    summary=(
        'test: when a vehicle is Wrecked, each friendly fighter listed within 6" (or within '
        '3") of it that is Standing or Prone & Pinned and not Broken takes a Nerve test (when '
        "the ruling nerve-tests is on). as-1.0: a Wrecked vehicle caused no Nerve test "
        "(version 1.0)."
    ),
    rule="N23 Nerve",
    note=(
        'A fix: a friendly vehicle Wrecked within 6" is a cause of Nerve tests; version 1.0 '
        "tested only for fighters Seriously Injured or taken Out of Action."
    ),
    since="1.1",
    before="as-1.0",
)

# --- since 1.2, both systems ---------------------------------------------------------------------

HIT_NATURAL_SIX = Ruling(
    name="hit-natural-six",
    default="as-modified",
    choices=("as-modified", "always-hits"),
    summary=(
        "A Hit roll passes when the natural roll plus its modifiers is at least the attacker's "
        "WS (WS 3+: 3 or more); a natural 1 always misses. as-modified: a natural 6 is judged "
        "like any roll (version 1.1). always-hits: a natural 6 always hits."
    ),
    rule="N23 CC 5",
    note=(
        "unconfirmed: 'A Hit roll is a Weapon Skill test made against the WS of the attacking "
        "fighter' names the test, and 'If ... the Hit roll is a natural 1, the attack "
        "automatically misses, regardless of any modifiers'; how the test passes is outside "
        "the Close Combat section, and no published source we could check says it in words. "
        "The 2026 rules add that a natural 6 always hits; the default, as-modified, is how "
        "version 1.1 judged it."
    ),
    since="1.2",
    before="as-modified",
)

# --- necromunda-2023 only ---------------------------------------------------------------------

CHARGED_PRONE_REACTION = Ruling(
    name="charged-prone-reaction",
    default="counts-as-turned",
    choices=("counts-as-turned", "faces-only"),
    summary=(
        "A Prone & Pinned fighter that is charged becomes Standing & Engaged and 'counts "
        "as having turned to face' for its Reaction attacks. counts-as-turned: the charger "
        "is in its vision arc and its Reaction attacks take the -1 of turning to face. "
        "faces-only: the charger is in its arc, with no -1."
    ),
    rule="N23 CC Charging Prone",
    note=(
        "Ambiguous: 'counts as having turned to face' may carry the -1 of turning, or only put "
        "the charger in its vision arc."
    ),
)

VEHICLE_TARGET_INTERFERENCE = Ruling(
    name="vehicle-target-interference",
    default="applies",
    choices=("applies", "none"),
    summary=(
        "A fighter attacking a vehicle loses assists. Whether enemy fighters engaging it "
        "still interfere is not said: applies (default) or none. A vehicle itself never "
        "interferes, being never engaged."
    ),
    rule="N23 CC Attacking Vehicles",
    note=(
        "The Attacking Vehicles box removes assists against a vehicle and is silent on "
        "interference."
    ),
)

# --- necromunda-legacy only -------------------------------------------------------------------

REACTION_TARGET = Ruling(
    name="reaction-target",
    default="any-eligible",
    choices=("any-eligible", "attacker-only"),
    summary=(
        "Whom Reaction attacks may target. any-eligible: the main text (steps 1-6: any "
        "eligible target; the attacker unless the player picks another). attacker-only: "
        "the 'N17 (improved version)' box: Reaction attacks must target the attacker."
    ),
    rule="N17 CC 7 improved",
    note=(
        "A variant: the 2017 Rulebook prints an 'improved version' of step 7 in a box beside "
        "the main text."
    ),
)

NERVE_AFTER_COUP_DE_GRACE = Ruling(
    name="nerve-after-coup-de-grace",
    default="skip",
    choices=("skip", "test"),
    summary=(
        "YAQ: friends take no second Nerve test when a fighter that became Seriously "
        "Injured is taken Out of Action by a free Coup de Grace in the same activation "
        "(skip); test: the rules as written without the YAQ."
    ),
    rule="N17 CC 8 YAQ",
    note="An answer to a frequently asked question printed beside step 8, not the rule text.",
)

FIREPOWER_AMMO_FACE = Ruling(
    name="firepower-ammo-face",
    default="6",
    choices=("6", "1"),
    summary=(
        "Which D6 face stands for the ammo symbol of the Firepower dice that a pistol "
        "rolls in close combat (an Ammo check follows: D6 against the weapon's Ammo value, "
        "failure = out of ammo)."
    ),
    rule="N17 CC Pistols at Close Quarters",
    note=(
        "unconfirmed: no published source we could check gives the face layout of the "
        "Firepower dice; the default is 6."
    ),
)

COUP_DE_GRACE_VISION_ARC = Ruling(
    name="coup-de-grace-vision-arc",
    default="required",
    choices=("required", "as-1.0"),
    summary=(
        "required: a Coup de Grace (Simple), as an action or free at step 8, chooses a "
        "Seriously Injured enemy within 1\" that is inside the fighter's vision arc. as-1.0: "
        "the vision arc was not checked (version 1.0)."
    ),
    rule="N17 Coup de Grace",
    note=(
        "A fix: the 2017 rules' Coup de Grace names an enemy within 1\" and inside the "
        "fighter's vision arc; version 1.0 did not check the arc."
    ),
    since="1.1",
    before="as-1.0",
)

REACTION_ATTACK_STEPS = Ruling(
    name="reaction-attack-steps",
    default="steps-1-6",
    choices=("steps-1-6", "steps-1-5"),
    summary=(
        "steps-1-6: Reaction attacks follow steps 1 to 6, so their hits are resolved (the "
        "text of step 7). steps-1-5: they follow steps 1 to 5 (the step list's '7. Reaction "
        "Attacks (steps 1 to 5)'), so their hits are rolled but not resolved."
    ),
    rule="N17 CC 7",
    note=(
        "The book contradicts itself: its list of steps says Reaction attacks follow steps 1 "
        "to 5, its step 7 says steps 1-6. The default is step 7's text, as version 1.0 read it."
    ),
    since="1.1",
    before="steps-1-6",
)

VEHICLE_LEAVING_ENGAGEMENT = Ruling(
    name="vehicle-leaving-engagement",
    default="initiative-test",
    choices=("initiative-test", "no-attacks"),
    summary=(
        "When a vehicle moves out of engagement range of enemy fighters: initiative-test, "
        "each of them may make an Initiative test and, if it passes, Reaction attacks against "
        "the vehicle (as in 2023); no-attacks: the vehicle simply leaves."
    ),
    rule="N17 CC 7",
    note=(
        "unconfirmed: the rules before 2023 say vehicles make no Reaction attacks but not what "
        "happens when one leaves; the default assumes the 2023 rule (a command added in 1.1)."
    ),
    since="1.1",
    before="initiative-test",
)

WOUND_CHART = Ruling(
    name="wound-chart",
    default="as-2023",
    choices=("as-2023",),
    summary=(
        "The wound chart before 2023 is believed to be the 2023 one (S >= 2T 2+, S > T 3+, "
        "S = T 4+, S < T 5+, S <= T/2 6+)."
    ),
    rule="N17 Resolve Hits 1",
    note=(
        "unconfirmed: no published source we could check prints the wound chart of the rules "
        "before 2023; the default is the 2023 chart."
    ),
)

FLESH_WOUND_EFFECT = Ruling(
    name="flesh-wound-effect",
    default="toughness",
    choices=("toughness",),
    summary="A Flesh Wound is -1 Toughness (Out of Action at 0), as in 2023.",
    rule="N17 Resolve Hits 3",
    note=(
        "unconfirmed: no published source we could check gives the Flesh Wound of the rules "
        "before 2023; the default is the 2023 rule (the -1 WS/BS Flesh Wound is the 1995 rule)."
    ),
)


def _legacy(ruling: Ruling, rule: str, note: str | None = None) -> Ruling:
    """The older rules' copy of a ruling both systems have: the same name and choices."""
    return msgspec.structs.replace(ruling, rule=rule, note=ruling.note if note is None else note)


LEGACY_COUP_DE_GRACE_EFFECT = _legacy(
    COUP_DE_GRACE_EFFECT,
    "N17 Coup de Grace",
    "The 2017 rules' reference sheet: the Seriously Injured enemy goes Out of Action at once; "
    "injury-dice is for what-if runs.",
)
LEGACY_INJURY_DICE_FACES = _legacy(
    INJURY_DICE_FACES,
    "N17 Resolve Hits 3",
    "unconfirmed: no published source we could check gives the Injury dice of the rules before "
    "2023; the default assumes the same dice as in 2023 (1-2 Flesh Wound, 3-5 Serious Injury, "
    "6 Out of Action).",
)
LEGACY_EXTRA_SERIOUS_INJURY = _legacy(
    EXTRA_SERIOUS_INJURY,
    "N17 Resolve Hits 3",
    "unconfirmed: no published source we could check says what an extra Serious Injury does in "
    "the rules before 2023; the default is the 2023 rule (a Flesh Wound).",
)
LEGACY_VEHICLE_LOCATION_FACES = _legacy(VEHICLE_LOCATION_FACES, "N17 CC 6")
LEGACY_HIT_NATURAL_SIX = _legacy(
    HIT_NATURAL_SIX,
    "N17 CC 5",
    "unconfirmed: 'Make a Weapon Skill test for the attacker with each Attack dice' names the "
    "test; how it passes is outside the close combat text, and no published source we could "
    "check says it in words. Later rules (2026) add that a natural 6 always hits; the default, "
    "as-modified, is how version 1.1 judged it.",
)
LEGACY_VEHICLE_DAMAGE = _legacy(VEHICLE_DAMAGE, "N17 CC 6")
LEGACY_STEP8_DEFAULT = _legacy(STEP8_DEFAULT, "N17 CC 8")
LEGACY_VEHICLE_LOCATION = _legacy(VEHICLE_LOCATION, "N17 CC 6")
LEGACY_BROKEN_COUP_DE_GRACE = _legacy(BROKEN_COUP_DE_GRACE, "N17 Broken")
LEGACY_NERVE_WRECKED_VEHICLE = _legacy(
    NERVE_WRECKED_VEHICLE,
    "N17 Nerve",
    'unconfirmed: Nerve tests, and their cause "a friendly vehicle Wrecked within 6", are '
    "assumed as in 2023; as-1.0 is version 1.0, which tested for fighters only.",
)
LEGACY_NERVE_TESTS = _legacy(
    NERVE_TESTS,
    "N17 Nerve",
    "unconfirmed: Nerve tests are described here as in 2023 and assumed alike in the rules "
    "before 2023; off leaves them out of a close combat.",
)

RULINGS_2023: tuple[Ruling, ...] = (
    COUP_DE_GRACE_EFFECT,
    INJURY_DICE_FACES,
    EXTRA_SERIOUS_INJURY,
    CHARGED_PRONE_REACTION,
    VEHICLE_TARGET_INTERFERENCE,
    VEHICLE_LOCATION_FACES,
    VEHICLE_DAMAGE,
    STEP8_DEFAULT,
    NERVE_TESTS,
    VEHICLE_LOCATION,
    BROKEN_COUP_DE_GRACE,
    NERVE_WRECKED_VEHICLE,
    HIT_NATURAL_SIX,
)

RULINGS_LEGACY: tuple[Ruling, ...] = (
    REACTION_TARGET,
    NERVE_AFTER_COUP_DE_GRACE,
    FIREPOWER_AMMO_FACE,
    LEGACY_COUP_DE_GRACE_EFFECT,
    LEGACY_INJURY_DICE_FACES,
    LEGACY_EXTRA_SERIOUS_INJURY,
    WOUND_CHART,
    FLESH_WOUND_EFFECT,
    LEGACY_VEHICLE_LOCATION_FACES,
    LEGACY_VEHICLE_DAMAGE,
    LEGACY_STEP8_DEFAULT,
    LEGACY_NERVE_TESTS,
    REACTION_ATTACK_STEPS,
    COUP_DE_GRACE_VISION_ARC,
    VEHICLE_LEAVING_ENGAGEMENT,
    LEGACY_VEHICLE_LOCATION,
    LEGACY_BROKEN_COUP_DE_GRACE,
    LEGACY_NERVE_WRECKED_VEHICLE,
    LEGACY_HIT_NATURAL_SIX,
)
