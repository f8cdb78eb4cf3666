"""Property tests: random legal battles under random rulings. The state folded from the log
equals the live state (byte for byte once encoded), the whole battle replays to the same
events, and the state always hangs together."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from typing import get_args

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from necro_helpers import NecroScenario
from necro_random import Battle, battles, check_battle, keep_legal

from blowbyblow.domain.necromunda.state import (
    STANDING_ACTIVE,
    STANDING_ENGAGED,
    FighterStatus,
    engaged_with,
    make_link,
    secondary_statuses,
)
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


# every status, the two that stand twice as likely (only a standing fighter is resynced)
ALL_STATUSES = (STANDING_ACTIVE, STANDING_ENGAGED, *get_args(FighterStatus))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(battles(), st.data())
def test_secondary_statuses_follow_engaged_with(data: Battle, draw: st.DataObject) -> None:
    """Who should be Standing & Engaged or Standing & Active, found in one pass over the links,
    is what ``engaged_with`` says of each standing fighter: any status, friends linked too,
    across barricades low and wide."""
    scenario, _ = data
    state = play(scenario).state
    fighters = {
        fid: msgspec.structs.replace(f, status=draw.draw(st.sampled_from(ALL_STATUSES)))
        for fid, f in state.fighters.items()
    }
    ids = sorted(fighters)
    across = st.sampled_from([None, "low", "wall"])  # no barricade, 0.5" and 1.5" wide
    pair = st.tuples(st.sampled_from(ids), st.sampled_from(ids), across)
    extra = draw.draw(st.lists(pair, min_size=1))
    links = (*state.links, *(make_link(a, b, c) for a, b, c in extra if a != b))
    state = msgspec.structs.replace(state, fighters=fighters, links=links)
    expected = {
        fid: STANDING_ENGAGED if engaged_with(state, fid) else STANDING_ACTIVE
        for fid, f in fighters.items()
        if f.standing
    }
    assert secondary_statuses(state) == {
        fid: want for fid, want in expected.items() if want != fighters[fid].status
    }
