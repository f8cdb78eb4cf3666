"""An exploration's runs do not hang on the process's string hashing: a key that wrote a set as
it iterates (its order set by ``PYTHONHASHSEED``) parted branches in one process that met in
another, so the same command's odds said another count of runs, process to process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

RUNS = """
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.odds.explore import HowToExplore, Policy, scenario_odds
demo = get_game_system({name!r}).demo()
how = HowToExplore(policy=Policy(name="scripted", answers=demo.choices))
odds = scenario_odds(demo, 1, how)
print(odds.method, odds.runs)
"""


def _runs(name: str, seed: int) -> str:
    done = subprocess.run(
        [sys.executable, "-c", RUNS.format(name=name)],
        env={**os.environ, "PYTHONHASHSEED": str(seed)},
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return done.stdout.strip()


@pytest.mark.parametrize("name", ["necromunda-2023", "necromunda-legacy"])
def test_a_charges_runs_are_the_same_whatever_the_hash_seed(name: str) -> None:
    # seed 5 parted the 2023 charge's branches by who had chosen weapons (810 runs, not 792)
    assert _runs(name, 5) == _runs(name, 0)
