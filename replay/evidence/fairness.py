"""Fair battles: dice that neither side nor the operator can pick alone, checkable by anyone
once the judge has sealed the battle (docs/judging.md, docs/dice.md).

A fair battle starts in this order, each step written before the next is asked for:

1. the table makes a secret seed and writes, in one transaction, ``BattleStarted`` (with only
   the seed's commitment) and ``SeedEscrowed`` (the seed encrypted to the judges' escrow keys);
2. each side gives a value of its own, having seen the commitment: ``ContributionGiven``, one
   per side, in one transaction. A value given with the start, before the commitment exists, is
   refused: whoever runs the table, knowing every value in advance, could otherwise start again
   and again (in a store of their own) until a seed gave dice that suit them;
3. the dice are drawn from the seed mixed with every contribution (``bxb-fair-v2``).

So the seed is fixed before anyone's contribution is known, and the contributions are given
without knowing the seed: nobody alone decides a die. A battle once started stays in the store,
whatever happens next, so a table cannot quietly start again until the dice suit it.

This module reads: the terms, a started battle (``FairBattle``, whose ``dice()`` is the dice
source to play it with), its start as the log holds it, and ``open_fair``, which picks a started
battle up again (in a new process) from the table's own copy of the seed, or from the escrow
with a judge's key. The writes, ``start_fair`` and ``contribute``, are the battles room's
(``replay/battles/fair_start.py``), the one room that writes to a battle."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from blowbyblow.domain.core import BattleStarted, BlowByBlowError, CommandIssued, DiceSpec, Event
from blowbyblow.domain.judging import BattleForked, ContributionGiven, ForkLink, SeedEscrowed
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.replay.engine.dice import FAIR_ALGORITHM, FairDice
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.evidence.seals import (
    JudgingError,
    commitment,
    open_escrow,
)
from blowbyblow.replay.store.log import BattleStore, LoggedEvent

if TYPE_CHECKING:
    from blowbyblow.replay.evidence.fair_forks import ChildDice

LOGGER = "blowbyblow.fairness"  # its log lines' logger (structlog is imported when one is written)

MAX_CONTRIBUTION = 200  # characters: a word, a number, a short phrase

# Why a value given before the commitment is refused (issue 26, hole 1).
BEFORE_THE_COMMITMENT = (
    "a side's contribution is given once the table's commitment is shown, not with the start: "
    "a value known before the seed is committed lets whoever runs the table try seeds until the "
    "dice suit them; give each value at the prompt, or after the start (`bxb play --battle ID "
    "--contribution SIDE=VALUE`, the server's contributions)"
)


class FairnessError(BlowByBlowError):
    pass


class OutOfPlace(FairnessError):
    """An event of a fair battle's start missing or out of place, at ``position``."""

    def __init__(self, position: int, message: str) -> None:
        super().__init__(f"position {position}: {message}")
        self.position = position
        self.message = message


class StartedAndKept(FairnessError):
    """Something failed after a fair battle's start was written: the start stays, as evidence."""

    def __init__(self, battle: UUID, reason: str) -> None:
        super().__init__(
            f"fair battle {battle} is started and stays in the store (its commitment, escrow "
            f"and contributions are evidence; `bxb battles` lists it): {reason}"
        )
        self.battle = battle
        self.reason = reason


AskContributions = Callable[["FairBattle"], Mapping[str, str]]


@dataclass(frozen=True)
class FairTerms:
    """What a fair battle is started with."""

    judge_keys: Sequence[str]  # escrow public keys: x25519:HEX, or NAME.escrow.pub files
    # Values given with the start, before any commitment exists: refused (``start_fair``), as
    # whoever runs the table could then try seeds until the dice suit them. Kept as a field so
    # that a caller still giving them is told so, not silently ignored.
    contributions: Mapping[str, str] = field(default_factory=dict)
    # Asked once the start is written and the commitment can be shown: every side's value.
    ask: AskContributions | None = None
    # Keep the table's own copy of the seed (the store's seed vault) to resume the battle later;
    # ``record`` plays the whole battle at once and keeps none.
    keep_seed: bool = True
    # Every side must have contributed by the end of the start (checked before anything is
    # written when there is no ``ask``): ``record`` needs the dice at once.
    all_at_start: bool = False


@dataclass
class FairBattle:
    """A fair battle that has started: its events so far and, once every side has given its
    contribution, its dice."""

    battle: UUID
    ruleset: AnyGameSystem
    started: BattleStarted[Any]
    sides: tuple[str, ...]
    contributions: dict[str, str]
    events: list[LoggedEvent]
    seed: str = field(repr=False)  # secret until the seal: never print or store it
    # A judge's fork of a fair battle (``fair_forks.py``): its link, and the dice its parent
    # recorded, by key, which it rolls again where it makes the same roll.
    link: ForkLink | None = None
    inherited: dict[str, tuple[int, ...]] = field(default_factory=dict, repr=False)

    @property
    def commitment(self) -> str:
        """What the values are mixed with, committed before any was given: the seed's
        commitment, or in a fork the link's commitment to its parent's dice seed."""
        if self.link is not None:
            return self.link.dice
        return self.started.dice.commitment or ""

    @property
    def missing(self) -> tuple[str, ...]:
        """The sides whose contribution is still awaited."""
        return tuple(s for s in self.sides if s not in self.contributions)

    def dice(self) -> FairDice | ChildDice:
        """The battle's dice source; only once every side has given its contribution."""
        if self.missing or not self.contributions:
            raise FairnessError(
                f"fair battle {self.battle}: no dice until every side has given its "
                f"contribution (waiting for {', '.join(self.missing) or 'a side'})"
            )
        if self.link is not None:
            from blowbyblow.replay.evidence.fair_forks import ChildDice

            return ChildDice(self.link, self.inherited, self.seed, self.contributions)
        return FairDice(self.seed, self.contributions)


@dataclass(frozen=True)
class FairStart:
    """What a fair battle's log holds before its first command."""

    escrow: SeedEscrowed | None
    contributions: dict[str, str]
    length: int  # events before the first command, BattleStarted included


def sides_of(ruleset: AnyGameSystem, setup: Any) -> tuple[str, ...]:
    """The sides (players) of a setup, each of whom gives a contribution."""
    return ruleset.view(ruleset.initial_state(setup)).sides


def is_escrowed(dice: DiceSpec) -> bool:
    """A fair battle of the kind ``start_fair`` makes (escrowed seed, contributions)."""
    return dice.mode == "fair" and dice.algorithm == FAIR_ALGORITHM


def check_contributions(
    sides: tuple[str, ...], given: Mapping[str, str], already: Mapping[str, str] | None = None
) -> dict[str, str]:
    """``given`` with each side named as the setup names it (case aside); FairnessError naming
    the first side or value that is wrong."""
    by_fold = {s.casefold(): s for s in sides}
    out: dict[str, str] = {}
    for raw_side, raw_value in given.items():
        side = by_fold.get(raw_side.strip().casefold()) if sides else raw_side.strip()
        if not side:
            raise FairnessError(
                f"contribution for {raw_side!r}: expected one of the sides {', '.join(sides)}"
            )
        if side in out or (already and side in already):
            raise FairnessError(f"contribution for {side}: given twice; a side gives one value")
        out[side] = _check_value(side, raw_value)
    return out


def _check_value(side: str, raw: str) -> str:
    value = raw.strip()
    if not 1 <= len(value) <= MAX_CONTRIBUTION or any(
        unicodedata.category(c).startswith("C") for c in value
    ):
        raise FairnessError(
            f"contribution for {side}: expected a word, number or phrase of 1 to "
            f"{MAX_CONTRIBUTION} printable characters, not {raw!r}"
        )
    return value


def read_fair_start(events: Sequence[Event]) -> FairStart:
    """The start of a fair battle's log: its escrow at position 2, then the contributions, up to
    the first command. FairnessError naming what is out of place."""
    escrow = events[1] if len(events) > 1 and isinstance(events[1], SeedEscrowed) else None
    if escrow is None:
        raise OutOfPlace(2, "a fair battle's seed must be escrowed right after its start")
    contributions: dict[str, str] = {}
    n = 2
    while n < len(events) and isinstance(events[n], ContributionGiven):
        given = events[n]
        assert isinstance(given, ContributionGiven)
        if given.side in contributions:
            raise OutOfPlace(n + 1, f"a second contribution for {given.side}")
        contributions[given.side] = given.value
        n += 1
    if n < len(events) and not isinstance(events[n], CommandIssued):
        raise OutOfPlace(
            n + 1,
            f"{type(events[n]).__name__} where a contribution or the first command was expected",
        )
    return FairStart(escrow=escrow, contributions=contributions, length=n)


def start_length(events: Sequence[Event]) -> int:
    """How many events of a battle's log come before its first command: 1 (``BattleStarted``),
    or, in a fair battle, its escrow and contributions too (what-if and other re-runs start
    after them)."""
    first = events[0] if events else None
    if isinstance(first, BattleStarted) and is_escrowed(first.dice) and first.origin is None:
        return read_fair_start(events).length
    return 1


def load_fair(store: BattleStore, battle: UUID) -> tuple[list[LoggedEvent], FairStart]:
    """A fair battle's records and what its log holds before its first command."""
    events = store.read(battle)
    if not events or not isinstance(events[0].event, BattleStarted):
        raise FairnessError(f"no battle {battle} in this store")
    if not is_escrowed(events[0].event.dice):
        raise FairnessError(f"battle {battle} is not a fair battle with an escrowed seed")
    return events, read_fair_start([e.event for e in events])


def open_fair(
    store: BattleStore, battle: UUID, *, key: Ed25519PrivateKey | None = None
) -> FairBattle:
    """A started fair battle picked up again, in this process: its seed from the table's own
    copy (the store's seed vault) or, with a judge's ``key``, from the escrow. A judge's fork
    of a fair battle: its parent's dice opened so, its own seed derived from them
    (``fair_forks.py``)."""
    from blowbyblow.replay.evidence.fair_forks import fair_link, open_child

    link = fair_link([e.event for e in store.read(battle, lte=2)])
    if link is not None:
        return open_child(store, battle, store.read(battle), link, key)
    events, start = load_fair(store, battle)
    first = events[0].event
    assert isinstance(first, BattleStarted) and start.escrow is not None
    ruleset = get_game_system(first.ruleset)
    commit = first.dice.commitment or ""
    if key is not None:
        seed = open_escrow(start.escrow, str(battle), commit, key)
    else:
        kept = store.vault.get(str(battle))
        if kept is None or commitment(kept) != commit:
            raise FairnessError(
                f"the seed of fair battle {battle} is not kept on this machine; "
                "a judge's key opens the copy escrowed in the store"
            )
        seed = kept
    sides = sides_of(ruleset, first.setup)
    return FairBattle(battle, ruleset, first, sides, dict(start.contributions), events, seed)


def fair_dice(
    store: BattleStore, battle: UUID, *, key: Ed25519PrivateKey | None = None
) -> FairDice | ChildDice:
    """The dice source of a started fair battle whose sides have all contributed."""
    return open_fair(store, battle, key=key).dice()


def reveal_seed(store: BattleStore, events: Sequence[LoggedEvent], key: Ed25519PrivateKey) -> str:
    """The seed a seal reveals: opened from the escrow with the judge's key, or, for a fair
    battle recorded before escrow existed, the table's copy; it must match the commitment."""
    first = events[0].event
    assert isinstance(first, BattleStarted)
    battle = str(events[0].originator_id)
    commit = first.dice.commitment or ""
    if first.origin is not None and len(events) > 1 and isinstance(events[1].event, BattleForked):
        from blowbyblow.replay.evidence.fair_forks import fair_link, parent_dice_seed

        if fair_link([events[0].event, events[1].event]) is None:
            raise JudgingError(
                f"battle {battle} is a fork of a fair battle made before forks had dice of their "
                "own: its dice are its first ancestor's, and no seal of its own reveals them"
            )
        return parent_dice_seed(store, events, key)
    if is_escrowed(first.dice):
        start = read_fair_start([e.event for e in events])
        assert start.escrow is not None
        return open_escrow(start.escrow, battle, commit, key)
    kept = store.vault.get(battle)
    if kept is None or commitment(kept) != commit:
        raise JudgingError(f"the secret seed of fair battle {battle} is not in this store's vault")
    return kept


def shown_values(events: Sequence[Event]) -> tuple[str, dict[str, str]] | None:
    """What a fair battle shows its sides: the commitment their values are mixed with, and the
    values given so far; a judge's fork of a fair battle shows its link's commitment and its
    sides' new values. None for other dice, a fork made before forks had dice of their own, or
    a start that cannot be read."""
    from blowbyblow.replay.evidence.fair_forks import child_contributions, fair_link

    first = events[0] if events else None
    if not isinstance(first, BattleStarted) or not is_escrowed(first.dice):
        return None
    if first.origin is not None:
        link = fair_link(events[:2])
        return None if link is None else (link.dice, child_contributions(events))
    try:
        return first.dice.commitment or "", read_fair_start(events).contributions
    except FairnessError:
        return None


def dice_seed(first: BattleStarted[Any], events: Sequence[Event], revealed: str) -> str:
    """The seed every digital die of a fair battle is drawn from, once ``revealed``: mixed with
    the contributions (a what-if re-run of a fair battle has none of its own)."""
    if is_escrowed(first.dice) and first.origin is None:
        return FairDice(revealed, read_fair_start(events).contributions).seed
    return revealed


__all__ = [
    "FairBattle",
    "FairStart",
    "FairTerms",
    "FairnessError",
    "StartedAndKept",
    "check_contributions",
    "dice_seed",
    "fair_dice",
    "load_fair",
    "open_fair",
    "read_fair_start",
    "reveal_seed",
    "shown_values",
    "sides_of",
    "start_length",
]
