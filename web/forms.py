"""The setup form of any game system, made from the system's own setup type: its JSON Schema
(msgspec's, as the typed commands are made from the command types) and the lists its rules have
(``GameSystem.setup_choices``). One engine for every system (``static/setup.js`` draws it);
nothing here is written per field, so a new game system gets its form for free.

A field is checked as it is typed through the command line's own path: the setup goes through
``scenario_from_dict`` (the conversion, the bounds a record holds, the rulings) and then the
system's ``validate_setup``, so the form says what ``bxb play FILE`` says of the same mistake.
msgspec stops at the first error; when that one is elsewhere, the field typed is also checked on
its own against its own type (``type_at``), so the player sees its mistake at once."""

from __future__ import annotations

import re
import types
import typing
from typing import Any

import msgspec

from blowbyblow.domain.core import RulingError, SetupError
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.replay.engine.scenario import ScenarioError, check_values, scenario_from_dict
from blowbyblow.web.catalog import ruling_infos
from blowbyblow.web.schemas import RulingInfo

SOURCE = "setup"  # what the messages call the setup, as `bxb play` calls a file by its name
MAX_NAME = (
    200  # characters of any text typed into a setup at a table (an id, a name), as a roster's
)
_STEP = re.compile(r"\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")
_AT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:\[\d+\]|\.[A-Za-z_][A-Za-z0-9_]*)*): ")


class Choice(msgspec.Struct, frozen=True):
    label: str
    value: Any


class SetupForm(msgspec.Struct, frozen=True, kw_only=True):
    """What a page needs to draw a game system's setup form."""

    ruleset: str
    title: str
    schema: dict[str, Any]  # JSON Schema 2020-12 of the setup type
    choices: dict[str, list[Choice]]  # by field path, ``[]`` for any entry of a list
    members: list[str]  # the setup fields listing each side's fighters, models or units
    side_field: str  # the field of each member naming its side
    sides_field: str = ""  # the setup field listing the sides, if it has one ("gangs")
    shared: list[tuple[str, str]] = []  # (setup field, member field naming its entries by id)
    rulings: list[RulingInfo] = []  # every ruling of the system, each with its default


class CheckSetup(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    setup: dict[str, Any]
    rulings: dict[str, str] = {}
    field: str = ""  # the field just typed, e.g. "fighters[2].ws"


class SetupCheck(msgspec.Struct, frozen=True, kw_only=True):
    """``ok``: the whole setup is one ``bxb play`` would take. Else ``message`` is the error the
    command line gives (``field`` its path); ``field_message`` the error of the field typed, if
    it has one of its own (empty: the field is fine)."""

    ok: bool
    field: str = ""
    message: str = ""
    field_message: str = ""


def setup_form(system: AnyGameSystem) -> SetupForm:
    shape = system.roster
    return SetupForm(
        ruleset=system.id,
        title=system.title,
        schema=system.setup_schema(),
        choices={
            path: [Choice(c.label, c.value) for c in found]
            for path, found in system.setup_choices.items()
        },
        members=list(shape.members) if shape else [],
        side_field=shape.side_field if shape else "",
        sides_field=shape.sides if shape else "",
        shared=list(shape.shared) if shape else [],
        rulings=ruling_infos(system),
    )


def long_text(value: Any, where: str) -> str:
    """The first text in ``value`` longer than a name typed at a table ('' if none)."""
    if isinstance(value, str) and len(value) > MAX_NAME:
        return f"{where}: {len(value)} characters; expected at most {MAX_NAME} (a name or id)"
    items: Any = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, sub in items:
        at = f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}"
        found = long_text(str(key), at) if isinstance(key, str) else ""
        found = found or long_text(sub, at)
        if found:
            return found
    return ""


def setup_problem(
    system: AnyGameSystem, setup: dict[str, Any], rulings: dict[str, str], *, whole: bool = True
) -> str:
    """The command line's error for this setup ('' if none): a setup file with these fields.
    Not ``whole``: the fields' types and bounds only, not how the setup hangs together. A text
    longer than a name (``MAX_NAME``) is refused first: a phone types names, not files."""
    for key, value in setup.items():
        found = long_text(value, f"{SOURCE}: {key}")
        if found:
            return found
    data = {"ruleset": system.id, "label": SOURCE, "rulings": rulings, **setup}
    try:
        scenario = scenario_from_dict(data, SOURCE, needs_actions=False)
        if whole:
            system.validate_setup(scenario.setup)
    except ScenarioError as e:
        return str(e)
    except (SetupError, RulingError) as e:
        return f"{SOURCE}: {e}"
    return ""


def _field_of(message: str) -> str:
    m = _AT.match(message.removeprefix(f"{SOURCE}: "))
    return m.group(1) if m else ""


def type_at(setup_type: Any, path: str) -> Any:
    """The annotation of the field at ``path`` ("fighters[2].ws") in ``setup_type``, constraints
    included; None when the path leads nowhere."""
    kind: Any = setup_type
    for name, _index in _STEP.findall(path):
        kind = _concrete(kind)
        if name:
            if not (isinstance(kind, type) and issubclass(kind, msgspec.Struct)):
                return None
            kind = typing.get_type_hints(kind, include_extras=True).get(name)
        else:
            args = typing.get_args(kind)
            if typing.get_origin(kind) not in (list, tuple) or not args:
                return None
            kind = args[0]
        if kind is None:
            return None
    return kind


def _concrete(kind: Any) -> Any:
    """``Annotated[X, ...]`` and ``X | None`` (a table given) as ``X``."""
    while typing.get_origin(kind) is typing.Annotated:
        kind = typing.get_args(kind)[0]
    args = [a for a in typing.get_args(kind) if a is not type(None)]
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        return _concrete(args[0]) if len(args) == 1 else kind
    return kind


def _value_at(data: Any, path: str) -> tuple[bool, Any]:
    for name, index in _STEP.findall(path):
        if name and isinstance(data, dict) and name in data:
            data = data[name]
        elif index and isinstance(data, list) and int(index) < len(data):
            data = data[int(index)]
        else:
            return False, None
    return True, data


def field_problem(system: AnyGameSystem, setup: dict[str, Any], path: str) -> str:
    """The error of the one field at ``path``, checked against its own type and the bounds."""
    kind = type_at(system.setup_type, path)
    found, value = _value_at(setup, path)
    if kind is None or not found:
        return ""
    where = f"{SOURCE}: {path}"
    if long_text(value, where):
        return long_text(value, where)
    try:
        check_values(value, where + ": ")
        msgspec.convert(value, kind)
    except ScenarioError as e:
        return str(e)
    except msgspec.ValidationError as e:
        text = str(e)
        m = re.search(r" - at `\$(.*)`$", text)
        return f"{where}{m.group(1) if m else ''}: {text[: m.start()] if m else text}"
    return ""


def check_setup(system: AnyGameSystem, req: CheckSetup) -> SetupCheck:
    problem = setup_problem(system, req.setup, req.rulings)
    if not problem:
        return SetupCheck(ok=True)
    at = _field_of(problem)
    if req.field and (at == req.field or at.startswith((req.field + ".", req.field + "["))):
        mine = problem
    else:
        mine = field_problem(system, req.setup, req.field) if req.field else ""
    return SetupCheck(ok=False, field=at, message=problem, field_message=mine)


__all__ = [
    "CheckSetup",
    "SetupCheck",
    "SetupForm",
    "check_setup",
    "setup_form",
    "type_at",
]
