"""The rule steps of Duel: one event per step, each naming the section it applies in ``rule``.

Never rename an event class or its fields once battles are recorded: ``type`` (the class name)
and every field are in the log, and the hash chain covers their bytes.
"""

from __future__ import annotations

from typing import Literal

from blowbyblow.domain.core import Event, Modifier, RuleEvent

# copy me: one RuleEvent per rule step, carrying the numbers it used (natural roll, each modifier
# with its cause and rule, the target number, the result), so a reader can check it by hand.


class TurnPassed(RuleEvent, frozen=True, kw_only=True):
    """D1.2: the turn passes to ``fighter``."""

    turn: int
    fighter: str


class GuardTaken(RuleEvent, frozen=True, kw_only=True):
    """D1.3: ``fighter`` is on Guard."""

    fighter: str


class GuardLowered(RuleEvent, frozen=True, kw_only=True):
    """D1.3 (its next turn begins) or D2.5 (Short Guard: struck at): ``fighter``'s Guard ends."""

    fighter: str


class Rose(RuleEvent, frozen=True, kw_only=True):
    """D1.4: ``fighter`` is standing again."""

    fighter: str


class HitRolled(RuleEvent, frozen=True, kw_only=True):
    """D2: the to-hit roll. ``decided_by`` says what settled it: the total against the Defence,
    a tie (the ruling ``ties``), or a natural 1 or 6 (D2.3)."""

    attacker: str
    target: str
    natural: int
    modifiers: tuple[Modifier, ...]
    total: int
    defence: int
    hit: bool
    decided_by: Literal["total", "tie", "natural"]


class WoundsLost(RuleEvent, frozen=True, kw_only=True):
    """D3: ``fighter`` loses ``wounds`` to ``by``'s hit and has ``left``."""

    fighter: str
    by: str
    wounds: int
    left: int


class KnockedDown(RuleEvent, frozen=True, kw_only=True):
    """D3.2: a telling blow knocks ``fighter`` Down."""

    fighter: str
    by: str


class OutOfAction(RuleEvent, frozen=True, kw_only=True):
    """D4.1: ``fighter`` has no Wounds left; ``by`` wins the duel."""

    fighter: str
    by: str


EVENT_TYPES: tuple[type[Event], ...] = (
    TurnPassed,
    GuardTaken,
    GuardLowered,
    Rose,
    HitRolled,
    WoundsLost,
    KnockedDown,
    OutOfAction,
)
