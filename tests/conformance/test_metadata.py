"""What every game system says about itself: its id, version, rulings, commands and demo."""

from __future__ import annotations

import re

from conformance_helpers import command_tag

from blowbyblow.domain.system import AnyGameSystem, GameSystem
from blowbyblow.replay.engine.registry import game_system_ids


def test_the_system_is_registered_under_its_id(system_id: str, system: AnyGameSystem) -> None:
    assert isinstance(system, GameSystem)
    assert system.id == system_id
    assert system_id in game_system_ids()
    assert re.fullmatch(r"\d+\.\d+", system.version), "versions are MAJOR.MINOR"
    assert system.game and system.title and system.rulebook.title
    demo = system.demo()
    assert demo.ruleset == system.id
    system.validate_setup(demo.setup)


def test_every_ruling_names_its_choices_and_its_rule(system: AnyGameSystem) -> None:
    names = [r.name for r in system.rulings]
    assert len(set(names)) == len(names)
    for ruling in system.rulings:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", ruling.name), ruling.name
        assert not ruling.choices or ruling.default in ruling.choices, ruling.name
        assert len(set(ruling.choices)) == len(ruling.choices), ruling.name
        assert ruling.summary and ruling.rule, ruling.name
        assert system.rulebook.cite(ruling.rule).startswith(system.rulebook.title + ", ")
    assert system.resolve_rulings({}) == {r.name: r.default for r in system.rulings}


def test_every_command_has_its_own_tag(system: AnyGameSystem) -> None:
    tags = [command_tag(c) for c in system.command_types]
    assert len(set(tags)) == len(tags), tags
    assert all(re.fullmatch(r"[a-z][a-z0-9-]*", tag) for tag in tags), tags
