"""Close combat attacks outside the normal sequence of the battle (Necromunda Core Rulebook
(2023), Close Combat, its opening): "certain skills, gang tactics and the Mounted condition" let a
fighter make one. Which skills and tactics do is their own rule, not the close combat section's:
the setup lists, per fighter, the skills it has that grant one (``skills``) and whether it is
Mounted (``mounted``), and per gang its tactics that grant one (``tactics``). The attack itself
follows the close combat sequence, steps 1 to 8, as any close combat attack does.
"""

from __future__ import annotations

from blowbyblow.domain.core import RuleViolation
from blowbyblow.domain.necromunda.editions import Edition
from blowbyblow.domain.necromunda.events import GrantSource
from blowbyblow.domain.necromunda.state import MOUNTED, FighterState, NecromundaState


def grants(state: NecromundaState, fighter: FighterState) -> tuple[str, ...]:
    """What lets the fighter attack outside the sequence: its skills, its gang's tactics, and
    "Mounted" if it has that condition (in that order, without repeats)."""
    mounted = (MOUNTED,) if fighter.mounted else ()
    return tuple(dict.fromkeys((*fighter.skills, *state.tactics.get(fighter.gang, ()), *mounted)))


def grant_source(
    state: NecromundaState, edition: Edition, fighter: FighterState, granted_by: str
) -> GrantSource:
    """Whether ``granted_by`` is a skill of the fighter, a tactic of its gang or its Mounted
    condition; a RuleViolation naming what it has otherwise."""
    if granted_by in fighter.skills:
        return "skill"
    if granted_by in state.tactics.get(fighter.gang, ()):
        return "gang tactic"
    if granted_by == MOUNTED and fighter.mounted:
        return "Mounted"
    has = grants(state, fighter)
    raise RuleViolation(
        edition.rule(edition.granted_attack_section),
        f"{fighter.id} has no skill, gang tactic or condition {granted_by!r} that grants a close "
        "combat attack outside the sequence"
        + (f" (it has: {', '.join(has)})" if has else " (it has none)"),
    )
