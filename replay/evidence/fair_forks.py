"""Fair dice in a fork (docs/dice.md, Fair dice in a fork): a judge's fork of a fair battle is no
way to re-roll, and the dice it rolls anew are as fair as its parent's.

- Every die the parent recorded is the child's again. The commands the fork keeps and replays
  take their own recorded dice (never drawn anew by another key: a command replayed under
  another number would otherwise roll other dice), and the replay stops at the first roll its
  record lacks. After the hand-over, a roll the parent made under the same key (counted in the
  parent's numbering) gives the parent's values again, labelled ``inherited``.
- A roll the parent never made is drawn from the child's own dice seed, which nobody can know
  when the fork is chosen: ``D = bxb-fair-v2(S, the child's contributions)`` with ``S =
  SHA-256("bxb-fork-v1" 0x00 PARENT-DICE-SEED 0x00 CHILD-ID)`` in hex. The judge's link commits
  to the parent's dice seed (``ForkLink.dice``); each side gives a new value in the child once
  the fork is written and shown (``ContributionGiven``, after the commands the fork wrote,
  before the first one played live). So a judge who can open the parent's dice, and could
  work out the child's for every fork he might make, cannot pick among them: the values come
  after the fork is fixed. A side cannot either: it does not know the parent's seed.
- The child's seal reveals the parent's dice seed (checked against the link): every die drawn
  anew is recomputed from it, the child's id and the contributions. The dice the child took
  from its parent are checked against the parent's record (``disputes.parent_problem``), and the
  parent's against its own seal, which is refused while its child is not sealed (it would
  reveal the seed the child's dice are drawn from)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
from uuid import UUID

from blowbyblow.domain.core import BattleStarted, DiceRolled, Event
from blowbyblow.domain.judging import (
    CORRECTED_BY_JUDGE,
    BattleForked,
    CommandDropped,
    ContributionGiven,
    DieCorrected,
    ForkLink,
)
from blowbyblow.projections.disputes import commands_played
from blowbyblow.replay.engine.dice import DiceSource, FairDice
from blowbyblow.replay.engine.numbers import whole_number

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from blowbyblow.replay.evidence.fairness import FairBattle
    from blowbyblow.replay.store.log import BattleStore, LoggedEvent

FORK_DICE = "bxb-fork-v1"
INHERITED = "inherited"  # a die a fair child re-used from its parent's record, by the same key


def fork_secret(parent_dice_seed: str, child: UUID | str) -> str:
    """The secret a fair child's own dice are mixed from (with its sides' new values)."""
    return hashlib.sha256(f"{FORK_DICE}\x00{parent_dice_seed}\x00{child}".encode()).hexdigest()


def fair_link(events: Sequence[Event]) -> ForkLink | None:
    """A child's link, when it is a fork of a fair battle with dice of its own (a fork made
    before forks had them says no ``dice``: its dice are its first ancestor's)."""
    first = events[0] if events else None
    if not isinstance(first, BattleStarted) or first.origin is None or first.dice.mode != "fair":
        return None
    forked = events[1] if len(events) > 1 else None
    if isinstance(forked, BattleForked) and forked.link.dice:
        return forked.link
    return None


def parent_key(link: ForkLink, key: str) -> str:
    """The key the parent rolled a child's roll ``key`` under: a fork that voids command N
    plays the parent's later commands each under the number before its own."""
    head, sep, rest = key.partition("/")
    number = whole_number(head[1:]) if head.startswith("c") else None
    if not sep or number is None:
        return key
    change = link.change
    if isinstance(change, CommandDropped) and number >= change.index:
        number += 1
    return f"c{number}/{rest}"


def recorded_dice(events: Sequence[Event]) -> dict[str, tuple[int, ...]]:
    """Every die of a battle's commands that stand, by key."""
    return {
        e.key: e.values
        for command in commands_played(events)
        for e in command.events
        if isinstance(e, DiceRolled)
    }


def child_contributions(events: Sequence[Event]) -> dict[str, str]:
    """The values a fair child's sides gave once the fork was written."""
    return {e.side: e.value for e in events[2:] if isinstance(e, ContributionGiven)}


class ChildDice:
    """A fair child's dice after the hand-over: the judge's corrected die where the link names
    it, the parent's recorded die where the parent rolled the same key, else a die drawn from
    the child's own seed."""

    source = "seeded"

    def __init__(
        self,
        link: ForkLink,
        inherited: Mapping[str, tuple[int, ...]],
        secret: str,
        contributions: Mapping[str, str],
    ) -> None:
        self.link, self.inherited = link, inherited
        self.fresh = FairDice(secret, contributions)
        self.seed = self.fresh.seed

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        change = self.link.change
        if isinstance(change, DieCorrected) and change.key == key and len(change.values) == n:
            return change.values, CORRECTED_BY_JUDGE
        found = self.inherited.get(parent_key(self.link, key))
        if found is not None and len(found) == n and all(1 <= v <= sides for v in found):
            return found, INHERITED
        return self.fresh.roll(key, n, sides, purpose)


def open_child(
    store: BattleStore,
    battle: UUID,
    events: list[LoggedEvent],
    link: ForkLink,
    key: Ed25519PrivateKey | None,
) -> FairBattle:
    """A fair child picked up: its parent's dice opened (the table's copy of the first
    ancestor's seed, or the escrow with a judge's ``key``) and checked against the link."""
    from blowbyblow.replay.engine.registry import get_game_system
    from blowbyblow.replay.evidence.fairness import FairBattle, FairnessError, open_fair, sides_of
    from blowbyblow.replay.evidence.seals import commitment

    first = events[0].event
    assert isinstance(first, BattleStarted) and first.origin is not None
    parent = open_fair(store, UUID(first.origin), key=key)
    parent_seed = parent.dice().seed
    if commitment(parent_seed) != link.dice:
        raise FairnessError(
            f"battle {battle}: its parent's dice do not match the commitment of the judge's link"
        )
    ruleset = get_game_system(first.ruleset)
    plain = [e.event for e in events]
    return FairBattle(
        battle,
        ruleset,
        first,
        sides_of(ruleset, first.setup),
        child_contributions(plain),
        events,
        fork_secret(parent_seed, battle),
        link=link,
        inherited=recorded_dice([e.event for e in parent.events]),
    )


def child_dice(fair: FairBattle) -> DiceSource:
    assert fair.link is not None
    return ChildDice(fair.link, fair.inherited, fair.seed, fair.contributions)


def parent_dice_seed(store: BattleStore, events: Sequence[LoggedEvent], key: Any) -> str:
    """The seed a fair child's seal reveals: its parent's dice seed, opened with the judge's
    ``key`` and checked against the link."""
    from blowbyblow.replay.evidence.fairness import open_fair
    from blowbyblow.replay.evidence.seals import JudgingError, commitment

    first = events[0].event
    link = fair_link([e.event for e in events[:2]])
    assert isinstance(first, BattleStarted) and first.origin is not None and link is not None
    seed = open_fair(store, UUID(first.origin), key=key).dice().seed
    if commitment(seed) != link.dice:
        raise JudgingError("the parent's dice seed does not match the judge's link")
    return seed


__all__ = [
    "FORK_DICE",
    "INHERITED",
    "ChildDice",
    "child_contributions",
    "child_dice",
    "fair_link",
    "fork_secret",
    "open_child",
    "parent_dice_seed",
    "parent_key",
    "recorded_dice",
]
