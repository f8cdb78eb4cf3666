"""Odds from the rules that adjudicate: what a command will probably do, and how unlikely what it
did was.

``command_odds`` explores one command, from a state, over every answer its dice can give, with
the very procedure that adjudicates it (``replay.odds.chance``): exact probabilities as fractions when
the tree fits the budget of runs, seeded Monte Carlo with 95% intervals past it, and says which.
It answers, for every fighter or unit, the distribution of its status after the command, the
wounds it loses, whether it leaves the table or is captured; the system's tallies (hits, kills,
Partial Kills, captures…) and every kind of rule step; each side's loss (``replay.odds.outcomes``);
expected values of each; and, given what happened, the probability of an outcome at least as bad
for each side (its percentile).

Where the command comes from: ``scenario_odds`` (a scenario's Nth action, after the ones before
it), ``recorded_odds`` (any recorded command, from the state before it, with what its dice did),
``next_odds`` (a live battle's next command).

Choices follow a named policy: ``default`` (the rules' default answer), ``scripted`` (answers by
key, the default otherwise), ``recorded`` (the answers the log holds) or ``best-for:SIDE`` /
``worst-for:SIDE``: every choice made for the least / the most net loss of SIDE (what it suffers
less what it deals, ``replay.odds.outcomes``), looking at the whole
tree below it. An ``Ask`` does not say who chooses, so these are bounds on SIDE's prospects, not a
two-player minimax; they need the exact tree."""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, cast

import msgspec

from blowbyblow.domain.core import (
    BattleStarted,
    BlowByBlowError,
    ChoiceMade,
    CommandIssued,
    DiceRolled,
    Event,
    exploring,
)
from blowbyblow.domain.system import AnyGameSystem, AnyScenario
from blowbyblow.projections.battle import fold, fold_battle
from blowbyblow.replay.engine.dice import (
    ChoiceSource,
    RecordedChoices,
    RecordedDice,
    ScriptedChoices,
)
from blowbyblow.replay.engine.driver import Table, Turn, adjudicate_commands
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import dice_for, start_event
from blowbyblow.replay.odds import chance
from blowbyblow.replay.odds.answers import (
    CountOdds,
    Estimate,
    Happened,
    Margins,
    Odds,
    Share,
    SideOdds,
    SidePercentile,
    UnitOdds,
    Weights,
    count_odds,
    happened_odds,
    sides_odds,
    units_odds,
    wilson,
)
from blowbyblow.replay.odds.chance import Explorer, OddsError, matcher
from blowbyblow.replay.odds.outcomes import Measure, Outcome
from blowbyblow.replay.odds.sharing import Sharer

DEFAULT_BUDGET = 2000  # runs of the procedure before the exact tree gives way to Monte Carlo
DEFAULT_SAMPLES = 4000
DEFAULT_SEED = "bxb-odds"

POLICIES = ("default", "scripted", "recorded", "best-for", "worst-for")


@dataclass(frozen=True)
class Policy:
    """How the choices a command asks for are answered while exploring it."""

    name: str = "default"
    answers: Mapping[str, str] = field(default_factory=dict)  # scripted / recorded, by key
    side: str = ""  # best-for / worst-for

    @staticmethod
    def parse(text: str, answers: Mapping[str, str] | None = None) -> Policy:
        """``default``, ``scripted``, ``best-for:SIDE`` or ``worst-for:SIDE``."""
        name, _, side = text.partition(":")
        if name not in POLICIES or name == "recorded":
            raise OddsError(
                f"policy {text!r}: expected default, scripted, best-for:SIDE or worst-for:SIDE"
            )
        if name in ("best-for", "worst-for") and not side:
            raise OddsError(f"policy {text!r}: name the side, e.g. {name}:orcs")
        if name not in ("best-for", "worst-for") and side:
            raise OddsError(f"policy {text!r}: only best-for and worst-for take a side")
        return Policy(name=name, answers=dict(answers or {}), side=side)

    @property
    def decides(self) -> bool:
        return self.name in ("best-for", "worst-for")

    def describe(self) -> str:
        return f"{self.name}:{self.side}" if self.side else self.name

    def choices(self) -> ChoiceSource:
        if self.name == "recorded":
            return _ByKey(self.answers)
        if self.name == "scripted":
            return _Scripted(self.answers)
        return ScriptedChoices()


class _Scripted:
    """Answers given by key (full, or without the command's prefix). A script is written for
    the dice that were rolled; on another path the question may not offer its answer, and the
    rules' default is taken there."""

    def __init__(self, answers: Mapping[str, str]) -> None:
        self.answers = answers

    def choose(
        self, key: str, options: tuple[str, ...], default: str, prompt: str
    ) -> tuple[str, str]:
        short = key.split("/", 1)[1] if "/" in key else key
        for k in (key, short):
            answer = self.answers.get(k)
            if answer is not None and answer in options:
                return answer, "scripted"
        return default, "default"


class _ByKey:
    """The answers a log recorded, by full key; the default where the record has none."""

    def __init__(self, answers: Mapping[str, str]) -> None:
        self.answers = answers

    def choose(
        self, key: str, options: tuple[str, ...], default: str, prompt: str
    ) -> tuple[str, str]:
        answer = self.answers.get(key)
        return (answer, "recorded") if answer in options else (default, "default")


# --- one command ---------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class HowToExplore:
    policy: Policy = field(default_factory=Policy)
    budget: int = DEFAULT_BUDGET
    samples: int = DEFAULT_SAMPLES
    seed: str = DEFAULT_SEED
    group: Sequence[str] | None = None  # order-insensitive rolls; None: the system's own claims
    until: frozenset[str] = frozenset()  # stop after the first event of one of these types
    # False: straight to the samples, the graph known past this budget (the odds desk remembers
    # a command it sampled): the same answer, without the runs the graph would spend first
    graph: bool = True


@dataclass(frozen=True)
class Situation:
    """A command about to be adjudicated: at a table (system, rulings), from a state."""

    system: AnyGameSystem
    rulings: Mapping[str, str]
    state: Any
    command: Any
    index: int


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector held off while a command is explored: each run makes and
    drops its containers (frames' values, keys, dice), so the collector's young passes ran
    every few runs (31-52 in a warm 2023 charge, 3% of its instructions) and now and then a
    full pass (10-16 ms, the whole process walked) fell in one call, and found next to nothing:
    an exploration leaves its nodes, states and events to reference counting (``Sharer.close``;
    under 100 objects in cycles, ``tests/odds/test_sharing.py``). Left as it was when it was
    off already; turned on again only by the call that turned it off (another thread's
    exploration under way then merely runs with the collector on)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@exploring()  # the rules' steps asked again at each run keep their answer (``LastAnswer``)
@collector_paused()
def command_odds(
    at: Situation, how: HowToExplore | None = None, happened: Outcome | None = None
) -> Odds:
    """The odds of ``at``'s command; ``happened`` (the outcome its dice gave) adds percentiles.

    Raises RuleViolation when the command is not allowed in the state, OddsError when the policy
    cannot be followed (best-for / worst-for on a tree larger than the budget)."""
    how = how or HowToExplore()
    measure, cmd = prepare(at, how.policy, how.until)
    rules = measure.rules
    patterns = list(rules.order_insensitive if how.group is None else how.group)
    # An illegal command fails here, on its first run, with the rules' own error.
    chance.run_path(cmd, (), traced=False, decisions=False)
    margins, facts = _explore(cmd, measure, how, patterns, happened)
    if how.until:
        stopped = (
            f"stopped after the first {' or '.join(sorted(how.until))}: the tallies count only "
            "the rule steps before it"
        )
        facts["note"] = "; ".join(n for n in (facts.get("note", ""), stopped) if n)
    units, sides = units_odds(measure, margins.units), sides_odds(measure, margins.units)
    tallies = [_tally(measure, margins, i) for i in range(len(rules.tallies))]
    kinds = sorted(
        (name, place) for name, place in measure.kind_places().items() if margins.counted(place)
    )
    events = [count_odds(name, *margins.count(place)) for name, place in kinds]
    return Odds(
        ruleset=at.system.id,
        command=at.index,
        action=action_of(at.command),
        method="exact" if margins.units.exact else "monte-carlo",
        policy=how.policy.describe(),
        budget=how.budget,
        units=units,
        sides=sides,
        tallies=tallies,
        events=events,
        happened=happened_odds(measure, margins, happened) if happened is not None else None,
        **facts,
    )


def _tally(measure: Measure, margins: Margins, i: int) -> CountOdds:
    """Tally ``i`` over the command, with each side's share when its counts say whose they are."""
    tally = measure.rules.tallies[i]
    n = len(measure.rules.tallies)
    by_side = []
    if any(c.by is not None or c.against is not None for c in tally.counts):
        by_side = [
            count_odds(tally.name, *margins.count(n * (1 + s) + i), side=side)
            for s, side in enumerate(measure.before.sides)
        ]
    return count_odds(tally.name, *margins.count(i), by_side=by_side)


def prepare(
    at: Situation, policy: Policy, until: frozenset[str] = frozenset()
) -> tuple[Measure, chance.Command]:
    """How ``at``'s outcomes are measured, and the command to explore: its table answers choices
    by ``policy`` and (``until``) stops after the first event of one of these types."""
    before = at.system.view(at.state)
    measure = Measure(system=at.system, before=before)
    choices = policy.choices()
    table = Table(system=at.system, rulings=at.rulings, dice=_NoDice(), choices=choices, quiet=True)
    cmd = chance.Command(
        table=table,
        state=at.state,
        command=at.command,
        index=at.index,
        leaf=lambda adj: measure(adj.events, adj.state),
        choices=choices,
        until=(lambda event: type(event).__name__ in until) if until else None,
    )
    known = {t.__name__ for t in at.system.event_types}
    unknown = sorted(until - known)
    if unknown:
        raise OddsError(
            f"until: {', '.join(unknown)} is not an event of {at.system.id}; its events are: "
            + ", ".join(sorted(known))
        )
    if policy.side and policy.side not in before.sides:
        raise OddsError(
            f"policy {policy.describe()}: no side {policy.side!r} here; the sides are "
            + ", ".join(before.sides)
        )
    return measure, cmd


class _NoDice:
    source = "none"

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        raise OddsError(f"roll {key!r} asked outside an exploration")  # pragma: no cover


def _explore(
    cmd: chance.Command,
    measure: Measure,
    how: HowToExplore,
    patterns: list[str],
    happened: Outcome | None,
) -> tuple[Margins, dict[str, Any]]:
    if how.policy.decides:
        return _decided(cmd, measure, how, patterns, happened)
    shared = _shared(cmd, measure, how, patterns, happened) if how.graph else None
    if shared is not None:
        return shared
    if how.samples < 1:
        raise OddsError(f"more than {how.budget} runs needed and no samples allowed")
    counts = chance.sample(cmd, how.samples, how.seed)
    facts = {
        "runs": how.samples,
        "outcomes": len({cast(Outcome, o).units for o in counts}),
        "grouped": [],
        "traced": False,
        "samples": how.samples,
        "seed": how.seed,
        "note": f"more than {how.budget} runs needed for the exact odds",
    }
    found = cast(list[Outcome], list(counts))
    weights = Weights(found, [Fraction(counts[o]) for o in found], exact=False)
    return Margins.of_joint(measure, weights, happened), facts


def _decided(
    cmd: chance.Command,
    measure: Measure,
    how: HowToExplore,
    patterns: list[str],
    happened: Outcome | None,
) -> tuple[Margins, dict[str, Any]]:
    """Every choice made for (or against) a side: the exact tree, each choice a decision node
    whose answer is the option whose subtree gives the side the least (the most) net loss."""
    side = how.policy.side

    def expected(dist: chance.Distribution) -> Fraction:
        return measure.expected_net_loss(dist, side)

    decide = chance.Decider(expected, maximise=how.policy.name == "worst-for")
    for traced in (True, False):
        explorer = Explorer(
            cmd, budget=how.budget, group=matcher(patterns), decide=decide, traced=traced
        )
        try:
            sub = explorer.explore()
        except chance.TooBig:
            break
        except TypeError:
            if not traced:
                raise
            continue  # the rules used a die in a way a Die cannot follow: explore plainly
        outcomes = cast(list[Outcome], list(sub.dist))
        weights = Weights(outcomes, [sub.dist[o] for o in outcomes], exact=True)
        facts = {
            "runs": explorer.runs,
            "outcomes": len({o.units for o in outcomes}),
            "grouped": sorted(explorer.grouped_keys),
            "traced": traced,
        }
        return Margins.of_joint(measure, weights, happened), facts
    raise OddsError(
        f"the {how.policy.describe()} policy needs every choice explored, and this command "
        f"needs more than {how.budget} runs; raise the budget or use the default policy"
    )


def _shared(
    cmd: chance.Command,
    measure: Measure,
    how: HowToExplore,
    patterns: list[str],
    happened: Outcome | None,
) -> tuple[Margins, dict[str, Any]] | None:
    """The exact odds as a graph (``replay/odds/sharing.py``): branches that reach the same
    point of the procedure share what lies below it. None when it does not fit the budget."""
    for traced in (True, False):
        sharer = Sharer(
            cmd,
            measure,
            budget=how.budget,
            group=matcher(patterns),
            traced=traced,
            target=happened,
        )
        try:
            margins = sharer.margins()
        except chance.TooBig:
            return None
        except TypeError:
            if not traced:
                raise
            continue  # the rules used a die in a way a Die cannot follow: explore plainly
        finally:
            sharer.close()
        facts = {
            "runs": sharer.runs,
            "outcomes": len(margins.units.outcomes),
            "grouped": sorted(sharer.grouped_keys),
            "traced": traced,
        }
        if sharer.shared:
            facts["note"] = f"{sharer.shared} branches shared what lies below them"
        return margins, facts
    return None  # pragma: no cover - the loop returns


def action_of(command: Any) -> str:
    tag = msgspec.inspect.type_info(type(command))
    return str(getattr(tag, "tag", type(command).__name__))


# --- where commands come from ---------------------------------------------------------------------


def outcome_of(at: Situation, events: Sequence[Event]) -> Outcome:
    """The outcome a command's adjudicated ``events`` (``CommandIssued`` first) measure to."""
    measure = Measure(system=at.system, before=at.system.view(at.state))
    return measure(events, fold(at.system, at.state, events))


def scenario_odds(scenario: AnyScenario, number: int = 1, how: HowToExplore | None = None) -> Odds:
    """The odds of the scenario's ``number``-th action (from 1), after the actions before it are
    adjudicated with the scenario's dice and choices (by default, choices follow the scenario's
    ``[choices]``). When the scenario's dice also reach through this action, what they give is
    the outcome that happened."""
    at, happened = scenario_command(scenario, number)
    how = how or HowToExplore(policy=Policy(name="scripted", answers=scenario.choices))
    outcome = outcome_of(at, happened) if happened is not None else None
    return command_odds(at, how, outcome)


def scenario_command(scenario: AnyScenario, number: int) -> tuple[Situation, list[Event] | None]:
    """Where the scenario's ``number``-th action stands, and its events when the scenario's dice
    reach through it (None when they stop short)."""
    if not 1 <= number <= len(scenario.commands):
        raise OddsError(f"the scenario has actions 1 to {len(scenario.commands)}, not {number}")
    system = get_game_system(scenario.ruleset)
    dice, spec = dice_for(scenario)
    started = start_event(system, scenario, spec)
    table = Table(
        system=system,
        rulings=started.rulings,
        dice=dice,
        choices=ScriptedChoices(scenario.choices),
        quiet=True,
    )
    before = fold_battle(system, [started])
    happened: list[Event] | None = None
    done = 0
    turns = (Turn(c) for c in scenario.commands[:number])
    try:
        for result in adjudicate_commands(table, before, turns):
            done = result.index
            if done == number:
                happened = result.events
            else:
                before = result.state
    except BlowByBlowError:
        # The scenario's own dice may stop short of this action: then nothing "happened" yet.
        # An error before it leaves no state to start from.
        if done != number - 1:
            raise
    at = Situation(
        system=system,
        rulings=started.rulings,
        state=before,
        command=scenario.commands[number - 1],
        index=number,
    )
    return at, happened


def recorded_odds(events: Sequence[Event], position: int, how: HowToExplore | None = None) -> Odds:
    """The odds of the recorded command that holds ``position`` (its ``CommandIssued`` or any of
    its steps), from the state before it, with the outcome its recorded dice gave."""
    at, own = recorded_command(events, position)
    answers = {e.key: e.answer for e in own if isinstance(e, ChoiceMade)}
    how = how or HowToExplore()
    if how.policy.name == "default":
        how = dataclasses.replace(how, policy=Policy(name="recorded", answers=answers))
    return command_odds(at, how, outcome_of(at, own))


def recorded_command(events: Sequence[Event], position: int) -> tuple[Situation, list[Event]]:
    """The command holding ``position`` in a battle's ``events`` (from position 1): where it
    stood, and its own events (``CommandIssued`` first)."""
    if not events or not isinstance(events[0], BattleStarted):
        raise OddsError("a battle's log starts with BattleStarted")
    if not 1 <= position <= len(events):
        raise OddsError(f"the battle has positions 1 to {len(events)}, not {position}")
    starts = [i for i, e in enumerate(events) if isinstance(e, CommandIssued)]
    mine = [s for s in starts if s <= position - 1]
    if not mine:
        raise OddsError(
            f"position {position} is the battle's start; "
            + (f"its first command is at position {starts[0] + 1}" if starts else "no command yet")
        )
    first = mine[-1]
    later = [s for s in starts if s > first]
    end = later[0] if later else len(events)
    own = [e for e in events[first:end] if type(e).__name__ != "BattleSealed"]
    issued = own[0]
    assert isinstance(issued, CommandIssued)
    started = events[0]
    system = get_game_system(started.ruleset)
    at = Situation(
        system=system,
        rulings=started.rulings,
        state=fold_battle(system, events, first),
        command=issued.command,
        index=issued.index,
    )
    return at, own


def next_odds(events: Sequence[Event], command: Any, how: HowToExplore | None = None) -> Odds:
    """The odds of ``command`` as a live battle's next one."""
    return command_odds(next_situation(events, command), how)


def next_situation(events: Sequence[Event], command: Any) -> Situation:
    """Where ``command`` stands as a live battle's next one."""
    if not events or not isinstance(events[0], BattleStarted):
        raise OddsError("a battle's log starts with BattleStarted")
    started = events[0]
    system = get_game_system(started.ruleset)
    index = 1 + sum(1 for e in events if isinstance(e, CommandIssued))
    return Situation(
        system=system,
        rulings=started.rulings,
        state=fold_battle(system, events),
        command=command,
        index=index,
    )


def recorded_dice(own: Iterable[Event]) -> tuple[RecordedDice, RecordedChoices]:
    dice = {e.key: (e.values, e.source) for e in own if isinstance(e, DiceRolled)}
    choices = {e.key: (e.answer, e.source) for e in own if isinstance(e, ChoiceMade)}
    return RecordedDice(dice), RecordedChoices(choices)


__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_SAMPLES",
    "DEFAULT_SEED",
    "CountOdds",
    "Estimate",
    "Happened",
    "HowToExplore",
    "Odds",
    "OddsError",
    "Policy",
    "Share",
    "SideOdds",
    "SidePercentile",
    "Situation",
    "UnitOdds",
    "action_of",
    "collector_paused",
    "command_odds",
    "next_odds",
    "next_situation",
    "outcome_of",
    "prepare",
    "recorded_command",
    "recorded_odds",
    "scenario_command",
    "scenario_odds",
    "wilson",
]
