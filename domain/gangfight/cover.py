"""Cover (Combat): a model targeted by a ranged attack within 3" of an obstacle that covers at
least half of it gains +1 DEF and +1 ARM behind soft cover, +1 DEF and +2 ARM behind hard cover.
The table says what the obstacle is, how far it is and how much of the model it covers."""

from __future__ import annotations

from blowbyblow.domain.core import Modifier, RuleViolation
from blowbyblow.domain.gangfight.commands import Cover
from blowbyblow.domain.gangfight.events import CoverChecked
from blowbyblow.domain.gangfight.setup import CoverKind, inches

RULE = "GF Cover"
WITHIN = 3  # "You can only benefit from cover if you are within 3" of an obstacle"
SECTION: dict[CoverKind, str] = {"soft": "GF Soft Cover", "hard": "GF Hard Cover"}
# (DEF, ARM) each kind of cover gives.
BONUS: dict[CoverKind, tuple[int, int]] = {"soft": (1, 1), "hard": (1, 2)}


def check_cover(fid: str, cover: Cover | None) -> None:
    if cover is not None and cover.inches < 0:
        raise RuleViolation(RULE, f'{fid}: cover {cover.inches}" away is negative')


def benefits(cover: Cover) -> bool:
    """Within 3" of the obstacle, and it covers at least half of the model's volume."""
    return cover.inches <= WITHIN and cover.covers_half


def cover_checked(fid: str, cover: Cover) -> CoverChecked:
    """GF Soft Cover / GF Hard Cover when the model benefits; GF Cover when it does not."""
    benefit = benefits(cover)
    defense, armour = BONUS[cover.kind] if benefit else (0, 0)
    return CoverChecked(
        rule=SECTION[cover.kind] if benefit else RULE,
        fighter=fid,
        cover=cover.kind,
        inches=inches(cover.inches),
        covers_half=cover.covers_half,
        benefit=benefit,
        defense=defense,
        armour=armour,
    )


def defence_modifiers(checked: CoverChecked | None) -> tuple[Modifier, ...]:
    """The DEF the cover adds to the target of a ranged attack's roll to hit."""
    if checked is None or not checked.defense:
        return ()
    return (Modifier(value=checked.defense, cause=f"{checked.cover} cover", rule=checked.rule),)


def armour_modifiers(checked: CoverChecked | None) -> tuple[Modifier, ...]:
    """The ARM dice the cover adds to the model's Armour roll."""
    if checked is None or not checked.armour:
        return ()
    return (Modifier(value=checked.armour, cause=f"{checked.cover} cover", rule=checked.rule),)
