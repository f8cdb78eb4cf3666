"""The JSON Schemas a front end builds its forms from: the demo's setup and each of its commands,
encoded to JSON, are valid under ``setup_schema()`` / ``command_schema()`` and decode back equal."""

from __future__ import annotations

import json

import jsonschema
import msgspec

from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.replay.engine.codec import encode_json


def test_the_schemas_are_json_schema(system: AnyGameSystem) -> None:
    for schema in (system.setup_schema(), system.command_schema()):
        jsonschema.Draft202012Validator.check_schema(schema)


def test_the_demo_setup_round_trips_through_its_schema(system: AnyGameSystem) -> None:
    setup = system.demo().setup
    text = encode_json(setup)
    jsonschema.Draft202012Validator(system.setup_schema()).validate(json.loads(text))
    assert msgspec.json.decode(text, type=system.setup_type) == setup
    assert msgspec.convert(json.loads(text), system.setup_type) == setup  # as a scenario file


def test_the_demo_commands_round_trip_through_their_schema(system: AnyGameSystem) -> None:
    validator = jsonschema.Draft202012Validator(system.command_schema())
    for command in system.demo().commands:
        text = encode_json(command)
        validator.validate(json.loads(text))
        assert msgspec.json.decode(text, type=system.command_type) == command
        assert msgspec.convert(json.loads(text), system.command_type) == command


def test_the_schemas_refuse_what_the_types_refuse(system: AnyGameSystem) -> None:
    """A command of no known type, and a setup that is not an object, are invalid."""
    commands = jsonschema.Draft202012Validator(system.command_schema())
    assert not commands.is_valid({"type": "no-such-command"})
    assert not jsonschema.Draft202012Validator(system.setup_schema()).is_valid([])
