"""The commands the rules allow in a state (both systems: the books agree on who may act): for
each fighter, in setup order, the Fight (Basic), Charge (Double) and Coup de Grace (Simple)
actions it may take and the values each field may take.

The state does not say whose activation it is, so every fighter that may act is offered.
Every combination of the offered values is a command the procedure accepts:

- ``fight``: a Standing fighter that is not Broken, with an eligible target (step 4). One
  option per set of weapons choices that reach the same targets; ``weapons`` is named as in the
  Reaction attacks question ("knife+laspistol", "unarmed"). When turning to face would bring
  more targets into its vision arc, a second option fixes ``turn_to_face`` (every enemy in
  contact, "+"-joined).
- ``charge``: a Standing & Active fighter that is not Broken, against an enemy it is not in
  contact with that is not Seriously Injured, Out of Action or Wrecked; a vehicle target needs a
  ``facing`` (a separate option). The free Fight goes at the charged target.
- ``coup-de-grace``: a Standing & Active fighter that is not Broken (a Broken fighter must Run
  for Cover), against a Prone & Seriously Injured enemy in contact (before 2023, under ruling
  ``coup-de-grace-vision-arc``: inside its vision arc).
- ``granted-attack``: as ``fight``, for a fighter with a skill, a gang tactic or the Mounted
  condition that grants a close combat attack outside the sequence (``granted_by``).
- ``leave-engagement``: a vehicle that is not Wrecked with an enemy fighter within 1".

``command_from_option`` builds the command an option stands for.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.domain.necromunda.charge import may_be_charged
from blowbyblow.domain.necromunda.commands import (
    Charge,
    CoupDeGraceAction,
    Fight,
    GrantedAttack,
    LeaveEngagement,
    NecromundaCommand,
)
from blowbyblow.domain.necromunda.fight import (
    choice_name,
    eligible_targets,
    weapon_choices,
    weapon_profile,
)
from blowbyblow.domain.necromunda.granted_attacks import grants
from blowbyblow.domain.necromunda.rulings import COUP_DE_GRACE_VISION_ARC
from blowbyblow.domain.necromunda.state import (
    FACINGS,
    SERIOUSLY_INJURED,
    STANDING_ACTIVE,
    UNARMED,
    WRECKED,
    Facing,
    FighterState,
    NecromundaState,
)
from blowbyblow.domain.system import CommandOption

SEPARATOR = "+"  # joins the items of a field that takes several values


def legal_commands(
    state: NecromundaState, rulings: Mapping[str, str] | None = None
) -> tuple[CommandOption, ...]:
    """Fight, Charge, Coup de Grace and granted-attack offers for every fighter who may act,
    and leave-engagement offers for vehicles. Of the rulings, only
    ``coup-de-grace-vision-arc`` (before 2023) changes against whom a fighter may act."""
    in_arc_only = (rulings or {}).get(COUP_DE_GRACE_VISION_ARC.name) == "required"
    out: list[CommandOption] = []
    for f in state.fighters.values():
        out.extend(fight_options(state, f))
        out.extend(charge_options(state, f))
        out.extend(coup_de_grace_options(state, f, in_arc_only=in_arc_only))
        out.extend(granted_attack_options(state, f))
        out.extend(leave_engagement_options(state, f))
    return tuple(out)


def _usable_choices(f: FighterState, *, charging: bool) -> list[tuple[str, ...]]:
    """The weapons choices of step 2 that give at least one Attack dice (step 3)."""
    bonus = 1 if charging else 0
    return [c for c in weapon_choices(f) if f.a + bonus + (1 if len(c) == 2 else 0) >= 1]


def _targets_by_choice(
    state: NecromundaState, f: FighterState, arc: tuple[str, ...]
) -> dict[tuple[str, ...], list[str]]:
    """Weapons choice names grouped by the targets they can attack from ``arc``."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for choice in _usable_choices(f, charging=False):
        profiles = [weapon_profile(f, f.weapon(w)) for w in choice]
        eligible = tuple(eligible_targets(state, f.id, arc, profiles))
        if eligible:
            groups.setdefault(eligible, []).append(choice_name(choice))
    return groups


def fight_options(state: NecromundaState, f: FighterState) -> list[CommandOption]:
    if f.is_vehicle or not f.standing or f.broken:
        return []
    arc = state.vision.get(f.id, ())
    out: list[CommandOption] = []
    reachable: set[str] = set()
    for targets, names in _targets_by_choice(state, f, arc).items():
        reachable.update(targets)
        out.append(
            CommandOption(
                type="fight",
                side=f.gang,
                actor=f.id,
                fields={"attacker": f.id},
                options={"weapons": tuple(names), "targets": targets},
                summary=f"{f.label}: Fight (Basic)",
            )
        )
    enemies = tuple(o for o in state.linked(f.id) if state.fighters[o].gang != f.gang)
    for targets, names in _targets_by_choice(state, f, enemies).items():
        if set(targets) <= reachable:
            continue
        out.append(
            CommandOption(
                type="fight",
                side=f.gang,
                actor=f.id,
                fields={"attacker": f.id, "turn_to_face": SEPARATOR.join(enemies)},
                options={"weapons": tuple(names), "targets": targets},
                summary=f"{f.label}: Fight (Basic) after turning to face (-1 to hit)",
            )
        )
    return out


def charge_options(state: NecromundaState, f: FighterState) -> list[CommandOption]:
    if f.is_vehicle or f.status != STANDING_ACTIVE or f.broken:
        return []
    candidates = [
        t
        for t in state.fighters.values()
        if may_be_charged(f, t) and state.link(f.id, t.id) is None
    ]
    names = tuple(choice_name(c) for c in _usable_choices(f, charging=True))
    out: list[CommandOption] = []
    fighters = tuple(t.id for t in candidates if not t.is_vehicle)
    if fighters:
        out.append(
            CommandOption(
                type="charge",
                side=f.gang,
                actor=f.id,
                fields={"attacker": f.id},
                options={"targets": fighters, "weapons": names},
                summary=f"{f.label}: Charge (Double), then the free Fight",
            )
        )
    vehicles = tuple(t.id for t in candidates if t.is_vehicle)
    if vehicles:
        out.append(
            CommandOption(
                type="charge",
                side=f.gang,
                actor=f.id,
                fields={"attacker": f.id},
                options={"targets": vehicles, "facing": FACINGS, "weapons": names},
                summary=f"{f.label}: Charge (Double) a vehicle, then the free Fight",
            )
        )
    return out


def coup_de_grace_options(
    state: NecromundaState, f: FighterState, *, in_arc_only: bool = False
) -> list[CommandOption]:
    if f.is_vehicle or f.status != STANDING_ACTIVE or f.broken:
        return []
    targets = tuple(
        o
        for o in state.linked(f.id)
        if state.fighters[o].gang != f.gang
        and state.fighters[o].status == SERIOUSLY_INJURED
        and (state.in_arc(f.id, o) or not in_arc_only)
    )
    if not targets:
        return []
    weapons = tuple(w.id for w in f.weapons if w.has("Melee") or w.has("Sidearm"))
    return [
        CommandOption(
            type="coup-de-grace",
            side=f.gang,
            actor=f.id,
            fields={"attacker": f.id},
            options={"target": targets, "weapon": (*weapons, UNARMED)},
            summary=f"{f.label}: Coup de Grace (Simple)",
        )
    ]


def granted_attack_options(state: NecromundaState, f: FighterState) -> list[CommandOption]:
    """The Fight options of a fighter that something grants an attack outside the sequence,
    each as a ``granted-attack`` naming what grants it."""
    sources = grants(state, f)
    if not sources:
        return []
    return [
        msgspec.structs.replace(
            option,
            type="granted-attack",
            options={"granted_by": sources, **option.options},
            summary=option.summary.replace(
                "Fight (Basic)", "close combat attack outside the sequence"
            ),
        )
        for option in fight_options(state, f)
    ]


def leave_engagement_options(state: NecromundaState, f: FighterState) -> list[CommandOption]:
    if not f.is_vehicle or f.status == WRECKED:
        return []
    left = [o for o in state.linked(f.id) if state.fighters[o].gang != f.gang]
    if not left:
        return []
    return [
        CommandOption(
            type="leave-engagement",
            side=f.gang,
            actor=f.id,
            fields={"vehicle": f.id},
            summary=(
                f"{f.label} moves out of engagement range of {', '.join(left)} (each may test "
                "Initiative to make Reaction attacks against it)"
            ),
        )
    ]


# --- from an option to a command ------------------------------------------------------------------


def _items(value: str) -> tuple[str, ...]:
    """A weapons choice or a list of fighters, as an option names it."""
    if value in ("", UNARMED):
        return ()
    return tuple(value.split(SEPARATOR))


def command_from_option(
    option: CommandOption, chosen: Mapping[str, str] | None = None
) -> NecromundaCommand:
    """The command ``option`` stands for, with ``chosen`` values (the first allowed value of
    each field not chosen)."""
    chosen = chosen or {}
    values = dict(option.fields)
    for name, allowed in option.options.items():
        value = chosen.get(name, allowed[0])
        if value not in allowed:
            raise BlowByBlowError(f"{name}: {value!r} is not one of {', '.join(allowed)}")
        values[name] = value
    if option.type == "leave-engagement":
        return LeaveEngagement(vehicle=values["vehicle"])
    attacker = values["attacker"]
    if option.type == "granted-attack":
        turn = values.get("turn_to_face")
        return GrantedAttack(
            attacker=attacker,
            granted_by=values["granted_by"],
            weapons=_items(values.get("weapons", UNARMED)),
            targets=(values["targets"],),
            turn_to_face=None if turn is None else list(_items(turn)),
        )
    if option.type == "fight":
        turn = values.get("turn_to_face")
        return Fight(
            attacker=attacker,
            weapons=_items(values.get("weapons", UNARMED)),
            targets=(values["targets"],),
            turn_to_face=None if turn is None else list(_items(turn)),
        )
    if option.type == "charge":
        target = values["targets"]
        facing = values.get("facing")
        return Charge(
            attacker=attacker,
            targets=[target],
            weapons=_items(values.get("weapons", UNARMED)),
            facing={} if facing is None else {target: _facing(facing)},
        )
    if option.type == "coup-de-grace":
        return CoupDeGraceAction(
            attacker=attacker, target=values["target"], weapon=values["weapon"]
        )
    raise BlowByBlowError(f"unknown command type {option.type!r}")


def _facing(value: str) -> Facing:
    for facing in FACINGS:
        if facing == value:
            return facing
    raise BlowByBlowError(f"facing: {value!r} is not one of {', '.join(FACINGS)}")
