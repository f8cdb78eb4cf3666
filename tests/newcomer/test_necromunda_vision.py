"""What the Necromunda docs say of `vision` is what the rules do: a fighter attacks only engaged
enemies inside its vision arc (empty when the setup does not give it), unless it turns to face,
-1 to its hit rolls."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from blowbyblow.replay.battles.record import record
from blowbyblow.replay.engine.narrate import narrate
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.scenario import scenario_from_dict
from blowbyblow.replay.engine.script import ActionRefused
from blowbyblow.replay.store.log import BattleStore

from newcomer_helpers import REPO, SCENARIOS

EXAMPLE = tomllib.loads((SCENARIOS / "necromunda-2023.toml").read_text())


def grax_fights_sera(ruleset: str, vision: list[str] | None, **order: Any) -> list[str]:
    """The example's setup with Grax engaged with Sera; Grax's `vision` as given (None: left
    out); one Fight of Grax at Sera. The narration of what was recorded."""
    data = {**EXAMPLE, "ruleset": ruleset, "engagements": [{"a": "grax", "b": "sera"}]}
    grax = {k: v for k, v in EXAMPLE["fighters"][0].items() if k != "vision"}
    if vision is not None:
        grax["vision"] = vision
    data["fighters"] = [grax, *EXAMPLE["fighters"][1:]]
    data["actions"] = [
        {"type": "fight", "attacker": "grax", "weapons": ["hammer"], "targets": ["sera"], **order}
    ]
    system = get_game_system(ruleset)
    recorded = record(BattleStore(":memory:"), scenario_from_dict(data, "t"), quiet=True)
    return [narrate(system, e.event) for e in recorded.events]


@pytest.mark.parametrize("ruleset", ["necromunda-2023", "necromunda-legacy"])
def test_a_fighter_attacks_only_whom_its_vision_arc_holds(ruleset: str) -> None:
    seen = grax_fights_sera(ruleset, ["sera"])
    assert any("grax declares 2 hammer dice at sera" in line for line in seen)
    assert not any("turns to face" in line for line in seen)
    nobody: list[str] = []
    for vision in (nobody, None):  # an empty arc, or none given: the same
        with pytest.raises(ActionRefused, match=r"outside its vision arc.*turn to face"):
            grax_fights_sera(ruleset, vision)
    turned = grax_fights_sera(ruleset, None, turn_to_face=["sera"])
    assert any(
        "grax turns to face (sera now in its vision arc); -1 to its hit rolls" in line
        for line in turned
    )


def test_the_docs_say_so() -> None:
    rules = " ".join((REPO / "docs" / "rulesets" / "necromunda-2023.md").read_text().split())
    assert "A fighter attacks only whom it can see." in rules
    assert "it is empty when not given" in rules
    for page in ("scenarios.md", "rulesets/necromunda-legacy.md"):
        text = " ".join((REPO / "docs" / page).read_text().split())
        assert "attacks only" in text and "vision arc" in text and "turns to face" in text, page
