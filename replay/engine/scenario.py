"""Scenario files (TOML): ``ruleset``, ``label``, ``[rulings]``, ``seed`` or ``dice``,
``[choices]``, ``[[actions]]``; every other top-level key belongs to the game system's setup.
A file that does not fit gets an error naming the field path and what was expected.

A file without ``[[actions]]`` is a *setup*: ``bxb play`` starts a live battle from it. What is
checked only once the actions are adjudicated (dice listed but never rolled, a ``[choices]`` key
never asked, an action the dice made illegal) is refused by ``service.record``."""

from __future__ import annotations

import math
import re
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

import msgspec

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.domain.system import AnyGameSystem, AnyScenario, Scenario
from blowbyblow.replay.engine.registry import get_game_system

CORE_KEYS = ("ruleset", "label", "rulings", "seed", "dice", "choices", "actions")

# Bounds on what any scenario file may hold (docs/scenarios.md, "Bounds"); each game system
# bounds its own setup's characteristics and counts in its setup types.
MAX_FILE_BYTES = 1024 * 1024
MAX_DEPTH = 16  # tables and lists inside one another
MAX_INTEGER = 2**53  # a whole number's magnitude (exact as a JSON number too)
MAX_ACTIONS = 1000
MAX_DICE = 10_000
MAX_DIE = 1000
MAX_CHOICES = 1000
MAX_TEXT = 1000  # label, seed, a ruling's or a choice's key and value


class ScenarioError(BlowByBlowError):
    pass


def _path(message: str, prefix: str) -> str:
    """msgspec says '... - at `$.a[0].b`'; say 'prefix.a[0].b: ...' instead."""
    m = re.search(r" - at `\$(.*)`$", message)
    if not m:
        return f"{prefix.removesuffix(': ')}: {message}"
    where = m.group(1).removeprefix(".") if prefix.endswith(": ") else m.group(1)
    return f"{prefix}{where}: {message[: m.start()]}"


def _expect(
    data: dict[str, Any], key: str, kind: type | tuple[type, ...], what: str, source: str
) -> Any:
    value = data.get(key)
    if value is not None and not isinstance(value, kind):
        raise ScenarioError(
            f"{source}: {key}: expected {what}, got {type(value).__name__} {value!r}"
        )
    return value


def _rulings(ruleset: AnyGameSystem, given: dict[str, Any], source: str) -> dict[str, str]:
    """The rulings a file sets, each a ruling of the system with a value it takes."""
    out = {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in given.items()}
    names = sorted(r.name for r in ruleset.rulings)
    for name, value in out.items():
        if name not in names:
            raise ScenarioError(
                f"{source}: rulings.{name}: {ruleset.id} has no such ruling; expected one of: "
                f"{', '.join(names) or 'none'} (see `bxb rulesets`)"
            )
        try:
            ruleset.ruling(name).check(value)
        except BlowByBlowError as e:
            raise ScenarioError(f"{source}: rulings.{name}: {e}") from None
    return out


def _field(where: str, key: str) -> str:
    """``where`` and then ``key``: "f.toml: fighters[0]" and "a" give "f.toml: fighters[0].a"."""
    return where + key if where.endswith(": ") else f"{where}.{key}"


def _at(where: str) -> str:
    return where.removesuffix(": ")


def check_values(value: Any, where: str, depth: int = 0) -> None:
    """Every number finite and of a sane size, nothing nested too deeply: what no game system's
    types can say for themselves (a float field takes ``inf``, an int field takes 2**70, which
    no record can hold, a Decimal field takes "sNaN", which no comparison survives). ``value``
    is a file's data or a command already converted (a typed or posted one too); ``where``
    prefixes the message, e.g. "my.toml: "."""
    if depth > MAX_DEPTH:
        raise ScenarioError(f"{_at(where)}: nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int):
        if abs(value) > MAX_INTEGER:
            raise ScenarioError(
                f"{_at(where)}: {value} is too large; expected a whole number between "
                f"-{MAX_INTEGER} and {MAX_INTEGER} (2^53)"
            )
    elif isinstance(value, float | Decimal):
        finite = value.is_finite() if isinstance(value, Decimal) else math.isfinite(value)
        if not finite or abs(float(value)) > MAX_INTEGER:
            raise ScenarioError(
                f"{_at(where)}: {value} is out of range; expected a finite number between "
                f"-{MAX_INTEGER} and {MAX_INTEGER}"
            )
    elif isinstance(value, str):
        if len(value) > MAX_FILE_BYTES:  # a value as large as a whole file: refused early
            raise ScenarioError(f"{_at(where)}: a text of {len(value)} characters is too long")
    elif isinstance(value, dict):
        for k, v in value.items():
            check_values(v, _field(where, str(k)), depth + 1)
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            check_values(v, f"{where}[{i}]", depth + 1)
    elif isinstance(value, msgspec.Struct):
        for name in value.__struct_fields__:
            check_values(getattr(value, name), _field(where, name), depth + 1)


def check_start_text(scenario: AnyScenario) -> None:
    """A new battle's free text within the bounds a scenario file is held to (its label, seed,
    rulings and choices), wherever the battle comes from: a file, a ``--label``, a server's
    body, code. ScenarioError naming the field; checked before anything is written."""
    _check_core(
        {
            "label": scenario.label,
            "seed": scenario.seed,
            "rulings": dict(scenario.rulings),
            "choices": dict(scenario.choices),
        },
        "start",
    )


def _check_core(data: dict[str, Any], source: str) -> None:
    """The bounds on the keys every scenario has (docs/scenarios.md)."""
    for key, limit in (("actions", MAX_ACTIONS), ("dice", MAX_DICE), ("choices", MAX_CHOICES)):
        given = data.get(key)
        if isinstance(given, list | dict) and len(given) > limit:
            raise ScenarioError(f"{source}: {key}: {len(given)} given; expected at most {limit}")
    for key in ("label", "seed"):
        text = data.get(key)
        if isinstance(text, str) and len(text) > MAX_TEXT:
            raise ScenarioError(
                f"{source}: {key}: {len(text)} characters; expected at most {MAX_TEXT}"
            )
    for table in ("rulings", "choices"):
        entries = data.get(table)
        if not isinstance(entries, dict):
            continue
        for k, v in entries.items():
            if len(str(k)) > MAX_TEXT or len(str(v)) > MAX_TEXT:
                raise ScenarioError(
                    f"{source}: {table}.{str(k)[:40]}: expected a key and value of at most "
                    f"{MAX_TEXT} characters"
                )
    dice = data.get("dice")
    if isinstance(dice, list):
        for i, d in enumerate(dice):
            if isinstance(d, int) and not isinstance(d, bool) and not 1 <= d <= MAX_DIE:
                raise ScenarioError(
                    f"{source}: dice[{i}]: {d} is not a die's face; expected 1 to {MAX_DIE}"
                )


def scenario_from_dict(
    data: dict[str, Any], source: str = "scenario", *, needs_actions: bool = True
) -> AnyScenario:
    """A scenario from a file's data; with ``needs_actions`` False a setup (no ``[[actions]]``)
    is a scenario too, with no commands."""
    check_values(data, source + ": ")
    _check_core(data, source)
    ruleset_id = _expect(data, "ruleset", str, "a ruleset id such as 'necromunda-2023'", source)
    if ruleset_id is None:
        raise ScenarioError(f'{source}: ruleset: missing (e.g. ruleset = "necromunda-2023")')
    ruleset = get_game_system(ruleset_id)
    label = _expect(data, "label", str, "a string", source) or Path(source).stem
    rulings = _expect(data, "rulings", dict, "a table of ruling = value", source) or {}
    seed = _expect(data, "seed", (str, int), "a string or an integer", source)
    dice = _expect(data, "dice", list, "a list of die values", source)
    if seed is not None and dice is not None:
        raise ScenarioError(
            f'{source}: seed and dice: give one of them, not both: seed = "TEXT" for seeded '
            "digital dice, or dice = [4, 2, 6] for physical dice listed in the order rolled"
        )
    if dice is not None and not all(isinstance(d, int) and not isinstance(d, bool) for d in dice):
        raise ScenarioError(f"{source}: dice: expected whole numbers, got {dice!r}")
    choices = _expect(data, "choices", dict, "a table of choice key = answer", source) or {}
    actions = _expect(data, "actions", list, "a list of [[actions]] tables", source) or []
    if not actions and needs_actions:
        raise ScenarioError(
            f"{source}: actions: expected at least one [[actions]] table "
            "(a file without actions is a setup: play it live with `bxb play`)"
        )
    rest = {k: v for k, v in data.items() if k not in CORE_KEYS}
    try:
        setup = msgspec.convert(rest, ruleset.setup_type)
    except msgspec.ValidationError as e:
        raise ScenarioError(_path(str(e), source + ": ")) from None
    commands: list[Any] = []
    union = ruleset.command_type
    for i, action in enumerate(actions):
        try:
            command = msgspec.convert(action, union)
        except msgspec.ValidationError as e:
            raise ScenarioError(_path(str(e), f"{source}: actions[{i}]")) from None
        check_values(command, f"{source}: actions[{i}]")  # e.g. inches = "NaN" as a Decimal
        commands.append(command)
    return Scenario(
        ruleset=ruleset.id,
        label=label,
        rulings=_rulings(ruleset, rulings, source),
        setup=setup,
        commands=commands,
        dice=dice,
        seed=str(seed) if seed is not None else None,
        choices={str(k): str(v) for k, v in choices.items()},
    )


def load_scenario(
    path: str | Path, ruleset: str | None = None, *, needs_actions: bool = True
) -> AnyScenario:
    """Read a scenario file; ``ruleset`` records the same scenario under another game system
    (e.g. the same Necromunda fight under ``necromunda-legacy``); with ``needs_actions`` False a
    setup (no ``[[actions]]``) is read too."""
    p = Path(path)
    try:
        with p.open("rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise ScenarioError(f"{p}: cannot read: {e.strerror or e}") from None
    return read_scenario(raw, str(p), ruleset, needs_actions=needs_actions)


def read_scenario(
    raw: bytes, name: str, ruleset: str | None = None, *, needs_actions: bool = True
) -> AnyScenario:
    """A scenario from its bytes (a file's, or standard input's); ``name`` names it in errors.
    ``raw`` may be read with one byte more than the bound, to tell a file too large."""
    p = name
    if len(raw) > MAX_FILE_BYTES:
        raise ScenarioError(
            f"{p}: larger than {MAX_FILE_BYTES // 1024} KiB; expected a scenario file "
            "(docs/scenarios.md, Bounds)"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(
            f"{p}: not UTF-8 text (byte {e.start} is {raw[e.start : e.start + 1]!r}); "
            "expected a TOML file in UTF-8"
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{p}: not valid TOML: {e}") from None
    except RecursionError:
        raise ScenarioError(
            f"{p}: nested too deeply; expected at most {MAX_DEPTH} levels of tables and lists"
        ) from None
    if ruleset is not None:
        data["ruleset"] = ruleset
    return scenario_from_dict(data, p, needs_actions=needs_actions)
