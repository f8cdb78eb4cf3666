"""The reference a resumer written by hand (``replay/odds/resume.py``: ``_hand_place``) is
checked against: the same resumer made with the ``bytecode`` library (a development dependency
only: the library, pure Python, took 3-5 ms a resumer, and, told to keep the original's
handlers, wrote them all at depth 0)."""

from __future__ import annotations

import dis
import types
from typing import Any

import pytest

from blowbyblow.replay.odds import resume
from blowbyblow.replay.odds.resume import HOLDER, NotFrozen, _handlers, _Place


def checked_by_the_library(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on, each resumer written by hand is compared with the library's; one made
    otherwise fails (AssertionError)."""
    hand = resume._hand_place

    def checked(
        code: types.CodeType, lasti: int, names: tuple[str, ...], depth: int, innermost: bool
    ) -> _Place | None:
        made = hand(code, lasti, names, depth, innermost)
        if made is not None and not same_place(
            made, library_place(code, lasti, names, depth, innermost)
        ):
            raise AssertionError(f"{code.co_qualname}: made by hand otherwise than by the library")
        return made

    monkeypatch.setattr(resume, "_hand_place", checked)


def same_place(a: _Place, b: _Place) -> bool:
    """The same instructions (by value: the library numbers the constants anew) at the same
    offsets, handlers, stack size (the library's own no larger) and names, and the original's
    lines past the prologue."""

    def shown(code: types.CodeType) -> list[tuple[int, str, str]]:
        return [(i.offset, i.opname, repr(i.argval)) for i in dis.get_instructions(code)]

    # past the prologue: the original's own instructions
    past = a.shift + next(
        i.offset + 2 for i in dis.get_instructions(a.original) if i.opname == "RESUME"
    )

    def lines(place: _Place) -> list[Any]:
        return [
            (i.offset, i.positions) for i in dis.get_instructions(place.code) if i.offset >= past
        ]

    x, y = a.code, b.code
    return (
        a.shift == b.shift
        and shown(x) == shown(y)
        # the handlers' depths are the original's (the library's, told to keep them, are 0)
        and [h[:3] + h[4:] for h in _handlers(x)] == [h[:3] + h[4:] for h in _handlers(y)]
        and [h[3] for h in _handlers(x)] == [h[3] for h in _handlers(a.original)]
        and (x.co_stacksize, x.co_flags, x.co_argcount)
        == (y.co_stacksize, y.co_flags, y.co_argcount)
        and (x.co_varnames, x.co_cellvars, x.co_freevars)
        == (y.co_varnames, y.co_cellvars, y.co_freevars)
        and lines(a) == lines(b)
    )


def library_place(
    code: types.CodeType, lasti: int, names: tuple[str, ...], depth: int, innermost: bool
) -> _Place:
    """The resumer ``_hand_place`` writes, made with the ``bytecode`` library: what the hand's
    is checked against (``checked_by_the_library``), the handlers' depths aside."""
    from bytecode import Bytecode, CompilerFlags, Instr, Label
    from bytecode.instr import CellVar, FreeVar

    yields = [i.offset for i in dis.get_instructions(code) if i.opname == "YIELD_VALUE"]
    nth = yields.index(lasti)
    program = Bytecode.from_code(code)

    def named(k: int, name: str) -> bool:
        ins = program[k]
        return isinstance(ins, Instr) and ins.name == name

    target = [k for k in range(len(program)) if named(k, "YIELD_VALUE")][nth]
    if not innermost:
        # an outer frame goes into the SEND of its ``yield from``
        target -= 1
        while not isinstance(program[target], Instr):
            target -= 1
        if not named(target, "SEND"):
            raise NotFrozen(f"{code.co_qualname} does not wait in a yield from at {lasti}")
    label = Label()
    program.insert(target, label)
    start = next(
        k
        for k, ins in enumerate(program)
        if isinstance(ins, Instr) and ins.name == "RESUME" and ins.arg == 0
    )
    prologue = [
        Instr("LOAD_DEREF", FreeVar(HOLDER)),
        Instr("UNPACK_SEQUENCE", 2),
        Instr("UNPACK_SEQUENCE", len(names)),
        *(
            Instr("STORE_DEREF", CellVar(n)) if n in code.co_cellvars else Instr("STORE_FAST", n)
            for n in names
        ),
        Instr("UNPACK_SEQUENCE", depth + 1),
        Instr("JUMP_FORWARD", label),
    ]
    program[start + 1 : start + 1] = prologue
    program.insert(0, Instr("COPY_FREE_VARS", 1))
    program.freevars = [HOLDER]
    # every local a name, in the original's order (the continuation matches slots by order)
    program.argnames = list(code.co_varnames)
    program.argcount = program.posonlyargcount = program.kwonlyargcount = 0
    program.flags &= ~(CompilerFlags.VARARGS | CompilerFlags.VARKEYWORDS)
    # The handlers' depths are the original's, and its stack size will do (the prologue, outside
    # every handler, holds at most its locals' tuple and the values it pushes; the library finds
    # less, as the code the prologue jumps over is never run): the library need not work them
    # out again over the whole code, a quarter of its time.
    size = max(code.co_stacksize, len(names) + 2, depth + 2)
    made = program.to_code(stacksize=size, compute_exception_stack_depths=False)
    if program.compute_stacksize() > size:
        raise AssertionError(f"{code.co_qualname}: the library works out a larger stack")
    if made.co_varnames != code.co_varnames:
        raise NotFrozen(f"{code.co_qualname}'s locals moved")
    shifts = {
        b.offset - a.offset
        for a, b in zip(
            (i for i in dis.get_instructions(code) if i.opname == "YIELD_VALUE"),
            (i for i in dis.get_instructions(made) if i.opname == "YIELD_VALUE"),
            strict=True,
        )
    }
    if len(shifts) != 1:
        raise NotFrozen(f"{code.co_qualname}'s places moved apart")
    return _Place(code=made, original=code, shift=shifts.pop())
