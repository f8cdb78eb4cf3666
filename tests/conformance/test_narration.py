"""Every rule step of every game system told in words, never by the engine's generic fallback
(the event's type and its JSON).

Real events first: those of the demo and of more battles generated from it (its commands with
seeded dice, under every ruling). An event type none of them produces is checked on a made-up,
well-typed instance: that shows the system's ``narrate`` has words for the type, not that the
words read well for real values. Each system's own tests should produce those events for real.
"""

from __future__ import annotations

from conformance_helpers import Demo, example_event, generated_battles

from blowbyblow.domain.core import Event, RuleEvent
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.replay.engine.codec import encode_json, to_builtins
from blowbyblow.replay.engine.narrate import narrate


def _fallback(event: Event) -> str:
    return f"{type(event).__name__} {encode_json(to_builtins(event)).decode()}"


def real_events(demo: Demo) -> list[Event]:
    events = [e.event for e in demo.events]
    for battle in generated_battles(demo.system):
        events += battle
    return events


def test_every_event_type_is_a_tagged_rule_step(system: AnyGameSystem) -> None:
    names = [t.__name__ for t in system.event_types]
    assert len(set(names)) == len(names), "event type names are unique within a system"
    for event_type in system.event_types:
        assert issubclass(event_type, RuleEvent), event_type
        assert event_type.__struct_config__.tag == event_type.__name__


def test_every_real_event_is_narrated(demo: Demo) -> None:
    own = tuple(demo.system.event_types)
    for event in real_events(demo):
        told = narrate(demo.system, event)
        assert told.strip() and told != _fallback(event), event
        if isinstance(event, own):
            assert demo.system.narrate(event), event


def test_every_event_type_is_narrated(demo: Demo) -> None:
    seen = {type(e) for e in real_events(demo)}
    for event_type in demo.system.event_types:
        if event_type in seen:
            continue  # told from real events above
        event = example_event(event_type)
        told = demo.system.narrate(event)
        assert told and told.strip(), f"{demo.system.id} does not narrate {event_type.__name__}"
        assert narrate(demo.system, event) != _fallback(event)
