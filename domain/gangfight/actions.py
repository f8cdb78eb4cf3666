"""The actions a model takes: Fight!, Move, standing up (G2, GF Melee, GF Knocked Down)."""

from __future__ import annotations

from blowbyblow.domain.core import Context, RuleViolation, emit
from blowbyblow.domain.gangfight.action_points import STANDARD, check_points, spend
from blowbyblow.domain.gangfight.events import Moved, StoodUp
from blowbyblow.domain.gangfight.melee import (
    Gen,
    attack_roll,
    check_can_act,
    check_melee,
    check_threat_range,
    inflict_wounds,
)
from blowbyblow.domain.gangfight.special import free_strike
from blowbyblow.domain.gangfight.state import (
    GangfightState,
    enemies,
    fighter,
    gap,
    gaps_of,
    status,
)
from blowbyblow.domain.gangfight.weapons import weapons_used


def fight(
    state: GangfightState, ctx: Context, *, attacker: str, target: str, weapons: tuple[str, ...]
) -> Gen:
    """Fight! (a Standard Action): GF Melee 1 to 6."""
    check_melee(state, attacker, target, ctx.rulings)
    used = weapons_used(state, attacker, weapons)
    check_points(state, attacker, STANDARD, ctx.rulings)
    state = yield from spend(state, ctx, attacker, "Fight!", STANDARD)
    state = yield from emit(check_threat_range(state, attacker, target), GangfightState)
    state, test = yield from attack_roll(
        state, ctx, key="fight", attacker=attacker, target=target, attack="fight", used=used
    )
    return (
        yield from inflict_wounds(
            state,
            ctx,
            key="fight",
            attacker=attacker,
            target=target,
            used=used,
            successes=test.successes,
        )
    )


def stand_up(state: GangfightState, ctx: Context, fid: str) -> Gen:
    """GF Knocked Down: a Prone model MUST spend an Action Point to stand up."""
    s = status(state, fid)
    if s.condition != "active":
        raise RuleViolation("GF Incapacitation", f"{fid} is {s.condition} and cannot act")
    if not s.prone:
        raise RuleViolation("GF Knocked Down", f"{fid} is not Prone")
    check_points(state, fid, STANDARD, ctx.rulings)
    state = yield from spend(state, ctx, fid, "stand up", STANDARD)
    return (yield from emit(StoodUp(rule="GF Knocked Down", fighter=fid), GangfightState))


def leaves_threat(state: GangfightState, mover: str, enemy: str, to: dict[str, int]) -> bool:
    """The mover starts within the enemy's threat range and ends outside it."""
    threat = fighter(state, enemy).threat
    before = gap(state, mover, enemy)
    if before is None or before > threat:
        return False
    after = to.get(enemy, before)
    return after > threat


def move(
    state: GangfightState,
    ctx: Context,
    *,
    fid: str,
    inches: int,
    to: dict[str, int],
    through: tuple[str, ...],
) -> Gen:
    """Move (a Standard Action, up to MOV inches). GF Free Strikes: every enemy whose threatened
    area the model moves out of or through may make a Free Strike first; a model Incapacitated by
    one stops where it is."""
    check_can_act(state, fid)
    f = fighter(state, fid)
    if inches < 0 or inches > f.profile.mov:
        raise RuleViolation("G2 Move", f'{fid} moves up to MOV {f.profile.mov}", not {inches}"')
    for other, new in to.items():
        fighter(state, other)
        if other == fid:
            raise RuleViolation("G2 Move", "a model has no gap to itself")
        if new < 0:
            raise RuleViolation("G2 Move", f"gap to {other} cannot be {new}")
        old = gap(state, fid, other)
        if old is not None and abs(new - old) > inches:
            raise RuleViolation(
                "G2 Move",
                f'a {inches}" move cannot change the gap to {other} from {old}" to {new}"',
            )
    foes = enemies(state, fid)
    for t in through:
        if t not in foes:
            raise RuleViolation("GF Free Strikes", f"{t} is not an enemy of {fid}")
    check_points(state, fid, STANDARD, ctx.rulings)
    state = yield from spend(state, ctx, fid, "Move", STANDARD)
    strikers = [
        e
        for e in foes
        if status(state, e).condition == "active"
        and (leaves_threat(state, fid, e, to) or e in through)
    ]
    for e in strikers:
        state = yield from free_strike(
            state,
            ctx,
            key=f"move/{e}",
            striker=e,
            target=fid,
            reason="moved through its threatened area",
        )
        if status(state, fid).condition != "active":
            return state
    gaps = gaps_of((fid, o, n) for o, n in to.items())
    return (
        yield from emit(
            Moved(rule="G2 Move", fighter=fid, inches=inches, gaps=gaps), GangfightState
        )
    )
