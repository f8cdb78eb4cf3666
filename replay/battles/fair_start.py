"""Fair battles started and given their contributions: the writes of docs/judging.md's fair
dice, in the battles room (the only room that writes to a battle), on top of what the evidence
room reads of them (``replay/evidence/fairness.py``: the terms, the battle, its start as the log
holds it, its dice).

``start_fair`` writes the start (commitment and escrow), then asks every side's value once the
commitment is written and can be shown, and writes them all in one transaction; a value given
with the start, before any commitment exists, is refused (issue 26: whoever runs the table,
knowing it in advance, could start again until the dice suited them). ``contribute`` adds values
given later, each side once, before the first command."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from uuid import UUID

from blowbyblow.domain.core import BattleStarted, BlowByBlowError, DiceSpec
from blowbyblow.domain.judging import ContributionGiven, SeedEscrowed
from blowbyblow.domain.system import AnyScenario
from blowbyblow.replay.engine import logs
from blowbyblow.replay.engine.codec import encode
from blowbyblow.replay.engine.dice import FAIR_ALGORITHM
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import start_event
from blowbyblow.replay.evidence.fairness import (
    BEFORE_THE_COMMITMENT,
    LOGGER,
    FairBattle,
    FairnessError,
    FairTerms,
    StartedAndKept,
    check_contributions,
    load_fair,
    sides_of,
)
from blowbyblow.replay.evidence.seals import (
    commitment,
    escrow_seed,
    load_escrow_public_key,
    new_fair_seed,
)
from blowbyblow.replay.store.log import BattleStore, LoggedEvent, battle_id_for


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


def contribute(
    store: BattleStore, battle: UUID, contributions: Mapping[str, str]
) -> list[LoggedEvent]:
    """Add contributions to a fair battle that has none from these sides yet and no command:
    for a server where each player gives theirs from their own device. In a judge's fork of a
    fair battle, the sides' new values, once the fork is written, before its first command
    played live (docs/dice.md, Fair dice in a fork)."""
    from blowbyblow.replay.evidence.fair_forks import fair_link

    child = store.read(battle)
    if fair_link([e.event for e in child[:2]]) is not None:
        return _contribute_in_fork(store, battle, child, contributions)
    events, start = load_fair(store, battle)
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


def untouched_starts(
    store: BattleStore, scenario: AnyScenario, judge_keys: Sequence[str]
) -> list[UUID]:
    """Fair battles whose start is the one ``scenario`` would make (but for its commitment),
    escrowed to these ``judge_keys``, and nothing after it: no contribution, no command. A start
    killed before whoever asked for it was told leaves one (a server writes the battle, then
    places it at its table); given the same start again, the server places that one rather than
    leave it an orphan (docs/web.md). Taking it over lets nobody pick a die: its seed was made
    and committed before any value was asked for, and none has been given."""
    ruleset = get_game_system(scenario.ruleset)
    judges = sorted(load_escrow_public_key(k) for k in judge_keys)
    found: list[UUID] = []
    for info in store.battles():
        if info.label != scenario.label or info.version != 2 or info.ruleset != ruleset.id:
            continue
        events = store.read(info.battle)
        first, escrow = (events[0].event, events[1].event) if len(events) == 2 else (None, None)
        if not isinstance(first, BattleStarted) or not isinstance(escrow, SeedEscrowed):
            continue
        if first.origin is not None or first.dice.algorithm != FAIR_ALGORITHM:
            continue
        spec = DiceSpec(mode="fair", algorithm=FAIR_ALGORITHM, commitment=first.dice.commitment)
        try:
            alike = encode(start_event(ruleset, scenario, spec)) == encode(first)
        except BlowByBlowError:
            return []
        if alike and sorted(box.judge for box in escrow.boxes) == judges:
            found.append(info.battle)
    return found


def _contribute_in_fork(
    store: BattleStore,
    battle: UUID,
    events: list[LoggedEvent],
    contributions: Mapping[str, str],
) -> list[LoggedEvent]:
    """A side's new value in a fair fork: each side once; none is missing once a command is
    played live (its dice need them all), so every value comes before the first."""
    from blowbyblow.replay.evidence.fair_forks import child_contributions

    first = events[0].event
    assert isinstance(first, BattleStarted)
    ruleset = get_game_system(first.ruleset)
    sides = sides_of(ruleset, first.setup)
    already = child_contributions([e.event for e in events])
    given = check_contributions(sides, contributions, already)
    if not given:
        raise FairnessError("no contribution given: expected SIDE=VALUE for a side")
    fair = FairBattle(battle, ruleset, first, sides, already, events, "")
    before = len(fair.events)
    _append_contributions(store, fair, given)
    return fair.events[before:]


__all__ = ["contribute", "start_fair", "untouched_starts"]
