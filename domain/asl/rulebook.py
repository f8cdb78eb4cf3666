"""The published rules the ``asl`` system cites: the ASL Rulebook (2nd edition). Events carry a
short reference in ``rule`` ("A11.4", "A20.22", "C13.7", "A.9", "A11.4/A10.7"): a chapter letter,
the section number within the chapter (none for the chapter's introduction, "A.9"), and the rule
within the section. ``RULEBOOK.section`` reads one as words, naming the rule where we know its
heading: "A11.4 Ambush (chapter A, Close Combat)"."""

from __future__ import annotations

import re

from blowbyblow.domain.system import Rulebook

TITLE = "ASL Rulebook (2nd edition)"

_REF = re.compile(r"(?P<chapter>[A-Z])(?P<section>\d+)?\.(?P<rule>\d+)|(?P<whole>[A-Z]\d+)")

# Section groups: a chapter's numbered sections, by their heading.
SECTIONS: dict[str, str] = {
    "A11": "Close Combat",
    "A17": "Wounds",
    "A20": "Prisoners",
}

# Rules by their heading (chapter A11's), or by the name A11 and its examples give them.
HEADINGS: dict[str, str] = {
    "A.9": "Random Selection",
    "A7.302": "Casualty Reduction",
    "A11.1": "Close Combat",
    "A11.11": "Resolution",
    "A11.12": "Mechanics",
    "A11.13": "SW",
    "A11.14": "SMC",
    "A11.141": "Leader",
    "A11.15": "Melee",
    "A11.16": "Broken Units",
    "A11.17": "Stealth",
    "A11.18": "Lax",
    "A11.19": "Concealment",
    "A11.2": "Withdrawal from Melee",
    "A11.21": "Withdrawal Mechanics",
    "A11.22": "Infiltration",
    "A11.3": "Sequential CC",
    "A11.31": "vs Vehicle",
    "A11.32": "Ambush",
    "A11.33": "Prisoners",
    "A11.4": "Ambush",
    "A11.41": "Ambush Withdrawal",
    "A11.5": "CC vs a Vehicle",
    "A11.501": "Unlikely Kill",
    "A11.51": "CC DRM",
    "A11.52": "Capture of Vehicle in CC",
    "A11.6": "CC vs an AFV",
    "A11.61": "CC Attack DRM vs AFV",
    "A11.611": "PRC",
    "A11.612": "AF",
    "A11.62": "AFV CC Attacks vs Infantry",
    "A11.621": "Crew Small Arms",
    "A11.622": "Close Defense Weapon System",
    "A11.7": "AFV Withdrawal from CC",
    "A11.71": "Other Withdrawal from CC",
    "A11.8": "Street Fighting",
    "C13.7": "ATMM",
    "J2.31": "Hand-to-Hand CC",
}


def _enclosing(ref: str) -> str | None:
    """The nearest enclosing rule with a known heading: A11.34 is part of A11.3."""
    head, _, digits = ref.partition(".")
    while len(digits) > 1:
        digits = digits[:-1]
        if f"{head}.{digits}" in HEADINGS:
            return f"{head}.{digits}"
    return None


def _read_one(ref: str) -> str:
    match = _REF.fullmatch(ref)
    if match is None:
        return ref
    if match["whole"] is not None:
        name = f" {SECTIONS[ref]}" if ref in SECTIONS else ""
        return f"{ref}{name} (chapter {ref[0]})"
    chapter, number = match["chapter"], match["section"]
    if number is None:
        where = f"chapter {chapter}, introduction"
    else:
        group = SECTIONS.get(f"{chapter}{number}")
        where = f"chapter {chapter}" + (f", {group}" if group else "")
    if ref in HEADINGS:
        return f"{ref} {HEADINGS[ref]} ({where})"
    enclosing = _enclosing(ref)
    if enclosing is not None:
        return f"{ref}, part of {enclosing} {HEADINGS[enclosing]} ({where})"
    return f"{ref} ({where})"


def section(rule: str) -> str:
    """A short reference in words; several joined by "/" are read one by one. Anything that is
    not a rulebook reference (a DRM given with a command as "other") is returned as written."""
    parts = rule.split("/")
    if not all(_REF.fullmatch(p) for p in parts):
        return rule
    return " and ".join(_read_one(p) for p in parts)


RULEBOOK = Rulebook(title=TITLE, section=section)
