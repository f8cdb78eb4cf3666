"""The demo battle and the scenario file."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import msgspec
import pytest

from blowbyblow.domain.asl import events as ev
from blowbyblow.domain.asl.commands import AslCommand
from blowbyblow.domain.asl.setup import Setup
from blowbyblow.domain.core import SetupError
from blowbyblow.domain.system import Scenario
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play

RULESET = get_game_system("asl")
TOML = Path(__file__).resolve().parents[2] / "cli" / "scenarios" / "asl.toml"


def kinds(events: list[Any]) -> list[str]:
    return [type(e).__name__ for e in events]


def test_demo_has_ambush_partial_kill_withdrawal_and_melee_carrying_over() -> None:
    played = play(RULESET.demo())
    names = kinds(played.events)
    for needed in (
        "AmbushDeclared",
        "PartialKill",
        "WithdrawalAttempted",
        "MeleeLocked",
        "MeleeContinued",
    ):
        assert needed in names, needed
    locked = next(e for e in played.events if isinstance(e, ev.MeleeLocked))
    advanced = [e for e in played.events if isinstance(e, ev.Advanced)]
    assert [(a.unit, a.came_from, a.to) for a in advanced] == [
        ("g-467a", "X2", "X3"),
        ("g-81", "X2", "X3"),
        ("g-467b", "X2", "X3"),
    ]
    begun = [e for e in played.events if isinstance(e, ev.CloseCombatPhaseBegun)]
    assert [b.turn for b in begun] == [1, 2]
    assert begun[1].in_melee and begun[1].melee_since == locked.since == 1
    cont = next(e for e in played.events if isinstance(e, ev.MeleeContinued))
    assert cont.since == 1 and "r-447b" in cont.units
    # the concealed g-467b never attacked: keeps its "?" and is never locked
    assert "g-467b" not in locked.units and "g-467b" not in cont.units
    assert played.state.units["g-467b"].concealed
    assert played.state.units["r-447a"].location == "X2"
    every = [RULESET.narrate(e) for e in played.events if isinstance(e, RULESET.event_types)]
    assert all(every)


def test_describe_state_shows_melee_and_concealment_before_and_after() -> None:
    played = play(RULESET.demo())
    before = RULESET.describe_state(RULESET.initial_state(RULESET.demo().setup))
    assert "Concealed: g-467a, g-81, g-467b" in before and "MELEE" not in before
    after = RULESET.describe_state(played.state)
    assert "MELEE since Player Turn 1: g-467a, g-81, r-447b" in after
    assert "Concealed: g-467b" in after


def load(path: Path) -> Scenario[Setup, AslCommand]:
    data = tomllib.loads(path.read_text())
    rest = {
        k: v
        for k, v in data.items()
        if k not in ("ruleset", "label", "rulings", "seed", "dice", "choices", "actions")
    }
    commands = [msgspec.convert(a, RULESET.command_type) for a in data.get("actions", [])]
    return Scenario(
        ruleset=data["ruleset"],
        label=data["label"],
        rulings=data.get("rulings", {}),
        setup=msgspec.convert(rest, RULESET.setup_type),
        commands=commands,
        dice=data.get("dice"),
        seed=data.get("seed"),
        choices=data.get("choices", {}),
    )


def test_scenario_file_plays_like_the_demo() -> None:
    scenario = load(TOML)
    played = play(scenario)
    demo = play(RULESET.demo())
    enc = msgspec.msgpack.encode
    assert enc(played.state) == enc(demo.state)
    assert kinds(played.events[1:]) == kinds(demo.events[1:])


def test_scenario_typo_is_a_field_path_error() -> None:
    data = tomllib.loads(TOML.read_text())
    data["units"][0]["concieled"] = True
    rest = {
        k: v
        for k, v in data.items()
        if k not in ("ruleset", "label", "rulings", "seed", "dice", "choices", "actions")
    }
    with pytest.raises(msgspec.ValidationError, match=r"units\[0\]"):
        msgspec.convert(rest, Setup)


def test_validate_setup_refuses_unknown_references() -> None:
    setup = RULESET.demo().setup
    bad = msgspec.structs.replace(
        setup, units=[*setup.units, msgspec.structs.replace(setup.units[0], id="g-467a")]
    )
    with pytest.raises(SetupError, match="duplicate"):
        RULESET.validate_setup(bad)
    bad = msgspec.structs.replace(
        setup, units=[msgspec.structs.replace(setup.units[1], stacked_on="nobody")]
    )
    with pytest.raises(SetupError, match="stacked_on"):
        RULESET.validate_setup(bad)
    bad = msgspec.structs.replace(
        setup, units=[msgspec.structs.replace(setup.units[0], location="Z9")]
    )
    with pytest.raises(SetupError, match="Location"):
        RULESET.validate_setup(bad)


def test_rule_events_round_trip_through_msgpack() -> None:
    from typing import Union

    played = play(RULESET.demo())
    types: tuple[Any, ...] = tuple(RULESET.event_types)
    union: Any = Union[types]  # noqa: UP007 - a runtime tuple of types
    decoder = msgspec.msgpack.Decoder(union)
    rule_events = [e for e in played.events if isinstance(e, RULESET.event_types)]
    assert rule_events
    for e in rule_events:
        assert decoder.decode(msgspec.msgpack.encode(e)) == e


def test_every_event_type_is_narrated() -> None:
    from blowbyblow.domain.asl.narration import NARRATORS

    for t in RULESET.event_types:
        assert t in NARRATORS, t.__name__
    assert set(RULESET.event_types) == set(ev.EVENT_TYPES) == set(NARRATORS)
