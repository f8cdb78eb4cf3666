"""What the rules allow between phases: ``advance``, ``move``, ``restack`` and ``reactionfire``
refused (``RuleViolation``, before anything is written) one named check at a time, and offered
to a front end for the Player Turn whose movement and advance are still open.

The Player Turn of a command: never one before the current; the current one only with its
ATTACKER, and only before its CCPh has begun (a Location's CC resolved); the MPh (``move``,
``reactionfire``) only before the APh (a unit advanced)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from blowbyblow.domain.asl.commands import Advance, FireIntoMelee, Move, ReactionFire, Restack
from blowbyblow.domain.asl.fire import fire_options
from blowbyblow.domain.asl.rulings import ATMM_CHECK, STREET_FIGHTING_ROAD
from blowbyblow.domain.asl.setup import is_mmc, is_smc
from blowbyblow.domain.asl.state import (
    State,
    UnitState,
    VehicleState,
    active,
    carrier,
    known,
    other_side,
    units_in,
    vehicles_in,
)
from blowbyblow.domain.asl.streets import street_fighting_refusal
from blowbyblow.domain.asl.turns import check_turn
from blowbyblow.domain.core import Context, RuleViolation
from blowbyblow.domain.system import CommandOption

# --- the Player Turn --------------------------------------------------------------------------


def _before_ccph(state: State, turn: int) -> None:
    if turn == state.turn and state.resolved:
        raise RuleViolation(
            "A11.12", f"the CCPh of Player Turn {turn} has begun: no more movement or advance"
        )


def _in_mph(state: State, turn: int) -> None:
    if turn == state.turn and any(a.how == "advanced" for a in state.arrivals.values()):
        raise RuleViolation("A4.7", f"the APh of Player Turn {turn} has begun: no more movement")


def contested(state: State, location: str) -> bool:
    """Units (Personnel or vehicles) of both sides in ``location``."""
    here = [u.side for u in units_in(state, location)]
    here += [v.side for v in vehicles_in(state, location)]
    return len(set(here)) == 2


def player_turns(state: State) -> list[tuple[int, str]]:
    """The Player Turn (and its ATTACKER) whose CC is to be resolved next: before the first,
    either side's; the current one while a Location's CC is pending; else the other side's."""
    if state.attacker is None:
        return [(state.turn + 1, side) for side in state.sides]
    pending = [
        loc for loc in state.locations if loc not in state.resolved and contested(state, loc)
    ]
    if pending:
        return [(state.turn, state.attacker)]
    return [(state.turn + 1, other_side(state, state.attacker))]


def movement_turns(state: State) -> list[tuple[int, str]]:
    """The Player Turns whose MPh/APh are still open: the current one before its CCPh, and the
    next one to be played."""
    turns = [] if state.attacker is None else [(state.turn, state.attacker)]
    turns += [t for t in player_turns(state) if t not in turns]
    return [(t, a) for t, a in turns if t != state.turn or not state.resolved]


# --- who may go where --------------------------------------------------------------------------


def _free_unit(state: State, uid: str, side: str, rule: str) -> UnitState:
    u = state.units.get(uid)
    if u is None or not active(u) or u.guard is not None:
        raise RuleViolation(rule, f"{uid!r} is not a unit in play")
    if u.side != side:
        raise RuleViolation(rule, f"{uid} is not a unit of {side}")
    return u


def _held(state: State, u: UnitState) -> bool:
    lock = state.melee.get(u.location)
    return lock is not None and u.id in lock.units


def _on_foot(state: State, u: UnitState) -> None:
    """Infantry moving or advancing on their own: not broken (they rout, A10.5), not pinned
    (A7.8), not held in Melee (A11.15), not a PRC (they unload first, A11.71)."""
    if u.broken:
        raise RuleViolation("A10.5", f"broken {u.id} moves only by routing")
    if u.pinned:
        raise RuleViolation("A7.8", f"pinned {u.id} may not move or advance")
    if _held(state, u):
        raise RuleViolation("A11.15", f"{u.id} is locked in Melee: it leaves only by Withdrawal")
    if carrier(state, u.id) is not None:
        raise RuleViolation("A11.71", f"{u.id} is a Passenger/Rider: it unloads first")


def _together(state: State, units: list[str], side: str, rule: str) -> str:
    """The Location units moving together come from (all the same, each once)."""
    if not units:
        raise RuleViolation(rule, "no unit named")
    if len(set(units)) != len(units):
        raise RuleViolation(rule, "a unit is named twice")
    where = {_free_unit(state, uid, side, rule).location for uid in units}
    if len(where) != 1:
        raise RuleViolation(rule, "units moving together start in one Location")
    return where.pop()


def _adjacent(state: State, came_from: str, to: str, rule: str) -> None:
    if to not in state.locations:
        raise RuleViolation(rule, f"unknown Location {to!r}")
    if to not in state.locations[came_from].adjacent:
        raise RuleViolation(rule, f"{to} is not adjacent to {came_from}")


def validate_advance(state: State, c: Advance) -> None:
    """A4.7: the ATTACKER's Infantry advance one Location, together, once per Player Turn."""
    check_turn(state, c.turn, c.attacker)
    _before_ccph(state, c.turn)
    came_from = _together(state, c.units, c.attacker, "A4.7")
    for uid in c.units:
        u = state.units[uid]
        _on_foot(state, u)
        arrival = state.arrivals.get(uid) if c.turn == state.turn else None
        if arrival is not None and arrival.how == "advanced":
            raise RuleViolation("A4.7", f"{uid} has advanced this Player Turn already")
    _adjacent(state, came_from, c.to, "A4.7")
    if c.leader is not None:
        lead = state.units.get(c.leader)
        if lead is None or lead.kind != "leader" or lead.side != c.attacker:
            raise RuleViolation("A11.6", f"{c.leader!r} is not a leader of {c.attacker}")


def _enemy_here(state: State, location: str, side: str) -> bool:
    if any(u.side != side and known(u) for u in units_in(state, location)):
        return True
    return any(v.side != side for v in vehicles_in(state, location))


def validate_move(state: State, c: Move) -> None:
    """The MPh: a Mobile, manned vehicle of the ATTACKER on its own (its PRC go with it, out of
    a Melee too, A11.7/A11.71); Infantry into a Location free of enemy units (into an enemy's
    they advance, A4.7; Infantry OVR, A4.152, is not covered); PRC unload in their vehicle's
    Location (A11.71)."""
    check_turn(state, c.turn, c.attacker)
    _before_ccph(state, c.turn)
    _in_mph(state, c.turn)
    if c.units and c.units[0] in state.vehicles:
        _check_vehicle_move(state, c)
        return
    came_from = _together(state, c.units, c.attacker, "A4")
    unloading = [uid for uid in c.units if carrier(state, uid) is not None]
    if unloading:
        if len(unloading) != len(c.units) or c.to != came_from:
            raise RuleViolation("A11.71", "Passengers/Riders unload in their vehicle's Location")
        return
    for uid in c.units:
        _on_foot(state, state.units[uid])
    _adjacent(state, came_from, c.to, "A4")
    if _enemy_here(state, c.to, c.attacker):
        raise RuleViolation(
            "A4.152",
            f"Infantry enter an enemy's Location ({c.to}) by advancing into CC in the APh "
            "(Infantry OVR is not covered)",
        )


def _check_vehicle_move(state: State, c: Move) -> None:
    if len(c.units) != 1:
        raise RuleViolation(
            "A4", "a vehicle moves on its own; its Passengers and Riders go with it"
        )
    v = state.vehicles[c.units[0]]
    if v.status != "active" or v.side != c.attacker:
        raise RuleViolation("A4", f"{v.id} is not a vehicle of {c.attacker} in play")
    if not v.mobile or not v.crewed or v.abandoned:
        raise RuleViolation("A11.7", f"{v.id} is not a Mobile, manned vehicle")
    _adjacent(state, v.location, c.to, "A4")


def validate_restack(state: State, c: Restack) -> None:
    """A11.14: "The player is free to rearrange his stack in a CC hex so as to change the MMC
    that a SMC is paired with, but he must do so prior to both sides' declaration of CC
    attacks in that Location"."""
    check_turn(state, c.turn, c.attacker)
    u = state.units.get(c.unit)
    if u is None or not active(u) or u.guard is not None or not is_smc(u):
        raise RuleViolation("A11.14", f"{c.unit!r} is not an SMC in play")
    if c.turn == state.turn and u.location in state.resolved:
        raise RuleViolation("A11.14", f"CC in {u.location} is resolved this Player Turn")
    if not contested(state, u.location):
        raise RuleViolation("A11.14", f"{u.location} is not a CC Location")
    if c.onto == u.stacked_on:
        raise RuleViolation("A11.14", f"{c.unit} is already stacked so")
    if c.onto is None:
        return
    base = state.units.get(c.onto)
    if (
        base is None
        or not active(base)
        or base.guard is not None
        or not is_mmc(base)
        or base.dummy
        or base.side != u.side
        or base.location != u.location
        or carrier(state, base.id) is not None
    ):
        raise RuleViolation("A11.14", f"{c.onto!r} is not a friendly MMC in {u.location}")


def validate_reaction(state: State, c: ReactionFire, ctx: Context) -> None:
    """A11.8: the DEFENDER's Infantry (one unit, or two with an SMC, A11.5), once per Player
    Turn as their Defensive First Fire, against a moving ATTACKER's vehicle: in its Location,
    or Street Fighting from ground level of an ADJACENT building onto its road."""
    check_turn(state, c.turn, c.attacker)
    _before_ccph(state, c.turn)
    _in_mph(state, c.turn)
    v = state.vehicles.get(c.vehicle)
    if v is None or v.status != "active" or v.side != c.attacker:
        raise RuleViolation("A11.8", f"{c.vehicle!r} is not a vehicle of {c.attacker} in play")
    moved = c.turn == state.turn and c.vehicle in state.arrivals
    if not (moved or c.non_stopped):
        raise RuleViolation("A11.8", f"{c.vehicle} neither moved nor is non-stopped")
    defender = other_side(state, c.attacker)
    came_from = _together(state, c.by, defender, "A11.8")
    _check_reaction_units(state, c, v)
    if came_from != v.location:
        _check_street_fighting(state, came_from, v, ctx)
    if c.atmm is not None:
        if ctx.ruling(ATMM_CHECK) == "not-allowed":
            raise RuleViolation("C13.7", "ATMM not allowed (ruling atmm-check)")
        if c.atmm not in c.by or not v.afv:
            raise RuleViolation("C13.7", "the ATMM check is made by an attacker vs an AFV")


def _check_reaction_units(state: State, c: ReactionFire, v: VehicleState) -> None:
    if len(c.by) > 2 or (len(c.by) == 2 and not any(is_smc(state.units[b]) for b in c.by)):
        raise RuleViolation("A11.5", "at most two units, one of them an SMC, combine vs a vehicle")
    for uid in c.by:
        u = state.units[uid]
        if u.broken or u.dummy:
            raise RuleViolation("A11.16", f"{uid} may not attack")
        if carrier(state, uid) is not None:
            raise RuleViolation("A11.611", f"{uid} is a Passenger/Rider")
        if c.turn == state.turn and uid in state.fired:
            raise RuleViolation("A11.8", f"{uid} has made its Reaction Fire this Player Turn")
        if _held(state, u) and not _held_only_by(state, u, v, c.non_stopped):
            raise RuleViolation("A11.15", f"{uid} is locked in Melee")


def _held_only_by(state: State, u: UnitState, v: VehicleState, non_stopped: bool) -> bool:
    """Held in Melee by ``v`` alone, which, non-stopped, no longer holds it (A11.7)."""
    lock = state.melee[u.location]
    enemies = [x for x in lock.units if state.units[x].side != u.side]
    return non_stopped and not enemies and v.id in lock.vehicles


def _check_street_fighting(state: State, came_from: str, v: VehicleState, ctx: Context) -> None:
    """A11.8: "Any vehicle in a road hex and ADJACENT to a building hex on both sides of that
    road ... may be attacked with Reaction Fire (D7.2) by Infantry on ground level of those
    buildings" (ruling street-fighting-road)."""
    both = ctx.ruling(STREET_FIGHTING_ROAD) == "both-sides"
    why = street_fighting_refusal(state, came_from, v.location, both, "Reaction Fire")
    if why is not None:
        raise RuleViolation("A11.8", why)


# --- offers -----------------------------------------------------------------------------------


def _valid(check: Callable[..., None], *args: object) -> bool:
    """Whether a trial command passes its check (``check(*args)`` refuses nothing)."""
    try:
        check(*args)
    except RuleViolation:
        return False
    return True


def _turn_fields(turn: int, attacker: str) -> dict[str, str]:
    return {"turn": str(turn), "attacker": attacker}


def between_phase_options(state: State, rulings: Mapping[str, str]) -> list[CommandOption]:
    """For each Player Turn whose movement is open: each unit's advance and move, each
    vehicle's move, each PRC's unloading, each Reaction Fire at a vehicle that moved, each
    side's fire into each Melee (A11.15); and for each CC Location still to be resolved, each SMC's re-arranged stacking."""
    ctx = Context(rulings=dict(rulings), command_index=0)
    out: list[CommandOption] = []
    for turn, attacker in movement_turns(state):
        out += _advances(state, turn, attacker)
        out += _moves(state, turn, attacker)
        out += _reactions(state, ctx, turn, attacker)
        out += fire_options(state, turn, attacker)
    for turn, attacker in player_turns(state):
        out += _restacks(state, turn, attacker)
    return out


def _advances(state: State, turn: int, attacker: str) -> list[CommandOption]:
    out = []
    for u in _own(state, attacker):
        dests = tuple(
            to
            for to in state.locations[u.location].adjacent
            if _valid(
                validate_advance,
                state,
                Advance(turn=turn, attacker=attacker, units=[u.id], to=to),
            )
        )
        if dests:
            out.append(
                CommandOption(
                    type="advance",
                    side=attacker,
                    actor=u.id,
                    fields={**_turn_fields(turn, attacker), "units": u.id},
                    options={"to": dests},
                    summary=f"APh of Player Turn {turn}: {u.id} advances (A4.7)",
                )
            )
    return out


def _own(state: State, side: str) -> list[UnitState]:
    return [u for u in state.units.values() if active(u) and u.guard is None and u.side == side]


def _moves(state: State, turn: int, attacker: str) -> list[CommandOption]:
    out = []
    movers: list[str] = [u.id for u in _own(state, attacker)]
    movers += [v.id for v in state.vehicles.values() if v.side == attacker]
    for uid in movers:
        where = state.vehicles[uid].location if uid in state.vehicles else state.units[uid].location
        on = carrier(state, uid)
        candidates = [where] if on is not None else list(state.locations[where].adjacent)
        dests = tuple(
            to
            for to in candidates
            if _valid(validate_move, state, Move(turn=turn, attacker=attacker, units=[uid], to=to))
        )
        if dests:
            what = "unloads" if on is not None else "moves"
            out.append(
                CommandOption(
                    type="move",
                    side=attacker,
                    actor=uid,
                    fields={**_turn_fields(turn, attacker), "units": uid},
                    options={"to": dests},
                    summary=f"MPh of Player Turn {turn}: {uid} {what}",
                )
            )
    return out


def _reactions(state: State, ctx: Context, turn: int, attacker: str) -> list[CommandOption]:
    """Reaction Fire at the vehicles that moved this Player Turn (A11.8)."""
    if turn != state.turn:
        return []
    out = []
    defender = other_side(state, attacker)
    for vid, arrival in state.arrivals.items():
        v = state.vehicles.get(vid)
        if v is None or arrival.how != "moved":
            continue
        for u in _own(state, defender):
            trial = ReactionFire(turn=turn, attacker=attacker, vehicle=vid, by=[u.id])
            if _valid(validate_reaction, state, trial, ctx):
                out.append(
                    CommandOption(
                        type="reactionfire",
                        side=defender,
                        actor=u.id,
                        fields={**_turn_fields(turn, attacker), "vehicle": vid, "by": u.id},
                        summary=f"MPh of Player Turn {turn}: {u.id} attacks {vid} (A11.8)",
                    )
                )
    return out


def _restacks(state: State, turn: int, attacker: str) -> list[CommandOption]:
    out = []
    for u in state.units.values():
        if not (active(u) and u.guard is None and is_smc(u)):
            continue
        bases = tuple(
            b.id
            for b in units_in(state, u.location, u.side)
            if _valid(
                validate_restack,
                state,
                Restack(turn=turn, attacker=attacker, unit=u.id, onto=b.id),
            )
        )
        if bases:
            out.append(
                CommandOption(
                    type="restack",
                    side=u.side,
                    actor=u.id,
                    fields={**_turn_fields(turn, attacker), "unit": u.id},
                    options={"onto": bases},
                    summary=f"{u.id} is paired with another MMC before the CC (A11.14)",
                )
            )
    return out


def between_phase_command(
    option: CommandOption, picks: Mapping[str, str]
) -> Advance | Move | Restack | ReactionFire | FireIntoMelee:
    """The command a between-phase option stands for, with the pick (or first value) of its one
    choice."""
    f = option.fields
    turn, attacker = int(f["turn"]), f["attacker"]
    chosen = {name: picks.get(name, values[0]) for name, values in option.options.items()}
    if option.type == "advance":
        return Advance(turn=turn, attacker=attacker, units=[f["units"]], to=chosen["to"])
    if option.type == "move":
        return Move(turn=turn, attacker=attacker, units=[f["units"]], to=chosen["to"])
    if option.type == "restack":
        return Restack(turn=turn, attacker=attacker, unit=f["unit"], onto=chosen["onto"])
    if option.type == "fire":
        return FireIntoMelee(turn=turn, attacker=attacker, location=f["location"], by=[f["by"]])
    return ReactionFire(turn=turn, attacker=attacker, vehicle=f["vehicle"], by=[f["by"]])
