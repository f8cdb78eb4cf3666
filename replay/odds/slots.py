"""Which of a suspended generator's slots may be bound where it stands, and reading its values
from its referents alone when every one of them is (``replay/odds/continuation.py``).

``frame.f_locals`` copies every slot of the frame into a dict: most of the cost of reading a
frame for a continuation's key. A frame's referents (``gc.get_referents``) are its furniture,
then its slots and its stack in order, each left out when empty. Where they are as many as the
slots some way through the code may have bound (``may_bound``) and the stack places the code
has there (``resume._depths``), none of them is empty: the values are read by their places."""

from __future__ import annotations

import types
from typing import Any

from blowbyblow.replay.odds import resume

_STORE = resume._OP["STORE_FAST"]
_YIELD = resume._OP["YIELD_VALUE"]
_MAY: dict[int, tuple[types.CodeType, dict[int, frozenset[str]]]] = {}

# A place where every slot that may be bound was once seen bound: the live names written, their
# places among the bound slots, which of them are cells, how many slots are bound, and those
# with the stack's places.
Full = tuple[tuple[str, ...], tuple[int, ...], tuple[bool, ...], int, int]


def may_bound(code: types.CodeType) -> dict[int, frozenset[str]]:
    """For each ``YIELD_VALUE`` of ``code`` (by offset), the slots some way to it may have
    bound: the arguments, the cells and free variables (always there, full or not) and every
    local stored on a way to it, from the start, along each jump and into each exception
    handler from anywhere it covers. A delete is not counted: more, never fewer."""
    kept = _MAY.get(id(code))
    if kept is not None and kept[0] is code:
        return kept[1]
    ins = resume._walk(code)
    where = {offset: i for i, (offset, _, _) in enumerate(ins)}
    flags = code.co_flags
    args = code.co_argcount + code.co_kwonlyargcount + bool(flags & 4) + bool(flags & 8)
    first = frozenset(code.co_varnames[:args] + code.co_cellvars + code.co_freevars)
    into: list[frozenset[str] | None] = [None] * len(ins)
    into[0] = first
    handlers = [(s, e, where[t]) for s, e, t, _, _ in resume._handlers(code)]
    changed = True
    while changed:
        changed = False
        for i, (offset, op, arg) in enumerate(ins):
            now = into[i]
            if now is None:
                continue
            if op == _STORE and arg is not None:
                now = now | {code.co_varnames[arg]}
            to = [] if op in resume._STOPS else [i + 1]
            if op in resume._JUMPS and arg is not None:
                target = offset + 2 + 2 * (-arg if op in resume._BACKWARD else arg)
                if target in where:
                    to.append(where[target])
            to += [t for s, e, t in handlers if s <= offset < e]
            for j in to:
                had = into[j] if j < len(ins) else now
                if had is None or not now <= had:
                    into[j] = now if had is None else had | now
                    changed = True
    found = {offset: into[i] or first for i, (offset, op, _) in enumerate(ins) if op == _YIELD}
    _MAY[id(code)] = (code, found)
    return found


def all_bound(
    referents: list[Any], code: types.CodeType, full: Full
) -> tuple[list[str], list[Any], list[Any]] | None:
    """A frame's live bound locals (names, values) and its stack, read from its referents at a
    place ``full`` describes, or None when their number does not show every slot that may be
    bound bound and every stack place full. CPython's order: the code, the name and qualified
    name, the frame, the locals' dict once made, the function and the code again, the slots,
    the stack; then the exception being handled, if the frame has ever handled one (None once
    it is done with it): not known here, so a last referent that may be it gives None."""
    names, at, cells, slots, count = full
    start = 7 if type(referents[4]) is dict else 6
    if (
        len(referents) != start + count
        or referents[0] is not code
        or referents[start - 1] is not code
        or type(referents[3]) is not types.FrameType
        or type(referents[start - 2]) is not types.FunctionType
        or referents[-1] is None  # perhaps an exception handled once (None after)
        or isinstance(referents[-1], BaseException)
    ):
        return None
    values = []
    for i, cell in zip(at, cells, strict=True):
        v = referents[start + i]
        if cell:
            try:
                v = v.cell_contents
            except ValueError:  # an empty cell: no bound local
                return None
        values.append(v)
    return list(names), values, referents[start + slots :]
