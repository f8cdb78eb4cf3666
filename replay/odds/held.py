"""A frame's values as a copy of a suspended procedure holds them (``replay/odds/resume.py``).

Copied (``copy``): what never changes, itself (numbers, strings, frozen structs, labels: the
engine's promise is that the rules never change a frozen struct in place); what may change in
place (a list, a dict, a set, a dataclass that can change, a struct that is not frozen), a copy,
one per object across the chain; an iterator over a list, one over its copy; a traced die
(``Die``), its number, also within a tuple or a recorded value (``Recorded``).

Held in place (``hold``): what may change is kept itself, with what it holds (a list's items, a
dict's, a set's, a dataclass's fields) noted once, and put back (``put_back``) before each
chain is resumed from it: one shallow copy of each object a node rather than a copy of every
object a run. Only for a caller whose chains go on one at a time, each done before the next is
resumed (the graph explores depth first); the original's objects, as they stood, are the
copy's. An iterator a frame holds is made anew at each resume (``fresh``: one that has run out
cannot be put back); one held within another value makes the chain copied instead
(``Nested``)."""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable
from typing import Any

import msgspec

from blowbyblow.domain.core import Label, Recorded
from blowbyblow.replay.odds.traced import Die
from blowbyblow.replay.odds.values import is_value


class NotFrozen(Exception):
    """Control flow: a procedure that cannot be copied (its run is replayed instead)."""


# Kinds held as they are: what never changes, and frozen structs (the game's state, the
# engine's records, the rules' profiles: the engine's promise is that the rules never change
# them in place). A frozen struct is added when first met.
_SAME: set[type] = {
    int,
    float,
    bool,
    str,
    bytes,
    type(None),
    Label,
    types.BuiltinFunctionType,
    types.CodeType,
    types.ModuleType,
    type,
    range,
    slice,
}
SAME = _SAME  # for a caller that skips the call for what is held as it is (``resume._frame``)
_LIST_ITERATOR: type = type(iter([]))
_TUPLE_ITERATOR = type(iter(()))
_RANGE_ITERATOR = type(iter(range(0)))
_ITERATORS = {_LIST_ITERATOR, _TUPLE_ITERATOR, _RANGE_ITERATOR}


_MAY_CHANGE: Any = object()  # ``_kept``: a value that may change in place


def _kept(x: Any, kind: type, again: Callable[[Any, Any], Any], state: Any) -> Any:
    """What ``copy`` and ``hold`` make alike of ``x`` (of type ``kind``, not in ``_SAME``): a
    tuple or a frozen set, itself or a new one of its items made so (``again(item, state)``);
    a recorded value, one of what it holds made so; a traced die, its number; a function
    without a closure or a frozen struct, itself. ``_MAY_CHANGE`` for anything else."""
    if kind is tuple or kind is frozenset:
        for v in x:
            if type(v) not in _SAME:
                break
        else:
            return x
        items = [again(v, state) for v in x]
        return x if all(a is b for a, b in zip(items, x, strict=True)) else kind(items)
    if kind is Die:
        return x.value
    if kind is Recorded:  # as what it holds: a traced die in it, its number
        held = x.value
        value = held if type(held) in _SAME else again(held, state)
        return x if value is held else Recorded(value)
    if kind is types.FunctionType:
        if x.__closure__ is not None:
            raise NotFrozen("a function with a closure")
        return x
    if issubclass(kind, msgspec.Struct) and kind.__struct_config__.frozen:
        _SAME.add(kind)
        return x
    return _MAY_CHANGE


def copy(x: Any, memo: dict[int, Any]) -> Any:
    """``x`` as a frame of a new chain holds it: what never changes, itself; what may change in
    place, a copy (one per object, by ``memo``); a traced die, its number."""
    kind = type(x)
    if kind in _SAME:
        return x
    kept = _kept(x, kind, copy, memo)
    if kept is not _MAY_CHANGE:
        return kept
    done = memo.get(id(x))
    if done is not None:
        return done[1]
    same = _SAME
    y: Any
    if kind is list:
        y = []
        memo[id(x)] = (x, y)
        y.extend([v if type(v) in same else copy(v, memo) for v in x])
    elif kind is dict:
        y = {}
        memo[id(x)] = (x, y)
        for k, v in x.items():
            y[k if type(k) in same else copy(k, memo)] = v if type(v) in same else copy(v, memo)
    elif kind is set:
        y = {v if type(v) in same else copy(v, memo) for v in x}
        memo[id(x)] = (x, y)
    elif kind in _ITERATORS:
        reduced = x.__reduce__()
        if len(reduced) < 3:  # exhausted
            y = iter(())
        else:
            y = iter(copy(reduced[1][0], memo))
            y.__setstate__(reduced[2])
        memo[id(x)] = (x, y)
    elif kind is types.MethodType:
        y = types.MethodType(x.__func__, copy(x.__self__, memo))
        memo[id(x)] = (x, y)
    elif hasattr(kind, "__dataclass_fields__") and hasattr(x, "__dict__"):
        frozen = kind.__dataclass_params__.frozen
        if frozen and _immutable(kind):
            _SAME.add(kind)
            return x
        held = x.__dict__
        fields = {k: v if type(v) in same else copy(v, memo) for k, v in held.items()}
        if frozen and all(fields[k] is v for k, v in held.items()):
            return x  # nothing in it changes: itself
        y = object.__new__(kind)
        memo[id(x)] = (x, y)
        y.__dict__.update(fields)
    elif issubclass(kind, msgspec.Struct):
        fields = {f: copy(getattr(x, f), memo) for f in kind.__struct_fields__}
        y = msgspec.structs.replace(x, **fields)
        memo[id(x)] = (x, y)
    else:
        raise NotFrozen(f"{kind.__qualname__} is not copied by value")
    return y


# --- holding values in place --------------------------------------------------------------------

# How an object held in place is put back (``Frozen.restore``).
_LIST, _DICT, _SET, _FIELDS, _STRUCT = range(5)


class Nested(Exception):
    """Control flow: an iterator held within another value (copied instead)."""


@dataclasses.dataclass(slots=True)
class Holding:
    """What ``hold`` has met (by id: what it holds in its place) and what is to be put back."""

    seen: dict[int, Any]
    restore: list[tuple[Any, int, Any]]
    iterated: bool = False  # the last frame's values held an iterator (``hold_top``)


@dataclasses.dataclass(slots=True, eq=False)
class Iterated:
    """An iterator a frame holds, made anew at each resume: over ``over`` (None: exhausted),
    at ``at``, as ``copy`` makes it."""

    over: Any
    at: Any


def fresh(x: Any, memo: dict[int, Any]) -> Any:
    """A frame's held value as a resumed frame gets it: an iterator made anew (one per
    iterator, by ``memo``), anything else itself."""
    if type(x) is not Iterated:
        return x
    made = memo.get(id(x))
    if made is None:
        if x.over is None:
            made = iter(())
        else:
            made = iter(x.over)
            made.__setstate__(x.at)
        memo[id(x)] = made
    return made


def put_back(restore: tuple[tuple[Any, int, Any], ...]) -> None:
    """Every object held in place given back what it held when frozen."""
    for target, how, held in restore:
        if how == _LIST:
            target[:] = held
        elif how == _STRUCT:
            for name, value in held:
                setattr(target, name, value)
        else:  # a dict, a set, a dataclass's fields (its ``__dict__``)
            target.clear()
            target.update(held)


def hold_top(x: Any, holding: Holding) -> Any:
    """A frame's own value, held (``hold``): an iterator it holds is noted, to be made anew."""
    kind = type(x)
    if kind not in _ITERATORS:
        return x if kind in _SAME else hold(x, holding)
    holding.iterated = True
    done = holding.seen.get(id(x))
    if done is not None:
        return done
    reduced = x.__reduce__()
    y = (
        Iterated(None, None)
        if len(reduced) < 3  # exhausted
        else Iterated(hold(reduced[1][0], holding), reduced[2])
    )
    holding.seen[id(x)] = y
    return y


def hold(x: Any, holding: Holding) -> Any:
    """``x`` held in place: what never changes, itself (a traced die, its number; a tuple or a
    frozen dataclass holding one, a new one, as ``copy`` makes it); what may change, itself,
    with what it holds noted (``holding.restore``) to be put back at each resume."""
    kind = type(x)
    if kind in _SAME:
        return x
    kept = _kept(x, kind, hold, holding)
    if kept is not _MAY_CHANGE:
        return kept
    seen = holding.seen
    done = seen.get(id(x))
    if done is not None:
        return done
    same = _SAME
    if kind is list:
        seen[id(x)] = x
        items = [v if type(v) in same else hold(v, holding) for v in x]
        holding.restore.append((x, _LIST, items))
    elif kind is dict:
        seen[id(x)] = x
        held = {
            k if type(k) in same else hold(k, holding): v if type(v) in same else hold(v, holding)
            for k, v in x.items()
        }
        holding.restore.append((x, _DICT, held))
    elif kind is set:
        seen[id(x)] = x
        holding.restore.append((x, _SET, [v if type(v) in same else hold(v, holding) for v in x]))
    elif kind in _ITERATORS:
        raise Nested
    elif kind is types.MethodType:
        seen[id(x)] = x
        if hold(x.__self__, holding) is not x.__self__:
            raise Nested  # bound to what is copied, not held: copied
    elif hasattr(kind, "__dataclass_fields__") and hasattr(x, "__dict__"):
        frozen = kind.__dataclass_params__.frozen
        if frozen and _immutable(kind):
            _SAME.add(kind)
            return x
        seen[id(x)] = x
        fields = {k: v if type(v) in same else hold(v, holding) for k, v in x.__dict__.items()}
        if frozen:
            if any(fields[k] is not v for k, v in x.__dict__.items()):
                raise Nested  # a die in a frozen dataclass: copied
        else:
            holding.restore.append((x.__dict__, _FIELDS, fields))
    elif issubclass(kind, msgspec.Struct):
        seen[id(x)] = x
        held_fields = [(f, hold(getattr(x, f), holding)) for f in kind.__struct_fields__]
        holding.restore.append((x, _STRUCT, held_fields))
    else:
        raise NotFrozen(f"{kind.__qualname__} is not copied by value")
    return x


def _immutable(kind: Any) -> bool:
    """Is every value of the annotation ``kind`` one that never changes: numbers, strings,
    enums, literals, labels, tuples and frozen sets of them, frozen dataclasses and values
    (``is_value``) of them? Worked out once a type."""
    known = _IMMUTABLE.get(kind)
    if known is not None:
        return known
    _IMMUTABLE[kind] = False  # a type that holds itself is not taken as immutable
    answer = False
    origin = typing.get_origin(kind)
    if kind in _SAME or kind is Any.__class__:
        answer = kind in _SAME
    elif (isinstance(kind, type) and issubclass(kind, enum.Enum)) or origin is typing.Literal:
        answer = True
    elif origin in (tuple, frozenset, typing.Union, types.UnionType):
        answer = all(a is Ellipsis or _immutable(a) for a in typing.get_args(kind))
    elif isinstance(kind, type) and issubclass(kind, msgspec.Struct):
        answer = is_value(kind)
    elif (
        isinstance(kind, type)
        and dataclasses.is_dataclass(kind)
        and kind.__dataclass_params__.frozen  # type: ignore[attr-defined]
    ):
        try:
            hints = typing.get_type_hints(kind)
        except Exception:  # annotations it cannot read: not known to be immutable
            hints = None
        answer = hints is not None and all(
            _immutable(hints[f.name]) for f in dataclasses.fields(kind)
        )
    _IMMUTABLE[kind] = answer
    return answer


_IMMUTABLE: dict[Any, bool] = {type(None): True, None: True}


__all__ = [
    "SAME",
    "Holding",
    "Iterated",
    "Nested",
    "NotFrozen",
    "copy",
    "fresh",
    "hold",
    "hold_top",
    "put_back",
]
