"""Exact odds as a graph: branches that reach the same point of the procedure share what lies
below it, where the tree of ``replay/odds/chance.py`` explores each path on its own.

A *run* adjudicates the command at the driver's ``Table`` along a path (a face for each roll so
far) and goes on past it, each new roll answered with its first outcome, to the end of the
command. At each new roll the procedure is a suspended generator, and what it will do next
depends on nothing but its *continuation* (``replay/odds/continuation.py``: each frame's
instruction, the locals it will still read, its stack, and the state folded so far). The run
writes it as bytes there: when those bytes were met before, the run stops, as what lies below is
known; otherwise it goes on. The roll's other outcomes are explored afterwards by runs of their
own, and the node's answer is kept under its bytes for every branch that reaches it later. So a
node's first outcome costs no run of its own (the run that found the node goes on through it),
and every other costs one. That run goes on from where the node's first stood, a copy of the
procedure made there (``replay/odds/resume.py``: ``_Stood``), rather than replaying the path
from the command's start; a node whose procedure cannot be copied is replayed.

What is counted is cut at each node: each unit's status and wounds from the final state, and
what the events add up to (``Measure.vector``) between one node and the next, so a shared
subtree counts the same whatever came before it. Probabilities are whole numbers over a common
denominator until the end (``Fraction`` only then).

Labels (``Label``: a hit's number, which the rules declare only names its rolls) are written
alike, and the roll a node waits on is written by its dice, not its key: "hit 5 of 12" and "hit
3 of 10" meet. A choice is answered by its key, though (a scenario's script, a log's record):
a node whose key left labels out is kept for other branches only when no choice below it may
be answered by its key (``_Asks``), since those branches ask it under other keys.

Faces of a roll that lead to the same place are explored once: a roll read by ``counts``
(``Roll``) once per count; a roll whose order the rules ignore once per multiset; and, with
traced dice (``Die``), two faces whose every fact recorded on the way to the next node keeps its
truth, and whose dice that next node's continuation does not hold, are one class (as in the tree,
``replay/odds/chance.py``).

``tests/odds/test_sharing.py`` compares every demo command's odds this way with the tree's, and
the answers with icepool and with seeded dice."""

from __future__ import annotations

import dataclasses
import fnmatch
import operator
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import compress
from typing import Any, cast

from blowbyblow.domain.core import Event, Roll
from blowbyblow.replay.engine.dice import ChoiceSource, ExploringDice
from blowbyblow.replay.engine.driver import Adjudicating, Table
from blowbyblow.replay.odds.answers import Margins, Weights, exact_estimate
from blowbyblow.replay.odds.chance import count_faces, listed_ways
from blowbyblow.replay.odds.continuation import Continuations, Unshared
from blowbyblow.replay.odds.outcomes import Measure, Outcome, UnitOutcome, add, trim
from blowbyblow.replay.odds.paths import (
    Answer,
    Command,
    RollNode,
    TooBig,
    _Branch,
    _Stop,
    matcher,
    roll_node,
)
from blowbyblow.replay.odds.resume import Frozen, NotFrozen, freeze
from blowbyblow.replay.odds.sums import Below, Units, Value, Way, combine, missed, settled
from blowbyblow.replay.odds.traced import Die, Fact, FactInfo, compile_fact


@dataclass(slots=True)
class _Segment:
    """What a run did between one node and the next: its events (``begin`` to ``end`` in the
    run's list), and where it stopped: at a roll (``node``, at ``depth``, its continuation's
    ``key``; ``known``: explored before) or at the command's end (``final``)."""

    begin: int
    end: int = -1
    node: RollNode | None = None
    depth: int = -1
    key: Hashable | None = None
    known: bool = False
    final: tuple[UnitOutcome, ...] = ()
    counts: tuple[int, ...] = ()
    labelled: bool = False  # its key leaves labels out
    asked: bool = False  # a choice in it may be answered by its key
    stood: _Stood | None = None  # where the command stood at its node, to resume from
    state: Any = None  # the state folded so far at its node (what the outcome shows of it)


@dataclass(frozen=True)
class _Stood:
    """Where a run stood at a node, for its other outcomes' runs to go on from rather than
    replay its path: the procedure by value (``replay/odds/resume.py``), the driver's events,
    state and keys asked, and the run's events."""

    frozen: Frozen
    events: list[Event]
    state: Any
    keys: set[str]


@dataclass(slots=True)
class _Run:
    """One run: the answers it gave, its segments from its path's last answer on, the facts
    its dice recorded and the rolls whose dice a continuation held (``pinned``)."""

    answers: list[Answer]
    traced_from: int
    segments: list[_Segment] = field(default_factory=list)
    # The states after its first events, folded with plain dice (``traced_from``); the first
    # ``reuse`` of them are its parent's, whose path it shares that far.
    states: list[Any] = field(default_factory=list)
    reuse: int = 0
    donor: _Run | None = None  # the run whose states go furthest along this one's path
    events: list[Event] = field(default_factory=list)
    facts: list[tuple[Fact, bool]] = field(default_factory=list)
    pinned: set[int] = field(default_factory=set)


class _Dice(ExploringDice):
    """A run's dice: answers from its path, then the first outcome of each new roll, where the
    continuation is written and the run stops when it is known."""

    def __init__(self, sharer: Sharer) -> None:
        self.sharer = sharer
        self.run = _Run(answers=[], traced_from=0)  # the run under way (``Sharer._run``)
        self.path: Sequence[Answer] = ()

    def roll_counted(  # noqa: PLR0913 - the driver's roll, and what the rules read of it
        self,
        key: str,
        n: int,
        sides: int,
        purpose: str,
        counts: tuple[int, ...],
        highest: int,
    ) -> tuple[tuple[Any, ...], str]:
        run = self.run
        depth = len(run.answers)
        if depth < len(self.path):
            answer = self.path[depth]
        else:
            read = (counts, highest)
            node = roll_node(key, n, sides, purpose, read, counts=self.sharer.counts)
            request = Roll(
                key=node.key, n=n, sides=sides, purpose=purpose, counts=counts, highest=highest
            )
            answer = self.sharer._arrive(run, node, depth, request)
        assert isinstance(answer, tuple)
        run.answers.append(answer)
        if depth >= len(self.path) - 1:
            run.segments.append(_Segment(begin=len(run.events)))
        if depth < run.traced_from:
            return answer, self.source
        facts = run.facts
        return tuple([Die(v, ("d", depth, j), facts) for j, v in enumerate(answer)]), self.source


@dataclass(slots=True)
class _Class:
    """Outcomes of a roll that go the same way: the run that explored the first, where in it
    the node's child begins, and what another outcome must keep true to join."""

    run: _Run
    segment: int
    ways: int
    checks: list[tuple[Callable[[Sequence[int]], bool], list[int], list[tuple[int, int]], bool]]
    general: bool
    value: Below | None = None


class Sharer:
    """Exact exploration of a command as a graph, within a budget of runs."""

    def __init__(  # noqa: PLR0913 - how to explore, each keyword-only
        self,
        cmd: Command,
        measure: Measure,
        *,
        budget: int,
        group: Callable[[RollNode], bool] = lambda node: False,
        traced: bool = True,
        target: Outcome | None = None,
        counts: bool = True,
        labels: bool = True,
        recorded: bool = True,
        resume: bool = True,
        unread: bool = True,
    ) -> None:
        self.cmd = cmd
        # A node's other outcomes' runs go on from where the first stood (False: each replays
        # its path from the command's start); ``resumed`` counts them.
        self.resume = resume
        self.resumed = 0
        self._adjudicating: Adjudicating | None = None
        self.labels = labels  # False: labels written by their numbers (``Label``)
        self.counts = counts  # False: the rolls' ``counts`` are ignored (``Roll``)
        self.measure = measure
        # The outcome whose exact probability is wanted (what happened), as units and counts.
        self.target: tuple[Units, tuple[int, ...]] | None = None
        if target is not None:
            self.target = (target.units, trim(measure.outcome_vector(target)))
        self.negative = False  # a count went down somewhere: the target's ways cut too early
        self.prune = True  # ways to the target past its counts are dropped (counts only grow)
        self.budget = budget
        self.group = group
        self.traced = traced  # False: no facts about dice are kept (no face joins another)
        self.runs = 0
        self.shared = 0  # nodes whose subtree was taken from another branch
        self.grouped_keys: set[str] = set()
        self.recorded = recorded  # False: recorded values written by value (``Recorded``)
        # False: the state written whole, not as the rules read it on (``OddsRules.unread``)
        self.unread = unread
        self._continuations = Continuations(
            state_type=type(cmd.state),
            labels=labels,
            recorded=recorded,
            rules=measure.rules if unread else None,
        )
        self._asks = _Asks(cmd.choices, measure.rules.unlabelled if labels else ())
        self._memo: dict[Hashable, Value] = {}
        # The state at the node each answer of ``_memo`` was explored from, when ``unread``
        # may write alike what the outcome shows (``_settled``).
        self._at: dict[Hashable, Any] = {}
        self._at_final: dict[Hashable, Units] = {}  # what the outcome shows of each
        self._shows = unread and measure.rules.unread is not None
        # Rolls whose outcomes all go on alike as far as the odds see (``OddsRules``)
        self._spent = matcher(measure.rules.unread_rolls if unread else ())
        # each fact's test, and its symbols' places by the roll they are of (``_class``)
        self._compiled: dict[Fact, tuple[FactInfo, dict[int, list[tuple[int, int]]]]] = {}
        self._run_now: _Run | None = None
        self._made: list[Any] = []
        self._state: Any = None
        self._too_big = False
        self._dice = _Dice(self)
        self._table = dataclasses.replace(
            self._watching_table(), dice=self._dice, choices=self._asks
        )

    # --- runs --------------------------------------------------------------------------------

    def _watching_table(self) -> Table:
        """The command's table, its game system's procedure and fold wrapped to keep the
        procedure's generator, the events and the state folded so far for the run under way."""
        system = self.cmd.table.system
        procedure, fold, until = system.procedure, system.evolve, self.cmd.until

        def watched_procedure(state: Any, command: Any, ctx: Any) -> Any:
            made = procedure(state, command, ctx)
            self._made.append(made)
            return made

        def evolve(state: Any, event: Event) -> Any:
            run = self._run_now
            assert run is not None
            states = run.states
            i = len(run.events)
            if i < run.reuse:
                # On the path it shares with its parent: the same state, the same answers, so
                # the same events and states (a procedure depends on nothing else).
                state = states[i]
            else:
                state = fold(state, event)
                if len(run.answers) <= run.traced_from and i == len(states):
                    states.append(state)
            self._state = state
            run.events.append(event)
            if until is not None and until(event):
                raise _Stop(state)
            return state

        watched = dataclasses.replace(system, procedure=watched_procedure, evolve=evolve)
        return dataclasses.replace(self.cmd.table, system=watched, quiet=True)

    def _run(
        self,
        path: Sequence[Answer],
        parent: _Run | None = None,
        shared: int = 0,
        stood: _Stood | None = None,
    ) -> _Run:
        """A run along ``path`` and on to the end of the command, or to a node explored before;
        its first ``shared`` events are ``parent``'s (its path's, so far). ``stood``: where the
        command stood at the path's last node, to go on from there."""
        if self.runs >= self.budget:
            raise TooBig
        self.runs += 1
        traced_from = max(len(path) - 1, 0) if self.traced else 1 << 30
        run = _Run(answers=[], traced_from=traced_from)
        if parent is not None:
            run.reuse = min(shared, len(parent.states))
            run.states = parent.states[: run.reuse]
        if not path:
            run.segments.append(_Segment(begin=0))
        self._run_now, self._made, self._state = run, [], self.cmd.state
        self._asks.run = self._dice.run = run
        self._dice.path = path
        state: Any = None
        try:
            adjudicating = None
            if stood is not None:
                adjudicating = self._resumed(run, path, stood)
            if adjudicating is None:
                adjudicating = Adjudicating(
                    self._table, self.cmd.state, self.cmd.command, self.cmd.index
                )
            self._adjudicating = adjudicating
            state = adjudicating.go_on().state
        except _Stop as stop:
            state = stop.state
        except _Branch:
            if self._too_big:
                raise TooBig from None
        finally:
            self._run_now = self._adjudicating = None
        last = run.segments[-1]
        if last.end < 0:
            last.end = len(run.events)
            last.final = self.measure.final(state)
        for segment in run.segments:
            segment.counts = self.measure.vector(run.events[segment.begin : segment.end])
        return run

    def _resumed(self, run: _Run, path: Sequence[Answer], stood: _Stood) -> Adjudicating | None:
        """The command taken up where ``stood`` says, the run's answers and events as far as
        it (None: its procedure cannot be copied, and the run replays its path)."""
        reads = self._continuations.reads
        reads.clear()
        try:
            procedure = stood.frozen.resume(reads)
        except NotFrozen:
            reads.clear()
            return None
        self.resumed += 1
        run.answers = list(path[:-1])
        run.events = list(stood.events)
        self._made, self._state = [procedure], stood.state
        return Adjudicating.resumed(
            self._table,
            self.cmd.index,
            list(stood.events),
            stood.state,
            set(stood.keys),
            procedure,
            stood.frozen.request,
        )

    def _stood(self, run: _Run, request: Roll) -> _Stood | None:
        """Where the run under way stands, at a new node asking ``request`` (None: its
        procedure cannot be copied)."""
        adjudicating = self._adjudicating
        if adjudicating is None or not self._made:
            return None
        try:
            frames = self._continuations.frames
            if frames is None:
                return None
            reads = self._continuations.reads
            frozen = freeze(self._made[0], request, frames, in_place=True, reads=reads)
        except NotFrozen:
            return None
        return _Stood(
            frozen=frozen,
            events=list(run.events),
            state=self._state,
            keys=adjudicating.asked(),
        )

    def _arrive(self, run: _Run, node: RollNode, depth: int, request: Roll | None = None) -> Answer:
        """A run meets a new roll: the segment before it ends here, the continuation is written,
        and the run stops if it is known; else it goes on with the roll's first outcome."""
        segment = run.segments[-1]
        segment.end, segment.node, segment.depth = len(run.events), node, depth
        grouped = node.n > 1 and self.group(node)
        if grouped:
            self.grouped_keys.add(node.key)
        if count_faces(node, grouped) > self.budget:
            self._too_big = True
            raise _Branch  # out of the rules (no ``except Exception`` of theirs can catch it)
        written = self._continuations
        before = written.labelled
        segment.state = self._state
        try:
            # The roll's key and purpose only name it (the events record them, nothing counts
            # them): what is asked is its dice, how they are read and how they are explored.
            segment.key = (
                (node.n, node.sides, node.counts, node.highest, grouped),
                written.key(self._made[0], self._state, keep=self.resume),
            )
            segment.labelled = written.labelled > before
        except Unshared:
            # What it holds is not known: it may hold any die of this run's.
            segment.key = None
            written.frames = None  # read in part: not resumed
            run.pinned.update(range(run.traced_from, depth))
        if segment.key is not None and segment.key in self._memo:
            segment.known = True
            raise _Branch
        if self.resume and request is not None and not self._spent(node):
            # (a roll explored once has no other outcome to go on from where it stood)
            segment.stood = self._stood(run, request)
        first, _ = next(iter(listed_ways(node, grouped)))
        return first

    # --- the graph ---------------------------------------------------------------------------

    def margins(self) -> Margins:
        """The command's odds, exactly: the units' outcomes, each count's distribution and the
        probability of the target outcome (raises TooBig past the budget)."""
        value = self.explore()
        if self.negative and self.target is not None and self.prune:
            # A count went down: the ways to the target were cut too early; again, uncut.
            again = Sharer(
                self.cmd,
                self.measure,
                budget=self.budget,
                group=self.group,
                traced=self.traced,
                counts=self.counts,
                labels=self.labels,
                recorded=self.recorded,
                unread=self.unread,
            )
            again.target, again.prune = self.target, False
            try:
                value = again.explore()
            finally:
                again.close()
            self.runs += again.runs
        den = value.den
        units = list(value.units)
        weights = Weights(
            [Outcome(units=u, tallies=(), by_side=(), events=()) for u in units],
            [Fraction(value.units[u], den) for u in units],
            exact=True,
        )
        counts: dict[int, dict[int, Fraction]] = {}
        for (place, v), k in value.margins.items():
            per = counts.get(place)
            if per is None:
                per = counts[place] = {}
            per[v] = Fraction(k, den)
        places = max([self.measure.places(), *(p + 1 for p in counts)])
        for place in range(places):
            mine = counts.setdefault(place, {})
            zero = 1 - sum(mine.values(), Fraction(0))
            if zero:
                mine[0] = zero
        happened = None
        if self.target is not None:
            happened = exact_estimate(Fraction(value.target.get(((), self.target[1]), 0), den))
        return Margins(
            units=weights,
            counts={p: (sorted(d), [d[v] for v in sorted(d)]) for p, d in counts.items()},
            happened=happened,
        )

    def explore(self) -> Value:
        """The command's outcomes, exactly (raises TooBig past the budget)."""
        return self._from(self._run(()), 0)

    def close(self) -> None:
        """Let go of the watching table, whose procedure and fold refer back to the sharer: a
        cycle that only the garbage collector frees, with every node, state and event the
        exploration kept, at its next full collection, in the middle of whatever runs then
        (the next command's odds). No run is possible after it."""
        del self._table
        del self._dice  # it refers back to the sharer too
        self._continuations.close()

    def _leaf(self, final: Units) -> Value:
        target: dict[Way, int] = {}
        if self.target is not None:
            wanted = self.target[0]
            if final == wanted:
                target[(), ()] = 1
            elif self._shows:
                # Wounds lost that ``unread`` may write alike: an outcome that misses the
                # target only there is kept with what it misses, for ``_settled``.
                miss = missed(final, wanted)
                if miss is not None:
                    target[miss, ()] = 1
        return Value(den=1, units={final: 1}, margins={}, target=target)

    def _from(self, run: _Run, i: int) -> Value:
        """The outcomes from segment ``i`` of ``run`` on, relative to its start."""
        return combine([(1, self._below(run, i))], 1)

    def _below(self, run: _Run, i: int) -> Below:
        """The outcomes below segment ``i`` of ``run``, with the counts of the segment itself
        (before them), for the node above to add up (``combine``)."""
        segment = run.segments[i]
        if segment.node is None:
            value = self._leaf(segment.final)
        elif segment.known or (segment.key is not None and segment.key in self._memo):
            self.shared += 1
            value = self._memo[segment.key]
            if self._shows:
                value = self._settled(value, segment.key, segment.state)
        else:
            value = self._node(run, i)
            # A key that left labels out stands for branches whose choices are asked under
            # other keys: it is kept only when no choice below it is answered by its key.
            if segment.key is not None and not (value.keyed and segment.labelled):
                self._memo[segment.key] = value
                if self._shows:
                    self._at[segment.key] = segment.state
        keyed = value.keyed or segment.asked
        counts = segment.counts
        if not any(counts):
            return value, [], value.target, keyed
        if min(counts) < 0:
            self.negative = True
        # the places it moves (about 3 of 51 in a Necromunda charge), picked out in C
        moved = list(compress(enumerate(counts), counts))
        target: dict[Way, int] = {}
        if self.target is not None:
            bound = self.target[1]
            places = len(bound)
            for (miss, vector), n in value.target.items():
                total = trim(add(vector, counts) if vector else counts)
                # within the target's counts, place by place (past its places: 0), in C
                if not self.prune or (
                    all(map(operator.le, total, bound))
                    and (len(total) <= places or all(x <= 0 for x in total[places:]))
                ):
                    at = (miss, total)
                    target[at] = target.get(at, 0) + n
        return value, moved, target, keyed

    def _settled(self, value: Value, key: Hashable, here: Any) -> Value:
        """The answer of the node ``key``, for a branch that meets it with the state ``here``
        (``sums.settled``: the wounds lost ``unread`` wrote alike are this branch's)."""
        explored = self._at[key]
        if here is explored or here == explored:  # in C, field by field
            return value
        before = self._at_final.get(key)
        if before is None:
            before = self._at_final[key] = self.measure.final(explored)
        wanted = None if self.target is None else self.target[0]
        return settled(value, before, self.measure.final(here), wanted)

    def _node(self, run: _Run, i: int) -> Value:
        """The outcomes below the roll segment ``i`` of ``run`` stopped at: its first outcome
        goes on in ``run`` itself (segment ``i + 1``), each other class in a run of its own."""
        segment = run.segments[i]
        node = segment.node
        assert node is not None
        depth = segment.depth
        grouped = node.n > 1 and self.group(node)
        classes: list[_Class] = []
        # The run whose states go furthest along the path to this roll: this one's, or a run
        # that left it deeper down (explored before, depth first), whose path it shares there.
        donor = run.donor if run.donor is not None else run
        listed = listed_ways(node, grouped)
        if self._spent(node):
            # Nothing the odds see reads it (``OddsRules.unread_rolls``): its first outcome
            # stands for every face.
            listed = [(next(iter(listed))[0], node.sides**node.n)]
        for face, ways in listed:
            for cls in classes:
                if cls.general and _keeps(face, cls.checks):
                    cls.ways += ways
                    break
            else:
                if classes:
                    path = [*run.answers[:depth], face]
                    child, j = self._run(path, donor, segment.end, segment.stood), 0
                    if len(child.states) > len(donor.states):
                        donor = run.donor = child
                else:
                    child, j = run, i + 1
                cls = self._class(child, j, depth, ways)
                # Below it at once, depth first: what it finds is known before the next
                # outcome's run, which stops there if it meets it.
                cls.value = self._below(child, j)
                classes.append(cls)
        segment.stood = None  # every outcome explored: let go of the copy
        return combine(
            [(cls.ways, cls.value) for cls in classes if cls.value is not None], node.sides**node.n
        )

    def _class(self, run: _Run, segment: int, depth: int, ways: int) -> _Class:
        """A class of a roll's outcomes at ``depth`` led by the one ``run`` answered there."""
        # A die the continuation held is a fact of its run (``Continuations``): only a roll
        # whose continuation could not be written (``pinned``) has no facts to go by.
        general = run.traced_from <= depth and depth not in run.pinned
        checks = []
        if general:
            compiled = self._compiled
            answers = cast(list[tuple[int, ...]], run.answers)  # a roll's answers: its faces
            for fact, truth in dict(run.facts).items():  # each fact once
                known = compiled.get(fact)
                if known is None:
                    known = compiled[fact] = _by_roll(compile_fact(fact))
                info, by_roll = known
                mine = by_roll.get(depth)
                if mine is None:
                    continue
                values = [answers[roll][die] for roll, die in info.symbols]
                checks.append((info.test, values, mine, truth))
        return _Class(run=run, segment=segment, ways=ways, checks=checks, general=general)


_NUMBERS = re.compile(r"[0-9]+")


class _Asks:
    """The command's choices, answered as its policy says; a choice that may be answered by
    its key marks the segment of the run under way (``_Segment.asked``). Labels are whole
    numbers (``Label``): two keys that differ only in labels differ only in their digits. So a
    choice is answered alike under every label when its key has no digits (after the
    command's prefix: it holds no label), or when every answer the policy gives to a key of
    its shape (its digits aside) is the choice's default (what its live values make it, the
    same in every branch that meets a node): a log's record answers every choice by its key,
    most of them as their defaults were. A key that matches the game system's ``unlabelled``
    (``OddsRules``: its numbers are values the rules read, such as a parry's place in the
    round, which the continuation writes by value) is asked alike in every branch that meets a
    node, whatever its digits."""

    def __init__(self, choices: ChoiceSource, unlabelled: Sequence[str] = ()) -> None:
        self.choices = choices
        self.run: _Run | None = None
        self.unlabelled = (
            re.compile("|".join(fnmatch.translate(p) for p in unlabelled)).match
            if unlabelled
            else None
        )
        answers: Mapping[str, str] | None = getattr(choices, "answers", None)
        # The answers given by the shape of their keys; None: a source whose keys are not
        # known, every choice it answers may be by its key.
        self.shapes: dict[str, set[str]] | None = None
        if answers is not None:
            self.shapes = {}
            for k, answer in answers.items():
                self.shapes.setdefault(_NUMBERS.sub("#", k), set()).add(answer)

    def choose(
        self, key: str, options: tuple[str, ...], default: str, prompt: str
    ) -> tuple[str, str]:
        run = self.run
        if run is not None and run.segments and not run.segments[-1].asked:
            short = key.split("/", 1)[1] if "/" in key else key
            if (
                _NUMBERS.search(short) is not None
                and (self.unlabelled is None or self.unlabelled(short) is None)
                and self._by_key(key, short, default)
            ):
                run.segments[-1].asked = True
        return self.choices.choose(key, options, default, prompt)

    def _by_key(self, key: str, short: str, default: str) -> bool:
        """May the policy answer this choice otherwise than by its default, under some key of
        its shape?"""
        if self.shapes is None:
            return True
        return any(
            answer != default
            for k in (key, short)
            for answer in self.shapes.get(_NUMBERS.sub("#", k), ())
        )


def _by_roll(info: FactInfo) -> tuple[FactInfo, dict[int, list[tuple[int, int]]]]:
    """A fact's test, and for each roll it is of, where its dice stand among its symbols."""
    by_roll: dict[int, list[tuple[int, int]]] = {}
    for k, (roll, die) in enumerate(info.symbols):
        by_roll.setdefault(roll, []).append((k, die))
    return info, by_roll


def _keeps(
    face: tuple[int, ...],
    checks: list[tuple[Callable[[Sequence[int]], bool], list[int], list[tuple[int, int]], bool]],
) -> bool:
    """Does every fact a class learnt of its first outcome keep its truth with ``face``?"""
    for test, values, mine, truth in checks:
        moved = list(values)
        for k, die in mine:
            moved[k] = face[die]
        try:
            if test(moved) is not truth:
                return False
        except ArithmeticError:
            return False
    return True


__all__ = ["Sharer", "Unshared"]
