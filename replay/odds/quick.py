"""Quick odds: "this profile against that one" without writing a scenario file. A game system's
setup (its demo's by default: every system's demo is a small fight), fields changed by path as the
setup forms name them (``fighters[0].ws``), and one command, the rules' own option or its JSON;
the odds are then the scenario's, from the same procedures as every other odds
(``scenario_odds``). Used by ``bxb odds --ruleset ID --set PATH=VALUE`` and the server's quick
odds page (``web/quick_odds.py``).

Errors name the field as ``bxb play FILE`` does for the same mistake: the setup goes through
``scenario_from_dict``, then the system's ``validate_setup``."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from typing import Any

import msgspec

from blowbyblow.domain.core import BlowByBlowError, RulingError, SetupError
from blowbyblow.domain.system import AnyGameSystem, OptionError
from blowbyblow.replay.engine.scenario import ScenarioError, scenario_from_dict

SOURCE = "setup"  # what the messages call the setup
_STEP = re.compile(r"\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


class QuickError(BlowByBlowError):
    """A setup, a field or a command the quick odds cannot take; the message names it."""


def demo_setup(system: AnyGameSystem) -> dict[str, Any]:
    """The system's demo setup as plain JSON data (the setup form's data: lists, not tuples)."""
    data: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(system.demo().setup))
    return data


def set_field(setup: dict[str, Any], path: str, value: Any) -> None:
    """Set the field at ``path`` (``fighters[0].ws``, ``weapons[1].name``) of ``setup`` to
    ``value``; QuickError naming the path when it leads nowhere."""
    steps = [(name, int(index) if index else None) for name, index in _STEP.findall(path)]
    if not steps or "".join(m.group(0) for m in _STEP.finditer(path)) != path:
        raise QuickError(f"--set {path}: expected a field path such as fighters[0].ws")
    here: Any = setup
    for i, (name, index) in enumerate(steps):
        last = i == len(steps) - 1
        key: Any = name if name else index
        if name and not isinstance(here, dict):
            raise QuickError(f"--set {path}: {name!r} is inside no table")
        if not name and not (isinstance(here, list) and index is not None and index < len(here)):
            size = len(here) if isinstance(here, list) else 0
            raise QuickError(f"--set {path}: [{index}] is past the {size} entries there")
        if last:
            here[key] = value
        else:
            if name and name not in here:
                raise QuickError(f"--set {path}: the setup has no field {name!r} there")
            here = here[key]


def parse_set(text: str) -> tuple[str, Any]:
    """``PATH=VALUE`` from the command line: VALUE read as JSON (4, "knife", [1, 2], true),
    else as text."""
    path, sep, raw = text.partition("=")
    if not sep or not path.strip():
        raise QuickError(f"--set {text}: expected PATH=VALUE, e.g. fighters[0].ws=4")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return path.strip(), value


def quick_scenario(
    system: AnyGameSystem,
    setup: dict[str, Any] | None,
    rulings: dict[str, str],
    command: dict[str, Any],
    sets: Sequence[tuple[str, Any]] = (),
) -> Any:
    """The scenario of one command from ``setup`` (the demo's when None) with ``sets`` made."""
    data = copy.deepcopy(demo_setup(system) if setup is None else setup)
    for path, value in sets:
        set_field(data, path, value)
    whole = {
        **data,
        "ruleset": system.id,
        "label": "quick odds",
        "rulings": rulings,
        "actions": [command],
    }
    try:
        scenario = scenario_from_dict(whole, SOURCE)
        system.validate_setup(scenario.setup)
    except ScenarioError as e:
        raise QuickError(str(e).replace(f"{SOURCE}: actions[0]", "command")) from None
    except (SetupError, RulingError) as e:
        raise QuickError(f"{SOURCE}: {e}") from None
    return scenario


def options(system: AnyGameSystem, setup: dict[str, Any], rulings: dict[str, str]) -> list[Any]:
    """The commands the rules allow at the start of ``setup`` (QuickError: the setup's
    problem, as ``bxb play`` says it)."""
    try:
        scenario = scenario_from_dict(
            {**setup, "ruleset": system.id, "label": SOURCE, "rulings": rulings},
            SOURCE,
            needs_actions=False,
        )
        system.validate_setup(scenario.setup)
    except ScenarioError as e:
        raise QuickError(str(e)) from None
    except (SetupError, RulingError) as e:
        raise QuickError(f"{SOURCE}: {e}") from None
    state = system.initial_state(scenario.setup)
    return list(system.legal_commands(state, scenario.rulings))


def option_command(
    system: AnyGameSystem, offered: Sequence[Any], option: int, picks: dict[str, str]
) -> dict[str, Any]:
    """The command of the ``option``-th offered option with ``picks`` made, as JSON data."""
    if not 0 <= option < len(offered):
        raise QuickError(f"option {option}: the rules offer {len(offered)} commands here")
    try:
        command = system.build_command(offered[option], picks)
    except OptionError as e:
        raise QuickError(f"picks: {e}") from None
    data: dict[str, Any] = msgspec.to_builtins(command)
    return data


__all__ = [
    "QuickError",
    "demo_setup",
    "option_command",
    "options",
    "parse_set",
    "quick_scenario",
    "set_field",
]
