"""Strength against Toughness, and armour saves: the arithmetic of resolving one hit
(Resolve Hits & Damage). The S-vs-T charts themselves are shared with other game systems
(``blowbyblow.domain.common.wound_charts``).
"""

from __future__ import annotations

from blowbyblow.domain.common.wound_charts import (
    wound_target_by_difference,
    wound_target_by_ratio,
)

to_wound_difference = wound_target_by_difference
to_wound_ratio = wound_target_by_ratio


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
