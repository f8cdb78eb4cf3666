"""Close Combat step 5, Make Hit Roll(s) (Necromunda Core Rulebook (2023); the older rules'
step 5 and its table of modifiers), with Assists & Interference and, in the older rules,
Pistols at Close Quarters (a pistol rolls its Firepower dice for ammo).

A Hit roll is a Weapon Skill test per Attack dice, rolled separately per weapon and per target.
Modifiers: -1 turned to face, +1 per assist, -1 per interference, -1 on the free Fight after
charging a fighter out of line of sight (2023), -2 on a Broken fighter's Reaction attacks, +1
attacking a vehicle, -1 attacking through a barricade (older rules). A roll passes when the
natural roll plus the modifiers is at least the attacker's WS; a natural 1 always misses, and
whether a natural 6 always hits is ruling hit-natural-six.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

from blowbyblow.domain.core import Label, Modifier, Recorded, Step, roll
from blowbyblow.domain.necromunda.combat import Attack, emit
from blowbyblow.domain.necromunda.editions import Edition
from blowbyblow.domain.necromunda.events import (
    AmmoChecked,
    AssistClaimed,
    DiceGroup,
    HitRolled,
    InterferenceApplied,
)
from blowbyblow.domain.necromunda.rulings import (
    FIREPOWER_AMMO_FACE,
    HIT_NATURAL_SIX,
    VEHICLE_TARGET_INTERFERENCE,
)
from blowbyblow.domain.necromunda.state import (
    UNARMED,
    FighterState,
    NecromundaState,
    WeaponState,
    engaged_with,
)


@dataclass(frozen=True)
class Hit:
    weapon: str
    target: str
    n: Label  # running number of the hit in this attack sequence: it only names its rolls


# --- Assists & Interference --------------------------------------------------------------------


def _engaged_only_with(state: NecromundaState, edition: Edition, fid: str, one: str) -> bool:
    """Is ``fid`` engaged with no fighter but ``one``? 2023 counts only the other fighters from
    ``one``'s gang; the older rules count any other enemy."""
    gang = state.fighters[one].gang
    others = [o for o in engaged_with(state, fid) if o != one]
    if edition.exclusion == "target-gang":
        others = [o for o in others if state.fighters[o].gang == gang]
    return not others


def assists(state: NecromundaState, edition: Edition, attacker: str, target: str) -> list[str]:
    """Assists: each other friendly fighter engaged with the target and not engaged with any
    other fighter from the target's gang (older rules: with any other enemy). No assists
    against a vehicle; a vehicle never assists."""
    me = state.fighters[attacker]
    if state.fighters[target].is_vehicle:
        return []
    out: list[str] = []
    for fid in engaged_with(state, target):
        f = state.fighters[fid]
        if fid == attacker or f.gang != me.gang or f.is_vehicle:
            continue
        if _engaged_only_with(state, edition, fid, target):
            out.append(fid)
    return out


def interference(at: Attack, state: NecromundaState, target: str) -> list[str]:
    """Interference: each enemy fighter other than the target engaged with the attacker and not
    engaged with any other fighter from the attacker's gang (older rules: any other enemy). A
    vehicle is never engaged, so never interferes. Attacking a vehicle: the older rules say
    interference does not apply; 2023 is silent (ruling ``vehicle-target-interference``)."""
    if state.fighters[target].is_vehicle:
        if not at.edition.vehicle_interference_unsaid:
            return []
        if at.ctx.ruling(VEHICLE_TARGET_INTERFERENCE) == "none":
            return []
    out: list[str] = []
    for fid in engaged_with(state, at.attacker):
        if fid == target:
            continue
        if _engaged_only_with(state, at.edition, fid, at.attacker):
            out.append(fid)
    return out


# --- the modifiers ------------------------------------------------------------------------------


def attacker_modifiers(at: Attack, me: FighterState) -> list[Modifier]:
    """The modifiers of every Hit roll of this attack sequence, whatever its target."""
    ed = at.edition
    base: list[Modifier] = []
    if at.turned is not None:
        base.append(Modifier(value=-1, cause=at.turned, rule=ed.mod_rule("CC 1")))
    if at.reaction and me.broken:
        base.append(
            Modifier(value=-2, cause="Broken (Reaction attacks)", rule=ed.mod_rule("CC 1 example"))
        )
    if at.out_of_sight and ed.out_of_sight_penalty:
        base.append(
            Modifier(
                value=-1,
                cause="free Fight after charging out of line of sight",
                rule=ed.mod_rule("CC Charging Out of Line of Sight"),
            )
        )
    return base


def target_modifiers(
    at: Attack, state: NecromundaState, target: str
) -> Generator[Step, Any, tuple[NecromundaState, list[Modifier]]]:
    """The modifiers of the Hit rolls against one target: each assist and interference (each
    recorded), attacking a vehicle, attacking through a barricade (older rules)."""
    ed = at.edition
    mods: list[Modifier] = []
    tgt = state.fighters[target]
    for helper in assists(state, ed, at.attacker, target):
        state = yield from emit(
            AssistClaimed(
                rule=at.rule("CC Assists"), attacker=at.attacker, target=target, assisting=helper
            )
        )
        mods.append(Modifier(value=1, cause=f"assist by {helper}", rule=ed.mod_rule("CC Assists")))
    for enemy in interference(at, state, target):
        state = yield from emit(
            InterferenceApplied(
                rule=at.rule("CC Interference"),
                attacker=at.attacker,
                target=target,
                interfering=enemy,
            )
        )
        mods.append(
            Modifier(
                value=-1, cause=f"interference by {enemy}", rule=ed.mod_rule("CC Interference")
            )
        )
    if tgt.is_vehicle and ed.vehicle_modifier:
        mods.append(
            Modifier(
                value=ed.vehicle_modifier,
                cause="attacking a vehicle",
                rule=ed.mod_rule("CC Attacking Vehicles"),
            )
        )
    link = state.link(at.attacker, target)
    if ed.barricade_modifier and link is not None and link.across is not None:
        mods.append(
            Modifier(
                value=ed.barricade_modifier,
                cause=f"attacking through a barricade ({link.across})",
                rule=ed.mod_rule("CC 5"),
            )
        )
    return state, mods


# --- step 5 -------------------------------------------------------------------------------------


def step5_make_hit_rolls(
    at: Attack, state: NecromundaState, groups: Sequence[DiceGroup]
) -> Generator[Step, Any, tuple[NecromundaState, list[Hit]]]:
    """Step 5 Make Hit Roll(s): a Weapon Skill test per Attack dice, per weapon and target."""
    me = state.fighters[at.attacker]
    base = attacker_modifiers(at, me)
    hits: list[Hit] = []
    per_target: dict[str, list[Modifier]] = {}
    for group in groups:
        if group.target not in per_target:
            state, per_target[group.target] = yield from target_modifiers(at, state, group.target)
        modifiers = base + per_target[group.target]
        six = at.ctx.ruling(HIT_NATURAL_SIX) == "always-hits"
        values = yield from roll(
            f"{at.key}hit/{group.weapon}/{group.target}",
            group.dice,
            purpose=f"{me.label}: hit rolls with {group.weapon} against {group.target}",
            counts=_read_as(me.ws - sum(m.value for m in modifiers), six),
        )
        # Each die decided as it is rolled; what it showed is only recorded (``Recorded``),
        # in its event, after the older rules' Ammo check for a pistol (rolled in between).
        decided = [_decide(natural, modifiers, me.ws, six) for natural in values]
        if at.edition.pistol_firepower and group.weapon != UNARMED:
            w = me.weapon(group.weapon)
            if w is not None and w.has("Sidearm"):
                state = yield from ammo_check(at, state, w)
        for i, (rolled, hit) in enumerate(decided, start=1):
            natural, total, note = rolled.value
            state = yield from emit(
                HitRolled(
                    rule=at.rule("CC 5"),
                    attacker=at.attacker,
                    target=group.target,
                    weapon=group.weapon,
                    die=i,
                    natural=natural,
                    modifiers=modifiers,
                    target_number=me.ws,
                    total=total,
                    hit=hit,
                    note=note,
                )
            )
            if hit:
                hits.append(Hit(weapon=group.weapon, target=group.target, n=Label(len(hits) + 1)))
    return state, hits


def _decide(
    natural: int, modifiers: Sequence[Modifier], ws: int, six: bool
) -> tuple[Recorded[tuple[int, int, str]], bool]:
    """A Hit roll die: whether it hits, and what its event records (the natural, the total and
    why the natural decided it)."""
    total = natural + sum(m.value for m in modifiers)
    hit = natural != 1 and (total >= ws or (six and natural == 6))
    return Recorded((natural, total, hit_note(natural, total, ws, six))), hit


def _read_as(needed: int, six: bool) -> tuple[int, ...]:
    """What the rules decide by of each Hit roll die: a natural reaching ``needed`` (the WS
    less the modifiers), a natural 6 when it always hits; a natural 1 only where it is not
    below ``needed`` already (a natural 1 always misses). Below ``needed`` every natural misses
    alike: that a 1 missed for being a 1 is only recorded (the event's note)."""
    marks = {n for n in (needed, 6 if six else 0) if 2 <= n <= 6}
    if needed <= 1 or not marks:
        marks.add(2)
    return tuple(sorted(marks))


def hit_note(natural: int, total: int, ws: int, six: bool) -> str:
    """Why a natural roll decided a Hit roll: a natural 1 misses whatever the modifiers; a
    natural 6 the modifiers brought below WS hits all the same (ruling hit-natural-six)."""
    if natural == 1:
        return "natural 1 always misses"
    if six and natural == 6 and total < ws:
        return "natural 6 always hits (ruling hit-natural-six)"
    return ""


def ammo_check(
    at: Attack, state: NecromundaState, w: WeaponState
) -> Generator[Step, Any, NecromundaState]:
    """Older rules, Pistols at Close Quarters: pistols used in close combat roll the Firepower
    dice to see whether they run out of ammo (on the ammo symbol, an Ammo check: D6 against the
    weapon's Ammo value; a failure leaves it out of ammo)."""
    rule = at.rule("CC Pistols at Close Quarters")
    me = state.fighters[at.attacker]
    face = int(at.ctx.ruling(FIREPOWER_AMMO_FACE))
    (fp,) = yield from roll(
        f"{at.key}firepower/{w.id}", 1, purpose=f"{me.label}: Firepower dice for {w.id}"
    )
    if fp != face:
        return (
            yield from emit(
                AmmoChecked(
                    rule=rule, fighter=me.id, weapon=w.id, firepower_natural=fp, ammo_symbol=False
                )
            )
        )
    target = w.ammo if w.ammo is not None else 7
    (nat,) = yield from roll(
        f"{at.key}ammo/{w.id}", 1, purpose=f"{me.label}: Ammo check for {w.id}"
    )
    return (
        yield from emit(
            AmmoChecked(
                rule=rule,
                fighter=me.id,
                weapon=w.id,
                firepower_natural=fp,
                ammo_symbol=True,
                natural=nat,
                target_number=target,
                out_of_ammo=nat < target,
            )
        )
    )
