"""A command run along a path through its chance nodes.

A rule procedure asks for dice (``Roll``) and choices (``Ask``); the driver answers them from a
dice source and a choice source. Here the driver's own ``Table`` runs the procedure with sources
that answer from a *path*: the faces chosen so far at each chance node, and the first face of any
roll beyond it (``run_path``). Monte Carlo's samples are run by ``replay/odds/samples.py``."""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from blowbyblow.domain.core import BlowByBlowError, Event
from blowbyblow.replay.engine.dice import (
    ChoiceSource,
    DiceError,
    DiceSource,
    ExploringDice,
    ScriptedChoices,
)
from blowbyblow.replay.engine.driver import Adjudication, Table
from blowbyblow.replay.odds.traced import Die, Fact

# --- paths through a command ------------------------------------------------------------------


@dataclass(frozen=True)
class RollNode:
    """A chance node: a roll of ``n`` dice with ``sides`` sides (its key without the command's
    prefix, as the rules name it)."""

    key: str
    n: int
    sides: int
    purpose: str
    counts: tuple[int, ...] = ()  # the rules read only how many show at least each (``Roll``)
    highest: int = 0  # with counts: and the faces of that many highest dice (``Roll``)


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
    traced_from: int = 0  # traced: only the rolls from this depth on are ``Die`` values
    counts: bool = True  # False: a roll's ``counts`` (what the rules read of it) is ignored
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


def check_counts(key: str, sides: int, counts: tuple[int, ...]) -> tuple[int, ...]:
    """A roll's ``counts`` (``Roll``): whole numbers rising from 2 to its sides."""
    numbers = tuple(int(c) for c in counts)
    if any(not 2 <= c <= sides for c in numbers) or list(numbers) != sorted(set(numbers)):
        raise OddsError(f"roll {key!r}: counts {counts!r} must rise from 2 to {sides}, each once")
    return numbers


def check_highest(key: str, counts: tuple[int, ...], highest: int) -> int:
    """A roll's ``highest`` (``Roll``): a whole number from 0, and only beside ``counts``."""
    if type(highest) is not int or highest < 0 or (highest and not counts):
        raise OddsError(
            f"roll {key!r}: highest {highest!r} must be a whole number from 0, "
            "and more than 0 only beside counts"
        )
    return highest


def roll_node(  # noqa: PLR0913 - the roll as the driver asks it
    key: str, n: int, sides: int, purpose: str, read: tuple[tuple[int, ...], int], *, counts: bool
) -> RollNode:
    """The chance node of a roll (its key without the command's prefix), with what the rules
    read of its dice (``read``: the ``Roll``'s counts and highest; ``counts`` False: ignored)."""
    numbers, highest = read
    return RollNode(
        key=key.split("/", 1)[1],
        n=int(n),
        sides=int(sides),
        purpose=str(purpose),
        counts=check_counts(key, int(sides), numbers) if counts else (),
        highest=check_highest(key, numbers, highest) if counts else 0,
    )


def stop_here(node: Node) -> Answer:
    """A ``beyond`` for ``run_path``: stop the run at its first node past its path."""
    raise _Branch


class _PathDice(ExploringDice):
    def __init__(self, cursor: _Cursor) -> None:
        self.cursor = cursor

    def roll_counted(  # noqa: PLR0913 - the driver's roll, and what the rules read of it
        self,
        key: str,
        n: int,
        sides: int,
        purpose: str,
        counts: tuple[int, ...],
        highest: int,
    ) -> tuple[tuple[Any, ...], str]:
        count, faces = int(n), int(sides)
        if count < 0 or faces < 1:
            raise DiceError(f"roll {key!r}: {count}D{faces} cannot be rolled")
        node = roll_node(key, count, faces, purpose, (counts, highest), counts=self.cursor.counts)
        c = self.cursor
        depth = len(c.answers)
        values = c.next(node, (1,) * count)
        assert isinstance(values, tuple)
        if not c.traced or depth < c.traced_from:
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
    return adjudicator(cmd, dice, choices)()


def adjudicator(
    cmd: Command, dice: DiceSource, choices: ChoiceSource
) -> Callable[[], Adjudication]:
    """``adjudicate`` as a function to call again and again (its table made once): each call
    runs ``cmd`` afresh with the sources as they are then (e.g. a sample's dice reseeded)."""
    table = dataclasses.replace(cmd.table, dice=dice, choices=choices, quiet=True)
    until = cmd.until
    if until is None:
        return lambda: table.adjudicate(cmd.state, cmd.command, cmd.index)
    seen: list[Event] = []
    fold = table.system.evolve

    def evolve(state: Any, event: Event) -> Any:
        state = fold(state, event)
        seen.append(event)
        if until(event):
            raise _Stop(state)
        return state

    stopping = dataclasses.replace(table, system=dataclasses.replace(table.system, evolve=evolve))

    def stopped() -> Adjudication:
        seen.clear()
        try:
            return stopping.adjudicate(cmd.state, cmd.command, cmd.index)
        except _Stop as stop:
            return Adjudication(events=list(seen), state=stop.state, index=cmd.index)

    return stopped


def run_path(  # noqa: PLR0913 - how to run, each keyword-only
    cmd: Command,
    path: Sequence[Answer],
    *,
    traced: bool,
    decisions: bool,
    beyond: Callable[[Node], Answer] | None = None,
    counts: bool = True,
) -> Run:
    """Adjudicate ``cmd`` once along ``path``; past it, each node gets ``beyond``'s answer (by
    default its first: all 1s, the default option; ``stop_here`` stops the run there).
    ``counts`` False: the rolls' ``counts`` are ignored (each face is a face of its own)."""
    cursor = _Cursor(path=path, traced=traced, decisions=decisions, beyond=beyond, counts=counts)
    try:
        result = adjudicate(cmd, _PathDice(cursor), _PathChoices(cursor, cmd.choices))
    except _Branch:
        return Run(cursor.nodes, cursor.answers, None, cursor.facts, complete=False)
    outcome = settled(cmd.leaf(result))
    hash(outcome)  # any die still inside is read now, while its run records the fact
    return Run(nodes=cursor.nodes, answers=cursor.answers, outcome=outcome, facts=cursor.facts)


def settled(outcome: Any) -> Any:
    """A leaf's outcome with every die value in it (alone, or in tuples and frozensets) read as
    its number: reading it records the fact on its own run. A die left in the outcome would be
    read only later, when the outcome is counted, after its run's facts are taken: faces would
    then be grouped that the outcome tells apart, and the answer would be wrong."""
    if isinstance(outcome, Die):
        return int(outcome)
    if isinstance(outcome, tuple):
        items = [settled(x) for x in outcome]
        return outcome._make(items) if hasattr(outcome, "_make") else tuple(items)
    if isinstance(outcome, frozenset):
        return frozenset(settled(x) for x in outcome)
    return outcome


def matcher(patterns: Sequence[str]) -> Callable[[RollNode], bool]:
    """Roll nodes whose key or purpose matches one of the glob ``patterns``."""
    if not patterns:
        return lambda node: False
    # each key and purpose matched once: the graph asks again at every node of the same roll
    known: dict[tuple[str, str], bool] = {}

    def matches(node: RollNode) -> bool:
        asked = (node.key, node.purpose)
        found = known.get(asked)
        if found is None:
            found = known[asked] = any(
                fnmatch.fnmatchcase(node.key, p) or fnmatch.fnmatchcase(node.purpose, p)
                for p in patterns
            )
        return found

    return matches


__all__ = [
    "Answer",
    "AskNode",
    "Command",
    "LeafFunction",
    "Node",
    "OddsError",
    "RollNode",
    "Run",
    "TooBig",
    "adjudicate",
    "adjudicator",
    "check_counts",
    "check_highest",
    "matcher",
    "roll_node",
    "run_path",
    "settled",
    "stop_here",
]
