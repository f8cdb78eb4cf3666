"""The example scenario file, loaded the way the CLI loads it, and the demo."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import msgspec

from blowbyblow.domain.core import RuleEvent
from blowbyblow.domain.gangfight.commands import GangfightCommand
from blowbyblow.domain.gangfight.events import (
    AreaCovered,
    AttackRolled,
    ChargeRolled,
    DodgeRolled,
    FallingDamage,
    FreeStrike,
    Incapacitated,
    KnockedBack,
    MarksmanshipRolled,
    Slammed,
    SlamTreatedAsTrample,
    StoodUp,
    Trampled,
)
from blowbyblow.domain.gangfight.setup import GangfightSetup
from blowbyblow.domain.system import Scenario
from blowbyblow.projections.battle import fold
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play

SCENARIO = Path(__file__).resolve().parents[2] / "cli" / "scenarios" / "gangfight.toml"
RESERVED = {"ruleset", "label", "rulings", "seed", "dice", "choices", "actions"}


def load(path: Path) -> Scenario[GangfightSetup, GangfightCommand]:
    raw: dict[str, Any] = tomllib.loads(path.read_text())
    ruleset = get_game_system(raw["ruleset"])
    rest = {k: v for k, v in raw.items() if k not in RESERVED}
    return Scenario[GangfightSetup, GangfightCommand](
        ruleset=ruleset.id,
        label=raw["label"],
        rulings=raw.get("rulings", {}),
        setup=msgspec.convert(rest, ruleset.setup_type),
        commands=[msgspec.convert(a, GangfightCommand) for a in raw.get("actions", [])],
        dice=raw.get("dice"),
        seed=raw.get("seed"),
        choices=raw.get("choices", {}),
    )


def kinds(events: list[Any]) -> list[str]:
    return [type(e).__name__ for e in events]


def test_scenario_file_plays() -> None:
    scenario = load(SCENARIO)
    played = play(scenario)
    names = kinds(played.events)
    for cls in (Trampled, FreeStrike, Slammed, KnockedBack, FallingDamage, StoodUp):
        assert cls.__name__ in names
    assert SlamTreatedAsTrample.__name__ not in names
    by_id = {s.id: s for s in played.state.fighters}
    ogre = by_id["ogre"]
    # 4 wounds from the fight and the fall, 1 more from the crossbow through the fence
    assert (ogre.wounds, ogre.prone, ogre.condition) == (5, False, "active")
    shot = next(
        e for e in played.events if isinstance(e, MarksmanshipRolled) and e.shooter == "marksman"
    )
    assert (shot.test.pool, shot.test.tn) == (3, 4)  # at most 3 into the melee; soft cover
    area = next(e for e in played.events if isinstance(e, AreaCovered))
    assert (area.caught, area.clear) == (("marksman", "knight"), ("guard-2",))
    assert [d.dodged for d in played.events if isinstance(d, DodgeRolled)] == [False, True]
    assert next(e for e in played.events if isinstance(e, ChargeRolled)).reached
    assert by_id["goblin"].condition == "incapacitated"
    assert by_id["marksman"].fired == ()  # reloaded
    assert by_id["goblin"].fired == ("grenade",)
    assert (
        fold(played.ruleset, played.ruleset.initial_state(scenario.setup), played.events[1:])
        == played.state
    )


def test_scenario_typo_is_a_field_path_error() -> None:
    text = SCENARIO.read_text().replace("threat = 2", "threat_range = 2")
    raw = tomllib.loads(text)
    rest = {k: v for k, v in raw.items() if k not in RESERVED}
    try:
        msgspec.convert(rest, get_game_system("gangfight").setup_type)
    except msgspec.ValidationError as e:
        assert "threat_range" in str(e) and "fighters[0]" in str(e)
    else:  # pragma: no cover
        raise AssertionError("an unknown field was accepted")


def test_demo_shows_two_weapons_power_attack_free_strike_incapacitation() -> None:
    ruleset = get_game_system("gangfight")
    played = play(ruleset.demo())
    attacks = [e for e in played.events if isinstance(e, AttackRolled)]
    assert any(len(a.weapons) == 2 and a.test.pool == a.test.pool_base + 1 for a in attacks)
    assert any(a.attack == "power" for a in attacks)
    assert any(a.attack == "free-strike" for a in attacks)
    names = kinds(played.events)
    assert "KnockedBack" in names and "KnockedDown" in names and "FreeStrike" in names
    assert [e.fighter for e in played.events if isinstance(e, Incapacitated)] == ["brave"]
    for e in played.events:
        if isinstance(e, RuleEvent):
            words = ruleset.narrate(e)
            assert words and e.rule in words
    text = ruleset.describe_state(played.state)
    assert "brave" in text and "incapacitated" in text
