"""Every characteristic and count of every game system's setup is bounded, and docs/scenarios.md
says each bound as the code has it (from the setup's JSON Schema, which carries the types'
bounds); the bounds of every scenario file are the documented ones too."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from blowbyblow.replay.engine import scenario
from blowbyblow.replay.engine.registry import game_systems

DOC = (Path(__file__).resolve().parents[2] / "docs" / "scenarios.md").read_text(encoding="utf-8")


def _bound(node: dict[str, Any]) -> str | None:
    """A field's bound in the doc's words; None if it has none, "" if it needs none (text,
    a yes/no, a choice of words, a nested table)."""
    for option in node.get("anyOf", [node]):
        kind = option.get("type")
        if kind in ("integer", "number"):
            low, high = option.get("minimum"), option.get("maximum")
            return None if low is None or high is None else f"{low:g} to {high:g}"
        if kind == "array" and "prefixItems" not in option:
            most = option.get("maxItems")
            return None if most is None else f"at most {most}"
        if kind == "object" and "properties" not in option and "additionalProperties" in option:
            most = option.get("maxProperties")
            return None if most is None else f"at most {most} entries"
    return ""


def bound_rows(schema: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(the doc's table rows for a setup schema, the numeric or list fields with no bound)."""
    rows, unbounded = [], []
    for name, definition in sorted(schema["$defs"].items()):
        for field, node in definition.get("properties", {}).items():
            bound = _bound(node)
            if bound is None:
                unbounded.append(f"{name}.{field}")
            elif bound:
                rows.append(f"| `{name}.{field}` | {bound} |")
    return rows, unbounded


def doc_section(system_id: str) -> str:
    """The part of the doc's Bounds section whose heading names ``system_id``."""
    bounds = DOC.split("\n## Bounds\n", 1)[1].split("\n## ", 1)[0]
    for part in bounds.split("\n### ")[1:]:
        if f"`{system_id}`" in part.split("\n", 1)[0]:
            return part
    raise AssertionError(f"docs/scenarios.md, Bounds: no section for {system_id}")


@pytest.mark.parametrize("system_id", sorted(game_systems()))
def test_every_number_and_count_of_a_setup_is_bounded_and_documented(system_id: str) -> None:
    rows, unbounded = bound_rows(game_systems()[system_id].setup_schema())
    assert not unbounded, f"{system_id}: no bound on {unbounded}"
    section = doc_section(system_id)
    documented = re.findall(r"^\| `[\w.]+` \| .* \|$", section, flags=re.MULTILINE)
    assert documented == rows, f"docs/scenarios.md, Bounds, {system_id}"


def test_the_bounds_of_every_scenario_file_are_the_documented_ones() -> None:
    rows = (
        f"| the file | at most {scenario.MAX_FILE_BYTES // 2**20} MiB, UTF-8 |",
        f"| nesting | at most {scenario.MAX_DEPTH} levels of tables and lists |",
        f"whole numbers between -2^{scenario.MAX_INTEGER.bit_length() - 1} and "
        f"2^{scenario.MAX_INTEGER.bit_length() - 1} |",
        f"| `actions` | at most {scenario.MAX_ACTIONS} |",
        f"| `dice` | at most {scenario.MAX_DICE}, each 1 to {scenario.MAX_DIE} |",
        f"| `choices` | at most {scenario.MAX_CHOICES} |",
        f"each ruling and each choice | at most {scenario.MAX_TEXT} characters |",
    )
    for row in rows:
        assert row in DOC, row
