"""D2 Striking, D3 Wounds, D4 Out of action: one strike, from its to-hit roll to its outcome."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, Literal

from blowbyblow.domain.core import Context, Modifier, RuleViolation, Step, ask, emit, roll

from bxb_duel.commands import Strike
from bxb_duel.events import GuardLowered, HitRolled, KnockedDown, OutOfAction, WoundsLost
from bxb_duel.rulings import SHORT_GUARD, TIES
from bxb_duel.state import DuelState, Steps

TELLING_BLOW = ("two-wounds", "knock-down")  # D3.2, as the striker is asked


def check_target(state: DuelState, command: Strike) -> None:
    """D1.2: a fighter strikes at the other fighter, no one else."""
    foe = state.opponent(command.attacker)
    if command.target != foe:
        raise RuleViolation("D1.2", f"{command.attacker} can strike at {foe} only")


def modifiers(state: DuelState, command: Strike) -> tuple[Modifier, ...]:
    """D2.1 and D2.2: the striker's Skill, -1 for a target on Guard, +1 for a target Down."""
    mods: list[Modifier] = []
    skill = state.profile(command.attacker).skill
    if skill:
        mods.append(Modifier(value=skill, cause=f"{command.attacker}'s Skill", rule="D2.1"))
    target = state.fighters[command.target]
    if target.guarding:
        mods.append(Modifier(value=-1, cause=f"{command.target} on Guard", rule="D2.2"))
    if target.status == "down":
        mods.append(Modifier(value=1, cause=f"{command.target} is Down", rule="D2.2"))
    return tuple(mods)


def judge(
    natural: int, total: int, defence: int, ctx: Context
) -> tuple[bool, Literal["total", "tie", "natural"]]:
    """D2.1 and D2.3: whether the strike hits, and what settled it."""
    if natural in (1, 6):
        return natural == 6, "natural"
    if total == defence:
        # copy me: a ruling is read like this, by its constant, and nowhere else.
        return ctx.ruling(TIES) == "attacker", "tie"
    return total > defence, "total"


def roll_to_hit(
    state: DuelState, command: Strike, ctx: Context
) -> Generator[Step, Any, tuple[DuelState, HitRolled]]:
    """D2.1: roll a D6, add Skill and modifiers, compare with the target's Defence."""
    (natural,) = yield from roll(
        "to-hit", 1, 6, purpose=f"{command.attacker} strikes at {command.target}"
    )
    mods = modifiers(state, command)
    total = natural + sum(m.value for m in mods)
    defence = state.profile(command.target).defence
    hit, decided_by = judge(natural, total, defence, ctx)
    event = HitRolled(
        rule="D2.3" if decided_by == "natural" else "D2.1",
        attacker=command.attacker,
        target=command.target,
        natural=natural,
        modifiers=mods,
        total=total,
        defence=defence,
        hit=hit,
        decided_by=decided_by,
    )
    state = yield from emit(event, DuelState)
    return state, event


def short_guard(state: DuelState, target: str, ctx: Context) -> Steps:
    """D2.5 (a variant, the ruling ``short-guard``): a strike lowers its target's Guard."""
    if ctx.ruling(SHORT_GUARD) == "on" and state.fighters[target].guarding:
        state = yield from emit(GuardLowered(rule="D2.5", fighter=target), DuelState)
    return state


def wound(state: DuelState, hit: HitRolled) -> Steps:
    """D3.1: a hit takes one Wound. D3.2: a telling blow (a natural 6) takes two, or one and
    knocks the target Down, as the striker chooses. D4.1: no Wounds left, out of action."""
    if not hit.hit:
        return state
    lost, rule, knock = 1, "D3.1", False
    if hit.natural == 6:
        # copy me: a player's choice is asked like this; the answer is recorded with its key.
        answer = yield from ask(
            "telling-blow",
            TELLING_BLOW,
            default="two-wounds",
            prompt=f"telling blow: two Wounds on {hit.target}, or one Wound and knock it Down?",
        )
        lost, rule, knock = (2, "D3.2", False) if answer == "two-wounds" else (1, "D3.2", True)
    before = state.fighters[hit.target].wounds
    left = max(0, before - lost)
    state = yield from emit(
        WoundsLost(rule=rule, fighter=hit.target, by=hit.attacker, wounds=before - left, left=left),
        DuelState,
    )
    if left == 0:
        state = yield from emit(
            OutOfAction(rule="D4.1", fighter=hit.target, by=hit.attacker), DuelState
        )
    elif knock and state.fighters[hit.target].status != "down":
        state = yield from emit(
            KnockedDown(rule="D3.2", fighter=hit.target, by=hit.attacker), DuelState
        )
    return state


def strike(state: DuelState, command: Strike, ctx: Context) -> Steps:
    """D2 to D4: one strike."""
    check_target(state, command)
    state, hit = yield from roll_to_hit(state, command, ctx)
    state = yield from short_guard(state, command.target, ctx)
    return (yield from wound(state, hit))
