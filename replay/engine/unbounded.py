"""Records read as they were recorded: a type's shape without the bounds new input is held to.

A game system bounds its setup's numbers and counts with ``msgspec.Meta`` (``domain/common/
bounds.py``), and msgspec checks them whenever it decodes into those types. That is right for a
scenario file, a server's JSON body or a setup built in code, and wrong for a log: a battle
recorded by a release with no bound there, or a wider one, is evidence for years, and must still
read, list and verify. msgspec cannot decode into a type with its constraints switched off, so
``Unbounded`` decodes into a copy of the type's Structs with every ``Meta`` dropped (the same
fields, names, tags and defaults), then rebuilds the game system's own Structs from the copies.
Struct constructors check nothing, so the values come through as recorded. Only records that fail
the bounded decode come this way: the store's reads decode with the system's own types first."""

from __future__ import annotations

import types
from typing import Annotated, Any, Union, get_args, get_origin

import msgspec

_CONTAINERS = (list, tuple, set, frozenset, dict)


class Unbounded:
    """The copy of ``tp`` without bounds, and the way back from its values to ``tp``'s."""

    def __init__(self, tp: Any) -> None:
        self._copies: dict[Any, Any] = {}  # a Struct type (or generic alias) -> its copy or itself
        self._originals: dict[type, type] = {}  # a copy -> the Struct class it copies
        self.type = self._copy(tp)
        self._decoder: msgspec.msgpack.Decoder[Any] | None = None

    def convert(self, obj: Any) -> Any:
        """``obj`` (plain data) as ``tp``, its bounds unchecked (its shape checked as ever)."""
        return self._back(msgspec.convert(obj, self.type))

    def decode(self, data: bytes) -> Any:
        """MessagePack ``data`` as ``tp``, its bounds unchecked (its shape checked as ever)."""
        if self._decoder is None:
            self._decoder = msgspec.msgpack.Decoder(self.type)
        return self._back(self._decoder.decode(data))

    # --- the copy ------------------------------------------------------------------------------

    def _copy(self, tp: Any) -> Any:
        origin = get_origin(tp)
        if origin is Annotated:
            return self._copy(get_args(tp)[0])  # a Meta's bounds (or title) dropped
        if origin in (Union, types.UnionType):
            return Union[tuple(self._copy(a) for a in get_args(tp))]  # noqa: UP007
        if origin in _CONTAINERS:
            args = tuple(a if a is Ellipsis else self._copy(a) for a in get_args(tp))
            return origin[args] if args else origin
        struct = origin if origin is not None else tp
        if isinstance(struct, type) and issubclass(struct, msgspec.Struct):
            return self._struct(tp, struct)
        return tp  # a plain type: int, str, a Literal, an Enum, a UUID, ...

    def _struct(self, tp: Any, cls: type[msgspec.Struct]) -> Any:
        if tp in self._copies:
            return self._copies[tp]
        self._copies[tp] = tp  # a recursive type refers to itself while it is copied
        fields = msgspec.structs.fields(tp)
        copied = [self._copy(f.type) for f in fields]
        if not _bounded(tp) and all(c is f.type for c, f in zip(copied, fields, strict=True)):
            return tp  # nothing bounded below: decoded as it is
        config = cls.__struct_config__
        copy = msgspec.defstruct(
            cls.__name__,
            [_field(f, c) for f, c in zip(fields, copied, strict=True)],
            kw_only=True,
            tag=config.tag,
            tag_field=config.tag_field,
            rename={f.name: f.encode_name for f in fields if f.name != f.encode_name} or None,
            array_like=config.array_like,
            forbid_unknown_fields=config.forbid_unknown_fields,
        )
        self._copies[tp] = copy
        self._originals[copy] = cls
        return copy

    # --- back to the original types --------------------------------------------------------------

    def _back(self, value: Any) -> Any:
        original = self._originals.get(type(value))
        if original is not None:
            return original(
                **{name: self._back(getattr(value, name)) for name in value.__struct_fields__}
            )
        if isinstance(value, list):
            return [self._back(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self._back(v) for v in value)
        if isinstance(value, dict):
            return {self._back(k): self._back(v) for k, v in value.items()}
        if isinstance(value, (set, frozenset)):
            return type(value)(self._back(v) for v in value)
        return value


def _field(f: msgspec.structs.FieldInfo, tp: Any) -> tuple[Any, ...]:
    """A field of the copy: its name, its type without bounds, its default if it has one."""
    if f.default is not msgspec.NODEFAULT:
        return (f.name, tp, msgspec.field(default=f.default))
    if f.default_factory is not msgspec.NODEFAULT:
        return (f.name, tp, msgspec.field(default_factory=f.default_factory))
    return (f.name, tp)


def _bounded(tp: Any) -> bool:
    """Whether a Struct's own fields carry a ``Meta`` (a bound, or anything else)."""
    return any(get_origin(f.type) is Annotated for f in msgspec.structs.fields(tp))


__all__ = ["Unbounded"]
