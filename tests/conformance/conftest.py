"""Fixtures of the conformance suite: every registered game system, and the template installed
as its own distribution, each with its demo recorded in a store file.

Run it against one system with ``pytest tests/conformance -k <system id>``.

The template is installed once per session into a temporary folder; that folder is on
``sys.path`` (and the registry re-read) only while a test of the template runs, so the tests of
the installed systems, and every other test of the session, never see it."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from conformance_helpers import (  # noqa: E402 - the helpers' folder is on sys.path now
    SYSTEM_IDS,
    TEMPLATE_ID,
    Demo,
    install_template,
)

from blowbyblow.domain.system import AnyGameSystem  # noqa: E402
from blowbyblow.replay.battles.record import record  # noqa: E402
from blowbyblow.replay.engine.registry import forget_registrations, get_game_system  # noqa: E402
from blowbyblow.replay.store.log import BattleStore  # noqa: E402


@pytest.fixture(scope="session")
def template_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The template, installed with pip into a folder of its own."""
    return install_template(tmp_path_factory.mktemp("template"))


@pytest.fixture
def template_on_path(template_site: Path) -> Iterator[Path]:
    """The installed template importable and registered, for one test."""
    entry = str(template_site)
    sys.path.insert(0, entry)
    importlib.invalidate_caches()
    forget_registrations()
    try:
        yield template_site
    finally:
        sys.path.remove(entry)
        forget_registrations()


@pytest.fixture(params=SYSTEM_IDS)
def system_id(request: pytest.FixtureRequest) -> str:
    """The id of the game system under test."""
    return str(request.param)


@pytest.fixture
def system_path(system_id: str, request: pytest.FixtureRequest) -> tuple[str, ...]:
    """What a process needs on its path, besides this environment, to find the system under
    test: nothing for an installed system, the template's folder for the template."""
    if system_id == TEMPLATE_ID:
        return (str(request.getfixturevalue("template_on_path")),)
    return ()


@pytest.fixture
def system(system_id: str, system_path: tuple[str, ...]) -> AnyGameSystem:
    """The game system under test."""
    return get_game_system(system_id)


@pytest.fixture
def demo(system: AnyGameSystem, system_path: tuple[str, ...], tmp_path: Path) -> Demo:
    """The system's demo, recorded in a SQLite store file."""
    db = tmp_path / "battles.sqlite"
    store = BattleStore(db)
    scenario = system.demo()
    recorded = record(store, scenario, quiet=True)
    return Demo(
        system=system,
        scenario=scenario,
        db=db,
        store=store,
        battle=recorded.battle,
        events=store.read(recorded.battle),
        state=recorded.state,
        path=system_path,
    )
