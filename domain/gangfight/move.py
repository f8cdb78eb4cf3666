"""Move (Actions and Action Points: a Standard Action, up to MOV inches), with the Free Strikes
it provokes (Combat, Free Strikes). Enough geometry for the Melee locks: the gaps between
models."""

from __future__ import annotations

from blowbyblow.domain.core import Context, RuleViolation, emit
from blowbyblow.domain.gangfight.action_points import STANDARD, check_can_act, check_points, spend
from blowbyblow.domain.gangfight.commands import Move
from blowbyblow.domain.gangfight.events import Moved
from blowbyblow.domain.gangfight.free_strikes import Provoked, free_strike
from blowbyblow.domain.gangfight.state import (
    GangfightState,
    Gen,
    enemies,
    fighter,
    gap,
    gaps_of,
    status,
)

RULE = "G2 Move"


def leaves_threat(state: GangfightState, mover: str, enemy: str, to: dict[str, int]) -> bool:
    """The mover starts within the enemy's threat range and ends outside it."""
    threat = fighter(state, enemy).threat
    before = gap(state, mover, enemy)
    if before is None or before > threat:
        return False
    after = to.get(enemy, before)
    return after > threat


def check_gaps(state: GangfightState, command: Move) -> None:
    """Each new gap is to another known model, not negative, and within the inches moved of the
    old one."""
    fid, inches = command.fighter, command.inches
    for other, new in command.to.items():
        fighter(state, other)
        if other == fid:
            raise RuleViolation(RULE, "a model has no gap to itself")
        if new < 0:
            raise RuleViolation(RULE, f"gap to {other} cannot be {new}")
        old = gap(state, fid, other)
        if old is not None and abs(new - old) > inches:
            raise RuleViolation(
                RULE, f'a {inches}" move cannot change the gap to {other} from {old}" to {new}"'
            )


def check_move(state: GangfightState, ctx: Context, command: Move) -> None:
    """A model able to act, up to MOV inches, sensible gaps, ``through`` naming enemies, and
    an action point to spend."""
    fid, inches = command.fighter, command.inches
    check_can_act(state, fid)
    f = fighter(state, fid)
    if inches < 0 or inches > f.profile.mov:
        raise RuleViolation(RULE, f'{fid} moves up to MOV {f.profile.mov}", not {inches}"')
    check_gaps(state, command)
    foes = enemies(state, fid)
    for t in command.through:
        if t not in foes:
            raise RuleViolation("GF Free Strikes", f"{t} is not an enemy of {fid}")
    check_points(state, ctx, fid, STANDARD)


def strikers(state: GangfightState, command: Move) -> list[str]:
    """GF Free Strikes: every enemy still in the fight whose threatened area the model moves out
    of or through."""
    fid = command.fighter
    return [
        e
        for e in enemies(state, fid)
        if status(state, e).condition == "active"
        and (leaves_threat(state, fid, e, dict(command.to)) or e in command.through)
    ]


def move(state: GangfightState, ctx: Context, command: Move) -> Gen:
    """Move (a Standard Action, up to MOV inches). Every enemy whose threatened area the model
    moves out of or through may make a Free Strike first; a model Incapacitated by one stops
    where it is."""
    fid = command.fighter
    check_move(state, ctx, command)
    state = yield from spend(state, ctx, fid, "Move", STANDARD)
    for e in strikers(state, command):
        provoked = Provoked(
            key=f"move/{e}", striker=e, target=fid, reason="moved through its threatened area"
        )
        state = yield from free_strike(state, ctx, provoked)
        if status(state, fid).condition != "active":
            return state
    gaps = gaps_of((fid, o, n) for o, n in command.to.items())
    return (
        yield from emit(
            Moved(rule=RULE, fighter=fid, inches=command.inches, gaps=gaps), GangfightState
        )
    )
