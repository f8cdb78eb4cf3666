"""The example scenario file and the demo: they load, play, show every rule the demo is for, and
read in plain words."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Union

import msgspec
import pytest

from blowbyblow.domain.core import RuleEvent, SetupError
from blowbyblow.domain.system import Scenario
from blowbyblow.domain.wh40k.commands import Wh40kCommand
from blowbyblow.domain.wh40k.events import (
    BrokeOff,
    Charged,
    CombatScoreCalculated,
    CriticalHitsCounted,
    FollowUpMove,
    FumblesCounted,
    MultipleCombatBegun,
    ParryUsed,
    RoundWon,
)
from blowbyblow.domain.wh40k.setup import ModelProfile, Weapon, Wh40kSetup
from blowbyblow.replay.engine.codec import encode
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play

SCENARIO = Path(__file__).resolve().parents[2] / "cli" / "scenarios" / "wh40k-2e.toml"
RULESET = get_game_system("wh40k-2e")
CORE = ("ruleset", "label", "rulings", "seed", "dice", "choices", "actions")


def load(path: Path) -> Scenario[Wh40kSetup, Wh40kCommand]:
    """As the brief describes the CLI's loader: every other top-level key is the setup."""
    data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    union: Any = Union[tuple(RULESET.command_types)]  # noqa: UP007
    rest = {k: v for k, v in data.items() if k not in CORE}
    return Scenario[Wh40kSetup, Wh40kCommand](
        ruleset=data["ruleset"],
        label=data["label"],
        rulings=data.get("rulings", {}),
        setup=msgspec.convert(rest, RULESET.setup_type),
        commands=[msgspec.convert(a, union) for a in data["actions"]],
        dice=data.get("dice"),
        seed=data.get("seed"),
        choices=data.get("choices", {}),
    )


def rule_events(events: list[Any]) -> list[bytes]:
    return [encode(e) for e in events if isinstance(e, RuleEvent)]


def test_scenario_file_plays_the_same_battle_as_the_demo() -> None:
    from_file = play(load(SCENARIO))
    demo = play(RULESET.demo())
    assert rule_events(from_file.events) == rule_events(demo.events)
    assert encode(from_file.state) == encode(demo.state)


def test_scenario_file_loads_with_the_projects_loader() -> None:
    from blowbyblow.replay.engine.scenario import load_scenario

    scenario = load_scenario(SCENARIO)
    assert rule_events(play(scenario).events) == rule_events(play(RULESET.demo()).events)


def test_demo_shows_charge_parry_fumble_critical_multiple_combat_break_off_follow_up() -> None:
    played = play(RULESET.demo())
    kinds = {type(e) for e in played.events}
    for kind in (
        Charged,
        ParryUsed,
        FumblesCounted,
        CriticalHitsCounted,
        MultipleCombatBegun,
        BrokeOff,
        FollowUpMove,
    ):
        assert kind in kinds, kind.__name__
    charged_scores = [
        s
        for s in played.events
        if isinstance(s, CombatScoreCalculated) and any("charge" in m.cause for m in s.modifiers)
    ]
    assert charged_scores
    wins = [(w.winner, w.hits) for w in played.events if isinstance(w, RoundWon)]
    assert wins == [("zog", 2), ("varro", 6), ("gorg", 1)]
    assert played.state.models["varro"].slain_by == "gorg"


def test_every_demo_event_is_narrated_with_its_rule() -> None:
    played = play(RULESET.demo())
    for e in played.events:
        if isinstance(e, RuleEvent):
            text = RULESET.narrate(e)
            assert text and e.rule in text, e
            assert type(e) in RULESET.event_types
    assert "slain by gorg" in RULESET.describe_state(played.state)


def test_a_typo_in_the_setup_names_the_field() -> None:
    data = tomllib.loads(SCENARIO.read_text(encoding="utf-8"))
    data["models"][0]["wss"] = 4
    rest = {k: v for k, v in data.items() if k not in CORE}
    with pytest.raises(msgspec.ValidationError, match=r"models\[0\]"):
        msgspec.convert(rest, RULESET.setup_type)


def _setup(**changes: Any) -> Wh40kSetup:
    base: Wh40kSetup = RULESET.demo().setup
    return msgspec.structs.replace(base, **changes)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"contacts": [("varro", "nobody")]}, "unknown model"),
        ({"contacts": [("varro", "cato")]}, "same side"),
        ({"first_player": "Eldar"}, "first_player"),
        ({"weapons": [*RULESET.demo().setup.weapons, Weapon(id="choppa")]}, "duplicate weapon"),
        ({"weapons": [Weapon(id="x", damage="lots")]}, "damage"),
    ],
)
def test_setup_cross_references_are_checked(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(SetupError, match=message):
        RULESET.validate_setup(_setup(**changes))


def test_setup_model_checks() -> None:
    demo = RULESET.demo().setup
    bad_weapon = ModelProfile(id="q", player="Orks", ws=3, s=3, t=3, i=3, weapons=["laser"])
    with pytest.raises(SetupError, match="unknown weapon 'laser'"):
        RULESET.validate_setup(_setup(models=[*demo.models, bad_weapon]))
    twin = msgspec.structs.replace(demo.models[0], player="Orks")
    with pytest.raises(SetupError, match="duplicate model"):
        RULESET.validate_setup(_setup(models=[*demo.models, twin]))
    with pytest.raises(SetupError, match="two players"):
        RULESET.validate_setup(_setup(models=demo.models[:2]))


def test_narrate_leaves_events_of_other_kinds_to_the_engine() -> None:
    from blowbyblow.domain.core import DiceRolled

    assert RULESET.narrate(DiceRolled(key="c1/x", sides=6, values=(3,), source="physical")) is None
