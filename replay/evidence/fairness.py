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

For front ends (``bxb play``, a tournament server): ``start_fair`` starts a battle and returns a
``FairBattle`` whose ``dice()`` is the dice source to play it with; ``contribute`` adds
contributions given later; ``open_fair`` picks up a started battle again (in a new process) from
the table's own copy of the seed, or from the escrow with a judge's key."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from blowbyblow.domain.core import BattleStarted, BlowByBlowError, CommandIssued, DiceSpec, Event
from blowbyblow.domain.judging import ContributionGiven, SeedEscrowed
from blowbyblow.domain.system import AnyGameSystem, AnyScenario
from blowbyblow.replay.engine import logs
from blowbyblow.replay.engine.dice import FAIR_ALGORITHM, FairDice
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import start_event
from blowbyblow.replay.evidence.seals import (
    JudgingError,
    commitment,
    escrow_seed,
    load_escrow_public_key,
    new_fair_seed,
    open_escrow,
)
from blowbyblow.replay.store.log import BattleStore, LoggedEvent, battle_id_for

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

    @property
    def commitment(self) -> str:
        return self.started.dice.commitment or ""

    @property
    def missing(self) -> tuple[str, ...]:
        """The sides whose contribution is still awaited."""
        return tuple(s for s in self.sides if s not in self.contributions)

    def dice(self) -> FairDice:
        """The battle's dice source; only once every side has given its contribution."""
        if self.missing or not self.contributions:
            raise FairnessError(
                f"fair battle {self.battle}: no dice until every side has given its "
                f"contribution (waiting for {', '.join(self.missing) or 'a side'})"
            )
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


def start_fair(store: BattleStore, scenario: AnyScenario, terms: FairTerms) -> FairBattle:
    """Start a fair battle from ``scenario``'s setup (its actions are not played here): write its
    start (commitment and escrow), then the contributions given or asked for. Everything is
    checked before the first write; anything failing after it raises ``StartedAndKept``."""
    ruleset = get_game_system(scenario.ruleset)
    judges = [load_escrow_public_key(k) for k in terms.judge_keys]
    if not judges:
        raise FairnessError(
            "a fair battle needs the judge's escrow key (x25519:HEX, from `bxb keys new`)"
        )
    seed = new_fair_seed()
    spec = DiceSpec(mode="fair", algorithm=FAIR_ALGORITHM, commitment=commitment(seed))
    started = start_event(ruleset, scenario, spec)
    sides = sides_of(ruleset, started.setup)
    given = check_contributions(sides, terms.contributions)
    if given:
        raise FairnessError(BEFORE_THE_COMMITMENT + f" (given for {', '.join(given)})")
    if terms.all_at_start and terms.ask is None:
        raise FairnessError(
            "every side gives a contribution once the commitment is shown, and nobody is there "
            "to ask (no prompt)"
        )
    battle = battle_id_for(started)
    if store.version(battle):
        raise FairnessError(f"battle {battle} is in the store already")
    escrow = escrow_seed(seed, str(battle), spec.commitment or "", judges)
    if terms.keep_seed:
        store.vault.put(str(battle), seed)
    events = store.append(battle, ruleset.id, 0, [started, escrow])
    logs.logger(LOGGER).info(
        "FairBattleStarted", battle=str(battle), commitment=spec.commitment, judges=len(judges)
    )
    fair = FairBattle(battle, ruleset, started, sides, {}, events, seed)
    try:
        _asked(store, fair, terms)
    except (BlowByBlowError, KeyboardInterrupt, EOFError) as e:
        raise StartedAndKept(battle, str(e) or "the contributions were not given") from None
    return fair


def _asked(store: BattleStore, fair: FairBattle, terms: FairTerms) -> None:
    """Ask every side for its value (the start is written, so the commitment is fixed and can
    be shown), then write them all in one transaction."""
    given = check_contributions(fair.sides, terms.ask(fair)) if terms.ask is not None else {}
    missing = [s for s in fair.sides if s not in given]
    if terms.all_at_start and (missing or not given):  # all of them, or none written
        raise FairnessError(f"no contribution from {', '.join(missing) or 'any side'}")
    if given:
        _append_contributions(store, fair, given)


def _append_contributions(store: BattleStore, fair: FairBattle, given: dict[str, str]) -> None:
    ordered = [s for s in fair.sides if s in given] or sorted(given)
    new = [ContributionGiven(side=s, value=given[s]) for s in ordered]
    fair.events += store.append(fair.battle, fair.ruleset.id, len(fair.events), new)
    fair.contributions.update(given)
    logs.logger(LOGGER).info("ContributionsGiven", battle=str(fair.battle), sides=ordered)


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


def _load(store: BattleStore, battle: UUID) -> tuple[list[LoggedEvent], FairStart]:
    events = store.read(battle)
    if not events or not isinstance(events[0].event, BattleStarted):
        raise FairnessError(f"no battle {battle} in this store")
    if not is_escrowed(events[0].event.dice):
        raise FairnessError(f"battle {battle} is not a fair battle with an escrowed seed")
    return events, read_fair_start([e.event for e in events])


def contribute(
    store: BattleStore, battle: UUID, contributions: Mapping[str, str]
) -> list[LoggedEvent]:
    """Add contributions to a fair battle that has none from these sides yet and no command:
    for a server where each player gives theirs from their own device."""
    events, start = _load(store, battle)
    if start.length < len(events):
        raise FairnessError(f"fair battle {battle} has begun: contributions come before command 1")
    first = events[0].event
    assert isinstance(first, BattleStarted)
    ruleset = get_game_system(first.ruleset)
    sides = sides_of(ruleset, first.setup)
    given = check_contributions(sides, contributions, start.contributions)
    if not given:
        raise FairnessError("no contribution given: expected SIDE=VALUE for a side")
    fair = FairBattle(battle, ruleset, first, sides, dict(start.contributions), events, "")
    before = len(fair.events)
    _append_contributions(store, fair, given)
    return fair.events[before:]


def open_fair(
    store: BattleStore, battle: UUID, *, key: Ed25519PrivateKey | None = None
) -> FairBattle:
    """A started fair battle picked up again, in this process: its seed from the table's own
    copy (the store's seed vault) or, with a judge's ``key``, from the escrow."""
    events, start = _load(store, battle)
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
) -> FairDice:
    """The dice source of a started fair battle whose sides have all contributed."""
    return open_fair(store, battle, key=key).dice()


def reveal_seed(store: BattleStore, events: Sequence[LoggedEvent], key: Ed25519PrivateKey) -> str:
    """The seed a seal reveals: opened from the escrow with the judge's key, or, for a fair
    battle recorded before escrow existed, the table's copy; it must match the commitment."""
    first = events[0].event
    assert isinstance(first, BattleStarted)
    battle = str(events[0].originator_id)
    commit = first.dice.commitment or ""
    if is_escrowed(first.dice):
        start = read_fair_start([e.event for e in events])
        assert start.escrow is not None
        return open_escrow(start.escrow, battle, commit, key)
    kept = store.vault.get(battle)
    if kept is None or commitment(kept) != commit:
        raise JudgingError(f"the secret seed of fair battle {battle} is not in this store's vault")
    return kept


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
    "contribute",
    "dice_seed",
    "fair_dice",
    "open_fair",
    "read_fair_start",
    "reveal_seed",
    "sides_of",
    "start_fair",
    "start_length",
]
