"""Property tests over random legal battles of every game system: each demo's commands under
random seeded dice. The state replayed from the log equals the state held live, and a fresh
process replays every battle to byte-identical encoded state."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import msgspec
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from blowbyblow.domain.core import BattleStarted, BlowByBlowError
from blowbyblow.projections.battle import fold_battle
from blowbyblow.replay.battles.record import Recorded, record
from blowbyblow.replay.engine.codec import encode
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.store.log import BattleStore

from bxbtest import RULESET_IDS


def record_random(store: BattleStore, ruleset_id: str, seed: str) -> Recorded | None:
    demo = get_game_system(ruleset_id).demo()
    try:
        return record(
            store,
            msgspec.structs.replace(demo, seed=seed, dice=None, label=f"{demo.label} / {seed}"),
            quiet=True,
        )
    except BlowByBlowError:
        return None  # under these dice a later command of the demo is no longer legal


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ruleset_id=st.sampled_from(RULESET_IDS), seed=st.text(min_size=1, max_size=12))
def test_replayed_state_equals_live_state(ruleset_id: str, seed: str) -> None:
    store = BattleStore(":memory:")
    rec = record_random(store, ruleset_id, seed)
    assume(rec is not None)
    assert rec is not None
    events = store.read(rec.battle)
    first = events[0].event
    assert isinstance(first, BattleStarted)
    rs = get_game_system(ruleset_id)
    assert encode(fold_battle(rs, [e.event for e in events])) == encode(rec.state)


def test_a_fresh_process_replays_random_battles_to_identical_bytes(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    expected: dict[str, str] = {}
    for ruleset_id in RULESET_IDS:
        for n in range(6):
            rec = record_random(store, ruleset_id, f"fresh-{n}")
            if rec is not None:
                expected[str(rec.battle)] = hashlib.sha256(encode(rec.state)).hexdigest()
    assert len(expected) >= len(RULESET_IDS) * 2
    script = f"""
import hashlib, json
from blowbyblow.replay.engine.codec import encode
from blowbyblow.projections.battle import fold_battle
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.store.log import BattleStore
store = BattleStore({str(db)!r})
out = {{}}
for b in store.battles():
    events = store.read(b.battle)
    rs = get_game_system(events[0].event.ruleset)
    state = fold_battle(rs, [e.event for e in events])
    out[str(b.battle)] = hashlib.sha256(encode(state)).hexdigest()
print(json.dumps(out))
"""
    run = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "987", "PATH": "/usr/bin:/bin"},
    )
    assert json.loads(run.stdout) == expected
