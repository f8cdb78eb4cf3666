"""Rosters made from the scenarios the package ships: one a side, each for a player."""

from __future__ import annotations

from pathlib import Path

import msgspec

from blowbyblow.domain.roster import Roster, check_roster, rosters_of_setup
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.scenario import load_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "cli" / "scenarios"
PLAYERS = ("Ana", "Bo")
# A shipped scenario of each game system a roster is made from.
SHIPPED = {
    "necromunda-2023": "necromunda-2023.toml",
    "necromunda-legacy": "necromunda-legacy.toml",
    "wh40k-2e": "wh40k-2e.toml",
    "gangfight": "gangfight.toml",
    "asl": "asl.toml",
}


def shipped_rosters(ruleset: str) -> list[Roster]:
    """The sides of the shipped scenario of ``ruleset`` as two players' rosters."""
    system = get_game_system(ruleset)
    setup = load_scenario(SCENARIOS / SHIPPED[ruleset], ruleset).setup
    sides = rosters_of_setup(system, setup)
    return [
        check_roster(system, msgspec.structs.replace(r, player=p))
        for r, p in zip(sides, PLAYERS, strict=False)
    ]
