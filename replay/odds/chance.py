"""Chance nodes: a command's procedure explored over every answer its dice can give.

A rule procedure asks for dice (``Roll``) and choices (``Ask``); the driver answers them from a
dice source and a choice source. Here the driver's own ``Table`` runs the procedure again and
again with sources that answer from a *path*: the faces chosen so far at each chance node, and the
first face of any roll beyond it. A run therefore goes from the command's start to a leaf; every
other face of a roll on its way is a sibling to run next. Generators cannot be copied, so a
sibling re-runs the command from its start with its own path: the cost of an exact answer is the
number of runs (about the number of distinct leaves), each as long as one adjudication.

What is grouped, and why it stays exact:

- **Equivalent faces.** The dice a procedure receives are ``Die`` values: each knows its number
  and the expression it came from (``d + 1 - 1``), and every comparison, every use as an index or
  a string, every hash records a *fact* (a predicate over dice and its truth value). Two faces of
  a roll are equivalent when every fact recorded anywhere below the one has the same truth value
  with the other face put in its place: the procedure then takes the same branches, asks for the
  same dice and ends in the same outcome, leaf for leaf, so the second face's subtree is the
  first's and is not run. A face that a rule reads as a plain number (an index into a table, a
  value printed) pins it, and it is never grouped with another face.
- **Order-insensitive rolls (opt-in).** A roll whose caller says only the multiset of its dice
  matters (the rules count successes, take the highest die…) is explored once per multiset, with
  its multinomial weight: 56 outcomes of 3D6 instead of 216. This is exact only if the claim is
  true for the measured outcome; tests/odds explores each shipped claim both ways.

The grouping of faces rests on what the engine already requires of rules: a procedure is a
function of the state, the command, the rulings and the answers it gets, and keeps nothing from
one adjudication to the next (no cache of dice values). A rule that does with a die what a
``Die`` cannot follow (``d ** 2``, ``round(d)``) raises ``TypeError``; the callers then explore
again with plain dice and group nothing. tests/odds also runs every demo command along random
paths with and without tracing and compares every event.

Nothing here knows a game system: a *leaf function* turns each finished adjudication into the
outcome to count. Past the budget of runs, ``sample`` estimates the same distribution by seeded
Monte Carlo (dice by the ``bxb-dice-v1`` algorithm from ``SEED/i`` per sample)."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from blowbyblow.replay.odds.paths import (
    Answer,
    AskNode,
    Command,
    LeafFunction,
    Node,
    OddsError,
    RollNode,
    Run,
    TooBig,
    adjudicate,
    matcher,
    run_path,
    stop_here,
)
from blowbyblow.replay.odds.samples import sample
from blowbyblow.replay.odds.traced import Die, Fact, FactInfo, compile_fact

# --- the exact tree ---------------------------------------------------------------------------


def faces_of(node: RollNode, grouped: bool) -> Iterator[tuple[tuple[int, ...], Fraction]]:
    """Every outcome of a roll with its probability: each ordered tuple, or (``grouped``) each
    multiset once, sorted, with its multinomial weight; a roll read by ``counts`` (``Roll``):
    each count of each class once (see ``ways_of``)."""
    total = node.sides**node.n
    for face, ways in ways_of(node, grouped):
        yield face, Fraction(ways, total)


def classes_of(node: RollNode) -> list[tuple[int, int]]:
    """The faces a roll read by ``counts`` tells apart: each class as (its lowest face, how many
    faces it has); ``counts`` (4,) on a D6: 1-3 and 4-6."""
    bounds = [1, *node.counts, node.sides + 1]
    return [(bounds[i], bounds[i + 1] - bounds[i]) for i in range(len(bounds) - 1)]


def ways_of(node: RollNode, grouped: bool) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every outcome of a roll with the number of ordered faces it stands for (out of
    ``sides ** n``). A roll read by ``counts`` is explored once per count of each class, its
    dice showing their class's lowest face (the rules tell no other apart): 4D6 counted at 4+
    is 5 outcomes, not 1,296. With ``highest`` besides, the highest dice keep their faces and the
    others show their class's lowest (``canonical``): 3D6 read by their highest, their 1s and
    their 6s is 19 outcomes, not 56 multisets."""
    if node.counts and node.highest:
        yield from _highest_and_counts(node.n, node.sides, node.counts, node.highest)
        return
    if node.counts:
        classes = classes_of(node)
        for combo in itertools.combinations_with_replacement(range(len(classes)), node.n):
            ways = math.factorial(node.n)
            for c, same in itertools.groupby(combo):
                k = len(list(same))
                ways = ways // math.factorial(k) * classes[c][1] ** k
            yield tuple(classes[c][0] for c in combo), ways
        return
    sides = range(1, node.sides + 1)
    if not grouped or node.n < 2:
        for face in itertools.product(sides, repeat=node.n):
            yield face, 1
        return
    for face in itertools.combinations_with_replacement(sides, node.n):
        ways = math.factorial(node.n)
        for _, same in itertools.groupby(face):
            ways //= math.factorial(len(list(same)))
        yield face, ways


_LISTED = 20_000  # a roll's multisets listed to count its outcomes read by highest and counts


def listed_ways(node: RollNode, grouped: bool) -> Iterable[tuple[tuple[int, ...], int]]:
    """``ways_of``, in its order, listed once for each shape of roll (its dice, sides, counts
    and highest) of up to ``_KEPT`` outcomes: the graph asks it at every node."""
    if count_faces(node, grouped) > _KEPT:
        return ways_of(node, grouped)
    return _kept_ways(node.n, node.sides, node.counts, node.highest, grouped)


_KEPT = 4096  # the outcomes of a roll kept listed (``listed_ways``)


@functools.lru_cache(maxsize=256)
def _kept_ways(
    n: int, sides: int, counts: tuple[int, ...], highest: int, grouped: bool
) -> tuple[tuple[tuple[int, ...], int], ...]:
    node = RollNode(key="", n=n, sides=sides, purpose="", counts=counts, highest=highest)
    return tuple(ways_of(node, grouped))


@functools.cache
def _highest_and_counts(
    n: int, sides: int, counts: tuple[int, ...], highest: int
) -> tuple[tuple[tuple[int, ...], int], ...]:
    """The outcomes of a roll read by its ``highest`` highest faces and by ``counts``, each with
    its ordered faces: every multiset with its multinomial weight, added up by its outcome."""
    node = RollNode(key="", n=n, sides=sides, purpose="", counts=counts, highest=highest)
    ways: dict[tuple[int, ...], int] = {}
    for face in itertools.combinations_with_replacement(range(1, sides + 1), n):
        w = math.factorial(n)
        for _, same in itertools.groupby(face):
            w //= math.factorial(len(list(same)))
        outcome = canonical(node, False, face)
        assert isinstance(outcome, tuple)
        ways[outcome] = ways.get(outcome, 0) + w
    return tuple(ways.items())


def count_faces(node: RollNode, grouped: bool) -> int:
    if node.counts and node.highest:
        multisets = math.comb(node.n + node.sides - 1, node.n)
        if multisets > _LISTED:  # too many to list before knowing whether they fit: at most
            return multisets
        return len(_highest_and_counts(node.n, node.sides, node.counts, node.highest))
    if node.counts:
        return math.comb(node.n + len(node.counts), node.n)
    if grouped and node.n >= 2:
        return math.comb(node.n + node.sides - 1, node.n)
    return int(node.sides**node.n)


def canonical(node: RollNode, grouped: bool, face: Answer) -> Answer:
    """The outcome among ``ways_of``'s that ``face`` (dice as rolled) belongs to."""
    if not isinstance(face, tuple):
        return face
    if node.counts:
        classes = classes_of(node)
        ordered = sorted(face)
        cut = max(len(ordered) - node.highest, 0)
        # The highest dice as they are; each other as its class's lowest face, which is no
        # higher than it, so the highest stay the highest.
        rest = (max(low for low, _ in classes if low <= v) for v in ordered[:cut])
        return (*sorted(rest), *ordered[cut:])
    return tuple(sorted(face)) if grouped and node.n > 1 else face


Distribution = dict[Hashable, Fraction]
# Facts below a node, by fact number: the values of the fact's dice -> its truth. Each value
# tuple is one way the fact was met on some path below (the dice of the path, in the fact's
# order of symbols).
FactTable = dict[int, dict[tuple[int, ...], bool]]


@dataclass
class Subtree:
    """A node's result: the distribution of the outcomes below it, and the facts recorded below
    it that mention a die rolled above it (what its ancestors need to group their faces)."""

    dist: Distribution
    facts: FactTable


@dataclass
class Watched:
    """What the exploration learnt at the nodes along one path (the recorded one): per depth,
    each answer's probability and the distribution below it."""

    children: dict[int, list[tuple[Answer, Fraction, Distribution]]] = field(default_factory=dict)


@dataclass(frozen=True)
class Follow:
    """A path to follow through the tree: the subtrees already known below it (by depth), and
    where to note the children of its nodes."""

    path: Sequence[Answer] = ()
    known: Mapping[int, Subtree] = field(default_factory=dict)
    watched: Watched | None = None


_NOWHERE = Follow()


@dataclass(frozen=True)
class Decider:
    """How a decision node chooses: the option whose subtree scores highest (``maximise``) or
    lowest; ties go to the rules' default."""

    score: Callable[[Distribution], Fraction]
    maximise: bool


# What must stay true for a face to join a class: per fact that mentions this node's dice, its
# test, where this node's dice stand among its symbols, and each way it was met with its truth.
_Checks = list[
    tuple[
        Callable[[Sequence[int]], bool], list[tuple[int, int]], list[tuple[tuple[int, ...], bool]]
    ]
]


@dataclass
class _Class:
    """Faces of one roll that lead to the same subtree."""

    rep: tuple[int, ...]
    sub: Subtree
    checks: _Checks
    members: list[tuple[int, ...]]
    weight: Fraction


class Explorer:
    """Exact exploration of a command within a budget of runs."""

    def __init__(  # noqa: PLR0913 - how to explore, each keyword-only
        self,
        cmd: Command,
        *,
        budget: int,
        group: Callable[[RollNode], bool] = lambda node: False,
        decide: Decider | None = None,
        traced: bool = True,
        counts: bool = True,
    ) -> None:
        self.cmd = cmd
        self.counts = counts  # False: the rolls' ``counts`` are ignored (``Roll``)
        self.budget = budget
        self.group = group
        self.decide = decide
        self.traced = traced  # False: dice are plain ints, no facts, so no face is grouped
        # True: a run goes on to a leaf with the first face of every later roll (one run per
        # leaf); False: it stops at its first new roll (one shorter run per node). Measured in
        # benchmarks/odds.py.
        self.to_leaf = True
        self.runs = 0
        self.leaves = 0
        self.grouped_keys: set[str] = set()
        self._ids: dict[Fact, int] = {}
        self._facts: list[FactInfo] = []

    # runs

    def run(self, path: Sequence[Answer]) -> Run:
        if self.runs >= self.budget:
            raise TooBig
        self.runs += 1
        return run_path(
            self.cmd,
            path,
            traced=self.traced,
            decisions=self.decide is not None,
            beyond=None if self.to_leaf else stop_here,
            counts=self.counts,
        )

    def explore(self, path: Sequence[Answer] = (), follow: Follow | None = None) -> Subtree:
        """The subtree below ``path``; ``follow`` (a longer path) reuses the subtrees known below
        it and notes the children of its nodes."""
        follow = follow or Follow(path=path)
        along = list(follow.path[: len(path)]) == list(path)
        return self._node(list(path), self.run(follow.path if along else path), follow)

    # nodes

    def _node(self, prefix: list[Answer], run: Run, follow: Follow) -> Subtree:
        depth = len(prefix)
        if run.complete and depth == len(run.answers):
            self.leaves += 1
            return self._leaf(run)
        node = run.nodes[depth]
        if isinstance(node, AskNode):
            return self._decision(prefix, run, node, follow)
        return self._chance(prefix, run, node, follow)

    def _leaf(self, run: Run) -> Subtree:
        facts: FactTable = {}
        for fact, truth in run.facts:
            number = self._ids.get(fact)
            if number is None:
                number = self._ids[fact] = len(self._facts)
                self._facts.append(compile_fact(fact))
            values = []
            for roll, die in self._facts[number].symbols:
                face = run.answers[roll]
                assert isinstance(face, tuple)
                values.append(face[die])
            facts.setdefault(number, {})[tuple(values)] = truth
        return Subtree(dist={run.outcome: Fraction(1)}, facts=facts)

    def _child(self, prefix: list[Answer], run: Run, answer: Answer, follow: Follow) -> Subtree:
        depth = len(prefix)
        on_path = depth < len(follow.path) and follow.path[depth] == answer
        if on_path and depth + 1 in follow.known:
            return follow.known[depth + 1]
        reuse = depth < len(run.answers) and run.answers[depth] == answer
        child = run if reuse else self.run([*prefix, answer])
        return self._node([*prefix, answer], child, follow if on_path else _NOWHERE)

    def _chance(self, prefix: list[Answer], run: Run, node: RollNode, follow: Follow) -> Subtree:
        depth = len(prefix)
        grouped = node.n > 1 and self.group(node)
        if grouped:
            self.grouped_keys.add(node.key)
        if count_faces(node, grouped) > self.budget:
            raise TooBig
        classes: list[_Class] = []
        seen: list[tuple[Answer, Fraction, _Class]] = []
        faces = list(faces_of(node, grouped))
        if depth < len(follow.path):
            # The followed face first: it leads its class, so the path goes on below it.
            faces.sort(key=lambda fw: fw[0] != follow.path[depth])
        for face, weight in faces:
            for cls in classes:
                if self._same(face, cls.checks):
                    cls.members.append(face)
                    cls.weight += weight
                    break
            else:
                sub = self._child(prefix, run, face, follow)
                cls = _Class(face, sub, self._checks(depth, sub.facts), [face], weight)
                classes.append(cls)
            seen.append((face, weight, cls))
        if follow.watched is not None:
            follow.watched.children[depth] = [(f, w, c.sub.dist) for f, w, c in seen]
        dist: Distribution = {}
        facts: FactTable = {}
        for cls in classes:
            for outcome, p in cls.sub.dist.items():
                dist[outcome] = dist.get(outcome, Fraction(0)) + cls.weight * p
            self._gather(depth, cls.members, cls.sub.facts, facts)
        return Subtree(dist=dist, facts=facts)

    def _decision(self, prefix: list[Answer], run: Run, node: AskNode, follow: Follow) -> Subtree:
        assert self.decide is not None
        depth = len(prefix)
        order = [node.default, *(o for o in node.options if o != node.default)]
        best: tuple[Fraction, Subtree] | None = None
        facts: FactTable = {}
        for option in order:
            sub = self._child(prefix, run, option, follow)
            value = self.decide.score(sub.dist)
            better = best is None or (value > best[0] if self.decide.maximise else value < best[0])
            if better:
                best = (value, sub)
            self._gather(depth, [], sub.facts, facts)
        assert best is not None
        return Subtree(dist=best[1].dist, facts=facts)

    # grouping

    def _checks(self, depth: int, facts: FactTable) -> _Checks:
        """What a face must keep true to share the subtree ``facts`` were recorded below."""
        checks: _Checks = []
        if not self.traced:
            return checks
        for number, table in facts.items():
            info = self._facts[number]
            here = [(i, die) for i, (roll, die) in enumerate(info.symbols) if roll == depth]
            if here:
                checks.append((info.test, here, list(table.items())))
        return checks

    def _same(self, face: tuple[int, ...], checks: _Checks) -> bool:
        """Does every fact below a class keep its truth with ``face`` in its representative's
        place? (Untraced, there are no facts to go by: no face joins another.)"""
        if not self.traced:
            return False
        for test, here, ways in checks:
            for values, truth in ways:
                moved = list(values)
                for i, die in here:
                    moved[i] = face[die]
                try:
                    if test(moved) is not truth:
                        return False
                except ArithmeticError:
                    return False
        return True

    def _gather(
        self, depth: int, members: list[tuple[int, ...]], below: FactTable, into: FactTable
    ) -> None:
        """Add the facts below a class of faces to ``into``, once per member (the
        representative's ways moved to each member's face), keeping only facts that mention a
        die rolled above ``depth``: no ancestor needs the others."""
        for number, table in below.items():
            info = self._facts[number]
            if info.low >= depth:
                continue
            target = into.setdefault(number, {})
            here = [(i, die) for i, (roll, die) in enumerate(info.symbols) if roll == depth]
            if not here or not members:
                target.update(table)
                continue
            for face in members:
                for values, truth in table.items():
                    moved = list(values)
                    for i, die in here:
                        moved[i] = face[die]
                    target[tuple(moved)] = truth


__all__ = [
    "Answer",
    "AskNode",
    "Command",
    "Decider",
    "Die",
    "Distribution",
    "Explorer",
    "Follow",
    "LeafFunction",
    "Node",
    "OddsError",
    "RollNode",
    "Run",
    "Subtree",
    "TooBig",
    "Watched",
    "adjudicate",
    "canonical",
    "classes_of",
    "count_faces",
    "faces_of",
    "listed_ways",
    "matcher",
    "run_path",
    "sample",
    "stop_here",
    "ways_of",
]
