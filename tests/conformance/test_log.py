"""Every game system's log: recorded, replayed, re-checked in another process, verified, caught
when tampered with, carried to another store and back unchanged."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

from conformance_helpers import Demo, fold, other_face, tamper_stored_event

from blowbyblow.domain.core import BattleStarted, CommandIssued, DiceRolled
from blowbyblow.replay.battles.record import import_battle
from blowbyblow.replay.engine.codec import encode
from blowbyblow.replay.engine.script import play
from blowbyblow.replay.evidence.export import export_battle, read_export
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore


def test_the_demo_records_and_verifies(demo: Demo) -> None:
    started = demo.started
    assert (started.ruleset, started.ruleset_version) == (demo.system.id, demo.system.version)
    assert re.fullmatch(r"\d+\.\d+", demo.system.version), "versions are MAJOR.MINOR"
    assert started.rulings == demo.system.resolve_rulings(demo.scenario.rulings)
    commands = [e.event for e in demo.events if isinstance(e.event, CommandIssued)]
    assert [c.command for c in commands] == list(demo.scenario.commands)
    assert any(isinstance(e.event, DiceRolled) for e in demo.events), "a demo rolls dice"
    report = verify_battle(demo.store, demo.battle)
    assert report.ok, report.problem and report.problem.describe()
    assert (report.events, report.commands) == (len(demo.events), len(commands))


def test_replaying_the_log_gives_the_live_state(demo: Demo) -> None:
    replayed = fold(demo.system, [e.event for e in demo.events])
    assert encode(replayed) == encode(demo.state)
    again = play(demo.scenario)  # in memory, without a store: the same events, the same state
    assert [encode(e) for e in again.events] == [e.data for e in demo.events]
    assert encode(again.state) == encode(demo.state)


FOLD_IN_ANOTHER_PROCESS = """
import sys
from uuid import UUID
from blowbyblow.replay.engine.codec import encode
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.store.log import BattleStore

events = BattleStore(sys.argv[1]).read(UUID(sys.argv[2]))
system = get_game_system(events[0].event.ruleset)
state = system.initial_state(events[0].event.setup)
for logged in events[1:]:
    state = system.evolve(state, logged.event)
print(encode(state).hex())
"""


def test_a_fresh_process_replays_to_the_same_state_bytes(demo: Demo) -> None:
    seed = "2718" if os.environ.get("PYTHONHASHSEED") != "2718" else "3141"
    env = {**os.environ, "PYTHONHASHSEED": seed}
    env["PYTHONPATH"] = os.pathsep.join([*demo.path, *filter(None, [env.get("PYTHONPATH")])])
    done = subprocess.run(
        [sys.executable, "-c", FOLD_IN_ANOTHER_PROCESS, str(demo.db), str(demo.battle)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == encode(demo.state).hex()


def first_roll(demo: Demo) -> tuple[int, int]:
    """The position of the demo's first die roll and the die's number of sides."""
    for logged in demo.events:
        if isinstance(logged.event, DiceRolled):
            return logged.position, logged.event.sides
    raise AssertionError("the demo rolls no dice")


def test_a_die_changed_in_the_store_file_is_caught(demo: Demo) -> None:
    position, sides = first_roll(demo)

    def edit(event: dict[str, Any]) -> None:
        other_face(event["values"], sides)

    tamper_stored_event(demo.db, demo.battle, position, edit)
    report = verify_battle(BattleStore(demo.db), demo.battle)
    assert not report.ok
    assert report.problem is not None and report.problem.position == position


def test_a_die_changed_in_an_export_is_caught(demo: Demo) -> None:
    position, sides = first_roll(demo)
    header, *lines = (
        json.loads(line) for line in export_battle(demo.store, demo.battle).splitlines()
    )
    assert read_export("\n".join(json.dumps(x) for x in [header, *lines])).report.ok
    (rolled,) = [line for line in lines if line["position"] == position]
    other_face(rolled["event"]["values"], sides)
    report = read_export("\n".join(json.dumps(x) for x in [header, *lines])).report
    assert not report.ok
    assert report.problem is not None and report.problem.position == position


def test_export_import_export_is_byte_identical(demo: Demo) -> None:
    exported = export_battle(demo.store, demo.battle)
    elsewhere = BattleStore(":memory:")
    imported = import_battle(elsewhere, exported)
    assert imported.battle == demo.battle and imported.report.ok
    assert export_battle(elsewhere, demo.battle) == exported
    first = elsewhere.read(demo.battle)[0].event
    assert isinstance(first, BattleStarted) and first.setup == demo.scenario.setup
