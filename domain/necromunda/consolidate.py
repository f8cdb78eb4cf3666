"""Close Combat step 8, Consolidate or Coup de Grace.

2023 (Necromunda Core Rulebook): if every enemy model the attacker was engaged with is now
Prone & Seriously Injured or Wrecked, a free Coup de Grace (Simple) against one such fighter;
or, if every one is Seriously Injured, Out of Action or Wrecked, move up to 2" in any direction.
Older rules: if the attacker is no longer Engaged (every enemy it engaged is Seriously Injured
or Out of Action), a free Coup de Grace against a Seriously Injured fighter in base contact, or
move up to 2" (since 1.1, ruling ``coup-de-grace-vision-arc``: the Coup de Grace against an enemy
inside the attacker's vision arc). The player is asked; ruling ``step8-default`` answers when
nobody does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

from blowbyblow.domain.core import Step, ask
from blowbyblow.domain.necromunda.combat import Attack, emit
from blowbyblow.domain.necromunda.coup_de_grace import arc_required, coup_de_grace
from blowbyblow.domain.necromunda.editions import Edition
from blowbyblow.domain.necromunda.events import Consolidated, Step8Forgone
from blowbyblow.domain.necromunda.rulings import STEP8_DEFAULT
from blowbyblow.domain.necromunda.state import (
    OUT_OF_ACTION,
    SERIOUSLY_INJURED,
    WRECKED,
    NecromundaState,
    engaged_with,
)
from blowbyblow.domain.necromunda.status import end_contact, resync_statuses

_DONE = (SERIOUSLY_INJURED, OUT_OF_ACTION, WRECKED)


@dataclass(frozen=True)
class Step8Choices:
    """What step 8 allows: a Coup de Grace (against whom), consolidation; why not, if neither."""

    coup_de_grace: tuple[str, ...]  # the fighters a Coup de Grace may target; empty: not allowed
    consolidate: bool
    why_not: str

    @property
    def options(self) -> tuple[str, ...]:
        return (("coup-de-grace",) if self.coup_de_grace else ()) + (
            ("consolidate",) if self.consolidate else ()
        )


def step8_choices(
    state: NecromundaState, edition: Edition, attacker: str, opponents: Sequence[str]
) -> Step8Choices:
    """What step 8 allows the attacker, given the enemies it was engaged with when it began."""
    me = state.fighters[attacker]
    in_contact_si = [
        o
        for o in state.linked(attacker)
        if state.fighters[o].status == SERIOUSLY_INJURED and state.fighters[o].gang != me.gang
    ]
    statuses = [state.fighters[o].status for o in opponents]
    done = bool(opponents) and all(s in _DONE for s in statuses)
    if edition.step8 == "2023":
        cdg_ok = bool(opponents) and all(s in (SERIOUSLY_INJURED, WRECKED) for s in statuses)
        cdg_targets = [o for o in opponents if state.fighters[o].status == SERIOUSLY_INJURED]
        return Step8Choices(
            coup_de_grace=tuple(o for o in cdg_targets if o in in_contact_si) if cdg_ok else (),
            consolidate=done,
            why_not=(
                "not every enemy it was engaged with is Seriously Injured, Out of Action or Wrecked"
            ),
        )
    free = done and not engaged_with(state, attacker)
    return Step8Choices(
        coup_de_grace=tuple(in_contact_si) if free else (),
        consolidate=free,
        why_not="it is still Engaged",
    )


def step8_consolidate_or_coup_de_grace(
    at: Attack, state: NecromundaState, opponents: Sequence[str], weapon: str
) -> Generator[Step, Any, NecromundaState]:
    """Step 8: ``opponents`` are the enemies the attacker was engaged with when it began;
    ``weapon`` is the one a Coup de Grace uses (the first chosen in the fight, else unarmed)."""
    rule = at.rule("CC 8")
    me = state.fighters[at.attacker]
    if not me.standing:
        return (
            yield from emit(
                Step8Forgone(rule=rule, fighter=at.attacker, reason=f"it is {me.status}")
            )
        )
    choices = step8_choices(state, at.edition, at.attacker, opponents)
    if arc_required(at.edition, at.ctx.rulings):  # the 2017 Coup de Grace: in the vision arc
        seen = tuple(t for t in choices.coup_de_grace if state.in_arc(at.attacker, t))
        choices = dataclasses.replace(choices, coup_de_grace=seen)
    if not choices.options:
        return (
            yield from emit(Step8Forgone(rule=rule, fighter=at.attacker, reason=choices.why_not))
        )
    options = (*choices.options, "none")
    preferred = at.ctx.ruling(STEP8_DEFAULT)
    answer = yield from ask(
        "step8",
        options,
        default=preferred if preferred in options else "none",
        prompt=f'{me.label}: free Coup de Grace, consolidate 2", or nothing?',
    )
    if answer == "none":
        return (
            yield from emit(
                Step8Forgone(rule=rule, fighter=at.attacker, reason="the player chose neither")
            )
        )
    if answer == "consolidate":
        return (yield from consolidate(at, state))
    target = choices.coup_de_grace[0]
    if len(choices.coup_de_grace) > 1:
        target = yield from ask(
            "coup-de-grace/target",
            choices.coup_de_grace,
            default=target,
            prompt=f"{me.label}: Coup de Grace against whom?",
        )
    return (yield from coup_de_grace(at, state, target, weapon, rule))


def consolidate(at: Attack, state: NecromundaState) -> Generator[Step, Any, NecromundaState]:
    """Move up to 2" in any direction: the attacker leaves contact with everyone."""
    rule = at.rule("CC 8")
    left = state.linked(at.attacker)
    state = yield from emit(
        Consolidated(rule=rule, fighter=at.attacker, inches=2, left_contact_with=left)
    )
    state = yield from end_contact(state, at.attacker, left, rule, "consolidated")
    return (yield from resync_statuses(state, f"{at.attacker} consolidated", rule))
