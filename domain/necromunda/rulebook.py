"""The published rules each Necromunda system cites, and how the short references in events
("N23 CC 5", "N17 Resolve Hits 1") read as the book's sections:

- ``RULEBOOK_2023``: the Necromunda Core Rulebook (2023). "N23 CC 5" is "Close Combat, step 5
  (Make Hit Rolls)".
- ``RULEBOOK_LEGACY``: the rules before the 2023 Core books, the Necromunda Rulebook of 2017
  (with its "N17 (improved version)" boxes) and its 2018 revision, with the FAQs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from blowbyblow.domain.system import Rulebook

_CC = "Close Combat"
_BOX_CHARGING = f"{_CC}, box: Charging Prone or Out of Line of Sight Fighters"


def _steps(titles: Mapping[int, str]) -> dict[str, str]:
    return {f"CC {n}": f"{_CC}, step {n} ({title})" for n, title in titles.items()}


_STEPS_2023 = _steps(
    {
        1: "Turn to Face",
        2: "Choose Weapons",
        3: "Determine Attack Dice",
        4: "Declare Targets",
        5: "Make Hit Rolls",
        6: "Resolve Hits",
        7: "Reaction Attacks",
        8: "Consolidate or Coup de Grace",
    }
)
_STEPS_LEGACY = {**_STEPS_2023, **_steps({2: "Pick Weapons"})}

_SHARED = {
    "CC": _CC,
    "Resolve Hits 1": "Resolving Hits, step 1 (Wound Roll)",
    "Resolve Hits 2": "Resolving Hits, step 2 (Save Roll)",
    "Resolve Hits 3": "Resolving Hits, step 3 (Inflict Damage, Injury dice)",
    "Nerve": "Nerve Tests",
    "Broken": "Broken fighters (Running for Cover)",
    "Charge": "Actions: Charge (Double)",
    "Coup de Grace": "Actions: Coup de Grace (Simple)",
}

SECTIONS_2023: dict[str, str] = {
    **_SHARED,
    **_STEPS_2023,
    "CC 1 example": f"{_STEPS_2023['CC 1']}, its example (a Broken fighter that turns: -3)",
    "CC Assists": f"{_CC}, Assists & Interference: Assists",
    "CC Interference": f"{_CC}, Assists & Interference: Interference",
    "CC Attacking Vehicles": f"{_CC}, box: Attacking Vehicles",
    "CC Outside the Sequence": (
        f"{_CC}, its opening (skills, gang tactics and the Mounted condition allow close combat "
        "attacks outside the normal sequence of the battle)"
    ),
    "CC Charging Out of Line of Sight": _BOX_CHARGING,
    "CC Charging Prone": _BOX_CHARGING,
    "CC Fighting Across Barricades": f"{_CC}, box: Fighting Across Barricades",
}

SECTIONS_LEGACY: dict[str, str] = {
    **_SHARED,
    **_STEPS_LEGACY,
    "CC 5": f"{_STEPS_LEGACY['CC 5']}, its table of hit modifiers",
    "CC 7 improved": f"{_STEPS_LEGACY['CC 7']}, box: N17 (improved version)",
    "CC 8 YAQ": f"{_STEPS_LEGACY['CC 8']}, its YAQ box",
    "CC Assists": f"{_CC}, Assists",
    "CC Interference": f"{_CC}, Interference",
    "CC Pistols at Close Quarters": f"{_CC}, Pistols at Close Quarters",
    # these rules have no box of their own on vehicles: what they say is in steps 5 to 7
    "CC Attacking Vehicles": f"{_STEPS_LEGACY['CC 6']}, Vehicles",
    "CC Fighting Across Barricades": f"{_CC}, step 4 (Declare Targets), across a barricade",
    "Charge (errata)": (
        "Actions: Charge (Double), with the FAQ and errata (a fighter is never Prone & Pinned "
        "and Engaged at once)"
    ),
}


def _sections(code: str, table: Mapping[str, str]) -> Callable[[str], str]:
    prefix = f"{code} "

    def section(rule: str) -> str:
        """``"N23 CC 5"`` -> ``"Close Combat, step 5 (Make Hit Rolls)"``; as written if unknown."""
        if not rule.startswith(prefix):
            return rule
        return table.get(rule.removeprefix(prefix), rule)

    return section


RULEBOOK_2023 = Rulebook(
    title="Necromunda Core Rulebook (2023)", section=_sections("N23", SECTIONS_2023)
)
RULEBOOK_LEGACY = Rulebook(
    title="Necromunda Rulebook (2017/2018, with FAQs)",
    section=_sections("N17", SECTIONS_LEGACY),
)
