"""A small crash campaign: `bxb record` and `bxb play` killed with SIGKILL at random moments (the
same moments every run: a seeded generator, spread over a whole uninterrupted run), and after each
kill the store still verifies, every battle in it re-adjudicates whole commands, and the battle
being recorded is either absent or all there: never half a battle, never half a command."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

from blowbyblow.replay.store import BattleStore
from blowbyblow.replay.verify import verify_battle

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "cli" / "scenarios" / "necromunda-2023.toml"
KILLS = int(os.environ.get("BXB_CRASH_KILLS", "6"))


def spawn(db: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "blowbyblow", "--db", str(db), "--log-level", "error", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def by_label(db: Path) -> dict[str, int]:
    """Each battle's label and its number of events, having checked that every battle in the
    store verifies: its chain, and each of its commands re-adjudicated whole."""
    store = BattleStore(db)
    found: dict[str, int] = {}
    for info in store.battles():
        report = verify_battle(store, info.battle)
        assert report.ok, report.problem
        found[info.label] = report.events
    return found


def campaign(db: Path, command: list[str], answers: bytes, seed: int) -> list[int]:
    """Run ``command`` once whole, then KILLS times killed at a random moment; the number of
    events each killed run left (the whole run's first)."""
    start = time.monotonic()
    whole = spawn(db, *command, "--label", "whole")
    whole.communicate(answers)
    assert whole.returncode == 0
    took = time.monotonic() - start
    lengths = [by_label(db)["whole"]]
    rng = random.Random(seed)
    for k in range(KILLS):
        label = f"killed {k}"
        run = spawn(db, *command, "--label", label)
        assert run.stdin is not None
        run.stdin.write(answers)
        run.stdin.flush()
        time.sleep(rng.uniform(0.2, 1.1) * took)  # from its start to just after its end
        run.kill()
        run.wait()
        lengths.append(by_label(db).get(label, 0))
    return lengths


def test_record_killed_at_random_leaves_no_battle_or_the_whole_battle(tmp_path: Path) -> None:
    lengths = campaign(tmp_path / "s.sqlite", ["record", "--quiet", str(SCENARIO)], b"", seed=9)
    whole, killed = lengths[0], lengths[1:]
    assert whole > 2
    assert set(killed) <= {0, whole}, lengths


def test_play_killed_at_random_leaves_whole_commands(tmp_path: Path) -> None:
    """`bxb play` of a scenario plays its actions (their questions answered at the prompt: Enter
    takes the default), then waits at the prompt for the next command; killed anywhere in that,
    what it wrote verifies (by_label), whole commands only."""
    lengths = campaign(tmp_path / "s.sqlite", ["play", str(SCENARIO)], b"\n" * 8, seed=11)
    whole, killed = lengths[0], lengths[1:]
    assert whole > 2
    assert all(0 <= n <= whole for n in killed), lengths
