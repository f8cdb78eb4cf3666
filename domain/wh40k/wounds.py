"""Strength against Toughness, and armour saves: the arithmetic of resolving one hit.

Nothing here is specific to hand-to-hand combat or to 40K (the same S-vs-T charts serve shooting
and other systems); it is kept in this package until a shared home exists.
"""

from __future__ import annotations


def to_wound_difference(strength: int, toughness: int) -> int | None:
    """The classic chart by S - T: +2 or more 2+, +1 3+, 0 4+, -1 5+, -2 and -3 6+,
    -4 or less cannot wound (None)."""
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


def to_wound_ratio(strength: int, toughness: int) -> int:
    """The Necromunda 2023 chart: S >= 2T 2+, S > T 3+, S = T 4+, S <= T/2 6+, S < T 5+."""
    if strength >= 2 * toughness:
        return 2
    if strength > toughness:
        return 3
    if strength == toughness:
        return 4
    if 2 * strength <= toughness:
        return 6
    return 5


def to_wound_target(strength: int, toughness: int, chart: str) -> int | None:
    """The D6 score needed to wound, or None when the hit cannot wound."""
    if chart == "ratio":
        return to_wound_ratio(strength, toughness)
    return to_wound_difference(strength, toughness)


def strength_save_modifier(strength: int) -> int:
    """-1 per point of Strength above 3 (S4 -1, S5 -2, ...); 0 at S3 or less."""
    return -max(0, strength - 3)


def save_target(save: int | None, modifier: int, natural_one_fails: bool) -> int | None:
    """The D6 score an armour save needs after ``modifier`` (negative worsens it), or None when
    the model has no save or it is modified beyond 6."""
    if save is None:
        return None
    target = save - modifier
    if target > 6:
        return None
    if natural_one_fails:
        target = max(target, 2)
    return max(target, 1)
