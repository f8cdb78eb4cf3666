"""Which objects never change once made: the values a continuation's key writes once per
exploration, kept by identity (``replay/odds/continuation.py``), and a frozen frame holds as
they are (``replay/odds/held.py``)."""

from __future__ import annotations

import msgspec
import msgspec.inspect as mi

from blowbyblow.domain.core import Command, Context, Event

_VALUE_TYPES: dict[type, bool] = {}
_RECORDS = (Command, Event, Context)  # the engine's records: never changed once made


def _immutable(t: mi.Type) -> bool:
    if isinstance(t, (mi.IntType, mi.StrType, mi.BoolType, mi.FloatType, mi.NoneType)):
        return True
    if isinstance(t, (mi.LiteralType, mi.EnumType, mi.BytesType)):
        return True
    if isinstance(t, mi.TupleType):
        return all(_immutable(x) for x in t.item_types)
    if isinstance(t, (mi.VarTupleType, mi.FrozenSetType)):
        return _immutable(t.item_type)
    if isinstance(t, mi.UnionType):
        return all(_immutable(x) for x in t.types)
    if isinstance(t, mi.StructType):
        return is_value(t.cls)
    return False


def is_value(t: type) -> bool:
    """Is every object of type ``t`` a value that never changes once made: an engine record
    (a command, an event, a context), or a frozen struct of numbers, strings, tuples and such
    values? Those are written once per exploration, kept by identity."""
    known = _VALUE_TYPES.get(t)
    if known is not None:
        return known
    _VALUE_TYPES[t] = False  # a struct that holds itself is not taken as a value
    answer = False
    if isinstance(t, type) and issubclass(t, msgspec.Struct) and t.__struct_config__.frozen:
        if issubclass(t, _RECORDS):
            answer = True
        else:
            try:
                info = mi.type_info(t)
            except Exception:  # annotations it cannot read: not known to be a value
                info = None
            answer = isinstance(info, mi.StructType) and all(
                _immutable(f.type) for f in info.fields
            )
    _VALUE_TYPES[t] = answer
    return answer


__all__ = ["is_value"]
