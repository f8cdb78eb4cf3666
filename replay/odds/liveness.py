"""Which locals a suspended frame will still read once resumed: a backward dataflow over its
code's instructions (``replay/odds/continuation.py`` writes only those into a key, so that two
branches that differ only in a value spent meet)."""

from __future__ import annotations

import dis
import inspect
import sys
import types
from typing import Any

_LOADS = {"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR", "LOAD_FAST_LOAD_FAST"}
_STORES = {"STORE_FAST", "DELETE_FAST", "STORE_FAST_STORE_FAST", "STORE_FAST_MAYBE_NULL"}
# A cell's value, read or written by the frame itself; ``LOAD_CLOSURE`` hands the cell to a
# function made there (a comprehension, a lambda), which may read it: a read. ``MAKE_CELL``
# comes before a generator's first ``RESUME``, where it never stands.
_CELL_LOADS = {"LOAD_DEREF", "LOAD_CLOSURE", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF"}
_CELL_STORES = {"STORE_DEREF", "DELETE_DEREF"}
_CELL_OTHERS = {"MAKE_CELL", "COPY_FREE_VARS"}
_NO_FALL_THROUGH = {
    "JUMP_FORWARD",
    "JUMP_BACKWARD",
    "JUMP_BACKWARD_NO_INTERRUPT",
    "JUMP_ABSOLUTE",
    "JUMP",
    "JUMP_NO_INTERRUPT",
    "RETURN_VALUE",
    "RETURN_CONST",
    "RAISE_VARARGS",
    "RERAISE",
}
_JUMPS = set(dis.hasjrel) | set(dis.hasjabs)
# Names through which code could read its locals other than by the instructions above.
_INTROSPECTION = {"locals", "vars", "eval", "exec", "_getframe", "f_locals", "currentframe"}

Live = frozenset[str] | None  # the locals a frame will still read; None: all of them


def _names(argval: Any) -> tuple[str, ...]:
    return tuple(argval) if isinstance(argval, tuple) else (str(argval),)


def _use_def(ins: dis.Instruction) -> tuple[frozenset[str], frozenset[str], bool] | None:
    """What one instruction reads and writes of the locals, and whether it writes first (None:
    an instruction on locals this module does not know)."""
    op = ins.opname
    if op in _CELL_LOADS:
        return frozenset(_names(ins.argval)), frozenset(), False
    if op in _CELL_STORES:
        return frozenset(), frozenset(_names(ins.argval)), False
    if op in _CELL_OTHERS:
        return frozenset(), frozenset(), False
    if "DEREF" in op or "CELL" in op or "CLOSURE" in op or op == "LOAD_BUILD_CLASS":
        # a class made here: its methods may read a cell after the frame lets it go, and
        # the class is written by its name, its instances by their fields
        return None
    if "FAST" not in op:
        return frozenset(), frozenset(), False
    if op in _LOADS:
        return frozenset(_names(ins.argval)), frozenset(), False
    if op in _STORES:
        return frozenset(), frozenset(_names(ins.argval)), False
    if op == "STORE_FAST_LOAD_FAST":
        stored, loaded = _names(ins.argval)
        return frozenset({loaded}), frozenset({stored}), True
    return None


_Read = tuple[list[dis.Instruction], list[list[int]], list[list[int]]]
_READ: dict[int, tuple[types.CodeType, _Read]] = {}  # by the code's id, the code kept


def _read(code: types.CodeType) -> _Read:
    """A code's instructions, each one's successors (by index: the next one and its jump's
    target) and apart the handler of every exception table entry that covers it; read once
    for both analyses below."""
    kept = _READ.get(id(code))
    if kept is None or kept[0] is not code:
        instructions = list(dis.get_instructions(code))
        kept = _READ[id(code)] = (code, (instructions, *_successors(code, instructions)))
    return kept[1]


def _successors(
    code: types.CodeType, instructions: list[dis.Instruction]
) -> tuple[list[list[int]], list[list[int]]]:
    where = {ins.offset: i for i, ins in enumerate(instructions)}
    successors: list[list[int]] = []
    for i, ins in enumerate(instructions):
        nxt = [i + 1] if ins.opname not in _NO_FALL_THROUGH and i + 1 < len(instructions) else []
        if ins.opcode in _JUMPS and isinstance(ins.argval, int) and ins.argval in where:
            nxt.append(where[ins.argval])
        successors.append(nxt)
    handlers: list[list[int]] = [[] for _ in instructions]
    entries: list[Any] = getattr(dis.Bytecode(code), "exception_entries", [])  # 3.11 on
    for entry in entries:
        for i, ins in enumerate(instructions):
            if entry.start <= ins.offset < entry.end and entry.target in where:
                handlers[i].append(where[entry.target])
    return successors, handlers


def _analyse(
    code: types.CodeType, instructions: list[dis.Instruction]
) -> dict[int, frozenset[str]] | None:
    """The locals live on entry to each instruction (by offset), by the usual backward dataflow
    over the instructions, their jumps and the exception table's handlers; None when the code
    may read its locals some other way."""
    if _INTROSPECTION & set(code.co_names):
        return None
    effects = [_use_def(ins) for ins in instructions]
    if any(e is None for e in effects):
        return None
    _, normal, handlers = _read(code)
    successors = [a + b for a, b in zip(normal, handlers, strict=True)]
    live_in: list[frozenset[str]] = [frozenset()] * len(instructions)
    changed = True
    while changed:
        changed = False
        for i in range(len(instructions) - 1, -1, -1):
            out: frozenset[str] = frozenset().union(*(live_in[s] for s in successors[i]))
            effect = effects[i]
            assert effect is not None
            uses, defs, store_first = effect
            new = (out | uses) - defs if store_first else (out - defs) | uses
            if new != live_in[i]:
                live_in[i] = new
                changed = True
    return {ins.offset: live_in[i] for i, ins in enumerate(instructions)}


def live_resumes(code: types.CodeType) -> dict[int, Live]:
    """For each offset a suspended generator of ``code`` can stand at, the locals it will still
    read once resumed. It stands at its ``YIELD_VALUE`` (Python 3.11, 3.12) or at the
    ``RESUME`` after it (3.13), and goes on from the instruction after the yield."""
    instructions = _read(code)[0]
    analysed = _analyse(code, instructions)
    if analysed is None:
        return {}
    out: dict[int, Live] = {}
    for i, ins in enumerate(instructions):
        if ins.opname == "YIELD_VALUE" and i + 1 < len(instructions):
            out[ins.offset] = analysed[instructions[i + 1].offset]
        elif ins.opname == "RESUME":
            out[ins.offset] = analysed[ins.offset]
    return out


def passes_on(code: types.CodeType) -> frozenset[int]:
    """The offsets a suspended generator of ``code`` can stand at (its ``YIELD_VALUE``) in a
    ``yield from`` whose result it only returns: ``return (yield from ...)``, or that result
    bound to a plain local, read back and returned, with no exception handler over any of
    it. Standing there it is its inner generator's continuation and nothing more: it passes
    on what its inner generator yields, is sent and returns, and raises nothing of its own."""
    instructions, _, handlers = _read(code)
    where = {ins.offset: i for i, ins in enumerate(instructions)}
    out: set[int] = set()
    for i, ins in enumerate(instructions):
        if ins.opname != "YIELD_VALUE" or i == 0 or instructions[i - 1].opname != "SEND":
            continue
        to = where.get(instructions[i - 1].argval)
        if to is None:
            continue
        tail = [x.opname for x in instructions[to : to + 3]]
        if tail[:1] == ["RETURN_VALUE"]:
            end = to
        elif (
            tail == ["STORE_FAST", "LOAD_FAST", "RETURN_VALUE"]
            and instructions[to].argval == instructions[to + 1].argval
        ):
            end = to + 2
        else:
            continue
        if not any(handlers[j] for j in [*range(i - 1, i + 3), *range(to, end + 1)]):
            out.add(ins.offset)
    return frozenset(out)


# What binds or unbinds a local (not a cell) in Python 3.11; any other instruction naming a
# fast local is one this module does not know.
_BINDS = {"STORE_FAST"}
_UNBINDS = {"DELETE_FAST"}
_READS = {"LOAD_FAST", "LOAD_FAST_CHECK"}


_BINDINGS: dict[int, list[tuple[str, str] | None] | None] = {}  # by the code's id


def _bindings(instructions: list[dis.Instruction]) -> list[tuple[str, str] | None] | None:
    """Each instruction's effect on the fast locals (its name and the local's), None for
    none; None for all: an instruction on them this module does not know."""
    effects: list[tuple[str, str] | None] = []
    for ins in instructions:
        op = ins.opname
        if "FAST" not in op:
            effects.append(None)
        elif op in _BINDS or op in _UNBINDS or op in _READS:
            effects.append((op, str(ins.argval)))
        else:
            return None
    return effects


def bound_yields(
    code: types.CodeType, start: tuple[int, frozenset[str]] | None = None
) -> dict[int, frozenset[str] | None]:
    """For each ``YIELD_VALUE`` of ``code`` (Python 3.11), the locals (not cells nor free
    variables) bound there whichever way the frame came to it; None: one that is bound on some
    ways there and not on others. A forward dataflow from the arguments, bound on entry, over
    the instructions, their jumps and the exception table's handlers (a handler is reached
    with what is bound before or after any instruction it covers). ``start``: from that
    offset with those locals bound instead (a resumer's, ``replay/odds/resume.py``: its
    prologue binds what its node held and jumps there). Empty: code this module does not know
    (another Python, an instruction on locals it does not know)."""
    if sys.version_info[:2] != (3, 11):
        return {}
    instructions, successors, handlers = _read(code)
    plain = set(code.co_varnames) - set(code.co_cellvars)
    effects = _BINDINGS.get(id(code), ())
    if effects == ():
        effects = _BINDINGS[id(code)] = _bindings(instructions)  # the code kept in ``_READ``
    if effects is None:
        return {}
    args = code.co_argcount + code.co_kwonlyargcount
    args += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    entry = frozenset(code.co_varnames[:args]) & plain
    first = 0
    if start is not None:
        first = next((i for i, ins in enumerate(instructions) if ins.offset == start[0]), -1)
        if first < 0:
            return {}
        entry = start[1] & plain
    # (surely bound, maybe bound) on entry to each instruction; None: not reached yet
    before: list[tuple[frozenset[str], frozenset[str]] | None] = [None] * len(instructions)
    if not instructions:
        return {}
    before[first] = (entry, entry)
    work = [first]
    while work:
        i = work.pop()
        state = before[i]
        assert state is not None
        sure, maybe = state
        effect = effects[i]
        if effect is not None and effect[1] in plain:
            if effect[0] in _BINDS:
                sure, maybe = sure | {effect[1]}, maybe | {effect[1]}
            elif effect[0] in _UNBINDS:
                sure, maybe = sure - {effect[1]}, maybe - {effect[1]}
        # a handler may be reached before the instruction took effect, or after it
        edges = [(s, (sure, maybe)) for s in successors[i] + handlers[i]]
        edges += [(s, state) for s in handlers[i]]
        for s, out in edges:
            was = before[s]
            joined = out if was is None else (was[0] & out[0], was[1] | out[1])
            if joined != was:
                before[s] = joined
                work.append(s)
    found: dict[int, frozenset[str] | None] = {}
    for i, ins in enumerate(instructions):
        state = before[i]
        if ins.opname == "YIELD_VALUE" and state is not None:
            found[ins.offset] = state[0] if state[0] == state[1] else None
    return found


def resumer_bound(
    code: types.CodeType, original: types.CodeType, shift: int
) -> dict[int, frozenset[str] | None]:
    """``bound_yields`` of a resumer, from its original's instructions: its prologue (after
    its RESUME) stores what its node held and jumps to a place of the original's code."""
    raw = code.co_code
    at = next((k + 2 for k in range(0, len(raw), 2) if raw[k] == dis.opmap["RESUME"]), 0)
    stored: set[str] = set()
    target = None
    for _, op, arg in dis._unpack_opargs(raw[at : at + shift - 2]):  # type: ignore[attr-defined]
        if op == dis.opmap["STORE_FAST"]:
            stored.add(code.co_varnames[arg])
        elif op == dis.opmap["JUMP_FORWARD"]:
            target = at - 2 + 2 * arg  # from the jump's end, where the original's code follows
    if target is None:
        return {}
    found = bound_yields(original, (target, frozenset(stored)))
    return {at + shift: bound for at, bound in found.items()}


__all__ = ["Live", "bound_yields", "live_resumes", "passes_on", "resumer_bound"]
