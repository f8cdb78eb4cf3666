"""What a front end shows and offers without knowing the game: ``view(state)`` and
``legal_commands(state, rulings)`` in every state of the demo, and in battles played by picking offered
commands at random. An offered command must be one the rules then allow."""

from __future__ import annotations

import random
from typing import Any

import msgspec
from conformance_helpers import (
    Demo,
    Offline,
    adjudicate_offline,
    command_tag,
    states_between_commands,
)

from blowbyblow.domain.core import CommandIssued
from blowbyblow.domain.system import AnyGameSystem, StateView
from blowbyblow.replay.engine.codec import encode_json


def demo_states(demo: Demo) -> list[Any]:
    """The state before each command of the demo, and after its last one."""
    return states_between_commands(demo.system, [e.event for e in demo.events])


def check_view(system: AnyGameSystem, state: Any) -> StateView:
    shown = system.view(state)
    assert isinstance(shown, StateView)
    assert shown.sides and len(set(shown.sides)) == len(shown.sides)
    ids = [u.id for u in shown.units]
    assert len(set(ids)) == len(ids), f"unit ids are unique: {ids}"
    for unit in shown.units:
        assert unit.side in shown.sides, f"{unit.id}: side {unit.side!r} not in {shown.sides}"
        assert unit.status, f"{unit.id} has a status"
    for lock in shown.locks:
        assert set(lock.members) <= set(ids), f"lock {lock.kind}: {lock.members} not all units"
    for held in shown.prisoners:
        assert {held.prisoner, held.captor} <= set(ids), held
    assert msgspec.json.decode(encode_json(shown), type=StateView) == shown
    assert system.describe_state(state).strip()
    return shown


def check_option_shapes(system: AnyGameSystem, state: Any, rulings: dict[str, str]) -> None:
    offered = system.legal_commands(state, rulings)
    assert offered == system.legal_commands(state, rulings), "the same state, the same options"
    shown = system.view(state)
    types = {command_tag(c): c for c in system.command_types}
    for option in offered:
        assert option.type in types, f"{option.type!r} is not a command of {system.id}"
        assert option.side in (*shown.sides, ""), option
        assert not option.actor or option.actor in {u.id for u in shown.units}, option
        assert all(values for values in option.options.values()), f"no value allowed: {option}"
        built = system.build_command(option)
        assert command_tag(type(built)) == option.type, (option, built)


def test_the_view_of_every_demo_state(demo: Demo) -> None:
    for state in demo_states(demo):
        check_view(demo.system, state)


def test_every_offered_command_is_allowed_in_every_demo_state(demo: Demo) -> None:
    rulings = demo.started.rulings
    states = demo_states(demo)
    for index, state in enumerate(states, start=1):
        check_option_shapes(demo.system, state, rulings)
        for n, option in enumerate(demo.system.legal_commands(state, rulings)):
            command = demo.system.build_command(option)
            how = Offline(rulings=rulings, index=index, rng=random.Random(f"{index}/{n}"))
            adjudicate_offline(demo.system, state, command, how)  # no RuleViolation


def test_the_demo_commands_are_offered(demo: Demo) -> None:
    """Each command the demo gives is of a type offered in the state it is given in."""
    states = demo_states(demo)
    for state, command in zip(states, demo.scenario.commands, strict=False):
        offered = {o.type for o in demo.system.legal_commands(state, demo.started.rulings)}
        assert command_tag(type(command)) in offered, f"{command} not among {sorted(offered)}"


def test_playing_offered_commands_at_random(demo: Demo) -> None:
    """From the demo's setup, commands picked at random from those offered, for a while: each
    is allowed, each state has a view, each rule step is narrated."""
    own = tuple(demo.system.event_types)
    for seed in range(3):
        rng = random.Random(seed)
        state = demo_states(demo)[0]
        for index in range(1, 31):
            check_view(demo.system, state)
            check_option_shapes(demo.system, state, demo.started.rulings)
            offered = demo.system.legal_commands(state, demo.started.rulings)
            if not offered:
                break
            command = demo.system.build_command(rng.choice(offered))
            how = Offline(rulings=demo.started.rulings, index=index, rng=rng)
            done = adjudicate_offline(demo.system, state, command, how)
            assert isinstance(done.events[0], CommandIssued)
            for event in done.events:
                assert not isinstance(event, own) or demo.system.narrate(event), event
            state = done.state
