"""Exact odds as a graph: branches that reach the same point of the procedure share what lies
below it, where the tree of ``replay/odds/chance.py`` explores each path on its own.

A run stops at its first roll past its path, as in ``chance``. There the procedure is a suspended
generator (its sub-procedures nested in it by ``yield from``), and what it will do next, for each
answer, depends on nothing but its *continuation*: for each of its frames, the instruction it
stopped at, its local variables and the values on its stack (the loop's iterator and where it
stands, a sub-procedure's generator), plus the state the driver folded so far and the roll it
waits for. Two paths whose continuations are equal (compared by value, ``fingerprint``) have the
same subtree below: the second takes the first's instead of running it again. A Necromunda
charge's hits, each wounding or not, saved or not, mostly end in a few states: the tree's
thousands of paths become a few hundred nodes.

What makes this exact: a procedure is a function of the state, the command, the rulings and the
answers it gets, and keeps nothing between adjudications (what the engine already requires of
rules); every object the continuation holds is compared by value, down to iterators (by their
``__reduce__``: what they iterate and where they stand) and functions (their code and closure).
Anything whose value cannot be read so (an object of an unknown kind) makes that node not shared,
never shared wrongly. The outcome the odds count is cut at each node: the units' statuses from the
final state, and the tallies and rule steps added up over the events (``Measure.final`` and
``Measure.counts``), so a shared subtree is the same whatever events came before it.
``tests/odds/test_sharing.py`` compares every demo command's odds this way with the tree's.

Dice here are plain numbers (no ``Die`` facts): rolls whose order the rules ignore are still taken
as multisets."""

from __future__ import annotations

import dataclasses
import gc
import io
import pickle
import types
from collections.abc import Callable, Generator, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from blowbyblow.domain.core import Event, RuleEvent
from blowbyblow.replay.engine.driver import Table
from blowbyblow.replay.odds.chance import count_faces, faces_of
from blowbyblow.replay.odds.outcomes import Counts, Measure, Outcome, UnitOutcome
from blowbyblow.replay.odds.paths import (
    Answer,
    Command,
    RollNode,
    TooBig,
    _Branch,
    _Cursor,
    _PathChoices,
    _PathDice,
    _Stop,
)
from blowbyblow.replay.odds.traced import Die, Fact, FactInfo, compile_fact


class Unshared(Exception):
    """Control flow: a continuation holds a value that cannot be compared by value."""


def _marker(*parts: Any) -> tuple[Any, ...]:
    return parts  # what a fingerprint says of a value that is not pickled as itself


class _Pickler(pickle.Pickler):
    """Pickles a value as its fingerprint: the bytes decode to an equal value, so equal bytes
    mean equal values. What pickle cannot take as itself is taken by value here: a die (its
    number, noted: see ``dice``), a suspended generator (its continuation), a function made at
    run time (its code and closure), code (where it is)."""

    def __init__(self, file: io.BytesIO, fingerprints: _Fingerprints) -> None:
        super().__init__(file, protocol=5)
        self.fingerprints = fingerprints

    def reducer_override(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is Die:
            self.fingerprints.dice = True
            return (int, (obj.value,))
        if kind is types.GeneratorType:
            return (_marker, ("generator", *_continuation(obj)))
        if kind is types.FunctionType:
            if obj.__closure__ is None and "<" not in obj.__qualname__:
                return NotImplemented  # a module's function: pickled by its name
            cells = tuple(c.cell_contents for c in obj.__closure__ or ())
            return (_marker, ("function", _where(obj.__code__), cells, obj.__defaults__))
        if kind is types.CodeType:
            return (_marker, ("code", _where(obj)))
        if kind is types.CellType:
            try:
                return (_marker, ("cell", obj.cell_contents))
            except ValueError:
                return (_marker, ("cell",))
        if kind is types.ModuleType:
            return (_marker, ("module", obj.__name__))
        if kind is types.FrameType:
            return (_marker, ("frame",))
        return NotImplemented


def _where(code: types.CodeType) -> tuple[str, int, str]:
    return (code.co_filename, code.co_firstlineno, code.co_qualname)


@dataclass
class _Fingerprints:
    """Fingerprints by value (bytes): see ``_Pickler``."""

    dice: bool = False  # a die value of the roll being explored was met

    def of(self, x: Any) -> bytes:
        out = io.BytesIO()
        try:
            _Pickler(out, self).dump(x)
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as e:
            raise Unshared(str(e)) from e
        return out.getvalue()

    def generator(self, g: Generator[Any, Any, Any]) -> bytes:
        """A suspended generator's continuation (see ``_continuation``)."""
        if not isinstance(g, types.GeneratorType):
            raise Unshared(f"not a generator: {type(g).__name__}")
        return self.of(("generator", *_continuation(g)))


def _continuation(g: types.GeneratorType[Any, Any, Any]) -> tuple[Any, ...]:
    """Where a suspended generator stopped, the names of its bound locals, and what the
    garbage collector finds in it: its locals' and its stack's values (with its code and
    function). Pickled in the same pass as the rest, a value met twice is written once."""
    frame = g.gi_frame
    if frame is None:
        return ("finished", _where(g.gi_code))
    inside = [r for r in gc.get_referents(g) if not isinstance(r, types.FrameType)]
    return (_where(g.gi_code), frame.f_lasti, sorted(frame.f_locals), inside)


Rel = dict[tuple[tuple[UnitOutcome, ...], Counts], Fraction]


@dataclass
class _Stopped:
    """Where a run stopped: the roll it waits for with its continuation (``node`` None: the
    command ended, ``final`` its units), what its events since its path's last answer add up
    to, and what it learnt of that answer's dice (``facts``; ``general``: the continuation and
    the outcome depend on them only through those facts, so any face keeping them true goes the
    same way)."""

    node: RollNode | None
    key: Hashable | None
    final: tuple[UnitOutcome, ...]
    counts: Counts
    facts: list[tuple[FactInfo, tuple[int, ...], bool]]
    general: bool


class Sharer:
    """Exact exploration of a command as a graph, within a budget of runs."""

    def __init__(
        self,
        cmd: Command,
        measure: Measure,
        *,
        budget: int,
        group: Callable[[RollNode], bool] = lambda node: False,
        traced: bool = True,
    ) -> None:
        self.cmd = cmd
        self.measure = measure
        self.budget = budget
        self.group = group
        self.traced = traced  # False: every face is run (no facts about dice are kept)
        self.runs = 0
        self.shared = 0  # nodes whose subtree was taken from another branch
        self.grouped_keys: set[str] = set()
        self._fp = _Fingerprints()
        self._memo: dict[Hashable, Rel] = {}
        self._zero = measure.counts(())
        self._compiled: dict[Fact, FactInfo] = {}

    def explore(self) -> dict[Outcome, Fraction]:
        rel = self._below([], self._run([]))
        out: dict[Outcome, Fraction] = {}
        for (units, counts), p in rel.items():
            outcome = Outcome(
                units=units, tallies=counts.tallies, by_side=counts.by_side, events=counts.kinds
            )
            out[outcome] = out.get(outcome, Fraction(0)) + p
        return out

    def _run(self, path: Sequence[Answer]) -> _Stopped:
        if self.runs >= self.budget:
            raise TooBig
        self.runs += 1
        cursor = _Cursor(
            path=path,
            traced=self.traced and bool(path),
            decisions=False,
            beyond=_stop_here,
            traced_from=len(path) - 1,
        )
        made: list[Any] = []
        seen: list[Event] = []
        folded: list[Any] = [None]
        system = self.cmd.table.system
        procedure, fold, until = system.procedure, system.evolve, self.cmd.until

        def watched_procedure(state: Any, command: Any, ctx: Any) -> Any:
            made.append(procedure(state, command, ctx))
            return made[-1]

        def evolve(state: Any, event: Event) -> Any:
            state = fold(state, event)
            seen.append(event)
            folded[0] = state
            if until is not None and until(event):
                raise _Stop(state)
            return state

        watched = dataclasses.replace(system, procedure=watched_procedure, evolve=evolve)
        table: Table = dataclasses.replace(
            self.cmd.table,
            system=watched,
            dice=_PathDice(cursor),
            choices=_PathChoices(cursor, self.cmd.choices),
            quiet=True,
        )
        node: RollNode | None = None
        key: Hashable | None = None
        final: tuple[UnitOutcome, ...] = ()
        self._fp.dice = False
        try:
            result = table.adjudicate(self.cmd.state, self.cmd.command, self.cmd.index)
            final = self.measure.final(result.state)
        except _Stop as stop:
            final = self.measure.final(stop.state)
        except _Branch:
            pending = cursor.nodes[-1]
            assert isinstance(pending, RollNode)
            node = pending
            try:
                key = self._fp.of((node, made[0], folded[0]))
            except Unshared:
                key = None
        counts = self.measure.counts(_since(seen, len(path)))
        general = self.traced and bool(path) and not self._fp.dice
        return _Stopped(node, key, final, counts, self._facts(cursor.facts), general)

    def _facts(
        self, recorded: list[tuple[Fact, bool]]
    ) -> list[tuple[FactInfo, tuple[int, ...], bool]]:
        out = []
        for fact, truth in recorded:
            info = self._compiled.get(fact)
            if info is None:
                info = self._compiled[fact] = compile_fact(fact)
            out.append((info, tuple(j for _, j in info.symbols), truth))
        return out

    def _below(self, path: list[Answer], stopped: _Stopped) -> Rel:
        """The outcomes from the last answer of ``path`` on, with their probabilities."""
        if stopped.node is None:
            return {(stopped.final, stopped.counts): Fraction(1)}
        known = self._memo.get(stopped.key) if stopped.key is not None else None
        if known is not None:
            self.shared += 1
            rel = known
        else:
            rel = self._chance(path, stopped.node)
            if stopped.key is not None:
                self._memo[stopped.key] = rel
        if stopped.counts == self._zero:
            return rel
        out: Rel = {}
        for (units, counts), p in rel.items():
            k = (units, counts.plus(stopped.counts))
            out[k] = out.get(k, Fraction(0)) + p
        return out

    def _chance(self, path: list[Answer], node: RollNode) -> Rel:
        grouped = node.n > 1 and self.group(node)
        if grouped:
            self.grouped_keys.add(node.key)
        if count_faces(node, grouped) > self.budget:
            raise TooBig
        classes: list[tuple[_Stopped, list[Answer], Fraction]] = []
        for face, weight in faces_of(node, grouped):
            for i, (first, members, w) in enumerate(classes):
                if first.general and _keeps(face, first.facts):
                    classes[i] = (first, members, w + weight)
                    break
            else:
                child = [*path, face]
                classes.append((self._run(child), child, weight))
        out: Rel = {}
        for first, child, weight in classes:
            for k, p in self._below(child, first).items():
                out[k] = out.get(k, Fraction(0)) + weight * p
        return out


def _keeps(face: tuple[int, ...], facts: list[tuple[FactInfo, tuple[int, ...], bool]]) -> bool:
    """Does every fact learnt of a class's first face keep its truth with ``face`` instead?"""
    for info, dice, truth in facts:
        try:
            if info.test([face[j] for j in dice]) is not truth:
                return False
        except ArithmeticError:
            return False
    return True


def _stop_here(node: Any) -> Answer:
    raise _Branch


def _since(events: Sequence[Event], answered: int) -> list[Event]:
    """The events after the ``answered``-th roll's (all of them when none was answered)."""
    if answered == 0:
        return list(events)
    rolls = 0
    for i, e in enumerate(events):
        if not isinstance(e, RuleEvent) and type(e).__name__ == "DiceRolled":
            rolls += 1
            if rolls == answered:
                return list(events[i + 1 :])
    return []


__all__ = ["Sharer", "Unshared"]
