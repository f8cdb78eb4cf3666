"""Move (Actions and Action Points: a Standard Action, up to MOV inches), with the Free Strikes
it provokes (Combat, Free Strikes). Enough geometry for the Melee locks: the gaps between
models. The same movement rules serve every action that moves a model (Charge!, a Slam! or
Trample's approach and follow-through, a Finesse Attack's move)."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from blowbyblow.domain.core import Context, RuleViolation, emit
from blowbyblow.domain.gangfight.action_points import STANDARD, check_can_act, check_points, spend
from blowbyblow.domain.gangfight.commands import Move, Movement
from blowbyblow.domain.gangfight.events import Moved
from blowbyblow.domain.gangfight.free_strikes import Provoked, free_strike
from blowbyblow.domain.gangfight.rulings import FREE_STRIKE_TRIGGER
from blowbyblow.domain.gangfight.setup import inches
from blowbyblow.domain.gangfight.state import (
    GangfightState,
    Gen,
    enemies,
    fighter,
    gap,
    gaps_of,
    set_gap,
    status,
)

RULE = "G2 Move"


def leaves_threat(state: GangfightState, mover: str, enemy: str, to: Mapping[str, float]) -> bool:
    """The mover starts within the enemy's threat range and ends outside it."""
    threat = fighter(state, enemy).threat
    before = gap(state, mover, enemy)
    if before is None or before > threat:
        return False
    after = to.get(enemy, before)
    return after > threat


def enters_threat(state: GangfightState, mover: str, enemy: str, to: Mapping[str, float]) -> bool:
    """The mover starts outside the enemy's threat range (or far away) and ends within it."""
    threat = fighter(state, enemy).threat
    before = gap(state, mover, enemy)
    after = to.get(enemy, before)
    return (before is None or before > threat) and after is not None and after <= threat


def check_gaps(
    state: GangfightState,
    fid: str,
    moved: float,
    to: Mapping[str, float],
    rule: str = RULE,
) -> None:
    """Each new gap is to another known model, not negative, and within the inches moved of the
    old one."""
    for other, new in to.items():
        fighter(state, other)
        if other == fid:
            raise RuleViolation(rule, "a model has no gap to itself")
        if new < 0:
            raise RuleViolation(rule, f"gap to {other} cannot be {new}")
        old = gap(state, fid, other)
        if old is not None and abs(new - old) > moved:
            raise RuleViolation(
                rule, f'a {moved}" move cannot change the gap to {other} from {old}" to {new}"'
            )


def check_through(state: GangfightState, fid: str, through: Collection[str]) -> None:
    """``through`` names enemies of the moving model (whose threat range it crosses)."""
    foes = enemies(state, fid)
    for t in through:
        if t not in foes:
            raise RuleViolation("GF Free Strikes", f"{t} is not an enemy of {fid}")


def check_move(state: GangfightState, ctx: Context, command: Move) -> None:
    """A model able to act, up to MOV inches, sensible gaps, ``through`` naming enemies, and
    an action point to spend."""
    fid, moved = command.fighter, command.inches
    check_can_act(state, fid)
    f = fighter(state, fid)
    if moved < 0 or moved > f.profile.mov:
        raise RuleViolation(RULE, f'{fid} moves up to MOV {f.profile.mov}", not {moved}"')
    check_gaps(state, fid, moved, command.to)
    check_through(state, fid, command.through)
    check_points(state, ctx, fid, STANDARD)


def provokes(
    state: GangfightState, ctx: Context, fid: str, enemy: str, to: Mapping[str, float]
) -> bool:
    """GF Free Strikes: "when a model moves through the threatened area of an enemy model":
    moving out of it, or (ruling free-strike-trigger = entering-too) into it."""
    if leaves_threat(state, fid, enemy, to):
        return True
    return ctx.ruling(FREE_STRIKE_TRIGGER) == "entering-too" and enters_threat(
        state, fid, enemy, to
    )


def strikers(  # noqa: PLR0913 - the move's parts, each needed
    state: GangfightState,
    ctx: Context,
    fid: str,
    to: Mapping[str, float],
    through: Collection[str],
    spared: Collection[str] = (),
) -> list[str]:
    """GF Free Strikes: every enemy still in the fight whose threatened area the model moves
    out of, through or (ruling free-strike-trigger) into, but those ``spared``, whose Free
    Strike another rule decides."""
    return [
        e
        for e in enemies(state, fid)
        if status(state, e).condition == "active"
        and e not in spared
        and (provokes(state, ctx, fid, e, to) or e in through)
    ]


def free_strikes_on(state: GangfightState, ctx: Context, fid: str, key: str, who: list[str]) -> Gen:
    """Each of ``who`` may make a Free Strike on the moving model (asked under ``key/<striker>``),
    until one Incapacitates it."""
    for e in who:
        provoked = Provoked(
            key=f"{key}/{e}", striker=e, target=fid, reason="moved through its threatened area"
        )
        state = yield from free_strike(state, ctx, provoked)
        if status(state, fid).condition != "active":
            break
    return state


def moved(rule: str, fid: str, distance: float, to: Mapping[str, float]) -> Moved:
    """The model has moved ``distance`` inches; ``to`` are its new gaps."""
    return Moved(
        rule=rule,
        fighter=fid,
        inches=inches(distance),
        gaps=gaps_of((fid, o, n) for o, n in to.items()),
    )


def move(state: GangfightState, ctx: Context, command: Move) -> Gen:
    """Move (a Standard Action, up to MOV inches). Every enemy whose threatened area the model
    moves out of or through may make a Free Strike first; a model Incapacitated by one stops
    where it is."""
    fid = command.fighter
    check_move(state, ctx, command)
    state = yield from spend(state, ctx, fid, "Move", STANDARD)
    who = strikers(state, ctx, fid, command.to, command.through)
    state = yield from free_strikes_on(state, ctx, fid, "move", who)
    if status(state, fid).condition != "active":
        return state
    return (yield from emit(moved(RULE, fid, command.inches, command.to), GangfightState))


# --- movement within another action (Slam!, Trample) ------------------------------------------


def ahead(state: GangfightState, fid: str, movement: Movement | None) -> GangfightState:
    """The state as it will be once the model has moved (its new gaps), to check what an action
    may do after it."""
    if movement is None:
        return state
    for other, n in movement.to.items():
        state = set_gap(state, fid, other, n)
    return state


def check_action_movement(
    state: GangfightState,
    fid: str,
    parts: tuple[Movement | None, Movement | None],
    rule: str,
    moving_target: str = "",
) -> None:
    """An action's approach and follow-through together move at most MOV inches; each has
    sensible gaps (the follow-through's from where the approach left the model; the gap to
    ``moving_target``, which the attack itself may change, is not checked) and ``through``
    naming enemies."""
    approach, follow = parts
    mov = fighter(state, fid).profile.mov
    total = sum(m.inches for m in parts if m is not None)
    if any(m.inches < 0 for m in parts if m is not None) or total > mov:
        raise RuleViolation(rule, f'{fid} moves up to MOV {mov}" in all, not {total}"')
    if approach is not None:
        check_gaps(state, fid, approach.inches, approach.to, rule)
        check_through(state, fid, approach.through)
    if follow is not None:
        later = ahead(state, fid, approach)
        to = {k: v for k, v in follow.to.items() if k != moving_target}
        check_gaps(later, fid, follow.inches, to, rule)
        if moving_target in follow.to and follow.to[moving_target] < 0:
            raise RuleViolation(rule, f"gap to {moving_target} cannot be negative")
        check_through(state, fid, follow.through)


def move_on(
    state: GangfightState,
    ctx: Context,
    fid: str,
    movement: Movement | None,
    how: tuple[str, str, Collection[str]],
) -> Gen:
    """Part of an action's movement (``how``: the rule it cites, the key its Free Strikes are
    asked under, the enemies whose Free Strike another rule decides): the Free Strikes it
    provokes, then the move, unless the model is no longer standing in the fight."""
    rule, key, spared = how
    s = status(state, fid)
    if movement is None or s.condition != "active" or s.prone:
        return state
    who = strikers(state, ctx, fid, movement.to, movement.through, spared)
    state = yield from free_strikes_on(state, ctx, fid, key, who)
    if status(state, fid).condition != "active":
        return state
    return (yield from emit(moved(rule, fid, movement.inches, movement.to), GangfightState))
