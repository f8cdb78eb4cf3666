"""Issue 26, hole 1: fair dice could be ground. With every side's value given before the
commitment (`--contribution` for both sides, as the README showed), whoever runs the table could
start the battle again and again, each time in a store of their own with a fresh seed, until the
dice suited them: two tries were enough, and the sealed battle verified. Each path a grinder
takes is tried here, and must give them no dice at all; the one path left open shows the
commitment, fixed, before it reads a value."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.core import BattleStarted
from blowbyblow.domain.judging import ContributionGiven
from blowbyblow.replay.battles.fair_start import start_fair
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.evidence.fairness import FairnessError, FairTerms
from blowbyblow.replay.evidence.seals import KeyFiles, new_keys
from blowbyblow.replay.store.log import BattleStore

SIDES = {"goliath": "chainaxe", "escher": "wych"}  # known to the table before it starts
SCENARIO = Path(__file__).resolve().parents[2] / "cli" / "scenarios" / "necromunda-2023.toml"
TRIES = 12


@pytest.fixture
def judge(tmp_path: Path) -> KeyFiles:
    return new_keys(tmp_path / "judge")


def test_a_grinder_who_knows_every_value_gets_no_dice_from_the_engine(judge: KeyFiles) -> None:
    """Before the fix each try gave a battle with dice of its own (the first roll of the demo
    differed from try to try), so the table could keep the try it liked."""
    demo = get_game_system("necromunda-2023").demo()
    scenario = msgspec.structs.replace(demo, commands=[])
    first_rolls = []
    refused = 0
    for n in range(TRIES):
        store = BattleStore(":memory:")  # a store of the grinder's own, thrown away after
        terms = FairTerms(judge_keys=[judge.escrow.read_text()], contributions=SIDES)
        try:
            fair = start_fair(store, msgspec.structs.replace(scenario, label=f"try {n}"), terms)
        except FairnessError as e:
            assert "given once the table's commitment is shown" in str(e)
            assert store.battles() == []  # nothing written, not even the start
            refused += 1
            continue
        first_rolls.append(fair.dice().roll("c1/hit/0", 2, 6, "")[0])
    assert first_rolls == [] and refused == TRIES, f"{len(set(first_rolls))} dice to pick from"


def test_the_readme_command_of_a_grinder_is_refused_and_writes_nothing(
    tmp_path: Path, judge: KeyFiles
) -> None:
    """`bxb record fight.toml --fair --contribution goliath=… --contribution escher=…`, the
    command the audit ground with, in fresh stores: refused each time, nothing written."""
    for n in range(3):
        db = tmp_path / f"try{n}.sqlite"
        result = CliRunner().invoke(
            app,
            ["--db", str(db), "--log-level", "warning", "record", str(SCENARIO), "--fair",
             "--judge-key", str(judge.escrow), "--label", f"try {n}",
             *(x for side, value in SIDES.items() for x in ("--contribution", f"{side}={value}"))],
        )  # fmt: skip
        assert result.exit_code == 2, result.output
        assert result.output.startswith("error: --contribution: a side's contribution is given")
        assert not db.exists() or BattleStore(db).battles() == []


def test_record_shows_the_fixed_commitment_before_it_reads_a_value(
    tmp_path: Path, judge: KeyFiles
) -> None:
    """On a pipe, as a script drives it: the commitment is said on standard error and the
    start is in the store before `bxb record --fair` reads the first value; the battle then
    holds that commitment and the values given after it."""
    db = tmp_path / "b.sqlite"
    run = subprocess.Popen(
        [sys.executable, "-m", "blowbyblow", "--db", str(db), "--log-level", "warning",
         "record", str(SCENARIO), "--fair", "--quiet", "--judge-key", str(judge.escrow)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert run.stderr is not None and run.stdin is not None
    said = b""
    while b"goliath's contribution: " not in said:
        chunk = os.read(run.stderr.fileno(), 4096)
        assert chunk, said
        said += chunk
    shown = re.search(rb"secret seed is committed: ([0-9a-f]{64})", said)
    assert shown, said
    # Nothing typed yet: the start, with that commitment, is written already.
    [info] = BattleStore(db).battles()
    first = BattleStore(db).read(info.battle)[0].event
    assert isinstance(first, BattleStarted) and first.dice.commitment == shown.group(1).decode()
    assert BattleStore(db).version(info.battle) == 2
    _, err = run.communicate(b"chainaxe\nwych\n", timeout=120)
    assert run.returncode in (0, 1), err  # the demo's later commands may not suit these dice
    events = [e.event for e in BattleStore(db).read(info.battle)]
    given = {e.side: e.value for e in events if isinstance(e, ContributionGiven)}
    assert given == SIDES
