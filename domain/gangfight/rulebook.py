"""The published rules Gangfight events cite: the Gangfight rules on gangfightgames.com, whose
pages are Model Profiles, Game Terms, Actions and Action Points, Combat and Setting up the Game.

Events carry a short reference in ``rule``; :data:`RULEBOOK` reads it as the page and section:

- ``GF Melee 1`` … ``GF Melee 6``: the numbered steps of Melee Combat on the Combat page;
- ``GF Ranged 1`` … ``GF Ranged 9``: the numbered steps of Ranged Combat on the Combat page, and
  ``GF Ranged Combat`` its opening paragraph (a loaded weapon, no model in the threat range);
- ``GF <heading>``: an unnumbered section of the Combat page by its heading (``GF Armour``,
  ``GF Incapacitation``, ``GF Power Attacks``, ``GF Two Weapons`` for "Attacking with Two
  Weapons", ``GF Slam!``, ``GF Trample`` for the Trample paragraphs of Slam!, ``GF Knocked Down``,
  ``GF Area of Effect`` and its two kinds, ``GF Cover`` and its two kinds…);
- ``GF Charge!`` and ``GF Reload``: those actions on the Actions and Action Points page;
- ``G2 Action Points`` and ``G2 Move``: the Actions and Action Points page (its Action Points, and
  its Move action). "G2" is an older short label kept because recorded battles carry these exact
  strings; it names no section of the rules, so it is always read as that page.
"""

from __future__ import annotations

import re

from blowbyblow.domain.system import Rulebook

TITLE = "Gangfight rules (gangfightgames.com)"

COMBAT = "Combat"
ACTIONS = "Actions and Action Points"

MELEE_STEPS: dict[int, str] = {
    1: "the target within the attacker's threat range",
    2: "the Attack Roll, ATT dice against DEF",
    3: "each success inflicts 1 Wound",
    4: "the Armour roll, ARM dice against the attacker's modified DAM",
    5: "each Armour success negates 1 Wound",
    6: "the rest off Endurance; 0 or less is Incapacitated",
}

RANGED_STEPS: dict[int, str] = {
    1: "the target within the model's Line of Sight",
    2: "the Marksmanship Roll, MRK dice against DEF",
    3: "at most 3 dice at a target in close combat",
    4: "+1 die at Point Blank Range",
    5: "-1 die at Long Range, and per further 6 inches",
    6: "each success inflicts 1 Wound",
    7: "the Armour roll, ARM dice against the attacker's modified DAM",
    8: "each Armour success negates 1 Wound",
    9: "the rest off Endurance; 0 or less is Incapacitated",
}

# Unnumbered sections of the Combat page, by the heading the reference names.
COMBAT_SECTIONS: dict[str, str] = {
    "GF Damage": "Damage",
    "GF Armour": "Armour",
    "GF Wounds": "Wounds",
    "GF Incapacitation": "Incapacitation",
    "GF Special Attacks": "Special Attacks",
    "GF Power Attacks": "Power Attacks",
    "GF Finesse Attacks": "Finesse Attacks",
    "GF Two Weapons": "Attacking with Two Weapons",
    "GF Falling": "Falling",
    "GF Free Strikes": "Free Strikes",
    "GF Slam!": "Slam!",
    "GF Trample": "Slam! (the Trample paragraphs)",
    "GF Knocked Down": "Knocked Down",
    "GF Ranged Combat": "Ranged Combat",
    "GF Area of Effect": "Area of Effect Attacks",
    "GF Direct Area of Effect": "Area of Effect Attacks, Direct Area of Effect",
    "GF Indirect Area of Effect": "Area of Effect Attacks, Indirect Area of Effect",
    "GF Cover": "Cover",
    "GF Soft Cover": "Cover, Soft Cover",
    "GF Hard Cover": "Cover, Hard Cover",
}

# The references of the Actions and Action Points page (see the module docstring).
ACTION_SECTIONS: dict[str, str] = {
    "G2 Action Points": f"{ACTIONS}, Action Points",
    "G2 Move": f"{ACTIONS}, Move",
    "GF Charge!": f"{ACTIONS}, Charge!",
    "GF Reload": f"{ACTIONS}, Reload",
}

_MELEE = re.compile(r"GF Melee (\d)")
_RANGED = re.compile(r"GF Ranged (\d)")


def section(rule: str) -> str:
    """A short reference as the section of the published rules it stands for, in words (a
    reference this system does not use is returned as written)."""
    melee = _MELEE.fullmatch(rule)
    if melee and int(melee.group(1)) in MELEE_STEPS:
        step = int(melee.group(1))
        return f"{COMBAT}, Melee Combat, step {step} ({MELEE_STEPS[step]})"
    ranged = _RANGED.fullmatch(rule)
    if ranged and int(ranged.group(1)) in RANGED_STEPS:
        step = int(ranged.group(1))
        return f"{COMBAT}, Ranged Combat, step {step} ({RANGED_STEPS[step]})"
    if rule in COMBAT_SECTIONS:
        return f"{COMBAT}, {COMBAT_SECTIONS[rule]}"
    return ACTION_SECTIONS.get(rule, rule)


RULEBOOK = Rulebook(title=TITLE, section=section)
