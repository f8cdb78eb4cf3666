"""Which locals a suspended frame will still read once resumed: a backward dataflow over its
code's instructions (``replay/odds/continuation.py`` writes only those into a key, so that two
branches that differ only in a value spent meet)."""

from __future__ import annotations

import dis
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


def _analyse(
    code: types.CodeType, instructions: list[dis.Instruction]
) -> dict[int, frozenset[str]] | None:
    """The locals live on entry to each instruction (by offset), by the usual backward dataflow
    over the instructions, their jumps and the exception table's handlers; None when the code
    may read its locals some other way."""
    if _INTROSPECTION & set(code.co_names):
        return None
    where = {ins.offset: i for i, ins in enumerate(instructions)}
    effects = [_use_def(ins) for ins in instructions]
    if any(e is None for e in effects):
        return None
    successors: list[list[int]] = []
    for i, ins in enumerate(instructions):
        nxt = [i + 1] if ins.opname not in _NO_FALL_THROUGH and i + 1 < len(instructions) else []
        if ins.opcode in _JUMPS and isinstance(ins.argval, int) and ins.argval in where:
            nxt.append(where[ins.argval])
        successors.append(nxt)
    entries: list[Any] = getattr(dis.Bytecode(code), "exception_entries", [])  # 3.11 on
    for entry in entries:
        for i, ins in enumerate(instructions):
            if entry.start <= ins.offset < entry.end and entry.target in where:
                successors[i].append(where[entry.target])
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
    instructions = list(dis.get_instructions(code))
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


__all__ = ["Live", "live_resumes"]
