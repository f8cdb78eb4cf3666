"""Free Strikes (Combat): a model that moves through the threatened area of an enemy gives it a
Free Strike, a free action in which no dice may be dropped to lower the Target Number. A missed
Slam! and a failed Trample give one too."""

from __future__ import annotations

from dataclasses import dataclass

from blowbyblow.domain.core import Context, RuleViolation, ask, emit
from blowbyblow.domain.gangfight.commands import TakeFreeStrike
from blowbyblow.domain.gangfight.events import FreeStrike, FreeStrikeDeclined
from blowbyblow.domain.gangfight.melee import Attack, attack_roll, check_target, inflict_wounds
from blowbyblow.domain.gangfight.rulings import ATTACK_INCAPACITATED
from blowbyblow.domain.gangfight.state import GangfightState, Gen, fighter, status
from blowbyblow.domain.gangfight.two_weapons import weapons_used

RULE = "GF Free Strikes"


@dataclass(frozen=True, kw_only=True)
class Provoked:
    """A Free Strike ``striker`` may make on ``target``, and why. Its rolls and choices are
    asked under ``key``; when ``offer`` its player is asked first whether to strike."""

    key: str
    striker: str
    target: str
    reason: str
    weapons: tuple[str, ...] = ()
    offer: bool = True


def free_strike_refusal(state: GangfightState, ctx: Context, striker: str, target: str) -> str:
    """Why ``striker`` cannot make a Free Strike on ``target`` now ("" if it can)."""
    s = status(state, striker)
    if s.condition != "active":
        return f"{striker} is {s.condition}"
    if s.prone:
        return f"{striker} is Prone (GF Knocked Down: must stand up before any action)"
    cond = status(state, target).condition
    if cond == "dead" or (
        cond == "incapacitated" and ctx.ruling(ATTACK_INCAPACITATED) == "not-allowed"
    ):
        return f"{target} is {cond}"
    return ""


def _declined(provoked: Provoked, reason: str) -> FreeStrikeDeclined:
    return FreeStrikeDeclined(
        rule=RULE, striker=provoked.striker, target=provoked.target, reason=reason
    )


def free_strike(state: GangfightState, ctx: Context, provoked: Provoked) -> Gen:
    """A free action: the striker attacks as in GF Melee 2-6 but may not drop dice to lower the
    Target Number. When the Free Strike is offered, its player is asked first."""
    striker, target = provoked.striker, provoked.target
    refusal = free_strike_refusal(state, ctx, striker, target)
    if refusal:
        return (yield from emit(_declined(provoked, refusal), GangfightState))
    used = weapons_used(state, ctx, striker, provoked.weapons)
    if provoked.offer:
        answer = yield from ask(
            f"{provoked.key}/free-strike",
            ("strike", "decline"),
            default="strike",
            prompt=f"{striker}: make a Free Strike on {target} ({provoked.reason})?",
        )
        if answer == "decline":
            return (yield from emit(_declined(provoked, "declined"), GangfightState))
    state = yield from emit(
        FreeStrike(rule=RULE, striker=striker, target=target, reason=provoked.reason),
        GangfightState,
    )
    attack = Attack(
        ctx=ctx,
        attacker=striker,
        target=target,
        weapons=used,
        kind="free-strike",
        key=provoked.key,
        may_drop=False,
    )
    state, test = yield from attack_roll(state, attack)
    return (yield from inflict_wounds(state, attack, test.successes))


def take_free_strike(state: GangfightState, ctx: Context, command: TakeFreeStrike) -> Gen:
    """A Free Strike the engine could not see coming, declared by its player: refused when the
    striker could not make one now."""
    fighter(state, command.striker)
    check_target(state, ctx, command.striker, command.target)
    weapons_used(state, ctx, command.striker, command.weapons)
    refusal = free_strike_refusal(state, ctx, command.striker, command.target)
    if refusal:
        raise RuleViolation(RULE, refusal)
    provoked = Provoked(
        key="free-strike",
        striker=command.striker,
        target=command.target,
        reason=command.reason,
        weapons=command.weapons,
        offer=False,
    )
    return (yield from free_strike(state, ctx, provoked))
