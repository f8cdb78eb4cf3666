"""Reading a suspended frame's values from its referents alone (replay/odds/slots.py), without
``frame.f_locals``: only at a place learned where every slot that may be bound was bound, and
only when the referents' number shows it so again. Each key is checked against the key read
through ``frame.f_locals`` (the place's learned reading forgotten): a reading reused wrongly (a
local bound on one way and not another, a local bound again in a loop, one bound in an
exception handler, a cell left empty) gives other bytes."""

from __future__ import annotations

import types
from collections.abc import Callable, Generator
from typing import Any

from blowbyblow.replay.odds.continuation import Continuations, _layout
from blowbyblow.replay.odds.slots import may_bound

Gen = Generator[Any, Any, Any]


def _maybe(flag: bool) -> Gen:
    if flag:
        x = [1]
    yield 0
    return x if flag else flag


def _swap() -> Gen:
    y = [1]
    for i in range(2):
        yield 0  # y bound the first time round, x the second
        if i == 0:
            x = [*y, 2]
            del y
        else:
            return x
    return None


def _handled(fail: bool) -> Gen:
    if fail:
        try:
            raise KeyError(fail)
        except KeyError:
            pass
    else:
        x = [1]
    yield 0  # once an exception was handled, the frame's last referent is None
    return fail if fail else x


def _caught(fail: bool) -> Gen:
    try:
        if fail:
            raise KeyError(fail)
        z = [1]
    except KeyError:
        w = [2]
    yield 0
    return w if fail else z


def _celled(flag: bool) -> Gen:
    if flag:
        n = 1
    yield lambda: n


def _slow_key(g: Gen) -> bytes:
    code = g.gi_code  # type: ignore[attr-defined]
    layout = _layout(code)
    saved, layout.full = layout.full, {}
    try:
        return Continuations().key(g, None)
    finally:
        layout.full = saved


def _forget(code: types.CodeType) -> None:
    """Forget how the code's frames were read (a reading is learned with its place's plan)."""
    layout = _layout(code)
    layout.plans.clear()
    layout.full.clear()


def _fast_reads(code: types.CodeType) -> int:
    return len(_layout(code).full)


def _check(made: list[Callable[[], Gen]], steps: int = 1) -> None:
    """Each generator, stepped to each of its yields, written as the slow read writes it."""
    for make in made:
        g = make()
        for _ in range(steps):
            next(g)
            assert Continuations().key(g, None) == _slow_key(g)


def test_a_place_is_read_from_its_referents_once_every_slot_that_may_be_bound_is() -> None:
    code = _maybe.__code__
    _forget(code)
    _check([lambda: _maybe(True)])
    assert _fast_reads(code) == 1  # learned where x was bound
    g = _maybe(True)
    next(g)
    assert Continuations().key(g, None) == _slow_key(g)


def test_a_local_bound_on_one_way_only_is_not_read_by_its_place() -> None:
    _forget(_maybe.__code__)
    _check([lambda: _maybe(True), lambda: _maybe(False), lambda: _maybe(True)])
    _forget(_celled.__code__)
    _check([lambda: _celled(True), lambda: _celled(False)])
    _forget(_handled.__code__)
    _check([lambda: _handled(False), lambda: _handled(True)])


def test_a_local_bound_again_in_a_loop_or_in_a_handler_may_be_bound() -> None:
    """At the loop's yield, x may be bound (from the round before): a reading learned the
    first time round, with y, would take the second round's x for y. At the yield after a
    handler, w may be bound as z may."""
    [at_loop] = may_bound(_swap.__code__).values()
    assert {"x", "y", "i"} <= at_loop
    [after] = may_bound(_caught.__code__).values()
    assert {"z", "w"} <= after
    _forget(_swap.__code__)
    _check([_swap], steps=2)
    _forget(_caught.__code__)
    _check([lambda: _caught(False), lambda: _caught(True), lambda: _caught(False)])
