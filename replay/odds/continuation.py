"""A suspended rule procedure's continuation, by value: the bytes that say what it will do next.

A rule procedure is a generator, its sub-procedures nested in it by ``yield from``. Suspended at
a roll, what it will do for each answer depends on nothing but, for each of its frames, the
instruction it stopped at, the local variables it will still read and the values on its stack
(a loop's iterator and where it stands, the sub-procedure it waits in), and on the state the
driver folded so far. ``Continuations.key`` writes all of that as bytes, so that two branches of
an exploration whose bytes are equal go on alike and can share what lies below them
(``replay/odds/graph.py``).

What keeps it exact:

- **Only the locals still read.** ``live_after`` reads the frame's bytecode (``dis``): a local
  that no path from the resume point reads before writing it again is dead, and left out, so two
  branches that differ only in a die already used (its hit counted, its value spent) meet. A
  cell (a local that a function made in the frame reads: a comprehension, a lambda) is a
  local like any other: the frame reads it by ``LOAD_DEREF``, and handing it to a function
  (``LOAD_CLOSURE``) counts as a read; a function still held is written with its cells. A
  frame whose code reads its locals some other way (``locals()``, ``exec``), makes a class (a
  class is written by its name, an instance by its fields: neither by the cells its methods
  read) or uses an instruction on locals this module does not know keeps them all.
- **The stack as it is.** The frame's stack values (the garbage collector's referents past its
  local slots) are all written; when the slots cannot be matched one by one with the locals
  (another interpreter's layout), every referent is written, dead locals included: fewer
  branches meet, none wrongly.
- **Values by value.** msgspec writes plain data, structs and dataclasses in C; what it cannot
  write is written here: a suspended generator as its own continuation, a list's or a tuple's
  iterator as the items it has still to give (a loop at the last of three hits and one at the
  only hit go on alike), another iterator by its ``__reduce__`` (what it iterates and where it
  stands), a function by its code and closure, a
  bound method by its function and object, a class by its name. Anything else (a lock, an
  object of an unknown kind) raises ``Unshared``: that branch shares nothing, never wrongly.
  Each frame's values go with their types, so a tuple and a list of the same items (written
  alike) are told apart where the rules could tell them apart.
- **Shared objects by reference.** An object that frames share and could change in place (a
  list, a dict, a set, a dataclass, a struct that is not a value) is written in full where the
  continuation first holds it and by reference where it holds it again: written once, and
  two frames holding one list are not two frames holding equal copies (a change in place
  through one shows in the other only in the first).
- **Frames that only pass on.** A frame standing in ``return (yield from ...)`` (or its result
  bound to a local, read back and returned), with nothing live and no handler over it, goes on
  exactly as its inner generator does: it is left out (``liveness.passes_on``).
- **Labels left out.** A ``Label`` (a hit's running number, which the rules declare names
  its rolls and nothing else) is written alike whatever its number: "hit 5 of 12" and "hit 3
  of 10" go on alike. The roll a frame waits on is written beside its continuation without its
  key and purpose (``_NAMES_ONLY``), as they only name it.
- **Records left out.** A ``Recorded`` value (what the rules hold only to record it in an
  event later: the dice before a parry, the die it turned aside) is written alike whatever it
  holds, and the dice in it are not read (not pinned).
- **Dice read.** A die value (``Die``) is written as its number, and noted (``pinned``): the
  explorer then does not group that roll's faces by the facts alone, as the continuation holds
  the face itself.

A frame resumed from a copy (``replay/odds/resume.py``) runs a code object of its own, its
offsets shifted by a prologue and its values handed in through one free variable: it is
written as the frame it was copied from (its original's number and place, the holder left
out), so that the branches of copies and originals meet.

States are frozen structs: each is written once per exploration (``Continuations`` keeps its
bytes by identity, with the struct itself so the identity stays its own)."""

from __future__ import annotations

import gc
import operator
import types
from collections.abc import Callable
from typing import Any

import msgspec

from blowbyblow.domain.core import Label, Recorded, roll
from blowbyblow.domain.system import OddsRules
from blowbyblow.replay.odds import resume
from blowbyblow.replay.odds.liveness import (
    Live,
    bound_yields,
    live_resumes,
    passes_on,
    resumer_bound,
)
from blowbyblow.replay.odds.referents import furniture_count, match_slots
from blowbyblow.replay.odds.traced import Die
from blowbyblow.replay.odds.values import is_value


class Unshared(Exception):
    """Control flow: a continuation holds a value that cannot be written by value."""


def live_after(code: types.CodeType, lasti: int) -> Live:
    """The locals a generator of ``code`` suspended at ``lasti`` (its frame's ``f_lasti``) will
    still read once resumed; None: all of them (a place this module does not know)."""
    return _layout(code).resumes().get(lasti)


# --- a frame's values ---------------------------------------------------------------------------


class _Layout:
    """What the fingerprint needs of a code object, worked out once."""

    __slots__ = (
        "_bound",
        "_resumes",
        "cells",
        "code",
        "fixed",
        "free",
        "names_only",
        "number",
        "passes",
        "plans",
        "shift",
        "slots",
    )

    def __init__(self, code: types.CodeType, number: int) -> None:
        self.code = code  # kept, so that no other code object takes its id
        self.number = number  # the code's own number in this process (where the code is)
        self.shift = 0  # a resumer's offsets less its original's (``replay/odds/resume.py``)
        plain = list(code.co_varnames)
        # the frame's local slots in order: locals, cells only, free vars
        slots = plain + [c for c in code.co_cellvars if c not in plain] + list(code.co_freevars)
        self.slots = tuple(slots)
        self.cells = frozenset(code.co_cellvars) | frozenset(code.co_freevars)
        self.free = frozenset(code.co_freevars)
        self.names_only = _NAMES_ONLY.get(code, frozenset())
        self._resumes: dict[int, Live] | None = None
        self._bound: dict[int, frozenset[str] | None] | None = None
        self.passes: frozenset[int] | None = None  # ``passing``, once asked
        # Where the locals bound at a yield are known from the code alone (``bound_yields``):
        # the plan by the place alone, read with no ``f_locals`` (None: not so known there).
        self.fixed: dict[int, _Fixed | None] = {}
        # How a suspended frame's values are read (``_frame_values``), by the place it stands
        # at and the locals bound there: where its locals start among its referents, the names
        # written, and where its stack starts.
        self.plans: dict[tuple[int, frozenset[str]], _Plan] = {}

    def resumes(self) -> dict[int, Live]:
        """``live_resumes`` of its code, worked out when first asked."""
        if self._resumes is None:
            self._resumes = live_resumes(self.code)
        return self._resumes

    def passing(self) -> frozenset[int]:
        """Where (its own code's offsets) a frame only passes on its inner generator's result
        (``passes_on``) and holds nothing a key writes: no live local, no free variable but a
        name. Standing there it reads as its locals ``()``, its values ``[]`` and its stack
        its inner generator alone, and a key leaves it out (``_chain``)."""
        if self.passes is None:
            if self.free - self.names_only:
                self.passes = frozenset()
            else:
                resumes = self.resumes()
                self.passes = frozenset(
                    at for at in passes_on(self.code) if resumes.get(at) == frozenset()
                )
        return self.passes

    def fixed_plan(self, lasti: int) -> _Fixed | None:
        """The plan of a frame at ``lasti`` (its own code's offset) where the code alone says
        which locals are bound there and no cell's value is written: the names written, their
        number, each one's place among the bound slots, and how many slots are bound (cells
        and free variables always are, as cells). None: read it by its ``f_locals``."""
        if self._bound is None:
            self._bound = bound_yields(self.code)
        bound = self._bound.get(lasti)
        plan = None
        if bound is not None:
            live = self.resumes().get(lasti)
            slots = [n for n in self.slots if n in self.cells or n in bound]
            names = [
                n
                for n in slots
                if (live is None or n in live or n in self.free) and n not in self.names_only
            ]
            if not self.cells.intersection(names):  # a cell's value: bound only if it is full
                # the values by one C call (a getter of two or more gives a tuple: two more)
                where = [slots.index(n) for n in names]
                get = [operator.itemgetter(*(s + i for i in where), 0, 0) for s in (6, 7)]
                plan = (tuple(names), _names_number(tuple(names)), get[0], get[1], len(slots))
        self.fixed[lasti] = plan
        return plan


_UNKNOWN: Any = object()  # no plan worked out yet
# By the code's id (hashing a code object hashes its bytecode and constants, every time).
_LAYOUTS: dict[int, _Layout] = {}
# Locals that only name the request a frame waits on: the roll a procedure asks for is written
# beside its continuation without its key and purpose (``replay/odds/sharing.py``), and once
# answered ``roll`` reads its key only to name it in an error.
_NAMES_ONLY: dict[types.CodeType, frozenset[str]] = {roll.__code__: frozenset({"key", "purpose"})}


def _layout(code: types.CodeType) -> _Layout:
    found = _LAYOUTS.get(id(code))
    if found is None:
        made = resume.RESUMERS.get(id(code))
        if made is None:
            found = _LAYOUTS[id(code)] = _Layout(code, len(_LAYOUTS))
        else:
            found = _LAYOUTS[id(code)] = _resumer_layout(code, made.original, made.shift)
    return found


def _resumer_layout(code: types.CodeType, original: types.CodeType, shift: int) -> _Layout:
    """A resumer's layout (``replay/odds/resume.py``): written as its original (its number,
    its places), its holder of values left out as a name only."""
    of = _layout(original)
    layout = _Layout(code, of.number)
    layout.shift = shift
    layout.names_only = of.names_only | {resume.HOLDER}
    layout._resumes = {at + shift: live for at, live in of.resumes().items()}
    layout._bound = resumer_bound(code, original, shift)
    # the same instructions past its prologue: where it passes on, as its original does
    layout.passes = frozenset(at + shift for at in of.passing())
    return layout


# Where a frame's locals start among its referents, the names of its values written (the live
# bound locals, in slot order), their number (``_names_number``) and where its stack starts.
_Plan = tuple[int, tuple[str, ...], int, int]
# A plan by the place alone (``_Layout.fixed_plan``): the names written, their number, each
# one's place among the bound slots, and how many slots are bound.
_Fixed = tuple[tuple[str, ...], int, Callable[[Any], Any], Callable[[Any], Any], int]
# A suspended frame as a key read it: its layout, its place in its original code, the names and
# values of its live bound locals and its stack.
Frame = tuple[_Layout, int, tuple[str, ...], list[Any], list[Any]]
# Each tuple of names a frame's values were written under, numbered in this process: a key
# writes the number (equal names, one number), not the names again at every frame.
_NAMES: dict[tuple[str, ...], int] = {}


def _names_number(names: tuple[str, ...]) -> int:
    number = _NAMES.get(names)
    if number is None:
        number = _NAMES[names] = len(_NAMES)
    return number


def _frame_values(
    g: types.GeneratorType[Any, Any, Any],
    layout: _Layout | None = None,
    frame: types.FrameType | None = None,
) -> tuple[tuple[str, ...], int, list[Any], list[Any]]:
    """A suspended generator's live bound locals (names, their number, values) and the values
    on its stack. When its referents cannot be matched with its slots, every referent that is
    not the frame's own furniture comes back as its stack, with no locals: more is written,
    never less.

    The match of referents with slots depends only on the code, the place it stands at and which
    of its locals are bound (CPython lays out a frame's referents as its furniture, its bound
    slots in order, then its stack), so it is made once for each (``match_slots``) and kept in the
    code's layout (``plans``): a rule procedure is suspended at the same few places over and
    over, and walking every slot of every frame of every continuation was most of the cost of
    reading a frame. The values are read from the locals as before, and the first referent
    past the furniture is checked to be none of it, so a plan gives what the match would.
    Where the code alone says which locals are bound at the place (``fixed_plan``: about
    three frames in four), neither ``f_locals`` (its sync of every slot, half the rest of
    the cost) nor the set of its names is made: the values come from the referents."""
    if frame is None:
        frame = g.gi_frame
        assert frame is not None
    code = g.gi_code
    if layout is None:
        layout = _layout(code)
    lasti = frame.f_lasti
    fixed = layout.fixed.get(lasti, _UNKNOWN)
    if fixed is _UNKNOWN:
        fixed = layout.fixed_plan(lasti)
    if fixed is not None:
        referents = gc.get_referents(g)
        # Python 3.11 (``bound_yields``): the code, its names, the frame object, the frame's
        # locals dict if it was ever asked for, its function and its code, then its slots.
        names, number, get6, get7, count = fixed
        start, get = (7, get7) if type(referents[4]) is dict else (6, get6)
        if referents[start - 1] is code and len(referents) >= start + count:
            values = [*get(referents)][:-2]
            return names, number, values, referents[start + count :]
    bound = frame.f_locals
    referents = gc.get_referents(g)
    plan = layout.plans.get((frame.f_lasti, frozenset(bound)))
    if plan is not None:
        start, names, stack, number = plan
        if start >= len(referents):
            return names, number, list(map(bound.__getitem__, names)), referents[stack:]
        # as ``_furniture``, past the generator's names (a plan's ``start`` is 3 or more)
        r = referents[start]
        kind = type(r)
        if not (
            r is code
            or r is bound
            or kind is types.FrameType
            or (kind is types.FunctionType and r.__code__ is code)
        ):
            return names, number, list(map(bound.__getitem__, names)), referents[stack:]
    found = match_slots(g, layout, bound, referents)
    if found is None:
        start = furniture_count(g, code, bound, referents)
        return (), _names_number(()), [], [r for r in referents[start:] if r is not bound]
    start, matched, stack = found
    names = tuple(matched)
    number = _names_number(names)
    if start >= 3:  # past the generator's own name and qualified name: never taken for a local
        layout.plans[(frame.f_lasti, frozenset(bound))] = (start, names, stack, number)
    return names, number, list(map(bound.__getitem__, names)), referents[stack:]


# --- values written once -----------------------------------------------------------------------

_TYPE_NUMBERS: dict[type, int] = {}  # each type's number in this process
_TYPES: dict[type, int] = {}  # by the type met: its number (a die's is an int's)


# --- writing values -------------------------------------------------------------------------------

_ITERATORS = {
    type(iter([])),
    type(iter(())),
    type(iter(range(0))),
    type(iter(range(2**64, 2**64 + 1))),
    type(iter("")),
    type(iter({})),
    type(iter({}.values())),
    type(iter({}.items())),
    type(iter(set())),
    type(reversed([])),
    type(reversed(range(0))),
    enumerate,
    zip,
    map,
    filter,
    reversed,
}
# A list's or a tuple's iterator: written as the items it has still to give.
_SEQUENCE_ITERATORS: set[type] = {type(iter([])), type(iter(()))}
(
    _EXT_GENERATOR,
    _EXT_ITERATOR,
    _EXT_FUNCTION,
    _EXT_METHOD,
    _EXT_NAMED,
    _EXT_CELL,
    _EXT_VALUE,
    _EXT_LABEL,
    _EXT_AGAIN,
) = range(1, 10)
_EXT_RECORDED = 11  # a recorded value (``Recorded``); 10 is ``_INNER``'s
# Written again by reference within one continuation (``Continuations._once``): what may be
# shared by identity and changed in place, or is large and held by many frames (a dataclass,
# a struct that is not a value, a list, a dict, a set). An immutable tuple or string is
# written by value each time (whether two equal ones are one object is chance).
_BY_IDENTITY = (list, dict, set)


class Continuations:
    """Writes continuations and states as bytes (``key``); a die met is a fact of its run."""

    def __init__(
        self,
        state_type: type | None = None,
        *,
        labels: bool = True,
        recorded: bool = True,
        flat: bool = True,
        rules: OddsRules | None = None,
    ) -> None:
        self._encode: Callable[[Any], bytes] = msgspec.msgpack.Encoder(enc_hook=self._hook).encode
        # Values written once: by identity (kept, so that no other object takes its id), their
        # bytes' number in ``_written`` (equal bytes, one number), the labels they left out.
        self._values: dict[int, tuple[Any, msgspec.msgpack.Ext, int, Any]] = {}
        self._written: dict[bytes, int] = {}
        self.state_type = state_type  # the game's state: a value (the fold makes new ones)
        # The state as the rules read it on (``OddsRules.unread``): what they never read
        # again written alike, so branches that differ only in it meet; given what the
        # command's record held by the continuation says is done (``OddsRules.done``).
        self.unread = None if rules is None else rules.unread
        self.done = None if rules is None else rules.done
        self._done: Any = None  # that of the continuation being written
        # Labels (``Label``) written all alike (False: by their numbers); ``labelled`` counts
        # those written so, so that a caller knows whether a key left any out.
        self.labels = labels
        self.labelled = 0
        self.recorded = recorded  # recorded values (``Recorded``) all alike (False: by value)
        # The values of frames met so far in the continuation being written, by identity (kept,
        # so that no other object takes its id): their order of meeting.
        self._seen: dict[int, tuple[Any, int]] = {}
        # Each generator's frame as the last key read it, by the generator's id, when asked
        # (``key(keep=True)``): its layout, place, live locals and stack (``resume.freeze``).
        self.frames: dict[int, Frame] | None = None
        self._flat = False  # writing a chain's frames one after another (``_chain``)
        # What each outer frame of the chain last resumed holds, known as it was made
        # (``Frozen.resume``'s reads): read from there while it stands where it was made.
        self.reads: dict[int, resume.Read] = {}
        self.flat = flat  # False: every frame written within the one it stands in (the tests')

    def close(self) -> None:
        """Let go of the values written (its encoder's hook refers back to it: a cycle that
        only the garbage collector would free, with every state kept, at its next full
        collection)."""
        self._values, self._written = {}, {}
        self.frames = None
        self.reads = {}

    def key(self, generator: Any, state: Any, *, keep: bool = False) -> bytes:
        """The bytes of ``generator``'s continuation and ``state``. Raises Unshared. ``keep``:
        each frame's values as read stay in ``frames`` until the next key."""
        labelled = self.labelled
        try:
            self._seen = {}
            self.frames = {} if keep else None
            if self.flat:
                self._flat = True
                try:
                    return self._chain(generator, state)
                except _OffChain:
                    pass
            # A generator off the chain: every frame written within the one that holds it, in
            # the order it is met (``_generator``), as its values are numbered in that order.
            self._seen = {}
            self.frames = {} if keep else None
            self._flat = False
            self.labelled = labelled
            self._done = None  # nothing known done: the state as ``unread`` alone gives it
            return self.write([self.value(state), generator])
        finally:
            self._seen = {}
            self._flat = False
            self._done = None

    def _chain(self, generator: Any, state: Any) -> bytes:
        """The continuation of a ``yield from`` chain written as its frames one after another,
        outermost first, each frame's inner generator (the last value on its stack) written as
        ``_INNER``: what ``_generator`` writes nested, each frame's record holding the next
        one's, in one encoding. Raises _OffChain at a generator anywhere else."""
        out: list[Any] = [None]
        frames = self.frames
        reads = self.reads
        held: list[Any] = []
        finished = None
        g = generator
        while True:
            if type(g) is not types.GeneratorType:
                raise _OffChain
            frame = g.gi_frame
            layout = _layout(g.gi_code)
            if frame is None:  # finished: it will only stop again
                finished = self._ext(_EXT_GENERATOR, [layout.number])
                break
            lasti = frame.f_lasti - layout.shift
            inner = g.gi_yieldfrom
            passes = layout.passes
            if passes is None:
                passes = layout.passing()
            if inner is not None and frame.f_lasti in passes:
                # It only passes on its inner generator's result: it goes on as that one does,
                # so the key leaves it out (what a freeze reads of it is known: nothing).
                if frames is not None:
                    frames[id(g)] = (layout, lasti, (), [], [inner])
                g = inner
                continue
            read = reads.get(id(g))
            if read is not None and read[0] is g and read[1] is inner:
                # in the ``yield from`` it was made in: it has not run since (its locals and
                # stack are as its prologue restored them; to leave, its inner generator must
                # end, and an ended one is no frame's inner generator)
                made = read[2]
                names, values, stack = made.names, list(made.values), list(made.stack)
                stack[-1] = inner
                number = _names_number(names)
            else:
                names, number, values, stack = _frame_values(g, layout, frame)
            if frames is not None:
                frames[id(g)] = (layout, lasti, names, values, stack)
            chained = inner is not None and stack and stack[-1] is inner
            held.append((layout.number, lasti, number, values + stack, chained))
            if not chained:
                break
            g = inner
        # What the command's record says is done, before any state is written (``value``).
        done = self.done
        self._done = None if done is None else done([v for h in held for v in h[3]])
        out[0] = self.value(state)
        for layout_number, lasti, number, part, chained in held:
            written, value_types = self._frame_part(part)
            if chained:
                written[-1] = _INNER
            out.append([layout_number, lasti, number, value_types, written])
        if finished is not None:
            out.append(finished)
        return self.write(out)

    def value(self, x: Any) -> msgspec.msgpack.Ext:
        """A value that never changes (``is_value``, or the state) written once: its number."""
        # a state as the rules read it on depends on what is done (``_chain``)
        done = self._done if type(x) is self.state_type else None
        kept = self._values.get(id(x))
        if kept is not None and kept[0] is x and kept[3] == done:
            self.labelled += kept[2]
            return kept[1]
        before = self.labelled
        unread = self.unread
        data = self.write(
            x if unread is None or type(x) is not self.state_type else unread(x, done)
        )
        number = self._written.setdefault(data, len(self._written))
        ext = msgspec.msgpack.Ext(_EXT_VALUE, number.to_bytes(8, "big"))
        self._values[id(x)] = (x, ext, self.labelled - before, done)
        return ext

    def write(self, x: Any) -> bytes:
        try:
            return self._encode(x)
        except (TypeError, ValueError, OverflowError, RecursionError) as e:
            raise Unshared(str(e)) from e

    def _ext(self, code: int, x: Any) -> msgspec.msgpack.Ext:
        return msgspec.msgpack.Ext(code, self.write(x))

    def _hook(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is Die or kind is Label or kind is Recorded:
            return self._number(obj)
        if kind is types.GeneratorType:
            return self._generator(obj)
        if kind is range or kind is slice:
            return self._ext(_EXT_ITERATOR, [kind.__name__, obj.start, obj.stop, obj.step])
        if kind in _SEQUENCE_ITERATORS:
            # What it will still give, not the whole sequence and a place in it: a loop over
            # three hits standing at the third goes on as one over a single hit at its first.
            # The sequence itself, if anything else that is written holds it, is written there.
            reduced = obj.__reduce__()
            rest = reduced[1][0][reduced[2] :] if len(reduced) > 2 else ()
            return self._ext(_EXT_ITERATOR, [kind.__name__, "rest", rest])
        if kind in _ITERATORS:
            reduced = obj.__reduce__()
            return self._ext(_EXT_ITERATOR, [kind.__name__, *reduced[1:]])
        if kind is types.FunctionType:
            if obj.__closure__ is None and "<" not in obj.__qualname__:
                return self._ext(_EXT_NAMED, f"{obj.__module__}.{obj.__qualname__}")
            cells = [c.cell_contents if _full(c) else _EMPTY for c in obj.__closure__ or ()]
            return self._ext(
                _EXT_FUNCTION,
                [_layout(obj.__code__).number, cells, obj.__defaults__, obj.__kwdefaults__],
            )
        if kind is types.MethodType:
            return self._ext(_EXT_METHOD, [obj.__func__, obj.__self__])
        if kind is types.BuiltinFunctionType:
            owner = obj.__self__
            if owner is None or isinstance(owner, types.ModuleType):
                return self._ext(_EXT_NAMED, f"{getattr(owner, '__name__', '')}.{obj.__name__}")
            return self._ext(_EXT_METHOD, [obj.__name__, owner])
        if isinstance(obj, type):
            return self._ext(_EXT_NAMED, f"{obj.__module__}.{obj.__qualname__}")
        if kind is types.CellType:
            return self._ext(_EXT_CELL, [obj.cell_contents if _full(obj) else _EMPTY])
        if kind is types.ModuleType:
            return self._ext(_EXT_NAMED, obj.__name__)
        raise Unshared(f"{kind.__qualname__} is not written by value")

    def _number(self, obj: Die | Label | Recorded[Any]) -> Any:
        if type(obj) is Recorded:
            # Only recorded (the rules' claim, ``Recorded``): every one is written alike. Not a
            # label: no key is made of it, so it keeps no choice's answer apart.
            if not self.recorded:
                return self._ext(_EXT_RECORDED, obj.value)
            return msgspec.msgpack.Ext(_EXT_RECORDED, b"")
        if type(obj) is Die:
            # The continuation holds this value: another face keeps it only if it gives the
            # same number (a fact on the die's own run, as when the rules read it).
            obj.facts.append((("==", obj.expr, ("c", obj.value)), True))
            return obj.value
        assert isinstance(obj, Label)
        # A label only names (the rules' claim, ``Label``): every label is written alike.
        if not self.labels:
            return obj.number
        self.labelled += 1
        return msgspec.msgpack.Ext(_EXT_LABEL, b"")

    def _once(self, x: Any) -> Any:
        """A frame's value as written: a value written once per exploration (its number); an
        object that may be shared (``_BY_IDENTITY``, a dataclass, a struct), in full where
        the continuation first holds it and by its order of meeting wherever it holds it again
        (an attack held by every frame of a sequence is written once, and two continuations
        whose frames share an object differ from two whose frames hold equal copies, as a
        change in place tells them apart); anything else as it is."""
        kind = type(x)
        how = _HOW.get(kind)
        if how is None:
            how = _HOW[kind] = (
                _ONCE if is_value(kind) else _AGAIN if _shared_kind(kind) else _AS_IT_IS
            )
            if how == _AS_IT_IS:
                _PLAIN[kind] = _type_number(kind)
        if how == _ONCE or kind is self.state_type:
            return self.value(x)
        if how == _AGAIN:
            seen = self._seen.get(id(x))
            if seen is not None and seen[0] is x:
                return msgspec.msgpack.Ext(_EXT_AGAIN, seen[1].to_bytes(4, "big"))
            self._seen[id(x)] = (x, len(self._seen))
        return x

    def _generator(self, g: types.GeneratorType[Any, Any, Any]) -> msgspec.msgpack.Ext:
        if self._flat:
            raise _OffChain
        frame = g.gi_frame
        # a resumer (``replay/odds/resume.py``) is written as the frame it was copied from
        layout = _layout(g.gi_code)
        if frame is None:  # finished: it will only stop again
            return self._ext(_EXT_GENERATOR, [layout.number])
        lasti = frame.f_lasti - layout.shift
        inner = g.gi_yieldfrom
        if type(inner) is types.GeneratorType and frame.f_lasti in layout.passing():
            # only passes on its inner generator's result: written as that one (``_chain``)
            if self.frames is not None:
                self.frames[id(g)] = (layout, lasti, (), [], [inner])
            return self._generator(inner)
        names, number, values, stack = _frame_values(g, layout)
        if self.frames is not None:
            self.frames[id(g)] = (layout, lasti, names, values, stack)
        written, value_types = self._frame_part(values + stack)
        return self._ext(_EXT_GENERATOR, [layout.number, lasti, number, value_types, written])

    def _frame_part(self, values: list[Any]) -> tuple[list[Any], list[int]]:
        """A frame's values (its locals' then its stack's: their names' number says where one
        ends) as written (``_once``), with the numbers of their types as written (a die as a
        number), in one pass: most of them (numbers, strings, tuples) are written as they
        are, their type's number found in one look-up (``_PLAIN``)."""
        out: list[Any] = []
        numbers: list[int] = []
        state_type = self.state_type
        plain = _PLAIN.get
        for v in values:
            kind = type(v)
            number = plain(kind)
            if number is None or kind is state_type:
                v = self._once(v)
                kind = type(v)
                number = _TYPES.get(kind)
                if number is None:
                    number = _type_number(kind)
            out.append(v)
            numbers.append(number)
        return out, numbers


class _OffChain(Exception):
    """Control flow: a generator held other than as the inner generator of a chain's frame."""


# Where a frame's inner generator stood on its stack: its record follows (``_chain``).
_INNER = msgspec.msgpack.Ext(10, b"")


def _type_number(kind: type) -> int:
    """The number of ``kind`` as written (a die as a number), worked out once a type."""
    t = int if kind is Die else kind  # a die is its number
    number = _TYPE_NUMBERS.get(t)
    if number is None:
        number = _TYPE_NUMBERS[t] = len(_TYPE_NUMBERS)
    _TYPES[kind] = number
    return number


_EMPTY = "\x00empty cell"
# How a frame's value is written (``Continuations._once``), by its type: once per exploration,
# once per continuation and by reference again, or as it is.
_ONCE, _AGAIN, _AS_IT_IS = range(3)
_HOW: dict[type, int] = {}
# The kinds written as they are (``_AS_IT_IS``), each with its type's number as written.
_PLAIN: dict[type, int] = {}


def _shared_kind(kind: type) -> bool:
    """Is ``kind`` written again by reference (``_BY_IDENTITY``, a dataclass, a struct)?"""
    return (
        kind in _BY_IDENTITY
        or hasattr(kind, "__dataclass_fields__")
        or issubclass(kind, msgspec.Struct)
    )


def _full(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - reading it is the test
    except ValueError:
        return False
    return True


__all__ = ["Continuations", "Live", "Unshared", "is_value", "live_after"]
