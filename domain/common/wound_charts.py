"""Strength against Toughness: the D6 score a hit needs to wound.

Two charts are in use across the game systems:
- the *ratio* chart of the Necromunda Core Rulebook (2023), Resolving Hits, step 1 (Wound Roll),
  also a ruling option of Warhammer 40,000 2nd edition;
- the *difference* chart by S - T, the default ruling of Warhammer 40,000 2nd edition (its
  cells are a ruling there: see that system's rulings).
"""

from __future__ import annotations


def wound_target_by_ratio(strength: int, toughness: int) -> int:
    """S at least twice T 2+, S > T 3+, S = T 4+, S at most half T 6+, otherwise (S < T) 5+."""
    if strength >= 2 * toughness:
        return 2
    if strength > toughness:
        return 3
    if strength == toughness:
        return 4
    if 2 * strength <= toughness:
        return 6
    return 5


def wound_target_by_difference(strength: int, toughness: int) -> int | None:
    """S - T: +2 or more 2+, +1 3+, 0 4+, -1 5+, -2 and -3 6+, -4 or less cannot wound (None)."""
    diff = strength - toughness
    if diff >= 2:
        return 2
    if diff == 1:
        return 3
    if diff == 0:
        return 4
    if diff == -1:
        return 5
    if diff >= -3:
        return 6
    return None
