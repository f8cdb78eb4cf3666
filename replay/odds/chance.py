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

import dataclasses
import fnmatch
import itertools
import math
import operator
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from blowbyblow.domain.core import BlowByBlowError, Event
from blowbyblow.replay.engine.dice import (
    ChoiceSource,
    DiceError,
    DiceSource,
    ScriptedChoices,
    seeded_roll,
)
from blowbyblow.replay.engine.driver import Adjudication, Table

# --- dice that remember what the rules asked of them --------------------------------------------

# An expression over dice: ("d", roll, die) | ("c", value) | (op, left, right) | ("neg", x) | ...
Expr = tuple[Any, ...]
Fact = tuple[str, Expr, Expr]  # (op, left, right): a predicate the rules evaluated

_ARITH: dict[str, Callable[[int, int], int]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
}
_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    "==": operator.eq,
}


def _expr_of(x: object) -> Expr | None:
    if isinstance(x, Die):
        return x.expr
    if type(x) is int or type(x) is bool:
        return ("c", int(x))
    return None


def _value_of(x: object) -> int:
    return x.value if isinstance(x, Die) else int(x)  # type: ignore[call-overload]


class Die:
    """A die's value as the rules see it during exploration: it behaves as an ``int`` in
    arithmetic and comparisons, and records in ``facts`` (its run's list) every predicate it
    takes part in. It is deliberately *not* an ``int`` subclass: C code reads an int's value
    without asking, which would go unrecorded; a ``Die`` must be asked (``__index__``,
    ``__format__``, ``__hash__``…), and each such question pins its value as a fact."""

    __slots__ = ("expr", "facts", "value")

    def __init__(self, value: int, expr: Expr, facts: list[tuple[Fact, bool]]) -> None:
        self.value = value
        self.expr = expr
        self.facts = facts

    def _arith(self, other: object, op: str, reflected: bool = False) -> Any:
        oe = _expr_of(other)
        if oe is None:
            return NotImplemented
        a, b = (_value_of(other), self.value) if reflected else (self.value, _value_of(other))
        expr = (op, oe, self.expr) if reflected else (op, self.expr, oe)
        return Die(_ARITH[op](a, b), expr, self.facts)

    def __add__(self, other: object) -> Any:
        return self._arith(other, "+")

    def __radd__(self, other: object) -> Any:
        return self._arith(other, "+", True)

    def __sub__(self, other: object) -> Any:
        return self._arith(other, "-")

    def __rsub__(self, other: object) -> Any:
        return self._arith(other, "-", True)

    def __mul__(self, other: object) -> Any:
        return self._arith(other, "*")

    def __rmul__(self, other: object) -> Any:
        return self._arith(other, "*", True)

    def __floordiv__(self, other: object) -> Any:
        return self._arith(other, "//")

    def __rfloordiv__(self, other: object) -> Any:
        return self._arith(other, "//", True)

    def __mod__(self, other: object) -> Any:
        return self._arith(other, "%")

    def __rmod__(self, other: object) -> Any:
        return self._arith(other, "%", True)

    def __neg__(self) -> Die:
        return Die(-self.value, ("neg", self.expr), self.facts)

    def __pos__(self) -> Die:
        return self

    def __abs__(self) -> Die:
        return Die(abs(self.value), ("abs", self.expr), self.facts)

    def _compare(self, other: object, op: str, swapped: bool = False) -> Any:
        oe = _expr_of(other)
        if oe is None:
            return NotImplemented
        if swapped:
            fact: Fact = (op, oe, self.expr)
            result = _COMPARE[op](_value_of(other), self.value)
        else:
            fact = (op, self.expr, oe)
            result = _COMPARE[op](self.value, _value_of(other))
        self.facts.append((fact, result))
        return result

    def __lt__(self, other: object) -> Any:
        return self._compare(other, "<")

    def __le__(self, other: object) -> Any:
        return self._compare(other, "<=")

    def __gt__(self, other: object) -> Any:
        return self._compare(other, "<", swapped=True)

    def __ge__(self, other: object) -> Any:
        return self._compare(other, "<=", swapped=True)

    def __eq__(self, other: object) -> Any:
        return self._compare(other, "==")

    def __ne__(self, other: object) -> Any:
        result = self._compare(other, "==")
        return result if result is NotImplemented else not result

    def _pin(self) -> int:
        """The rules read the plain number: only faces giving the same number stay together."""
        self.facts.append((("==", self.expr, ("c", self.value)), True))
        return self.value

    def __hash__(self) -> int:
        return hash(self._pin())

    def __bool__(self) -> bool:
        return self._pin() != 0

    def __index__(self) -> int:
        return self._pin()

    def __int__(self) -> int:
        return self._pin()

    def __float__(self) -> float:
        return float(self._pin())

    def __str__(self) -> str:
        return str(self._pin())

    def __repr__(self) -> str:
        return repr(self._pin())

    def __format__(self, spec: str) -> str:
        return format(self._pin(), spec)


def _symbols(expr: Expr, out: set[tuple[int, int]]) -> None:
    kind = expr[0]
    if kind == "d":
        out.add((expr[1], expr[2]))
    elif kind != "c":
        for sub in expr[1:]:
            _symbols(sub, out)


# --- paths through a command ------------------------------------------------------------------


@dataclass(frozen=True)
class RollNode:
    """A chance node: a roll of ``n`` dice with ``sides`` sides (its key without the command's
    prefix, as the rules name it)."""

    key: str
    n: int
    sides: int
    purpose: str


@dataclass(frozen=True)
class AskNode:
    """A decision node (only under a best-for / worst-for policy)."""

    key: str
    options: tuple[str, ...]
    default: str


Node = RollNode | AskNode
Answer = tuple[int, ...] | str  # a roll's faces, or a decision's option


class OddsError(BlowByBlowError):
    """A command whose odds cannot be computed as asked."""


class TooBig(Exception):
    """Control flow: the exact tree is larger than the budget."""


class _Branch(BaseException):
    """Control flow: a run stopping at its first roll past its path (a BaseException, so that no
    ``except Exception`` on the way can swallow it)."""


@dataclass
class _Cursor:
    """Where a run is on its path: answers from ``path``, then the first answer of each node."""

    path: Sequence[Answer]
    traced: bool
    decisions: bool
    beyond: Callable[[Node], Answer] | None = None  # the answers past the path (default: first)
    nodes: list[Node] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)
    facts: list[tuple[Fact, bool]] = field(default_factory=list)

    def next(self, node: Node, first: Answer) -> Answer:
        depth = len(self.answers)
        self.nodes.append(node)
        if depth < len(self.path):
            answer = self.path[depth]
        else:
            answer = first if self.beyond is None else self.beyond(node)
        if type(answer) is not type(first) or (
            isinstance(node, RollNode) and len(answer) != node.n
        ):
            raise OddsError(
                f"the path does not fit the command at its step {depth + 1} ({node.key}): "
                f"{answer!r}"
            )
        self.answers.append(answer)
        return answer


def stop_here(node: Node) -> Answer:
    """A ``beyond`` for ``run_path``: stop the run at its first node past its path."""
    raise _Branch


class _PathDice:
    source = "explored"

    def __init__(self, cursor: _Cursor) -> None:
        self.cursor = cursor

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[Any, ...], str]:
        count, faces = int(n), int(sides)
        if count < 0 or faces < 1:
            raise DiceError(f"roll {key!r}: {count}D{faces} cannot be rolled")
        node = RollNode(key=key.split("/", 1)[1], n=count, sides=faces, purpose=str(purpose))
        c = self.cursor
        depth = len(c.answers)
        values = c.next(node, (1,) * count)
        assert isinstance(values, tuple)
        if not c.traced:
            return values, self.source
        return tuple(Die(v, ("d", depth, j), c.facts) for j, v in enumerate(values)), self.source


class _PathChoices:
    """Decisions on the path (best-for / worst-for); ``policy`` answers the others."""

    def __init__(self, cursor: _Cursor, policy: ChoiceSource) -> None:
        self.cursor = cursor
        self.policy = policy

    def choose(
        self, key: str, options: tuple[str, ...], default: str, prompt: str
    ) -> tuple[str, str]:
        if not self.cursor.decisions or len(options) < 2:
            return self.policy.choose(key, options, default, prompt)
        node = AskNode(key=key.split("/", 1)[1], options=options, default=default)
        answer = self.cursor.next(node, default)
        assert isinstance(answer, str)
        return answer, "explored"


@dataclass
class Run:
    """One run of the command: the nodes met, the answers given, the leaf's outcome and the facts
    about dice the rules and the leaf function evaluated on the way."""

    nodes: list[Node]
    answers: list[Answer]
    outcome: Hashable
    facts: list[tuple[Fact, bool]]
    complete: bool = True  # False: stopped at ``nodes[-1]``, the first node past its path


LeafFunction = Callable[[Adjudication], Hashable]


@dataclass(frozen=True, kw_only=True)
class Command:
    """What to explore: a command at a table (its system, rulings and choices policy), from a
    state, with the leaf function that measures each outcome."""

    table: Table
    state: Any
    command: Any
    index: int
    leaf: LeafFunction
    choices: ChoiceSource = field(default_factory=ScriptedChoices)
    # Stop the command after the first event this is true of (e.g. the end of a combat round):
    # the outcome is then the state at that point, and the dice after it are never explored.
    until: Callable[[Event], bool] | None = None


class _Stop(Exception):
    """Control flow: the event the exploration stops after has been folded in."""

    def __init__(self, state: Any) -> None:
        super().__init__("stop")
        self.state = state


def adjudicate(cmd: Command, dice: DiceSource, choices: ChoiceSource) -> Adjudication:
    """Run ``cmd`` at its table with these sources (up to ``cmd.until``). The driver is not
    changed to stop early: its game system's fold is wrapped to note the events and raise once
    the stopping event is folded."""
    table = dataclasses.replace(cmd.table, dice=dice, choices=choices, quiet=True)
    until = cmd.until
    if until is None:
        return table.adjudicate(cmd.state, cmd.command, cmd.index)
    seen: list[Event] = []
    fold = table.system.evolve

    def evolve(state: Any, event: Event) -> Any:
        state = fold(state, event)
        seen.append(event)
        if until(event):
            raise _Stop(state)
        return state

    stopping = dataclasses.replace(table, system=dataclasses.replace(table.system, evolve=evolve))
    try:
        return stopping.adjudicate(cmd.state, cmd.command, cmd.index)
    except _Stop as stop:
        return Adjudication(events=seen, state=stop.state, index=cmd.index)


def run_path(
    cmd: Command,
    path: Sequence[Answer],
    *,
    traced: bool,
    decisions: bool,
    beyond: Callable[[Node], Answer] | None = None,
) -> Run:
    """Adjudicate ``cmd`` once along ``path``; past it, each node gets ``beyond``'s answer (by
    default its first: all 1s, the default option; ``stop_here`` stops the run there)."""
    cursor = _Cursor(path=path, traced=traced, decisions=decisions, beyond=beyond)
    try:
        result = adjudicate(cmd, _PathDice(cursor), _PathChoices(cursor, cmd.choices))
    except _Branch:
        return Run(cursor.nodes, cursor.answers, None, cursor.facts, complete=False)
    outcome = cmd.leaf(result)
    return Run(nodes=cursor.nodes, answers=cursor.answers, outcome=outcome, facts=cursor.facts)


# --- the exact tree ---------------------------------------------------------------------------


def faces_of(node: RollNode, grouped: bool) -> Iterator[tuple[tuple[int, ...], Fraction]]:
    """Every outcome of a roll with its probability: each ordered tuple, or (``grouped``) each
    multiset once, sorted, with its multinomial weight."""
    total = node.sides**node.n
    sides = range(1, node.sides + 1)
    if not grouped or node.n < 2:
        weight = Fraction(1, total)
        for face in itertools.product(sides, repeat=node.n):
            yield face, weight
        return
    for face in itertools.combinations_with_replacement(sides, node.n):
        ways = math.factorial(node.n)
        for _, same in itertools.groupby(face):
            ways //= math.factorial(len(list(same)))
        yield face, Fraction(ways, total)


def count_faces(node: RollNode, grouped: bool) -> int:
    if grouped and node.n >= 2:
        return math.comb(node.n + node.sides - 1, node.n)
    return int(node.sides**node.n)


Distribution = dict[Hashable, Fraction]
# Facts below a node, by fact number: the values of the fact's dice -> its truth. Each value
# tuple is one way the fact was met on some path below (the dice of the path, in the fact's
# order of symbols).
FactTable = dict[int, dict[tuple[int, ...], bool]]


@dataclass(frozen=True)
class _FactInfo:
    symbols: tuple[tuple[int, int], ...]  # (roll's depth, die), sorted
    low: int  # the depth of the earliest roll it mentions
    test: Callable[[Sequence[int]], bool]  # its truth for values of its symbols


def _source(expr: Expr, index: Mapping[tuple[int, int], int]) -> str:
    kind = expr[0]
    if kind == "d":
        return f"v[{index[(expr[1], expr[2])]}]"
    if kind == "c":
        return f"({int(expr[1])})"
    if kind == "neg":
        return f"(-{_source(expr[1], index)})"
    if kind == "abs":
        return f"abs({_source(expr[1], index)})"
    if kind not in _ARITH:  # pragma: no cover - a Die builds no other expression
        raise ValueError(f"unknown operator {kind!r}")
    return f"({_source(expr[1], index)} {kind} {_source(expr[2], index)})"


def _compile(fact: Fact) -> _FactInfo:
    """A fact as a function of its dice: built from our own expression trees (whole numbers and
    the operators of ``_ARITH`` / ``_COMPARE`` only), so the source is safe to evaluate."""
    found: set[tuple[int, int]] = set()
    _symbols(fact[1], found)
    _symbols(fact[2], found)
    symbols = tuple(sorted(found))
    index = {s: i for i, s in enumerate(symbols)}
    op, left, right = fact
    if op not in _COMPARE:  # pragma: no cover - Die only records these
        raise ValueError(f"unknown comparison {op!r}")
    code = f"lambda v: {_source(left, index)} {op} {_source(right, index)}"
    test = eval(code, {"__builtins__": {}, "abs": abs})
    return _FactInfo(symbols=symbols, low=symbols[0][0] if symbols else 0, test=test)


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

    def __init__(
        self,
        cmd: Command,
        *,
        budget: int,
        group: Callable[[RollNode], bool] = lambda node: False,
        decide: Decider | None = None,
        traced: bool = True,
    ) -> None:
        self.cmd = cmd
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
        self._facts: list[_FactInfo] = []

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
                self._facts.append(_compile(fact))
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


# --- Monte Carlo -------------------------------------------------------------------------------


def sample(
    cmd: Command, samples: int, seed: str, *, path: Sequence[Answer] = ()
) -> dict[Hashable, int]:
    """Counts of each outcome over ``samples`` runs: the dice after ``path`` come from seed
    ``SEED/i`` (``bxb-dice-v1``, keyed like a battle's dice) for sample ``i``, so two calls with
    the same seed agree, and two paths that differ only before their sampled dice share them
    (common random numbers)."""
    counts: dict[Hashable, int] = {}
    for i in range(samples):
        dice = _SampledDice(f"{seed}/{i}", path)
        outcome = cmd.leaf(adjudicate(cmd, dice, cmd.choices))
        counts[outcome] = counts.get(outcome, 0) + 1
    return counts


class _SampledDice:
    source = "sampled"

    def __init__(self, seed: str, path: Sequence[Answer]) -> None:
        self.seed = seed
        self.path = path
        self.depth = 0

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        depth = self.depth
        self.depth += 1
        if depth < len(self.path):
            face = self.path[depth]
            assert isinstance(face, tuple)
            return face, self.source
        return seeded_roll(self.seed, key, n, sides), self.source


def matcher(patterns: Sequence[str]) -> Callable[[RollNode], bool]:
    """Roll nodes whose key or purpose matches one of the glob ``patterns``."""
    if not patterns:
        return lambda node: False
    return lambda node: any(
        fnmatch.fnmatchcase(node.key, p) or fnmatch.fnmatchcase(node.purpose, p) for p in patterns
    )


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
    "count_faces",
    "faces_of",
    "matcher",
    "run_path",
    "sample",
    "stop_here",
]
