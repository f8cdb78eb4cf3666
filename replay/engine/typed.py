"""Commands typed in one line: one syntax for every game system, read by the command's own
msgspec type, so a new game system gets it without a line of parsing code.

    TYPE FIELD=VALUE FIELD=VALUE ...

``TYPE`` is the command's tag, as scenario files name it (``charge``, ``closecombat``). Each
``VALUE`` is read by the type of its field:

- text, a number, yes/no: as typed (``attacker=grax``, ``inches=6``, ``capture=yes``); ``none``
  for a field that may be empty;
- a list: values joined by commas (``targets=nyx,sera``; ``targets=`` for none);
- a table of names to values: ``name:value`` pairs joined by commas (``across=nyx:pipe``);
- a list of tables: dotted fields fill its items, one item after another
  (``attacks.by=g-467a,g-81 attacks.targets=r-447a``); a field the current item already has
  starts the next item (``attacks.by=r-447b attacks.targets=g-467a`` after the first);
- any value in TOML's inline syntax, which scenario files use, when it starts with ``[``, ``{``,
  ``"`` or ``'`` (``across={nyx="pipe"}``, ``extra=[{value=1, cause="wire"}]``,
  ``cause="in the hex"``): spaces may stand inside brackets and quotes.

``format_command`` writes a command back in this syntax, so ``parse_command(format_command(c))``
is ``c``; ``syntax`` describes each command of a system in it (``docs/playing.md`` shows it).
The tokenizer is written here, not taken from ``shlex``: shlex would strip the quotes TOML needs.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import msgspec
import msgspec.inspect as mi

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.domain.system import AnyGameSystem, command_info

_MANY = (mi.ListType, mi.VarTupleType, mi.SetType, mi.FrozenSetType)
_OPEN = {"[": "]", "{": "}"}
_TRUE = ("yes", "true", "y")
_FALSE = ("no", "false", "n")


class TypedCommandError(BlowByBlowError):
    """A typed command that does not fit: the message names the field and what was expected."""


# --- types -------------------------------------------------------------------------------


def command_types(system: AnyGameSystem) -> dict[str, mi.StructType]:
    """Each command of ``system`` by its tag."""
    out: dict[str, mi.StructType] = {}
    for cls in system.command_types:
        info = command_info(cls)
        out[str(info.tag)] = info
    return out


def _plain(kind: mi.Type) -> tuple[mi.Type, bool]:
    """A field's type without ``| None``, and whether it may be None."""
    if isinstance(kind, mi.UnionType):
        rest = [t for t in kind.types if not isinstance(t, mi.NoneType)]
        if len(rest) == 1:
            return rest[0], len(rest) != len(kind.types)
    return kind, False


def _table_items(kind: mi.Type) -> mi.StructType | None:
    """The item type of a list of tables (``attacks``), else None."""
    kind, _ = _plain(kind)
    if isinstance(kind, _MANY) and isinstance(kind.item_type, mi.StructType):
        return kind.item_type
    return None


# --- reading -------------------------------------------------------------------------------


def tokens(text: str) -> list[str]:
    """``text`` split at spaces outside brackets and quotes."""
    out: list[str] = []
    current: list[str] = []
    closing: list[str] = []
    quote = ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in _OPEN:
            closing.append(_OPEN[ch])
        elif closing and ch == closing[-1]:
            closing.pop()
        elif ch.isspace() and not closing:
            if current:
                out.append("".join(current))
                current = []
            continue
        current.append(ch)
    if quote or closing:
        raise TypedCommandError(f"unbalanced {quote or closing[-1]!r} in: {text}")
    if current:
        out.append("".join(current))
    return out


def _toml(name: str, text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError as e:
        raise TypedCommandError(f"{name}: {text!r} is not a TOML value: {e}") from None


def _value(name: str, kind: mi.Type, text: str) -> Any:
    """The plain value ``text`` stands for in a field of type ``kind`` (msgspec converts it)."""
    if text[:1] in ("[", "{", '"', "'"):
        return _toml(name, text)
    kind, optional = _plain(kind)
    if optional and text == "none":
        return None
    if isinstance(kind, (*_MANY, mi.TupleType)):
        if not text:
            return []
        items = getattr(kind, "item_type", None) or mi.AnyType()
        return [_value(name, items, part) for part in text.split(",")]
    if isinstance(kind, mi.DictType):
        pairs = [p for p in text.split(",") if p]
        if any(":" not in p for p in pairs):
            raise TypedCommandError(
                f"{name}: expected name:value pairs joined by commas, not {text!r}"
            )
        return {k: _value(name, kind.value_type, v) for k, v in (p.split(":", 1) for p in pairs)}
    if isinstance(kind, mi.BoolType):
        if text.lower() in (*_TRUE, *_FALSE):
            return text.lower() in _TRUE
        raise TypedCommandError(f"{name}: expected yes or no, not {text!r}")
    return text


def _fill_item(
    info: mi.StructType, head: str, sub: str, items: list[dict[str, Any]], text: str
) -> None:
    fields = {f.name: f.type for f in info.fields}
    if sub not in fields:
        raise TypedCommandError(
            f"{head}.{sub}: an item of {head} has no field {sub!r}; its fields: {', '.join(fields)}"
        )
    if not items or sub in items[-1]:
        items.append({})
    items[-1][sub] = _value(f"{head}.{sub}", fields[sub], text)


def parse_command(system: AnyGameSystem, text: str) -> Any:
    """The command ``text`` stands for, in the syntax above. Raises TypedCommandError naming
    the command type, the field and what was expected."""
    words = tokens(text)
    if not words:
        raise TypedCommandError("no command given")
    types = command_types(system)
    tag, *pairs = words
    info = types.get(tag)
    if info is None:
        raise TypedCommandError(
            f"{tag!r} is not a command of {system.id}; expected one of: {', '.join(types)}"
        )
    fields = {f.name: f.type for f in info.fields}
    data: dict[str, Any] = {}
    for pair in pairs:
        path, sep, value = pair.partition("=")
        head, dot, sub = path.partition(".")
        if not sep or not head:
            raise TypedCommandError(f"{tag}: expected FIELD=VALUE, not {pair!r}")
        if head not in fields:
            raise TypedCommandError(
                f"{tag}: no field {head!r}; its fields: {', '.join(fields) or 'none'}"
            )
        if not dot:
            data[head] = _value(head, fields[head], value)
            continue
        item = _table_items(fields[head])
        if item is None:
            raise TypedCommandError(f"{tag}: {head} is not a list of tables; write {head}=VALUE")
        _fill_item(item, head, sub, data.setdefault(head, []), value)
    try:
        return msgspec.convert({"type": tag, **data}, info.cls, strict=False)
    except msgspec.ValidationError as e:
        expected = " ".join(_describe_command(tag, info))
        raise TypedCommandError(f"{tag}: {_where(str(e))} (expected: {expected})") from None


def _where(message: str) -> str:
    """msgspec's "Expected `int`, got `str` - at `$.turn`" as "turn: Expected `int`, got `str`"."""
    head, sep, path = message.rpartition(" - at `$")
    if not sep:
        return message
    return f"{path.rstrip('`').lstrip('.')}: {head}"


# --- writing -------------------------------------------------------------------------------


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    text = str(value)
    if not text or any(c.isspace() or c in ",:=[]{}\"'" for c in text):
        return json.dumps(text)  # a TOML basic string
    return text


def _is_scalar(value: Any) -> bool:
    return isinstance(value, str | int | float | bool | Decimal) or value is None


def _render(value: Any) -> str:
    if isinstance(value, list | tuple) and all(_is_scalar(v) for v in value):
        if any(_scalar(v) != str(v) or "," in str(v) for v in value if not isinstance(v, bool)):
            return _inline(list(value))
        return ",".join(_scalar(v) for v in value)
    if isinstance(value, dict) and all(_is_scalar(v) for v in value.values()):
        if any(_scalar(k) != k or _scalar(v) != str(v) for k, v in value.items()):
            return _inline(value)
        return ",".join(f"{k}:{_scalar(v)}" for k, v in value.items())
    if _is_scalar(value):
        return _scalar(value)
    return _inline(value)


def _inline(value: Any) -> str:
    """``value`` in TOML's inline syntax."""
    if isinstance(value, dict):  # TOML has no null: a field left out takes its default, None
        shown = [f"{json.dumps(k)} = {_inline(v)}" for k, v in value.items() if v is not None]
        return "{" + ", ".join(shown) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(str(value))


def _defaults(info: mi.StructType) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in info.fields:
        if f.default is not msgspec.NODEFAULT:
            out[f.name] = msgspec.to_builtins(f.default)
        elif f.default_factory is not msgspec.NODEFAULT:
            out[f.name] = msgspec.to_builtins(f.default_factory())
    return out


def _items_dotted(name: str, info: mi.StructType, items: list[dict[str, Any]]) -> list[str] | None:
    """A list of tables as dotted fields, when that reads back the same: every item's values are
    plain and each item starts with a field it is sure to have (its first required one)."""
    required = [f.name for f in info.fields if f.required]
    defaults = _defaults(info)
    out: list[str] = []
    for item in items:
        shown = {k: v for k, v in item.items() if k in required or defaults.get(k, ...) != v}
        if not required or required[0] not in shown:
            return None
        for k, v in sorted(shown.items(), key=lambda kv: kv[0] != required[0]):
            if isinstance(v, list) and v and not all(_is_scalar(x) for x in v):
                return None
            out.append(f"{name}.{k}={_render(v)}")
    return out


def format_command(command: Any) -> str:
    """``command`` in the typed syntax, leaving out fields at their default."""
    kind: type = type(command)
    info = command_info(kind)
    data = msgspec.to_builtins(command)
    defaults = _defaults(info)
    words = [str(info.tag)]
    for f in info.fields:
        value = data.get(f.name)
        if f.name in defaults and defaults[f.name] == value:
            continue
        items = _table_items(f.type)
        dotted = _items_dotted(f.name, items, value) if items is not None and value else None
        words.extend(dotted if dotted is not None else [f"{f.name}={_render(value)}"])
    return " ".join(words)


# --- describing ----------------------------------------------------------------------------


def _is_number(kind: mi.Type) -> bool:
    """A union of numbers only (a distance in whole or half inches: ``int | float``)."""
    return isinstance(kind, mi.UnionType) and all(
        isinstance(t, mi.IntType | mi.FloatType | mi.DecimalType) for t in kind.types
    )


def _describe(kind: mi.Type) -> str:
    kind, optional = _plain(kind)
    if isinstance(kind, mi.LiteralType):
        text = "|".join(str(v) for v in kind.values)
    elif isinstance(kind, mi.BoolType):
        text = "yes|no"
    elif isinstance(kind, mi.IntType):
        text = "N"
    elif isinstance(kind, mi.FloatType | mi.DecimalType) or _is_number(kind):
        text = "NUMBER"
    elif isinstance(kind, mi.StrType):
        text = "NAME"
    elif isinstance(kind, _MANY) and not isinstance(kind.item_type, mi.StructType):
        text = f"{_describe(kind.item_type)},…"
    elif isinstance(kind, mi.DictType):
        text = f"{_describe(kind.key_type)}:{_describe(kind.value_type)},…"
    else:
        text = "{TOML}"
    return f"{text}|none" if optional else text


def _describe_field(name: str, kind: mi.Type) -> Iterator[str]:
    items = _table_items(kind)
    if items is None:
        yield f"{name}={_describe(kind)}"
        return
    for f in items.fields:
        sub = _table_items(f.type)
        shown = f"{name}.{f.name}=" + ("[{TOML},…]" if sub is not None else _describe(f.type))
        yield shown if f.required else f"[{shown}]"


def _describe_command(tag: str, info: mi.StructType) -> list[str]:
    parts = [tag]
    for f in info.fields:
        for shown in _describe_field(f.name, f.type):
            parts.append(shown if f.required or shown.startswith("[") else f"[{shown}]")
    return parts


def syntax(system: AnyGameSystem) -> list[str]:
    """One line per command of ``system``: its type, its fields (optional ones in brackets)."""
    return [" ".join(_describe_command(tag, info)) for tag, info in command_types(system).items()]


__all__ = [
    "TypedCommandError",
    "command_types",
    "format_command",
    "parse_command",
    "syntax",
    "tokens",
]
