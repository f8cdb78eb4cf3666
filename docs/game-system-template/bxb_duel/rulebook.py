"""The published rules this system cites: "Duel: rules for two fighters" (RULES.md).

Events carry a short reference in ``rule`` ("D2.1"); ``RULEBOOK.section`` reads it as the section
in words and ``RULEBOOK.cite`` as a citation a reader can look up in the book.
"""

from __future__ import annotations

from blowbyblow.domain.system import Rulebook

# copy me: the sections your events and rulings cite, as the book numbers and names them.
SECTIONS: dict[str, str] = {
    "D1": "The duel",
    "D1.1": "Fighters",
    "D1.2": "Turns",
    "D1.3": "Guard",
    "D1.4": "Down",
    "D2": "Striking",
    "D2.1": "The to-hit roll",
    "D2.2": "Modifiers",
    "D2.3": "Natural rolls",
    "D2.4": "Example",
    "D2.5": "Variant: Short Guard",
    "D3": "Wounds",
    "D3.1": "Hits",
    "D3.2": "Telling blows",
    "D4": "Out of action",
    "D4.1": "Out of action",
}


def section(rule: str) -> str:
    """``"D2.1"`` -> ``"section D2.1 (The to-hit roll)"``; a reference the book does not number
    is given as written."""
    title = SECTIONS.get(rule)
    return f"section {rule} ({title})" if title else rule


# copy me: the title, edition and year of the book players hold.
RULEBOOK = Rulebook(title="Duel: rules for two fighters (1st edition)", section=section)
