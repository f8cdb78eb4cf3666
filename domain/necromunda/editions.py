"""Where the two Necromunda rulebooks differ. One procedure runs the close-combat sequence for
either book; an :class:`Edition` holds every point on which they differ.

- ``N23``: the Necromunda Core Rulebook (2023).
- ``LEGACY`` (rule references ``N17 …``): the rules before the 2023 Core books (the 2017
  Rulebook and its 2018 revision, with their FAQs). Compared with 2023:

  - hit modifiers as printed in its step 5 table: Broken (Reaction attacks) -2, each assist +1,
    each interference -1, turned to face -1, attacking a vehicle +1, attacking through a
    barricade -1; nothing for charging out of line of sight, and a charged Prone & Pinned
    fighter does not count as having turned to face;
  - assists and interference exclude helpers engaged with *any other enemy* (2023: any other
    fighter of the target's, or the attacker's, gang); against a vehicle neither applies;
  - step 8 as written: when the attacker is no longer Engaged, a free Coup de Grace on a
    Seriously Injured fighter in base contact, or move up to 2";
  - the 2017 Rulebook's "N17 (improved version)" box: Reaction attacks must target the attacker
    (a ruling);
  - the FAQ answer (YAQ) of step 8: no second Nerve test for a fighter Seriously Injured and then
    taken Out of Action by a free Coup de Grace in the same activation (a ruling);
  - pistols used in close combat roll the Firepower dice for ammo (Pistols at Close Quarters);
  - its step list says Reaction attacks follow "steps 1 to 5", its step 7 "steps 1-6" (a
    ruling, since 1.1);
  - the 2017 Coup de Grace chooses an enemy inside the fighter's vision arc (a ruling, since
    1.1);
  - it says nothing of a vehicle leaving engagement (a ruling, since 1.1, assumes 2023's rule).

Rule references in events are ``f"{edition.code} {section}"`` ("N23 CC 5", "N17 Resolve Hits 1");
``rulebook.py`` reads them as the book's sections.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# Assists / interference: who else may the helper (or interferer) not be engaged with?
#   "target-gang": any other fighter of the same gang as the target (or attacker)  (2023)
#   "any-enemy": any other enemy fighter  (before 2023)
Exclusion = Literal["target-gang", "any-enemy"]
# Step 8: "2023": judged on the enemies the attacker was engaged with; "legacy": the attacker
# must no longer be Engaged, and a Coup de Grace may pick any Seriously Injured enemy in contact.
Step8 = Literal["2023", "legacy"]


@dataclass(frozen=True)
class Edition:
    code: Literal["N23", "N17"]  # the prefix of every rule reference
    title: str
    exclusion: Exclusion
    barricade_modifier: int  # to hit, attacking through a barricade (before 2023: -1)
    vehicle_modifier: int  # to hit, attacking a vehicle (+1 in both)
    out_of_sight_penalty: bool  # -1 to the free Fight after charging out of line of sight
    charged_prone_turn: bool  # a charged Prone & Pinned fighter counts as turned to face
    step8: Step8
    pistol_firepower: bool  # Sidearms roll the Firepower dice for ammo in close combat
    modifier_table: str | None  # the section citing every hit modifier (before 2023: "CC 5")
    reaction_target_variant: bool  # the ruling reaction-target exists (the N17 improved box)
    vehicle_interference_unsaid: bool  # the book is silent on it: the ruling decides (2023)
    yaq_nerve_note: bool  # the ruling nerve-after-coup-de-grace exists (the YAQ)
    # since 1.1
    granted_attack_section: str  # where the book names attacks outside the normal sequence
    vehicle_leaving_section: str  # where it says what happens when a vehicle leaves engagement
    vehicle_leaving_unsaid: bool  # the book is silent on it: the ruling decides (before 2023)
    coup_de_grace_arc: bool  # the ruling coup-de-grace-vision-arc exists (the 2017 action)
    reaction_steps_variant: bool  # the ruling reaction-attack-steps exists (1 to 5 or 1-6)

    def rule(self, section: str) -> str:
        return f"{self.code} {section}"

    def mod_rule(self, section: str) -> str:
        """Where a hit modifier is granted: its own section, or the edition's modifier table."""
        return self.rule(self.modifier_table or section)


N23 = Edition(
    code="N23",
    title="Necromunda (2023 Core Rulebook)",
    exclusion="target-gang",
    barricade_modifier=0,
    vehicle_modifier=1,
    out_of_sight_penalty=True,
    charged_prone_turn=True,
    step8="2023",
    pistol_firepower=False,
    modifier_table=None,
    reaction_target_variant=False,
    vehicle_interference_unsaid=True,
    yaq_nerve_note=False,
    granted_attack_section="CC Outside the Sequence",
    vehicle_leaving_section="CC Attacking Vehicles",
    vehicle_leaving_unsaid=False,
    coup_de_grace_arc=False,
    reaction_steps_variant=False,
)

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
    reaction_target_variant=True,
    vehicle_interference_unsaid=False,
    yaq_nerve_note=True,
    granted_attack_section="CC",
    vehicle_leaving_section="CC 7",
    vehicle_leaving_unsaid=True,
    coup_de_grace_arc=True,
    reaction_steps_variant=True,
)
