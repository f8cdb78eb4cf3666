"""Area of Effect Attacks (Combat): a special ranged attack on a nominated target in range. Each
success of the roll to hit widens a Direct Area of Effect's line by 1" (a model within half the
width of the line is under it) or an Indirect one's blast radius by 1". Every model caught makes
an Opposed Initiative Value Test (IV dice, ruling dodge-tn): more successes than the attack's
dodge it completely; otherwise each success reduces the damage by one (ruling dodge-reduces),
and the model soaks the rest with its Armour (Ranged Combat steps 7 to 9).

The table says how far each model that the area may reach stands from the line (Direct) or from
the target (Indirect), measured to the half inch; the successes decide who is caught."""

from __future__ import annotations

import dataclasses
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from blowbyblow.domain.core import Context, Modifier, RuleViolation, Step, emit
from blowbyblow.domain.gangfight.action_points import action_cost, check_points, spend
from blowbyblow.domain.gangfight.commands import AreaAttack, Cover
from blowbyblow.domain.gangfight.cover import check_cover
from blowbyblow.domain.gangfight.dice_pool import Pool, pool_test
from blowbyblow.domain.gangfight.events import (
    AreaCovered,
    CoverChecked,
    DodgeRolled,
    WoundsInflicted,
)
from blowbyblow.domain.gangfight.melee import take_wounds
from blowbyblow.domain.gangfight.ranged import (
    AREA_SECTIONS,
    Aim,
    Shot,
    check_shot,
    in_sight,
    marksmanship_roll,
    ranged_wounding,
    take_cover,
)
from blowbyblow.domain.gangfight.rulings import AREA_ACTION, AREA_HITS, DODGE_REDUCES, DODGE_TN
from blowbyblow.domain.gangfight.setup import AreaKind, Inches, half_inches, inches
from blowbyblow.domain.gangfight.state import GangfightState, Gen, fighter, status

RULE = "GF Area of Effect"


def check_area(state: GangfightState, command: AreaAttack) -> None:
    """The models named near the area are other known models, at no negative distance; cover is
    given only for models the area may reach."""
    for other, d in command.near.items():
        fighter(state, other)
        if other in (command.attacker, command.target):
            raise RuleViolation(RULE, f"{other} is not one of the other models near the area")
        if d < 0:
            raise RuleViolation(RULE, f'{other}: a distance of {d}" is negative')
    for fid, cover in command.cover.items():
        if fid != command.target and fid not in command.near:
            raise RuleViolation(
                RULE, f"cover for {fid}, which is neither the target nor named near the area"
            )
        check_cover(fid, cover)


def area_size(area: AreaKind, successes: int) -> Inches:
    """The line's width or the blast's radius: 1" for each success."""
    return successes


def under(area: AreaKind, size: float, distance: float) -> bool:
    """Direct: within half the line's width of the line. Indirect: within the blast's radius
    ("any models with even a portion of their base within this area"). Counted in half inches."""
    reach = half_inches(size) / 2 if area == "direct" else half_inches(size)
    return half_inches(distance) <= reach


def caught_by(
    state: GangfightState, command: AreaAttack, area: AreaKind, successes: int
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The models under the area (the target first, then the others in setup order) and those
    named near it that are not. No success: nothing is hit. An Incapacitation token near the
    target is not a model on the table and is not caught."""
    near = [
        f.id
        for f in state.setup.fighters
        if f.id in command.near and status(state, f.id).condition == "active"
    ]
    if successes < 1:
        return (), tuple(near)
    size = area_size(area, successes)
    caught: list[str] = [command.target]
    clear: list[str] = []
    for fid in near:
        (caught if under(area, size, command.near[fid]) else clear).append(fid)
    return tuple(caught), tuple(clear)


def dodge(
    state: GangfightState, ctx: Context, fid: str, shot: Shot, hits: int
) -> Generator[Step, Any, tuple[GangfightState, DodgeRolled]]:
    """The Opposed Initiative Value Test of a model caught: IV dice against the TN of ruling
    dodge-tn; more successes than the attack's (``hits``: "than the target scored on their
    roll to hit") dodge it; otherwise each success reduces its damage by one."""
    test = yield from pool_test(
        f"area/{fid}/dodge",
        Pool(base=fighter(state, fid).profile.iv, tn_base=int(ctx.ruling(DODGE_TN))),
        ctx,
        purpose=f"{fid} dodges {shot.shooter}'s Area of Effect",
    )
    dodged = test.successes > hits
    event = DodgeRolled(
        rule=AREA_SECTIONS[shot.weapon.area or "direct"],
        fighter=fid,
        against=shot.shooter,
        hits=hits,
        test=test,
        dodged=dodged,
        reduction=0 if dodged else test.successes,
    )
    state = yield from emit(event, GangfightState)
    return state, event


@dataclass(frozen=True, kw_only=True)
class Caught:
    """A model under the area: the roll to hit's ``successes`` (what its dodge must beat), the
    ``hits`` it takes if it does not dodge (ruling area-hits), the cover the table gives it,
    and (for the target, whose cover was checked before the roll to hit) that check."""

    fighter: str
    successes: int
    hits: int
    cover: Cover | None = None
    checked: CoverChecked | None = None


def hit_by_area(state: GangfightState, shot: Shot, caught: Caught) -> Gen:
    """One model caught: its dodge (a token makes none: it cannot act), then the Wounds that are
    left, soaked with its Armour (Ranged Combat steps 7-9), its cover adding ARM dice."""
    ctx, fid, hits = shot.ctx, caught.fighter, caught.hits
    rule = AREA_SECTIONS[shot.weapon.area or "direct"]
    reduction = 0
    if status(state, fid).condition == "active":
        state, dodged = yield from dodge(state, ctx, fid, shot, caught.successes)
        if dodged.dodged:
            return state
        reduction = dodged.reduction
    checked = caught.checked
    if checked is None:
        state, checked = yield from take_cover(state, fid, caught.cover)
    by_damage = ctx.ruling(DODGE_REDUCES) == "damage"
    wounds = hits if by_damage else max(0, hits - reduction)
    state = yield from emit(
        WoundsInflicted(
            rule=rule,
            attacker=shot.shooter,
            target=fid,
            successes=caught.successes,
            wounds=wounds,
            effect=0,
        ),
        GangfightState,
    )
    wounding = ranged_wounding(state, shot, fid, checked, f"area/{fid}")
    if by_damage and reduction:
        less = Modifier(value=-reduction, cause="dodge successes", rule=rule)
        wounding = dataclasses.replace(
            wounding, damage_modifiers=(*wounding.damage_modifiers, less)
        )
    return (yield from take_wounds(state, wounding, wounds))


def area_attack(state: GangfightState, ctx: Context, command: AreaAttack) -> Gen:
    """An Area of Effect attack (a Shoot! with an area weapon): the nominated target in sight and
    range, the roll to hit (Ranged Combat steps 2-5), the area its successes cover, then each
    model caught: dodge, Wounds, Armour."""
    aim = Aim(
        weapon=command.weapon,
        distance=command.distance,
        line_of_sight=command.line_of_sight,
        area=True,
    )
    shot = check_shot(state, ctx, command.attacker, command.target, aim)
    check_area(state, command)
    cost = action_cost(ctx, AREA_ACTION)
    check_points(state, ctx, command.attacker, cost)
    area = shot.weapon.area or "direct"
    state = yield from spend(state, ctx, command.attacker, "Shoot! (Area of Effect)", cost)
    state = yield from emit(in_sight(shot), GangfightState)
    state, target_cover = yield from take_cover(state, shot.target, command.cover.get(shot.target))
    state, test = yield from marksmanship_roll(state, ctx, shot, target_cover, "area")
    caught, clear = caught_by(state, command, area, test.successes)
    state = yield from emit(
        AreaCovered(
            rule=AREA_SECTIONS[area],
            attacker=shot.shooter,
            target=shot.target,
            area=area,
            successes=test.successes,
            size=inches(area_size(area, test.successes)),
            caught=caught,
            clear=clear,
        ),
        GangfightState,
    )
    # "If they fail, they are hit": the attack's successes, or one hit (ruling area-hits).
    hits = test.successes if ctx.ruling(AREA_HITS) == "successes" else 1
    for fid in caught:
        one = Caught(
            fighter=fid,
            successes=test.successes,
            hits=hits,
            cover=command.cover.get(fid),
            checked=target_cover if fid == shot.target else None,
        )
        state = yield from hit_by_area(state, shot, one)
    return state
