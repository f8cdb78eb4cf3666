"""The state of a duel: each fighter's wounds, status and guard, whose turn it is, the winner.

States are immutable: the fold (``projection.evolve``) makes a new one from each event.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, Literal

import msgspec
from blowbyblow.domain.core import Step

from bxb_duel.setup import DuelSetup, Fighter

# copy me: a Literal (or an enum.StrEnum) wherever the rules have a closed set of words.
Status = Literal["standing", "down", "out-of-action"]


class FighterState(msgspec.Struct, frozen=True, kw_only=True):
    wounds: int
    status: Status = "standing"
    guarding: bool = False  # on Guard (D1.3)


class DuelState(msgspec.Struct, frozen=True, kw_only=True):
    setup: DuelSetup
    fighters: dict[str, FighterState]
    active: str  # the fighter whose turn it is (D1.2)
    turn: int = 1
    winner: str = ""  # set when the other fighter is out of action (D4.1)

    def profile(self, fighter: str) -> Fighter:
        for f in self.setup.fighters:
            if f.id == fighter:
                return f
        raise KeyError(fighter)

    def opponent(self, fighter: str) -> str:
        a, b = (f.id for f in self.setup.fighters)
        return b if fighter == a else a

    @property
    def over(self) -> bool:
        return bool(self.winner)


# The rule steps a command runs yield requests and events and end with the state they leave.
Steps = Generator[Step, Any, DuelState]


def initial_state(setup: DuelSetup) -> DuelState:
    """Both fighters standing with all their Wounds; the first fighter to act (D1.2)."""
    return DuelState(
        setup=setup,
        fighters={f.id: FighterState(wounds=f.wounds) for f in setup.fighters},
        active=setup.first or setup.fighters[0].id,
    )
