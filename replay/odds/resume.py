"""A suspended rule procedure copied, so that a run can go on where another stood.

CPython cannot copy a suspended generator. What it will do next is its continuation
(``replay/odds/continuation.py``): for each frame of its ``yield from`` chain, the instruction it
stands at, its locals and its stack. ``freeze`` takes that by value (``replay/odds/held.py``):
the mutable values copied with one memo across the chain (an object two frames share stays one
object), or, for the graph, held in place, what each held noted once and put back at each
resume; a traced die (``Die``) given back as its number. ``Frozen.resume`` makes a new chain
from it, each frame a generator of a code object made from the frame's own (written by hand,
``_hand_place``: its bytes with a prologue after its RESUME, every relative jump as it was, the
exception table shifted, checked in the tests against the ``bytecode`` library's:
tests/odds/resume_reference.py), whose prologue restores its locals and its stack and jumps to
its yield: the innermost to its ``YIELD_VALUE`` with the request again, an outer one into the
``SEND`` of its ``yield from`` with the inner generator made before it. Primed once, the new
chain stands where the old one stood, waiting for the answer to that request. A frame that
only passes on its inner generator's result (``return (yield from ...)``, as the key finds
it) is not copied: its outer frame's copy stands in its inner generator's copy, and goes on
alike.

Only what is known is copied: a frame with free variables (its cells are made anew and given
their values, and no function held can share them: a closure is not copied), a value of a kind
not known by value (a lock, an iterator of a kind not listed, a generator off the chain), a
stack that does not hold what the code says it holds (a NULL of a pending call), a code not of
the shape the prologue is written for, or any Python but 3.11 (whose frames and bytecode this
was written for): ``freeze`` raises NotFrozen, and the caller replays the path instead.

A resumed frame runs another code object than the original, one place further down: the
continuation writes it as the original (``original``), so that its branches meet those of
the frames it was copied from."""

from __future__ import annotations

import dataclasses
import dis
import inspect
import opcode
import sys
import types
from collections.abc import Generator, Mapping
from typing import TYPE_CHECKING, Any

from blowbyblow.replay.odds.held import (
    SAME,
    Holding,
    Nested,
    NotFrozen,
    copy,
    fresh,
    hold_top,
    put_back,
)

if TYPE_CHECKING:
    from blowbyblow.replay.odds.continuation import Frame

# A resumed outer frame, for a continuation's key to read as it was made (``Frozen.resume``):
# the generator, the inner generator it stands in, and what it was made from.
Read = tuple[Any, Any, "_Frame"]

SUPPORTED = sys.version_info[:2] == (3, 11)
HOLDER = ".resume"  # the free variable through which a resumed frame is handed its values


@dataclasses.dataclass(frozen=True)
class _Place:
    """A code object made to resume ``code`` at its yield at ``lasti``: ``locals`` restored by
    name, ``depth`` values pushed, then the request (innermost) or None (an outer frame)."""

    code: types.CodeType  # the resumer
    original: types.CodeType
    shift: int  # the resumer's offsets less the original's


@dataclasses.dataclass(slots=True)
class _Frame:
    place: _Place  # the code that resumes it
    globals: dict[str, Any]
    name: str
    qualname: str
    values: tuple[Any, ...]  # its locals' (``place``'s names)
    stack: tuple[Any, ...]  # bottom first; an outer frame's last is its inner generator's place
    iterators: bool = False  # held in place: it holds an iterator, made anew at each resume
    # Its place restores only the live locals a key reads (no names only besides, no cells):
    # what a key would read of its copy is known as it is made (``Frozen.resume``'s reads).
    plain: bool = False
    names: tuple[str, ...] = ()  # its live locals' (``place``'s, when plain)
    _steady: bool | None = None  # ``steady``'s answer, once asked
    # Its resumer as a function, made at its first resume, and the cell through which each
    # resume hands it its values (read only by the prologue, as the chain is primed).
    _made: tuple[types.FunctionType, types.CellType] | None = None

    def function(self) -> tuple[types.FunctionType, types.CellType]:
        made = self._made
        if made is None:
            holder = types.CellType(None)
            function = types.FunctionType(self.place.code, self.globals, self.name, None, (holder,))
            function.__qualname__ = self.qualname
            made = self._made = (function, holder)
        return made

    def steady(self) -> bool:
        """Plain, and all it holds never changes (numbers, strings, tuples of them): while a
        copy stands where it was made, a node below freezes it as this same frame (``freeze``'s
        reads). Worked out when first asked: only such a copy's frame is ever asked."""
        if self._steady is None:
            self._steady = self.plain and _unchanging(self.values) and _unchanging(self.stack)
        return self._steady


@dataclasses.dataclass(frozen=True)
class Frozen:
    """A suspended chain of generators, by value, outermost first. ``restore``: held in place
    (``freeze(in_place=True)``), each object that may change and what it held, put back at
    each ``resume``; None: the frames' values are copies, copied again at each ``resume``."""

    frames: tuple[_Frame, ...]
    request: Any
    restore: tuple[tuple[Any, int, Any], ...] | None = None

    def resume(self, reads: dict[int, Read] | None = None) -> Generator[Any, Any, Any]:
        """A new chain that stands where the frozen one stood: its next ``send`` is the answer
        to ``request``. Raises NotFrozen when a value cannot be copied. Held in place, the
        chains resumed before it, and the original, must have done: their objects are put
        back as they stood and given to this one.

        ``reads``: filled with each outer frame made (``Read``), whose live locals and stack,
        for as long as it stands where it was made (in the ``yield from`` of the same inner
        generator), are what its prologue restored: its frame's ``names`` and ``values``, and
        its ``stack`` with the inner generator on top (held in place, a frame holding no
        iterator, ``plain``: its values are its frame's own, not copies)."""
        memo: dict[int, Any] = {}
        restore = self.restore
        if restore is not None:
            put_back(restore)
        inner: Any = None
        holders = []
        for frame in reversed(self.frames):
            if restore is None:
                values = tuple([copy(v, memo) for v in frame.values])
                stack = [copy(v, memo) for v in frame.stack]
            else:  # only an iterator is made anew (its place cannot always be put back)
                values, stack = frame.values, list(frame.stack)
                if frame.iterators:
                    values = tuple([fresh(v, memo) for v in values])
                    stack = [fresh(v, memo) for v in stack]
            if inner is None:
                stack.append(self.request)
            else:
                stack[-1] = inner
                stack.append(None)
            stack.reverse()  # UNPACK_SEQUENCE pushes the first item last (on top)
            kept = frame._made
            function, holder = kept if kept is not None else frame.function()
            holder.cell_contents = (values, tuple(stack))
            holders.append(holder)
            made = function()
            if reads is not None and inner is not None and frame.plain and restore is not None:
                reads[id(made)] = (made, inner, frame)
            inner = made
        assert inner is not None
        try:
            # primed: each frame runs its prologue (reading its holder), the request is asked
            request = inner.send(None)
        finally:
            for holder in holders:  # nothing read again: let go of the values and generators
                holder.cell_contents = None
        if request is not self.request:
            raise NotFrozen("the resumed chain asked something else")
        return inner  # type: ignore[no-any-return]


def freeze(
    generator: Any,
    request: Any,
    frames: Mapping[int, Frame],
    *,
    in_place: bool = False,
    reads: Mapping[int, Read] | None = None,
) -> Frozen:
    """``generator``'s chain by value, waiting on ``request``, from its frames as its
    continuation's key read them (``Continuations.key(keep=True)``: the live locals, those
    that only name the request besides, and the stack). Raises NotFrozen.

    ``in_place``: the objects that may change are held, not copied, with what each holds (a
    list's items, a dict's, a set's, a dataclass's fields), and put back at each ``resume``:
    one copy of their contents a node rather than a copy of every object each run. For a
    caller that runs one chain at a time, each done before the next resume (the graph, depth
    first). Where an iterator is held other than by a frame itself (its place could not
    always be put back), the values are copied instead.

    ``reads``: the outer frames of the chain last resumed (``Frozen.resume``'s); one that still
    stands where it was made, and whose frame is steady, is frozen as that frame again."""
    if not SUPPORTED:
        raise NotFrozen(f"Python {sys.version_info[:2]} is not 3.11")
    if in_place:
        restore: list[tuple[Any, int, Any]] = []
        try:
            out = _chain(generator, frames, Holding({}, restore), reads)
        except Nested:
            pass
        else:
            return Frozen(frames=out, request=request, restore=tuple(restore))
    return Frozen(frames=_chain(generator, frames, {}, reads), request=request)


def _chain(
    generator: Any, frames: Mapping[int, Frame], memo: Any, reads: Mapping[int, Read] | None
) -> tuple[_Frame, ...]:
    out: list[_Frame] = []
    g = generator
    while g is not None:
        if type(g) is not types.GeneratorType:
            raise NotFrozen(f"{type(g).__qualname__} is not a generator")
        inner = g.gi_yieldfrom
        read = frames.get(id(g))
        frame = g.gi_frame
        if (
            inner is not None
            and read is not None
            and frame is not None
            and frame.f_lasti in read[0].passing()
        ):
            # it only passes on its inner generator's result (the key's layout's ``passing``):
            # the copy goes on as well without it, its outer frame standing in its inner's copy
            g = inner
            continue
        made = reads.get(id(g)) if reads else None
        if made is not None and made[0] is g and made[1] is inner and made[2].steady():
            out.append(made[2])  # not run since it was made: the same locals and stack
            g = inner
            continue
        if read is None:
            raise NotFrozen("a frame its continuation did not read")
        out.append(_frame(g, read, memo))
        g = g.gi_yieldfrom
    return tuple(out)


def _frame(g: types.GeneratorType[Any, Any, Any], read: Frame, memo: Any) -> _Frame:
    layout, lasti, names, values, stack = read
    kept_code = _CODES.get(id(layout))
    if kept_code is None or kept_code[0] is not layout:
        kept_code = _CODES[id(layout)] = _code(layout, g.gi_code)
    _, code, depths, extra = kept_code
    if code.co_freevars:
        raise NotFrozen(f"{code.co_qualname} has free variables")
    expected = depths.get(lasti)
    if expected is None or expected != len(stack):
        raise NotFrozen(f"{code.co_qualname} holds a stack this cannot read at {lasti}")
    inner = g.gi_yieldfrom
    if inner is not None and (not stack or stack[-1] is not inner):
        raise NotFrozen(f"{code.co_qualname}'s inner generator is not on its stack")
    if extra:  # read only to name the request (in an error): restored all the same
        bound = g.gi_frame.f_locals  # type: ignore[union-attr]
        bound_extra = [n for n in extra if n in bound]
        names = (*names, *bound_extra)
        values = [*values, *(bound[n] for n in bound_extra)]
    held = stack[:-1] if inner is not None else stack
    iterators = False
    if type(memo) is Holding:
        memo.iterated = False
        same = SAME  # what never changes, as it is, without a call
        kept_values = tuple([v if type(v) in same else hold_top(v, memo) for v in values])
        kept = [v if type(v) in same else hold_top(v, memo) for v in held]
        iterators = memo.iterated
    else:
        kept_values = tuple([copy(v, memo) for v in values])
        kept = [copy(v, memo) for v in held]
    if inner is not None:
        kept.append(None)
    plain = not extra and not code.co_cellvars and not iterators
    return _Frame(
        _place(code, lasti, tuple(names), len(kept), inner is None),
        g.gi_frame.f_globals,  # type: ignore[union-attr]
        g.__name__,
        g.__qualname__,
        kept_values,
        tuple(kept),
        iterators,
        plain,
        tuple(names),
    )


_UNCHANGING = frozenset({int, float, bool, str, bytes, type(None)})


def _unchanging(values: Any) -> bool:
    """Does ``values`` hold only numbers, strings and tuples or frozen sets of such?"""
    for v in values:
        kind = type(v)
        if kind not in _UNCHANGING and not (
            (kind is tuple or kind is frozenset) and _unchanging(v)
        ):
            return False
    return True


# What ``_frame`` needs of a frame's code, by its layout's id (``continuation._Layout``, kept):
# the original code, the stack depth at each of its yields, the names that only name a request.
_CODES: dict[int, tuple[Any, types.CodeType, dict[int, int], tuple[str, ...]]] = {}


def _code(
    layout: Any, code: types.CodeType
) -> tuple[Any, types.CodeType, dict[int, int], tuple[str, ...]]:
    made = RESUMERS.get(id(code))
    original = code if made is None else made.original
    return layout, original, _depths(original), tuple(sorted(layout.names_only - {HOLDER}))


# --- the stack a code holds at each yield ------------------------------------------------------

_DEPTHS: dict[int, tuple[types.CodeType, dict[int, int]]] = {}
_OP = dis.opmap
_STOPS = {
    _OP[n]
    for n in (
        "RETURN_VALUE",
        "RAISE_VARARGS",
        "RERAISE",
        "JUMP_FORWARD",
        "JUMP_BACKWARD",
        "JUMP_BACKWARD_NO_INTERRUPT",
    )
}
_JUMPS = set(dis.hasjrel) | set(dis.hasjabs)
_BACKWARD = {op for op in _JUMPS if "JUMP_BACKWARD" in dis.opname[op]}
# 3.11's inline cache entries after each op (what dis skips); 3.11 only, as is resuming
_CACHES: list[int] = getattr(opcode, "_inline_cache_entries", [0] * 256)


def _walk(code: types.CodeType) -> list[tuple[int, int, int | None]]:
    """``code``'s instructions as (offset, opcode, argument), as ``dis`` reads them (an
    EXTENDED_ARG its own, its value in the next one's argument; caches skipped) without the
    names and values ``dis`` works out for each, most of its time."""
    raw = code.co_code
    out: list[tuple[int, int, int | None]] = []
    extended, i, n = 0, 0, len(raw)
    have, extend = dis.HAVE_ARGUMENT, _OP["EXTENDED_ARG"]
    while i < n:
        op = raw[i]
        if op >= have:
            arg = raw[i + 1] | extended
            extended = arg << 8 if op == extend else 0
            out.append((i, op, arg))
        else:
            extended = 0
            out.append((i, op, None))
        i += 2 + 2 * _CACHES[op]
    return out


def _handlers(code: types.CodeType) -> list[tuple[int, int, int, int, bool]]:
    """``code``'s exception table: (start, end, target, depth, lasti), offsets in bytes."""
    table = code.co_exceptiontable
    out: list[tuple[int, int, int, int, bool]] = []
    i = 0

    def number() -> int:
        nonlocal i
        value = table[i] & 63
        while table[i] & 64:
            i += 1
            value = value << 6 | table[i] & 63
        i += 1
        return value

    while i < len(table):
        start = number() * 2
        end = start + number() * 2
        target = number() * 2
        packed = number()
        out.append((start, end, target, packed >> 1, bool(packed & 1)))
    return out


def _depths(code: types.CodeType) -> dict[int, int]:
    """For each ``YIELD_VALUE`` of ``code`` (by offset), how many values its stack holds once it
    has yielded: a forward pass over the instructions with ``dis.stack_effect``, from the start
    and from each exception handler."""
    kept = _DEPTHS.get(id(code))
    if kept is not None and kept[0] is code:
        return kept[1]
    instructions = _walk(code)
    where = {offset: i for i, (offset, _, _) in enumerate(instructions)}
    depth: dict[int, int] = {}
    todo = [(0, 0)]
    for _, _, target, level, lasti in _handlers(code):
        todo.append((where[target], level + int(lasti) + 1))
    generator = _OP["RETURN_GENERATOR"]
    while todo:
        i, d = todo.pop()
        while i < len(instructions):
            if i in depth:
                break
            depth[i] = d
            offset, op, arg = instructions[i]
            if op in _JUMPS and arg is not None:
                to = offset + 2 + 2 * (-arg if op in _BACKWARD else arg)
                if to in where:
                    todo.append((where[to], d + dis.stack_effect(op, arg, jump=True)))
            if op in _STOPS:
                break
            # RETURN_GENERATOR: the generator's first send is pushed (its POP_TOP takes it)
            d += (
                1
                if op == generator
                else dis.stack_effect(op, arg, jump=False if op in _JUMPS else None)
            )
            i += 1
    yielding = _OP["YIELD_VALUE"]
    found = {
        offset: depth[i] - 1
        for i, (offset, op, _) in enumerate(instructions)
        if op == yielding and i in depth
    }
    _DEPTHS[id(code)] = (code, found)
    return found


# --- the code that resumes ------------------------------------------------------------------------

_PLACES: dict[tuple[int, int, tuple[str, ...], int, bool], _Place] = {}  # codes kept in each
# Each resumer by its code: what the continuation writes it as (``original``).
RESUMERS: dict[int, _Place] = {}  # by id: hashing a code hashes its bytecode


def _place(
    code: types.CodeType, lasti: int, names: tuple[str, ...], depth: int, innermost: bool
) -> _Place:
    key = (id(code), lasti, names, depth, innermost)
    found = _PLACES.get(key)
    if found is None:
        found = _PLACES[key] = _make_place(code, lasti, names, depth, innermost)
        RESUMERS[id(found.code)] = found
    return found


def _make_place(
    code: types.CodeType, lasti: int, names: tuple[str, ...], depth: int, innermost: bool
) -> _Place:
    # By hand, some 0.1 ms: the library (pure Python) took 3-5 ms a resumer, paid by a
    # process's first call of a command, and, told to keep the original's handlers, gave them
    # all depth 0 (a resumed frame that raised in a try within a loop crashed the interpreter).
    made = _hand_place(code, lasti, names, depth, innermost)
    if made is None:
        raise NotFrozen(f"{code.co_qualname} is not of the shape a resumer is written for")
    return made


# --- a resumer made by hand ---------------------------------------------------------------------


def _emit(out: bytearray, op: int, arg: int) -> None:
    """One instruction, with the EXTENDED_ARGs its argument needs and its caches zeroed."""
    for shift in (24, 16, 8):
        if arg >> shift:
            out += bytes((_OP["EXTENDED_ARG"], (arg >> shift) & 0xFF))
    out += bytes((op, arg & 0xFF))
    out += bytes(2 * _CACHES[op])


def _varint(out: bytearray, value: int, first: int = 0) -> None:
    """An exception table's number: six bits a byte, most significant first, 0x40 for more."""
    chunks = [value & 63]
    value >>= 6
    while value:
        chunks.append(value & 63)
        value >>= 6
    for i in range(len(chunks) - 1, -1, -1):
        out.append(chunks[i] | (64 if i else 0) | (first if i == len(chunks) - 1 else 0))


def _hand_place(
    code: types.CodeType, lasti: int, names: tuple[str, ...], depth: int, innermost: bool
) -> _Place | None:
    """The resumer ``_make_place`` describes, written by hand: the original's bytes with
    COPY_FREE_VARS before them and the prologue after its RESUME, every relative jump as it
    was, the exception table shifted, the prologue's lines none. None where this does not
    know the code's shape (its runs are replayed)."""
    raw = code.co_code
    # before RESUME: MAKE_CELL, COPY_FREE_VARS, RETURN_GENERATOR, POP_TOP (no caches)
    at = next((k + 2 for k in range(0, len(raw), 2) if raw[k] == _OP["RESUME"]), None)
    if at is None or raw[at - 1] != 0 or raw[lasti] != _OP["YIELD_VALUE"]:
        return None
    target = lasti
    if not innermost:  # SEND, no caches, just before its YIELD_VALUE
        target -= 2
        if raw[target] != _OP["SEND"]:
            raise NotFrozen(f"{code.co_qualname} does not wait in a yield from at {lasti}")
        while target >= 2 and raw[target - 2] == _OP["EXTENDED_ARG"]:
            target -= 2
    # the line table must part where the prologue goes
    table = code.co_linetable
    unit, i = 0, 0
    while unit * 2 < at and i < len(table):
        unit += (table[i] & 7) + 1
        i += 1
        while i < len(table) and not table[i] & 128:
            i += 1
    if unit * 2 != at:
        return None
    cells = [c for c in code.co_cellvars if c not in code.co_varnames]
    slots = {n: k for k, n in enumerate([*code.co_varnames, *cells])}
    prologue = bytearray()
    _emit(prologue, _OP["LOAD_DEREF"], len(slots))
    _emit(prologue, _OP["UNPACK_SEQUENCE"], 2)
    _emit(prologue, _OP["UNPACK_SEQUENCE"], len(names))
    for n in names:
        _emit(prologue, _OP["STORE_DEREF" if n in code.co_cellvars else "STORE_FAST"], slots[n])
    _emit(prologue, _OP["UNPACK_SEQUENCE"], depth + 1)
    # relative, from the end of the jump, which the original's first instruction follows
    _emit(prologue, _OP["JUMP_FORWARD"], (target - at) // 2)
    shift = 2 + len(prologue)
    made_code = b"".join((bytes((_OP["COPY_FREE_VARS"], 1)), raw[:at], bytes(prologue), raw[at:]))
    handlers = bytearray()
    for start, end, to, level, lasti_pushed in _handlers(code):
        if start < at:
            return None
        _varint(handlers, (start + shift) // 2, 128)
        _varint(handlers, (end - start) // 2)
        _varint(handlers, (to + shift) // 2)
        _varint(handlers, level << 1 | int(lasti_pushed))
    none = 0x80 | 15 << 3  # a location entry for code units without a place in the source
    lines = (
        bytes((none,))
        + table[:i]
        + bytes(
            none | (min(8, len(prologue) // 2 - k) - 1) for k in range(0, len(prologue) // 2, 8)
        )
        + table[i:]
    )
    made = code.replace(
        co_code=made_code,
        co_exceptiontable=bytes(handlers),
        co_linetable=lines,
        co_freevars=(HOLDER,),
        co_argcount=0,
        co_posonlyargcount=0,
        co_kwonlyargcount=0,
        co_flags=code.co_flags & ~(inspect.CO_VARARGS | inspect.CO_VARKEYWORDS),
        co_stacksize=max(code.co_stacksize, len(names) + 2, depth + 2),
    )
    return _Place(code=made, original=code, shift=shift)


__all__ = ["HOLDER", "RESUMERS", "SUPPORTED", "Frozen", "NotFrozen", "freeze"]
