"""Falling (Combat): a fall further than the model's height deals one Damage 4 hit per height
increment, then Melee Combat steps 4-6 for the hits."""

from __future__ import annotations

from blowbyblow.domain.core import Context, RuleViolation, emit
from blowbyblow.domain.gangfight.commands import Fall
from blowbyblow.domain.gangfight.events import FallingDamage
from blowbyblow.domain.gangfight.melee import Wounding, take_wounds
from blowbyblow.domain.gangfight.rulings import FALLING_ARMOUR, FALLING_INCREMENTS
from blowbyblow.domain.gangfight.setup import HEIGHT_HALF_INCHES, Size, half_inches, inches
from blowbyblow.domain.gangfight.state import GangfightState, Gen, fighter, status

FALL_DAMAGE = 4


def falling_hits(fallen: float, size: Size, ruling: str) -> int:
    """GF Falling: no hits unless the fall is *further* than the model's height (1" Small,
    1.5" Medium, 2" Large, 3" Huge); then one hit per increment, rounding up: of the whole fall
    ("whole-fall", a Large model falling 6" takes 3) or of what lies beyond the first height
    ("beyond-height"): ``ruling`` is the value of ruling falling-increments. Counted in half
    inches, so a Medium model's 1.5" is exact."""
    height = HEIGHT_HALF_INCHES[size]
    fall = half_inches(fallen)
    if fall <= height:
        return 0
    if ruling == "beyond-height":
        fall -= height
    return -(-fall // height)


def fall(state: GangfightState, ctx: Context, command: Fall) -> Gen:
    """GF Falling, then GF Melee 4-6 for the hits (ARM against Damage 4, ruling
    falling-armour)."""
    fid, fallen = command.fighter, command.inches
    f = fighter(state, fid)
    if fallen < 0:
        raise RuleViolation("GF Falling", f"a fall of {fallen} inches is negative")
    if status(state, fid).condition == "dead":
        raise RuleViolation("GF Incapacitation", f"{fid} is Dead and removed from the game")
    hits = falling_hits(fallen, f.size, ctx.ruling(FALLING_INCREMENTS))
    state = yield from emit(
        FallingDamage(
            rule="GF Falling",
            fighter=fid,
            size=f.size,
            inches=inches(fallen),
            height_half_inches=HEIGHT_HALF_INCHES[f.size],
            hits=hits,
            damage=FALL_DAMAGE,
        ),
        GangfightState,
    )
    wounding = Wounding(
        ctx=ctx,
        key="fall",
        fighter=fid,
        against="fall",
        damage=FALL_DAMAGE,
        armour=ctx.ruling(FALLING_ARMOUR) == "armour",
    )
    return (yield from take_wounds(state, wounding, hits))
