"""Ranged Combat (Combat), steps 1 to 9, the Shoot! action, and Reload (Actions and Action
Points). The table gives what only it can see: line of sight, the distance when no gap records
it, cover. Steps 6 to 9 are Melee Combat's Wounds, Armour and Endurance under their own numbers.

A ranged attack needs a loaded weapon and no model within the shooter's threat range (ruling
shooter-threat-range); the Marksmanship roll is MRK dice against the target's DEF: +1 die at
Point Blank Range (the weapon's range or less), -1 die at Long Range (6" or more beyond it) and
one more per further 6" (ruling ranged-range), at most 3 dice into close combat (ruling
shooting-into-combat)."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from blowbyblow.domain.core import Context, Modifier, RuleViolation, Step, emit
from blowbyblow.domain.gangfight.action_points import (
    action_cost,
    check_can_act,
    check_points,
    spend,
)
from blowbyblow.domain.gangfight.commands import Cover, Reload, Shoot
from blowbyblow.domain.gangfight.cover import (
    armour_modifiers,
    check_cover,
    cover_checked,
    defence_modifiers,
)
from blowbyblow.domain.gangfight.dice_pool import Pool, pool_test
from blowbyblow.domain.gangfight.events import (
    CoverChecked,
    MarksmanshipRolled,
    PoolTest,
    TargetInSight,
    WeaponReloaded,
    WoundsInflicted,
)
from blowbyblow.domain.gangfight.knocked_down import defence
from blowbyblow.domain.gangfight.melee import (
    RANGED_STEPS,
    Wounding,
    check_target,
    hits_to_wounds,
    take_wounds,
)
from blowbyblow.domain.gangfight.rulings import (
    AREA_POINT_BLANK,
    RANGED_RANGE,
    RELOAD_ACTION,
    SHOOT_ACTION,
    SHOOTER_THREAT_RANGE,
    SHOOTING_INTO_COMBAT,
    SHOT_DAMAGE,
)
from blowbyblow.domain.gangfight.setup import Inches, Weapon, inches
from blowbyblow.domain.gangfight.state import (
    GangfightState,
    Gen,
    enemies,
    fighter,
    gap,
    status,
    weapon,
)
from blowbyblow.domain.gangfight.two_weapons import damage_modifiers

RULE = "GF Ranged Combat"
LONG_RANGE_STEP = 6  # Long Range: 6" or more beyond the weapon's range, and each further 6"
MOST_DICE_INTO_COMBAT = 3
AREA_SECTIONS = {"direct": "GF Direct Area of Effect", "indirect": "GF Indirect Area of Effect"}


# --- weapons: ranged, loaded --------------------------------------------------------------------


def loaded(state: GangfightState, fid: str, wid: str) -> bool:
    """A weapon the model carries that is loaded: one that never needs reloading, or one not
    all of whose copies have been fired since they were last loaded."""
    carried = fighter(state, fid).weapons.count(wid)
    return carried > status(state, fid).fired.count(wid)


def ranged_weapons(state: GangfightState, fid: str, *, area: bool) -> tuple[str, ...]:
    """The loaded ranged weapons the model carries (Area of Effect ones, or the others), each
    once, in the order carried."""
    found: list[str] = []
    for wid in fighter(state, fid).weapons:
        if not _is_kind(weapon(state, wid), area=area) or wid in found:
            continue
        if loaded(state, fid, wid):
            found.append(wid)
    return tuple(found)


def ranged_weapon(state: GangfightState, fid: str, name: str, *, area: bool) -> Weapon:
    """The weapon named (or the first loaded one carried): a ranged weapon (an Area of Effect
    one for an area attack), carried and loaded."""
    what = "Area of Effect weapon" if area else "ranged weapon"
    carried = fighter(state, fid).weapons
    if not name:
        found = ranged_weapons(state, fid, area=area)
        if found:
            return weapon(state, found[0])
        kinds = [w for w in carried if _is_kind(weapon(state, w), area=area)]
        if not kinds:
            raise RuleViolation(RULE, f"{fid} carries no {what}")
        name = kinds[0]  # carried but fired: refused below
    if name not in carried:
        raise RuleViolation(RULE, f"{fid} does not carry {name!r}")
    w = weapon(state, name)
    if not _is_kind(w, area=area):
        raise RuleViolation(RULE, f"{name!r} is not a {what}")
    if not loaded(state, fid, name):
        raise RuleViolation(RULE, f"{fid}'s {name!r} is not loaded: it must be reloaded first")
    return w


def _is_kind(w: Weapon, *, area: bool) -> bool:
    return w.range is not None and (w.area is not None) == area


# --- who may shoot, and at whom -----------------------------------------------------------------


def models_in_threat_range(state: GangfightState, ctx: Context, fid: str) -> tuple[str, ...]:
    """The models still in the fight within the model's threat range (friends too, unless
    ruling shooter-threat-range is enemies-only)."""
    me = fighter(state, fid)
    foes = set(enemies(state, fid))
    only_foes = ctx.ruling(SHOOTER_THREAT_RANGE) == "enemies-only"
    found = []
    for f in state.setup.fighters:
        d = gap(state, fid, f.id)
        if f.id == fid or d is None or d > me.threat:
            continue
        if status(state, f.id).condition == "active" and (f.id in foes or not only_foes):
            found.append(f.id)
    return tuple(found)


def in_close_combat(state: GangfightState, fid: str) -> bool:
    """GF Ranged 3: the model is in combat with an enemy still in the fight: one of them within
    the other's threat range (Melee Combat: "You are in combat until a model moves out of that
    model's Threat range, or one of the models is incapacitated")."""
    if status(state, fid).condition != "active":
        return False
    for e in enemies(state, fid):
        d = gap(state, fid, e)
        if d is None or status(state, e).condition != "active":
            continue
        if d <= fighter(state, e).threat or d <= fighter(state, fid).threat:
            return True
    return False


def distance_to(
    state: GangfightState, shooter: str, target: str, given: Inches | None, rule: str
) -> Inches:
    """The inches between the two: their gap, or what the table measured when no gap records
    it (the two must agree when both are known)."""
    recorded = gap(state, shooter, target)
    if given is not None and given < 0:
        raise RuleViolation(rule, f'a distance of {given}" is negative')
    if recorded is None and given is None:
        raise RuleViolation(
            rule, f"no gap records how far {target} is from {shooter}: give its distance"
        )
    if recorded is not None and given is not None and inches(given) != recorded:
        raise RuleViolation(
            rule, f'{target} is {recorded}" from {shooter}, not {given}" (its recorded gap)'
        )
    if recorded is not None:
        return recorded
    assert given is not None  # refused above when neither is known
    return inches(given)


@dataclass(frozen=True, kw_only=True)
class Shot:
    """A ranged attack as declared: who shoots whom with what, how far, and the rule that the
    target's being in sight cites (Ranged Combat step 1, or the Area of Effect section)."""

    ctx: Context
    shooter: str
    target: str
    weapon: Weapon
    distance: Inches
    rule: str = "GF Ranged 1"


def check_range(ctx: Context, shot: Shot) -> None:
    """GF Ranged 2 under ruling ranged-range = within-range: no shot beyond the weapon's
    range."""
    reach = shot.weapon.range or 0
    if ctx.ruling(RANGED_RANGE) == "within-range" and shot.distance > reach:
        raise RuleViolation(
            "GF Ranged 2",
            f'{shot.target} is {shot.distance}" away, beyond the {reach}" range of '
            f"{shot.weapon.id!r} (ruling ranged-range)",
        )


@dataclass(frozen=True, kw_only=True)
class Aim:
    """What the table gives for a ranged attack: the weapon named, the distance measured, line
    of sight."""

    weapon: str
    distance: Inches | None
    line_of_sight: bool
    area: bool = False


def check_shot(state: GangfightState, ctx: Context, shooter: str, target: str, aim: Aim) -> Shot:
    """GF Ranged Combat and step 1: a model able to act, with a loaded ranged weapon and no
    model in its threat range, shooting at an opposing model in its line of sight."""
    check_can_act(state, shooter)
    check_target(state, ctx, shooter, target, "GF Ranged 1")
    used = ranged_weapon(state, shooter, aim.weapon, area=aim.area)
    close = models_in_threat_range(state, ctx, shooter)
    if close:
        raise RuleViolation(
            RULE,
            f"{shooter} has {', '.join(close)} within its threat range and cannot make a "
            "ranged attack (ruling shooter-threat-range)",
        )
    if not aim.line_of_sight:
        raise RuleViolation("GF Ranged 1", f"{target} is not within {shooter}'s Line of Sight")
    rule = "GF Area of Effect" if aim.area else "GF Ranged 1"
    shot = Shot(
        ctx=ctx,
        shooter=shooter,
        target=target,
        weapon=used,
        distance=distance_to(state, shooter, target, aim.distance, rule),
        rule=rule,
    )
    check_range(ctx, shot)
    return shot


# --- steps 2 to 5: the Marksmanship roll ------------------------------------------------------


def range_modifiers(distance: float, weapon_range: float) -> tuple[Modifier, ...]:
    """GF Ranged 4: +1 die within the weapon's range (Point Blank); GF Ranged 5: -1 die from 6"
    beyond it (Long Range), and one more for each further 6"."""
    if distance <= weapon_range:
        return (Modifier(value=1, cause="Point Blank Range", rule="GF Ranged 4"),)
    steps = int((distance - weapon_range) // LONG_RANGE_STEP)
    if steps < 1:
        return ()
    cause = "Long Range" if steps == 1 else f'Long Range, {steps - 1} more 6" increment(s)'
    return (Modifier(value=-steps, cause=cause, rule="GF Ranged 5"),)


def marksmanship_modifiers(
    ctx: Context, mrk: int, range_mods: tuple[Modifier, ...], into_combat: bool
) -> tuple[Modifier, ...]:
    """The range modifiers and GF Ranged 3's limit of 3 dice into close combat: on the dice
    rolled, after the range (ruling shooting-into-combat = dice-rolled), or on MRK, before it
    (marksmanship)."""
    if not into_combat:
        return range_mods
    cause = "target in close combat: at most 3 dice"
    if ctx.ruling(SHOOTING_INTO_COMBAT) == "marksmanship":
        if mrk <= MOST_DICE_INTO_COMBAT:
            return range_mods
        cap = Modifier(value=MOST_DICE_INTO_COMBAT - mrk, cause=cause, rule="GF Ranged 3")
        return (cap, *range_mods)
    dice = mrk + sum(m.value for m in range_mods)
    if dice <= MOST_DICE_INTO_COMBAT:
        return range_mods
    return (
        *range_mods,
        Modifier(value=MOST_DICE_INTO_COMBAT - dice, cause=cause, rule="GF Ranged 3"),
    )


def marksmanship_pool(
    state: GangfightState, ctx: Context, shot: Shot, cover: CoverChecked | None
) -> Pool:
    """GF Ranged 2-5: MRK dice, with the range and close-combat modifiers, against the target's
    DEF (Prone: 2) and its cover."""
    mrk = fighter(state, shot.shooter).profile.mrk
    range_mods = range_modifiers(shot.distance, shot.weapon.range or 0)
    if shot.weapon.area is not None and ctx.ruling(AREA_POINT_BLANK) == "not-applied":
        range_mods = ()  # the Area of Effect roll to hit without Ranged steps 4-5 (ruling)
    base, mods = defence(state, ctx, shot.target, defence_modifiers(cover))
    return Pool(
        base=mrk,
        modifiers=marksmanship_modifiers(ctx, mrk, range_mods, in_close_combat(state, shot.target)),
        tn_base=base,
        tn_modifiers=mods,
    )


def in_sight(shot: Shot) -> TargetInSight:
    return TargetInSight(
        rule=shot.rule,
        shooter=shot.shooter,
        target=shot.target,
        weapon=shot.weapon.id,
        inches=shot.distance,
        weapon_range=inches(shot.weapon.range or 0),
    )


def take_cover(
    state: GangfightState, fid: str, cover: Cover | None
) -> Generator[Step, Any, tuple[GangfightState, CoverChecked | None]]:
    """GF Cover: record whether the model benefits from the cover the table says it has."""
    if cover is None:
        return state, None
    checked = cover_checked(fid, cover)
    state = yield from emit(checked, GangfightState)
    return state, checked


def marksmanship_roll(
    state: GangfightState,
    ctx: Context,
    shot: Shot,
    cover: CoverChecked | None,
    key: str,
) -> Generator[Step, Any, tuple[GangfightState, PoolTest]]:
    """GF Ranged 2-5: roll the Marksmanship pool against the target's DEF and cover (dropping
    dice as any test may); firing a weapon that must be reloaded unloads it (the fold)."""
    test = yield from pool_test(
        f"{key}/hit",
        marksmanship_pool(state, ctx, shot, cover),
        ctx,
        purpose=f"{shot.shooter} shoots {shot.target}",
    )
    rule = "GF Ranged 2" if shot.weapon.area is None else AREA_SECTIONS[shot.weapon.area]
    state = yield from emit(
        MarksmanshipRolled(
            rule=rule, shooter=shot.shooter, target=shot.target, weapon=shot.weapon.id, test=test
        ),
        GangfightState,
    )
    return state, test


# --- steps 6 to 9: Wounds, Armour, Endurance ------------------------------------------------------


def ranged_wounding(
    state: GangfightState, shot: Shot, fid: str, cover: CoverChecked | None, key: str
) -> Wounding:
    """GF Ranged 7-9 on ``fid``: ARM dice (with its cover) against the shooter's DAM modified
    by the weapon, or its DAM alone (ruling shot-damage); the Armour roll is asked under
    ``key``."""
    ctx = shot.ctx
    modified = ctx.ruling(SHOT_DAMAGE) == "modified"
    return Wounding(
        ctx=ctx,
        key=key,
        fighter=fid,
        against=shot.shooter,
        damage=fighter(state, shot.shooter).profile.dam,
        damage_modifiers=damage_modifiers((shot.weapon,), ctx, "GF Ranged 7") if modified else (),
        armour_modifiers=armour_modifiers(cover),
        steps=RANGED_STEPS,
    )


def shoot(state: GangfightState, ctx: Context, command: Shoot) -> Gen:
    """Shoot! (a Standard Action, ruling shoot-action): Ranged Combat steps 1 to 9."""
    aim = Aim(weapon=command.weapon, distance=command.distance, line_of_sight=command.line_of_sight)
    shot = check_shot(state, ctx, command.shooter, command.target, aim)
    check_cover(command.target, command.cover)
    cost = action_cost(ctx, SHOOT_ACTION)
    check_points(state, ctx, command.shooter, cost)
    state = yield from spend(state, ctx, command.shooter, "Shoot!", cost)
    state = yield from emit(in_sight(shot), GangfightState)
    state, cover = yield from take_cover(state, shot.target, command.cover)
    state, test = yield from marksmanship_roll(state, ctx, shot, cover, "shoot")
    wounds = hits_to_wounds(test.successes)
    state = yield from emit(
        WoundsInflicted(
            rule="GF Ranged 6",
            attacker=shot.shooter,
            target=shot.target,
            successes=test.successes,
            wounds=wounds,
            effect=0,
        ),
        GangfightState,
    )
    wounding = ranged_wounding(state, shot, shot.target, cover, "shoot")
    return (yield from take_wounds(state, wounding, wounds))


# --- Reload -------------------------------------------------------------------------------------


def reload(state: GangfightState, ctx: Context, command: Reload) -> Gen:
    """Reload (a Standard Action, ruling reload-action): a fired weapon that must be reloaded is
    loaded again."""
    fid, wid = command.fighter, command.weapon
    check_can_act(state, fid)
    if wid not in fighter(state, fid).weapons:
        raise RuleViolation("GF Reload", f"{fid} does not carry {wid!r}")
    if loaded(state, fid, wid):
        raise RuleViolation("GF Reload", f"{fid}'s {wid!r} is loaded")
    cost = action_cost(ctx, RELOAD_ACTION)
    check_points(state, ctx, fid, cost)
    state = yield from spend(state, ctx, fid, "Reload", cost)
    return (
        yield from emit(WeaponReloaded(rule="GF Reload", fighter=fid, weapon=wid), GangfightState)
    )
