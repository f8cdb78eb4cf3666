"""Scenario files (TOML): ``ruleset``, ``label``, ``[rulings]``, ``seed`` or ``dice``,
``[choices]``, ``[[actions]]``; every other top-level key belongs to the game system's setup.
A file that does not fit gets an error naming the field path and what was expected.

A file without ``[[actions]]`` is a *setup*: ``bxb play`` starts a live battle from it. What is
checked only once the actions are adjudicated (dice listed but never rolled, a ``[choices]`` key
never asked, an action the dice made illegal) is refused by ``service.record``."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import msgspec

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.domain.system import AnyGameSystem, AnyScenario, Scenario
from blowbyblow.replay.registry import get_game_system

CORE_KEYS = ("ruleset", "label", "rulings", "seed", "dice", "choices", "actions")


class ScenarioError(BlowByBlowError):
    pass


def _path(message: str, prefix: str) -> str:
    """msgspec says '... - at `$.a[0].b`'; say 'prefix.a[0].b: ...' instead."""
    m = re.search(r" - at `\$(.*)`$", message)
    if not m:
        return f"{prefix}: {message}"
    return f"{prefix}{m.group(1)}: {message[: m.start()]}"


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


def scenario_from_dict(
    data: dict[str, Any], source: str = "scenario", *, needs_actions: bool = True
) -> AnyScenario:
    """A scenario from a file's data; with ``needs_actions`` False a setup (no ``[[actions]]``)
    is a scenario too, with no commands."""
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
            commands.append(msgspec.convert(action, union))
        except msgspec.ValidationError as e:
            raise ScenarioError(_path(str(e), f"{source}: actions[{i}]")) from None
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
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ScenarioError(f"{p}: cannot read: {e.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{p}: not valid TOML: {e}") from None
    if ruleset is not None:
        data["ruleset"] = ruleset
    return scenario_from_dict(data, str(p), needs_actions=needs_actions)
