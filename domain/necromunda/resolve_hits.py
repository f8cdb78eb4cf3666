"""Close Combat step 6, Resolve Hits, and Resolving Hits (Necromunda Core Rulebook (2023)):
1 the Wound roll (Strength against Toughness), 2 one Save roll (AP modifies it, a natural 1
fails), 3 Damage removes Wounds and, from the point that takes a fighter to 0, rolls Injury
dice: Flesh Wound (-1 Toughness), Serious Injury (Prone & Seriously Injured), Out of Action.
Attacking Vehicles: the Toughness of the facing in contact, an extra Location dice whose chosen
result the Damage is applied to (ruling ``vehicle-location``), Hull Points (a vehicle with none
left is Wrecked).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any, Final

from blowbyblow.domain.common.wound_charts import wound_target_by_ratio
from blowbyblow.domain.core import Modifier, Step, ask, roll
from blowbyblow.domain.necromunda.combat import Attack, emit
from blowbyblow.domain.necromunda.events import (
    DamageInflicted,
    FleshWoundSuffered,
    HitDiscarded,
    InjuryResult,
    InjuryRolled,
    Location,
    LocationRolled,
    SaveRolled,
    VehicleDamaged,
    WoundRolled,
)
from blowbyblow.domain.necromunda.fight import Profile, profile
from blowbyblow.domain.necromunda.hit_rolls import Hit
from blowbyblow.domain.necromunda.rulings import (
    EXTRA_SERIOUS_INJURY,
    INJURY_DICE_FACES,
    VEHICLE_LOCATION,
    VEHICLE_LOCATION_FACES,
)
from blowbyblow.domain.necromunda.state import (
    OUT_OF_ACTION,
    SERIOUSLY_INJURED,
    WRECKED,
    FighterState,
    NecromundaState,
)
from blowbyblow.domain.necromunda.status import Because, set_status

FLESH_WOUND: Final = "Flesh Wound"
SERIOUS_INJURY: Final = "Serious Injury"
OUT_OF_ACTION_RESULT: Final = "Out of Action"
_INJURY_LETTERS: dict[str, InjuryResult] = {
    "F": FLESH_WOUND,
    "S": SERIOUS_INJURY,
    "O": OUT_OF_ACTION_RESULT,
}
_LOCATION_LETTERS: dict[str, Location] = {"B": "Body", "D": "Drive", "E": "Engine"}


def wound_target(strength: int, toughness: int) -> int:
    """Resolving Hits 1, the wound chart: S at least twice T 2+, S > T 3+, S = T 4+, S < T 5+,
    S at most half T 6+."""
    return wound_target_by_ratio(strength, toughness)


def injury_dice_count(wounds: int, damage: int) -> int:
    """Resolving Hits 3: one Injury dice for the point of Damage that takes the fighter to 0
    Wounds, one more for each further point. Damage "-" (0) removes no wound, rolls one dice."""
    if damage == 0:
        return 1
    if wounds > damage:
        return 0
    if wounds <= 0:
        return damage
    return damage - wounds + 1


def step6_resolve_hits(
    at: Attack, state: NecromundaState, hits: Sequence[Hit]
) -> Generator[Step, Any, NecromundaState]:
    """Step 6 Resolve Hits: each hit is resolved as in Resolving Hits; a hit on a fighter
    already Out of Action (or a Wrecked vehicle) is lost."""
    # Who this attack can still hit, noted for the odds (``odds.unread``): the targets of the
    # hits still to resolve, the one being resolved included. Kept in the record, not a local
    # index: a frame holding the whole list would keep apart the odds' branches whose hits
    # already resolved differ.
    struck = at.combat.struck
    if not at.reaction:
        struck.attacker = at.attacker
    struck.to_hit = tuple(h.target for h in hits)
    for hit in hits:
        target = state.fighters[hit.target]
        if target.status in (OUT_OF_ACTION, WRECKED):
            struck.resolved()
            state = yield from emit(
                HitDiscarded(
                    rule=at.rule("CC 6"),
                    attacker=at.attacker,
                    target=hit.target,
                    weapon=hit.weapon,
                    reason=f"{hit.target} is already {target.status}",
                )
            )
            continue
        state = yield from resolve_hit(at, state, hit)
        struck.resolved()
    return state


def resolve_hit(
    at: Attack, state: NecromundaState, hit: Hit
) -> Generator[Step, Any, NecromundaState]:
    """Resolving Hits: 1 Wound roll, 2 Save roll, 3 Damage and Injury dice."""
    prof = profile(state.fighters[at.attacker], hit.weapon)
    target = state.fighters[hit.target]
    state, wounded = yield from wound_roll(at, state, hit, prof)
    if not wounded:
        return state
    at.combat.struck.injuring = max(1, prof.damage)  # its Flesh Wounds to come, at most
    applied = at.ctx.ruling(VEHICLE_LOCATION) == "applied"
    if target.is_vehicle and not applied:  # version 1.0: rolled before the save, not applied
        state, _ = yield from location_dice(at, state, hit)
    if target.save is not None and target.save - prof.ap <= 6:  # AP can cancel a save entirely
        state, saved = yield from save_roll(at, state, hit, prof)
        if saved:
            return state
    if target.is_vehicle and applied:
        state, location = yield from location_dice(at, state, hit)
        return (yield from damage_vehicle(at, state, hit, prof, location))
    return (yield from inflict_damage(at, state, hit, prof))


def _toughness(state: NecromundaState, attacker: str, target: FighterState) -> int:
    """Toughness after flesh wounds; a vehicle's Toughness of the facing the attacker touches
    (on the vehicle: the lowest)."""
    v = target.vehicle
    if v is None:
        return target.toughness
    link = state.link(attacker, target.id)
    facing = link.facing if link is not None else "front"
    if facing == "side":
        return v.toughness_side
    if facing == "rear":
        return v.toughness_rear
    if facing == "on":
        return min(v.toughness_front, v.toughness_side, v.toughness_rear)
    return v.toughness_front


def wound_roll(
    at: Attack, state: NecromundaState, hit: Hit, prof: Profile
) -> Generator[Step, Any, tuple[NecromundaState, bool]]:
    """Resolving Hits 1: the Wound roll, the weapon's Strength against the target's Toughness."""
    target = state.fighters[hit.target]
    toughness = _toughness(state, at.attacker, target)
    tn = wound_target(prof.strength, toughness)
    (natural,) = yield from roll(
        f"{at.key}wound/{hit.n}", 1, purpose=f"wound roll against {target.label}"
    )
    wounded = natural >= tn
    state = yield from emit(
        WoundRolled(
            rule=at.rule("Resolve Hits 1"),
            attacker=at.attacker,
            target=hit.target,
            weapon=hit.weapon,
            natural=natural,
            strength=prof.strength,
            toughness=toughness,
            target_number=tn,
            wounded=wounded,
        )
    )
    return state, wounded


def location_dice(
    at: Attack, state: NecromundaState, hit: Hit
) -> Generator[Step, Any, tuple[NecromundaState, Location]]:
    """Attacking Vehicles: a fighter in close combat rolls an extra Location dice and chooses
    which result applies. Returns the state and the Location chosen."""
    faces = at.ctx.ruling(VEHICLE_LOCATION_FACES)
    locs = yield from roll(
        f"{at.key}location/{hit.n}", 2, purpose="Location dice (one extra in close combat)"
    )
    results = [_LOCATION_LETTERS[faces[v - 1]] for v in locs]
    options = tuple(dict.fromkeys(results))
    chosen = options[0]
    if len(options) > 1:
        label = state.fighters[at.attacker].label
        answer = yield from ask(
            f"{at.key}location-choice/{hit.n}",
            options,
            default=options[0],
            prompt=f"{label}: which Location result applies?",
        )
        chosen = next(o for o in options if o == answer)
    state = yield from emit(
        LocationRolled(
            rule=at.rule("CC Attacking Vehicles"),
            attacker=at.attacker,
            target=hit.target,
            naturals=list(locs),
            results=results,
            chosen=chosen,
        )
    )
    return state, chosen


def damage_vehicle(
    at: Attack, state: NecromundaState, hit: Hit, prof: Profile, location: Location
) -> Generator[Step, Any, NecromundaState]:
    """The hit's Damage applied to the Location chosen: each point removes a Hull Point (ruling
    ``vehicle-damage``: no Damage dice); a vehicle with none left is Wrecked."""
    rule = at.rule("CC Attacking Vehicles")
    before = state.fighters[hit.target].wounds
    after = max(0, before - prof.damage)
    state = yield from emit(
        VehicleDamaged(
            rule=rule,
            attacker=at.attacker,
            vehicle=hit.target,
            weapon=hit.weapon,
            location=location,
            damage=prof.damage,
            hull_points_before=before,
            hull_points_after=after,
        )
    )
    if after == 0 < before:
        state = yield from set_status(
            at, state, hit.target, WRECKED, Because("no Hull Points left", rule)
        )
    return state


def save_roll(
    at: Attack, state: NecromundaState, hit: Hit, prof: Profile
) -> Generator[Step, Any, tuple[NecromundaState, bool]]:
    """Resolving Hits 2: one Save roll; AP is a modifier to it; a natural 1 always fails."""
    target = state.fighters[hit.target]
    save = target.save if target.save is not None else 7
    rule = at.rule("Resolve Hits 2")
    mods = [Modifier(value=prof.ap, cause=f"AP of {prof.id}", rule=rule)] if prof.ap else []
    # Read only as reaching the save less the AP, or not (a natural 1 fails below it already)
    needed = min(max(save - prof.ap, 2), 6)
    (natural,) = yield from roll(
        f"{at.key}save/{hit.n}", 1, purpose=f"{target.label}: save roll", counts=(needed,)
    )
    saved = natural != 1 and natural + prof.ap >= save
    state = yield from emit(
        SaveRolled(
            rule=rule,
            target=hit.target,
            natural=natural,
            save=save,
            modifiers=mods,
            target_number=save,
            saved=saved,
        )
    )
    return state, saved


def inflict_damage(
    at: Attack, state: NecromundaState, hit: Hit, prof: Profile
) -> Generator[Step, Any, NecromundaState]:
    """Resolving Hits 3: each point of Damage removes a Wound (a vehicle's: a Hull Point; none
    left: Wrecked); Injury dice from the point that takes a fighter to 0."""
    rule = at.rule("Resolve Hits 3")
    target = state.fighters[hit.target]
    before = target.wounds
    after = before if prof.damage == 0 else max(0, before - prof.damage)
    dice = 0 if target.is_vehicle else injury_dice_count(before, prof.damage)
    state = yield from emit(
        DamageInflicted(
            rule=rule,
            attacker=at.attacker,
            target=hit.target,
            weapon=hit.weapon,
            damage=prof.damage,
            wounds_before=before,
            wounds_after=after,
            injury_dice=dice,
        )
    )
    if target.is_vehicle:
        if after == 0:
            state = yield from set_status(
                at, state, hit.target, WRECKED, Because("no Hull Points left", rule)
            )
        return state
    if dice:
        state = yield from injury_dice(at, state, hit.target, dice, f"{at.key}injury/{hit.n}")
    return state


def injury_dice(
    at: Attack, state: NecromundaState, target: str, dice: int, roll_key: str
) -> Generator[Step, Any, NecromundaState]:
    """Resolving Hits 3, Injury dice: Flesh Wound (-1 Toughness; Out of Action at Toughness 0),
    Serious Injury (Prone & Seriously Injured; an extra one, or one on a fighter already Seriously
    Injured, is a Flesh Wound instead), Out of Action."""
    rule = at.rule("Resolve Hits 3")
    faces = at.ctx.ruling(INJURY_DICE_FACES)
    # On a fighter already Seriously Injured a Serious Injury is a Flesh Wound (unless ruled
    # of no effect): read alike, only its event says which it was.
    alike = (
        state.fighters[target].status == SERIOUSLY_INJURED
        and at.ctx.ruling(EXTRA_SERIOUS_INJURY) != "no-effect"
    )
    read = faces.replace("S", "F") if alike else faces
    values = yield from roll(
        roll_key, dice, purpose=f"{target}: Injury dice", counts=_read_as(read, dice)
    )
    results: list[InjuryResult] = []
    for i, v in enumerate(values, start=1):
        result = _INJURY_LETTERS[faces[v - 1]]
        results.append(result)
        state = yield from emit(
            InjuryRolled(rule=rule, target=target, die=i, natural=v, result=result)
        )
    for result in results:
        if state.fighters[target].status == OUT_OF_ACTION:
            break
        state = yield from _apply_injury(at, state, target, result)
    return state


def _read_as(faces: str, dice: int) -> tuple[int, ...]:
    """What the rules read of one Injury dice: its result, each run of one letter of the faces
    (FFSSSO: 1-2, 3-5, 6). Several dice are applied in order, so each die is read (no counts)."""
    if dice != 1:
        return ()
    return tuple(i + 1 for i in range(1, len(faces)) if faces[i] != faces[i - 1])


def _apply_injury(
    at: Attack, state: NecromundaState, target: str, result: InjuryResult
) -> Generator[Step, Any, NecromundaState]:
    rule = at.rule("Resolve Hits 3")
    status = state.fighters[target].status
    if result == OUT_OF_ACTION_RESULT:
        return (
            yield from set_status(
                at, state, target, OUT_OF_ACTION, Because("Injury dice: Out of Action", rule)
            )
        )
    if result == SERIOUS_INJURY and status != SERIOUSLY_INJURED:
        return (
            yield from set_status(
                at, state, target, SERIOUSLY_INJURED, Because("Injury dice: Serious Injury", rule)
            )
        )
    if result == SERIOUS_INJURY and at.ctx.ruling(EXTRA_SERIOUS_INJURY) == "no-effect":
        return state
    reason = (
        "Injury dice: Flesh Wound"
        if result == FLESH_WOUND
        else "extra Serious Injury counts as a Flesh Wound"
    )
    return (yield from flesh_wound(at, state, target, reason))


def flesh_wound(
    at: Attack, state: NecromundaState, target: str, reason: str
) -> Generator[Step, Any, NecromundaState]:
    """A Flesh Wound: -1 Toughness; at Toughness 0 the fighter goes Out of Action."""
    rule = at.rule("Resolve Hits 3")
    f = state.fighters[target]
    state = yield from emit(
        FleshWoundSuffered(
            rule=rule,
            fighter=target,
            flesh_wounds=f.flesh_wounds + 1,
            toughness=f.toughness - 1,
            reason=reason,
        )
    )
    if state.fighters[target].toughness <= 0:
        state = yield from set_status(
            at,
            state,
            target,
            OUT_OF_ACTION,
            Because("Toughness reduced to 0 by Flesh Wounds", rule),
        )
    return state
