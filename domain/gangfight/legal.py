"""``legal_commands(state, rulings)``: who may act now and with what, as a front end offers it.

A model in the fight (not Incapacitated or Dead) with an action point left may act. A Prone
model may only stand up (Knocked Down). A standing one may Fight!, make a Power or a Finesse
Attack against an opposing model within its threat range (or an Incapacitation token there);
a Large or Huge model may Slam! one of those of its size or larger, and Trample when a smaller
model is within its threat range (Slam!); any may Move up to MOV inches. ``new-turn`` is always
open. Weapons are left to their default (the model's first weapon that is not a shield).

Rulings decide what is allowed, so the options follow the rulings in force: whether action
points are tracked (action-points), what a Special Action costs (special-action-cost), which
actions are Special (charge-action, shoot-action, area-action, reload-action), whether tokens
may be attacked (attack-incapacitated), whether friends are trampled too (trample-friends),
who may be shot (shooter-threat-range, ranged-range) and whether a model already within reach
may be charged (charge-within-reach). Free Strikes the engine could not see coming (``free-strike``)
and falls (``fall``) happen to models rather than being chosen, so they are not offered."""

from __future__ import annotations

from collections.abc import Mapping

from blowbyblow.domain.core import Context
from blowbyblow.domain.gangfight.action_points import (
    STANDARD,
    action_cost,
    affords,
    special_cost,
)
from blowbyblow.domain.gangfight.charge import charge_cost
from blowbyblow.domain.gangfight.melee import may_be_attacked, targets_in_reach
from blowbyblow.domain.gangfight.ranged import models_in_threat_range, ranged_weapons
from blowbyblow.domain.gangfight.rulings import (
    AREA_ACTION,
    CHARGE_WITHIN_REACH,
    RANGED_RANGE,
    RELOAD_ACTION,
    RULINGS,
    SHOOT_ACTION,
)
from blowbyblow.domain.gangfight.setup import Fighter, size_rank
from blowbyblow.domain.gangfight.slam import may_slam, smaller_in_range
from blowbyblow.domain.gangfight.state import GangfightState, fighter, gap, status, weapon
from blowbyblow.domain.system import CommandOption

# The rulings' defaults, which the options follow (see the module docstring).
DEFAULT_RULINGS = Context(rulings={r.name: r.default for r in RULINGS}, command_index=0)


def melee_targets(
    state: GangfightState, attacker: str, ctx: Context = DEFAULT_RULINGS
) -> tuple[str, ...]:
    """Opposing models (or their tokens) within the attacker's threat range (Melee Combat
    step 1), in setup order."""
    return targets_in_reach(state, ctx, attacker)


def _option(
    kind: str, f: Fighter, fields: dict[str, str], options: dict[str, tuple[str, ...]]
) -> CommandOption:
    return CommandOption(
        type=kind, side=f.side, actor=f.id, fields=fields, options=options, summary=SUMMARY[kind]
    )


SUMMARY = {
    "fight": "Fight! (a Standard Action): Melee Combat steps 1-6",
    "power-attack": "a Power Attack (a Special Action): successes knock the target back, then down",
    "finesse-attack": "a Finesse Attack (a Special Action): successes are inches to disengage",
    "slam": "Slam! (a Special Action) a model of the same size or larger",
    "trample": "Trample (a Special Action) every smaller model within the threat range",
    "move": "Move (a Standard Action) up to MOV inches; leaving a threat range gives Free Strikes",
    "stand-up": "stand up (Knocked Down): a Prone model must before any other action",
    "shoot": "Shoot! (ruling shoot-action): Ranged Combat steps 1-9 with a loaded ranged weapon",
    "area-attack": "an Area of Effect attack (Shoot!) on a nominated target; its successes "
    "decide who is caught",
    "charge": "Charge! (MOV dice for extra inches) at a model in sight, then a free Fight!",
    "reload": "Reload (ruling reload-action) a weapon that has been fired",
    "new-turn": "the next turn: every model in the fight has IV action points again",
}


def _attacks(state: GangfightState, f: Fighter, ctx: Context) -> list[CommandOption]:
    """Fight!, the Special Attacks, Slam! and Trample open to a standing model."""
    me = {"attacker": f.id}
    targets = melee_targets(state, f.id, ctx)
    special = affords(state, ctx, f.id, special_cost(ctx))
    out = []
    if targets:
        out.append(_option("fight", f, me, {"target": targets}))
    if targets and special:
        out.append(_option("power-attack", f, me, {"target": targets}))
        out.append(_option("finesse-attack", f, me, {"target": targets}))
    if not (special and may_slam(f.size)):
        return out
    rank = size_rank(f.size)
    slammable = tuple(t for t in targets if size_rank(fighter(state, t).size) >= rank)
    if slammable:
        out.append(_option("slam", f, me, {"target": slammable}))
    if smaller_in_range(state, ctx, f.id):
        out.append(_option("trample", f, me, {}))
    return out


def shooting_targets(state: GangfightState, f: Fighter, wid: str, ctx: Context) -> tuple[str, ...]:
    """Opposing models (or their tokens) a gap says how far they are, within the weapon's range
    under ruling ranged-range = within-range; none while a model is in the shooter's threat
    range (Ranged Combat)."""
    if models_in_threat_range(state, ctx, f.id):
        return ()
    reach = weapon(state, wid).range or 0
    limit = ctx.ruling(RANGED_RANGE) == "within-range"
    found = []
    for other in state.setup.fighters:
        d = gap(state, f.id, other.id)
        if other.side == f.side or d is None or (limit and d > reach):
            continue
        if may_be_attacked(state, ctx, other.id):
            found.append(other.id)
    return tuple(found)


def _ranged(state: GangfightState, f: Fighter, ctx: Context) -> list[CommandOption]:
    """Shoot! and Area of Effect attacks with each loaded weapon, Reload of each fired one."""
    out = []
    for kind, area in (("shoot", False), ("area-attack", True)):
        who = "shooter" if kind == "shoot" else "attacker"
        if not affords(state, ctx, f.id, action_cost(ctx, AREA_ACTION if area else SHOOT_ACTION)):
            continue
        for wid in ranged_weapons(state, f.id, area=area):
            targets = shooting_targets(state, f, wid, ctx)
            if targets:
                out.append(_option(kind, f, {who: f.id, "weapon": wid}, {"target": targets}))
    fired = tuple(dict.fromkeys(status(state, f.id).fired))
    if fired and affords(state, ctx, f.id, action_cost(ctx, RELOAD_ACTION)):
        out.append(_option("reload", f, {"fighter": f.id}, {"weapon": fired}))
    return out


def _charge(state: GangfightState, f: Fighter, ctx: Context) -> list[CommandOption]:
    """Charge! at an opposing model (or token) a gap says how far it is, in open ground."""
    if not affords(state, ctx, f.id, charge_cost(ctx)):
        return []
    refused = ctx.ruling(CHARGE_WITHIN_REACH) == "refused"
    targets = tuple(
        o.id
        for o in state.setup.fighters
        if o.side != f.side
        and (d := gap(state, f.id, o.id)) is not None
        and not (refused and d <= f.threat)
        and may_be_attacked(state, ctx, o.id)
    )
    if not targets:
        return []
    return [_option("charge", f, {"fighter": f.id}, {"target": targets})]


def model_options(
    state: GangfightState, f: Fighter, ctx: Context = DEFAULT_RULINGS
) -> list[CommandOption]:
    """What one model may do now."""
    s = status(state, f.id)
    if s.condition != "active" or not affords(state, ctx, f.id, STANDARD):
        return []
    if s.prone:
        return [_option("stand-up", f, {"fighter": f.id}, {})]
    out = [*_attacks(state, f, ctx), *_ranged(state, f, ctx), *_charge(state, f, ctx)]
    if f.profile.mov >= 1:
        inches = tuple(str(n) for n in range(1, f.profile.mov + 1))
        out.append(_option("move", f, {"fighter": f.id}, {"inches": inches}))
    return out


def legal_commands(
    state: GangfightState, rulings: Mapping[str, str] | None = None
) -> tuple[CommandOption, ...]:
    """Each model's options in setup order (Fight!, Power Attack, Finesse Attack, Slam!,
    Trample, Move; or stand up), then the new turn, under ``rulings`` (default: each ruling's
    default): action points and their costs, who may be attacked and trampled are rulings."""
    ctx = Context(rulings={**DEFAULT_RULINGS.rulings, **(rulings or {})}, command_index=0)
    options = [o for f in state.setup.fighters for o in model_options(state, f, ctx)]
    options.append(CommandOption(type="new-turn", side="", summary=SUMMARY["new-turn"]))
    return tuple(options)
