"""Necromunda close combat before the 2023 books (N17/N18 with the FAQs; seed:
shared/seeds/necromunda-legacy-close-combat.md). The procedure is the 2023 one (``n23.py``) run
with this :class:`~blowbyblow.domain.necromunda.n23.Edition`; it differs only where the books do:

- hit modifiers as printed: Broken (Reaction attacks) -2, each assist +1, each interference -1,
  turned to face -1, attacking a vehicle +1, attacking through a barricade -1 (N17 CC 5); no -1 for
  charging out of line of sight, and a charged Prone & Pinned fighter does not "count as turned";
- assists / interference exclude helpers engaged with *any other enemy* (not "from the target's
  gang"); against a vehicle neither assists nor interference apply;
- step 8 as written: when the attacker is no longer Engaged (every enemy it engaged Seriously
  Injured or Out of Action): a free Coup de Grace on a Seriously Injured fighter in base contact,
  or move up to 2";
- N17 "improved" variant: Reaction attacks must target the attacker (ruling ``reaction-target``);
- YAQ: no second Nerve test for a fighter Seriously Injured and then taken Out of Action by a free
  Coup de Grace in the same activation (ruling ``nerve-after-coup-de-grace``);
- pistols used in close combat roll the Firepower dice for ammo (N17 CC Pistols at Close Quarters).
"""

from __future__ import annotations

from blowbyblow.domain.core import Ruling
from blowbyblow.domain.necromunda.n23 import (
    R_FIREPOWER_FACE,
    R_NERVE_AFTER_CDG,
    R_REACTION_TARGET,
    Edition,
    coup_de_grace_ruling,
    extra_si_ruling,
    injury_faces_ruling,
    location_faces_ruling,
    nerve_ruling,
    step8_default_ruling,
    vehicle_damage_ruling,
)

R_WOUND_CHART = "wound-chart"
R_FLESH_WOUND = "flesh-wound-effect"

LEGACY = Edition(
    code="N17",
    title="Necromunda (2017-2022 rules, before the 2023 Core books)",
    exclusion="any-enemy",
    barricade_modifier=-1,
    vehicle_modifier=1,
    out_of_sight_penalty=False,
    charged_prone_turn=False,
    step8="legacy",
    pistol_firepower=True,
    modifier_table="CC 5",
    reaction_target_ruling=R_REACTION_TARGET,
    vehicle_interference_ruling=None,
    nerve_after_cdg_ruling=R_NERVE_AFTER_CDG,
)


def legacy_rulings() -> tuple[Ruling, ...]:
    return (
        Ruling(
            name=R_REACTION_TARGET,
            default="any-eligible",
            choices=("any-eligible", "attacker-only"),
            summary=(
                "Whom Reaction attacks may target. any-eligible: the main text (steps 1-6: any "
                "eligible target; the attacker unless the player picks another). attacker-only: "
                "the 'N17 (improved version)' box: Reaction attacks must target the attacker."
            ),
            rule="legacy seed, 7. Reaction Attacks and its N17 (IMPROVED VERSION) box",
        ),
        Ruling(
            name=R_NERVE_AFTER_CDG,
            default="skip",
            choices=("skip", "test"),
            summary=(
                "YAQ: friends take no second Nerve test when a fighter that became Seriously "
                "Injured is taken Out of Action by a free Coup de Grace in the same activation "
                "(skip); test: the rules as written without the YAQ."
            ),
            rule="legacy seed, 8. Consolidate or Coup de Grace, YAQ box",
        ),
        Ruling(
            name=R_FIREPOWER_FACE,
            default="6",
            choices=("6", "1"),
            summary=(
                "Which D6 face stands for the ammo symbol of the Firepower dice that a pistol "
                "rolls in close combat (an Ammo check follows: D6 against the weapon's Ammo value, "
                "failure = out of ammo). The physical dice's face layout is not in our sources."
            ),
            rule="legacy seed, Pistols at Close Quarters; FACTS has no Firepower dice entry [U]",
        ),
        coup_de_grace_ruling(
            "out-of-action",
            "FACTS 2.5 (N7, N17 reference sheet): the Seriously Injured enemy goes Out of Action [C]",
        ),
        injury_faces_ruling("FACTS 2.2: the same physical dice seem to carry over to N17/N18 [U]"),
        extra_si_ruling(
            "flesh-wound", "FACTS 2.2: N23 wording (N3); N17/N18 not found in any source [U]"
        ),
        Ruling(
            name=R_WOUND_CHART,
            default="as-2023",
            choices=("as-2023",),
            summary=(
                "The N17/N18 wound chart is believed to be the 2023 one (S >= 2T 2+, S > T 3+, "
                "S = T 4+, S < T 5+, S <= T/2 6+), but no source confirms it."
            ),
            rule="FACTS 2.1: N18/N17 table [U]",
        ),
        Ruling(
            name=R_FLESH_WOUND,
            default="toughness",
            choices=("toughness",),
            summary=(
                "A Flesh Wound is -1 Toughness (Out of Action at 0), as in 2023; for N17/N18 this "
                "is unconfirmed (the -1 WS/BS flesh wound is the 1995 rule)."
            ),
            rule="FACTS 2.2: N17/N18 [U]",
        ),
        location_faces_ruling(),
        vehicle_damage_ruling(),
        step8_default_ruling(),
        nerve_ruling("on", "FACTS 2.5 (Nerve tests, described for N23; assumed alike in N17)"),
    )
