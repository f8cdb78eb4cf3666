"""Each game system's fold gives an event only to the concerns that list its type (``FOLDS``,
``fold_by_event_type``): a concern that reads a type it does not list would silently miss it.

- For every event type of every shipped system, every concern that does not list it must give
  back the very state it was given, asked with a stand-in event of that type (every field
  filled with a plain value) on the states of a real battle.
- Folding every event through every concern in turn, the way before the concerns were keyed,
  gives the same state as the keyed fold at every position of every demo and shipped scenario.
"""

from __future__ import annotations

import datetime
import decimal
import itertools
import typing
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any
from uuid import UUID

import msgspec.inspect as mi
import pytest

from blowbyblow.domain.asl import projection as asl
from blowbyblow.domain.core import Event
from blowbyblow.domain.gangfight import projection as gangfight
from blowbyblow.domain.necromunda import projection as necromunda
from blowbyblow.domain.system import AnyGameSystem, AnyScenario, Concern
from blowbyblow.domain.wh40k import projection as wh40k
from blowbyblow.projections.battle import fold_battle
from blowbyblow.replay.engine.codec import codec_for, encode
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.scenario import load_scenario
from blowbyblow.replay.engine.script import play

from bxbtest import RULESET_IDS

PROJECTIONS: dict[str, ModuleType] = {
    "asl": asl,
    "gangfight": gangfight,
    "necromunda-2023": necromunda,
    "necromunda-legacy": necromunda,
    "wh40k-2e": wh40k,
}
AFTER_EACH: dict[str, Callable[[Any], Any]] = {"wh40k-2e": wh40k.evolve_multiple_combat}
SCENARIOS = sorted((Path(__file__).resolve().parents[2] / "cli" / "scenarios").glob("*.toml"))


def test_every_shipped_system_is_checked() -> None:
    assert sorted(PROJECTIONS) == sorted(RULESET_IDS)


def _kind(t: Any) -> type:
    kind: type = typing.get_origin(t) or t
    return kind


def stand_ins(kind: Any) -> list[Any]:
    """Instances of the event type ``kind``, fields plain values of their types: one with its
    defaults, each other flag False and the first choice of each literal and union; one with
    every field set, each flag True and the last choice (a branch guarded by a flag or a value
    is taken by one of them)."""
    return [_value(mi.type_info(kind), last) for last in (False, True)]


def _value(t: mi.Type, last: bool) -> Any:  # noqa: C901 - one case per msgspec type
    if isinstance(t, mi.StructType):
        return t.cls(**{f.name: _value(f.type, last) for f in t.fields if f.required or last})
    if isinstance(t, mi.Metadata):
        return _value(t.type, last)
    if isinstance(t, mi.StrType):
        return "stand-in"
    if isinstance(t, mi.BoolType):
        return last
    if isinstance(t, mi.IntType):
        return t.ge if t.ge is not None else 1
    if isinstance(t, mi.FloatType):
        return 1.0
    if isinstance(t, mi.DecimalType):
        return decimal.Decimal(1)
    if isinstance(t, mi.NoneType | mi.AnyType):
        return None
    if isinstance(t, mi.LiteralType):
        return t.values[-1 if last else 0]
    if isinstance(t, mi.UnionType):
        return _value(t.types[-1 if last else 0], last)
    if isinstance(t, mi.ListType):
        return []
    if isinstance(t, mi.VarTupleType):
        return ()
    if isinstance(t, mi.TupleType):
        return tuple(_value(x, last) for x in t.item_types)
    if isinstance(t, mi.SetType | mi.FrozenSetType):
        return frozenset()
    if isinstance(t, mi.DictType):
        return {}
    if isinstance(t, mi.BytesType):
        return b""
    if isinstance(t, mi.UUIDType):
        return UUID(int=0)
    if isinstance(t, mi.DateTimeType):
        return datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    if isinstance(t, mi.EnumType):
        members = list(t.cls)
        return members[-1 if last else 0]
    raise AssertionError(f"no stand-in value for {t!r}")


def _battles(ruleset_id: str) -> list[list[Event]]:
    system = get_game_system(ruleset_id)
    scenarios: list[AnyScenario] = [system.demo()]
    for path in SCENARIOS:
        scenario = load_scenario(path)
        if scenario.ruleset == ruleset_id:
            scenarios.append(scenario)
    return [play(scenario).events for scenario in scenarios]


def _states(system: AnyGameSystem, events: list[Event]) -> list[Any]:
    return [fold_battle(system, events, p) for p in (1, len(events) // 2, len(events))]


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_concern_gives_back_the_state_for_every_type_it_does_not_list(ruleset_id: str) -> None:
    system = get_game_system(ruleset_id)
    concerns: tuple[Concern[Any], ...] = PROJECTIONS[ruleset_id].FOLDS
    states = [s for events in _battles(ruleset_id) for s in _states(system, events)]
    kinds = typing.get_args(codec_for(ruleset_id).event_type)
    assert len(kinds) > 20
    checked = 0
    for kind in kinds:
        for concern in concerns:
            if _kind(kind) in {_kind(k) for k in concern.reads}:
                continue
            for state, event in itertools.product(states, stand_ins(kind)):
                assert isinstance(event, _kind(kind))
                try:
                    after = concern.evolve(state, event)
                except Exception as e:
                    raise AssertionError(
                        f"{concern.evolve.__name__} reads {_kind(kind).__name__}, "
                        f"which it does not list ({e!r})"
                    ) from e
                assert after is state, (
                    f"{concern.evolve.__name__} changes the state on "
                    f"{_kind(kind).__name__}, which it does not list"
                )
                checked += 1
    assert checked > len(kinds)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_the_keyed_fold_is_every_concern_in_turn(ruleset_id: str) -> None:
    system = get_game_system(ruleset_id)
    concerns: tuple[Concern[Any], ...] = PROJECTIONS[ruleset_id].FOLDS
    after_each = AFTER_EACH.get(ruleset_id)
    for events in _battles(ruleset_id):
        keyed = every = fold_battle(system, events, 1)
        for position, event in enumerate(events[1:], start=2):
            keyed = system.evolve(keyed, event)
            for concern in concerns:
                every = concern.evolve(every, event)
            if after_each is not None:
                every = after_each(every)
            assert encode(keyed) == encode(every), f"{ruleset_id}: position {position}"
