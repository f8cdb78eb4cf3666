"""How a suspended generator's referents (``gc.get_referents``) line up with its local slots:
the generator's and the frame's own furniture first, then its bound slots in order, then its
stack (``replay/odds/continuation.py`` reads a frame's values from them)."""

from __future__ import annotations

import types
from typing import Any


def _furniture(r: Any, g: Any, code: types.CodeType, bound: dict[str, Any], start: int) -> bool:
    """Is referent ``r``, at ``start``, the generator's or the frame's own (not a value)?"""
    return (
        r is code
        or r is bound
        or type(r) is types.FrameType
        or (type(r) is types.FunctionType and r.__code__ is code)
        or (type(r) is str and start < 3 and r in (g.__name__, g.__qualname__))
    )


def furniture_count(
    g: Any, code: types.CodeType, bound: dict[str, Any], referents: list[Any]
) -> int:
    """How many of the referents come first as the generator's and the frame's furniture."""
    start = 0
    for r in referents:
        if not _furniture(r, g, code, bound, start):
            break
        start += 1
    return start


def match_slots(
    g: types.GeneratorType[Any, Any, Any],
    layout: Any,
    bound: dict[str, Any],
    referents: list[Any],
) -> tuple[int, list[str], int] | None:
    """Match a suspended generator's referents with its slots: where its locals start, the
    names of its live bound locals (in slot order), and where its stack starts; None when
    they cannot be matched one by one."""
    start = furniture_count(g, g.gi_code, bound, referents)
    slots: list[str] = []
    i = start
    cells = layout.cells
    for name in layout.slots:
        if name in cells:
            if i >= len(referents) or type(referents[i]) is not types.CellType:
                return None
        elif name in bound:
            if i >= len(referents) or referents[i] is not bound[name]:
                return None
        else:
            continue
        slots.append(name)
        i += 1
    frame = g.gi_frame
    assert frame is not None
    live = layout.resumes().get(frame.f_lasti)
    names_only = layout.names_only
    free = layout.free
    names = [
        n
        for n in slots
        if (live is None or n in live or n in free) and n in bound and n not in names_only
    ]
    return start, names, i


__all__ = ["furniture_count", "match_slots"]
