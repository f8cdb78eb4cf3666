"""Hand-to-Hand Combat, Combat Rounds: "for every pair of opposing models in base-to-base
contact, a Combat Round is resolved" in four steps (``procedure.combat_round`` runs them):

1. Roll Attack Dice            ``attack_dice``
   (Parrying, once both have rolled)   ``parrying``
   (Fumbles and Critical Hits)         ``fumbles_and_critical_hits``
2. Calculate Combat Score      ``combat_score``
3. Determine the Winner        ``winner``
4. Resolve Hits & Damage       ``hits``

``CombatRound`` is what every step of one round needs besides the state: the pair, its place in
a Multiple Combat, the rulings in force and the prefix of its dice and choice keys.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from blowbyblow.domain.core import Context, Step, emit
from blowbyblow.domain.wh40k.events import CombatRoundBegun
from blowbyblow.domain.wh40k.rulebook import RULE_ROUNDS
from blowbyblow.domain.wh40k.state import Wh40kState

Gen = Generator[Step, Any, Any]
"""A rule step: yields dice and choice requests and events, returns what the step found."""

Dice = dict[str, list[int]]
"""Each model's Attack dice in a round, by model id (parries change them in place)."""


@dataclass(frozen=True)
class CombatRound:
    """One Combat Round between ``models``. In a Multiple Combat ``models[0]`` is the
    outnumbering model and ``duel`` the round's place in the series (1, 2, ...); ``duel`` is 0
    for a one-on-one fight."""

    models: tuple[str, str]
    duel: int
    ctx: Context

    @property
    def tag(self) -> str:
        """The prefix of the round's dice and choice keys: ``<a>-v-<b>``."""
        return f"{self.models[0]}-v-{self.models[1]}"

    def key(self, *parts: str) -> str:
        return "/".join((self.tag, *parts))

    def opponent(self, model: str) -> str:
        a, b = self.models
        return b if model == a else a

    def sides(self) -> tuple[tuple[str, str], tuple[str, str]]:
        """(model, opponent) for each model, first model first."""
        a, b = self.models
        return (a, b), (b, a)

    def extra_dice(self, model: str) -> int:
        """Multiple Combat: the outnumbering model's extra Attack dice, +1 in the second round,
        +2 in the third..."""
        if model != self.models[0] or self.duel < 2:
            return 0
        return self.duel - 1


def begin_round(state: Wh40kState, rnd: CombatRound) -> Gen:
    """Combat Rounds: the pair begins its round (and the pair has fought this phase)."""
    a, b = rnd.models
    return (
        yield from emit(
            CombatRoundBegun(
                rule=RULE_ROUNDS,
                models=(a, b),
                duel=rnd.duel,
                charging=tuple(m for m in (a, b) if state.charged_this_turn(m)),
                breaking_off=tuple(m for m in (a, b) if m in state.breaking_off),
            ),
            Wh40kState,
        )
    )


__all__ = ["CombatRound", "Dice", "Gen", "begin_round"]
