"""Property tests: random legal battles under random rulings. The state folded from the log
equals the live state (byte for byte once encoded), the whole battle replays to the same
events, and the state always hangs together."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from necro_helpers import NecroScenario
from necro_random import Battle, battles, check_battle, keep_legal

from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(battles())
def test_random_battles_replay_to_the_live_state(data: Battle) -> None:
    check_battle("necromunda-2023", data)


_CHILD = """
import hashlib, sys, msgspec
from blowbyblow.domain.system import Scenario
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play
raw = msgspec.msgpack.decode(sys.stdin.buffer.read())
for item in raw:
    rs = get_game_system(item["ruleset"])
    union = rs.command_type
    scenario = Scenario(
        ruleset=item["ruleset"], label=item["label"], rulings=item["rulings"],
        setup=msgspec.convert(item["setup"], rs.setup_type),
        commands=[msgspec.convert(c, union) for c in item["commands"]], seed=item["seed"],
    )
    print(hashlib.sha256(msgspec.msgpack.encode(play(scenario).state)).hexdigest())
"""

_BATCH: list[tuple[NecroScenario, str]] = []


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(battles(), st.sampled_from(["necromunda-2023", "necromunda-legacy"]))
def test_collect_random_battles(data: Battle, ruleset_id: str) -> None:
    scenario, intents = data
    scenario = msgspec.structs.replace(scenario, ruleset=ruleset_id, rulings={})
    commands = keep_legal(get_game_system(ruleset_id), scenario, intents)
    scenario = msgspec.structs.replace(scenario, commands=commands)
    digest = hashlib.sha256(msgspec.msgpack.encode(play(scenario).state)).hexdigest()
    _BATCH.append((scenario, digest))


def test_random_battles_replay_byte_identical_in_a_fresh_process() -> None:
    if not _BATCH:
        test_collect_random_battles()
    payload = msgspec.msgpack.encode([s for s, _ in _BATCH])
    out = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=payload,
        capture_output=True,
        check=True,
        env={"PYTHONHASHSEED": "4242", "PATH": ""},
    )
    assert out.stdout.decode().split() == [d for _, d in _BATCH]
