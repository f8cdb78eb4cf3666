"""A small crash campaign: `bxb record` and `bxb play` killed with SIGKILL at random moments (the
same moments every run: a seeded generator, spread over a whole uninterrupted run), and after each
kill the store still verifies, every battle in it re-adjudicates whole commands, and the battle
being recorded is either absent or all there: never half a battle, never half a command. The same
for `bxb whatif --save` and `bxb import` (each adds a battle to a store holding others), and for
`bxb record --fair`, whose start stays by design and is named by verify as a battle started with
no command yet."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore

from bxbtest import first_action_only

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


# --- commands that add a battle to a store holding others: whatif --save, import, record --fair


def copy_store(source: Path | None, target: Path) -> None:
    """``target``: a new store holding what ``source`` holds (nothing, for None)."""
    if source is None:
        return
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    dst.close()
    src.close()


# each battle a run added: its number of events, of commands, and verify's notes
Added = dict[str, tuple[int, int, tuple[str, ...]]]


def new_battles(db: Path, before: set[str]) -> Added:
    """The battles ``db`` holds beyond ``before``: each one's events, commands and verify's
    notes, having checked that every battle in the store verifies (its chain, its commands re-adjudicated)."""
    store = BattleStore(db)
    found = {}
    for info in store.battles():
        report = verify_battle(store, info.battle)
        assert report.ok, report.problem
        if str(info.battle) not in before:
            found[str(info.battle)] = (report.events, report.commands, tuple(report.notes))
    return found


def killed_runs(  # noqa: PLR0913 - what a campaign varies
    folder: Path,
    base: Path | None,
    command: list[str],
    seed: int,
    kills: int = 3,
    answers: bytes = b"",
) -> tuple[Added, list[Added]]:
    """Run ``command`` once whole on a copy of ``base``, then ``kills`` times, each on a fresh
    copy, killed at a random moment; the battles each run added (the whole run's first).
    ``answers``: its standard input (what it asks for)."""
    before = {str(b.battle) for b in BattleStore(base).battles()} if base else set()
    rng = random.Random(seed)
    added, took = [], 0.0
    for k in range(kills + 1):
        db = folder / f"run{k}.sqlite"
        copy_store(base, db)
        start = time.monotonic()
        run = spawn(db, *command)
        if k == 0:
            run.communicate(answers)
            assert run.returncode == 0
            took = time.monotonic() - start
        else:
            assert run.stdin is not None
            run.stdin.write(answers)
            run.stdin.flush()
            time.sleep(rng.uniform(0.2, 1.1) * took)
            run.kill()
            run.wait()
        added.append(new_battles(db, before))
    return added[0], added[1:]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A store holding the Necromunda example, and its export."""
    folder = tmp_path_factory.mktemp("recorded")
    db, exported = folder / "base.sqlite", folder / "battle.jsonl"
    for args in (["record", "--quiet", str(SCENARIO)], ["export", "-o", str(exported)]):
        run = spawn(db, *args)
        run.communicate(b"")
        assert run.returncode == 0, args
    return db, exported


def test_whatif_save_killed_at_random_adds_no_battle_or_the_whole_one(
    tmp_path: Path, recorded: tuple[Path, Path]
) -> None:
    base, _ = recorded
    command = ["whatif", "--ruling", "step8-default=consolidate", "--save"]
    whole, killed = killed_runs(tmp_path, base, command, seed=13)
    assert len(whole) == 1 and next(iter(whole.values()))[0] > 2, whole
    assert all(k in ({}, whole) for k in killed), killed


def test_import_killed_at_random_adds_no_battle_or_the_whole_one(
    tmp_path: Path, recorded: tuple[Path, Path]
) -> None:
    _, exported = recorded
    whole, killed = killed_runs(tmp_path, None, ["import", str(exported)], seed=17)
    assert len(whole) == 1 and next(iter(whole.values()))[0] > 2, whole
    assert all(k in ({}, whole) for k in killed), killed


def test_record_fair_killed_at_random_leaves_a_start_named_as_such_or_the_whole_battle(
    tmp_path: Path,
) -> None:
    """A fair battle's start (commitment, escrow, contributions) is written before its commands,
    and stays: killed after it, the store holds a started battle that verify names as such
    ("fair battle started, no command yet"), never a battle cut short among its commands."""
    keys = tmp_path / "keys"
    made = spawn(tmp_path / "unused.sqlite", "keys", "new", "--dir", str(keys))
    made.communicate(b"")
    fair = ["--fair", "--judge-key", str(keys / "judge.escrow.pub")]
    # Fresh dice every run: the example's first action only, which every draw plays through.
    command = ["record", "--quiet", *fair, str(first_action_only(tmp_path))]
    # Each side's value on standard input, read once the commitment is shown.
    whole, killed = killed_runs(tmp_path, None, command, seed=19, kills=4, answers=b"a\nb\n")
    ((_, commands, _),) = whole.values()  # its dice are fresh: its length differs each run
    assert commands > 0
    for added in killed:
        assert len(added) <= 1, added
        for _, played, notes in added.values():  # the start alone, or every command
            started_only = played == 0 and any("no command yet" in note for note in notes)
            assert played == commands or started_only, (played, notes)


def test_a_battle_killed_between_its_start_and_its_first_command_is_named_by_verify(
    tmp_path: Path,
) -> None:
    """The one battle a kill can leave unfinished: a fair battle whose start is written and
    whose contributions are still being asked for. `bxb play --fair` killed at that prompt
    (kill -9) leaves it; `bxb verify` names it, and what it waits for, and `bxb battles` lists it
    as started: never a battle that passes for complete."""
    keys, db = tmp_path / "keys", tmp_path / "s.sqlite"
    spawn(tmp_path / "unused.sqlite", "keys", "new", "--dir", str(keys)).communicate(b"")
    fair = ["--fair", "--judge-key", str(keys / "judge.escrow.pub")]
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "blowbyblow",
            "--db",
            str(db),
            "play",
            *fair,
            str(SCENARIO),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert run.stdout is not None
    said = b""
    deadline = time.monotonic() + 60
    while b"goliath's contribution:" not in said and time.monotonic() < deadline:
        said += os.read(run.stdout.fileno(), 4096)
        assert run.poll() is None, said
    assert run.stdin is not None
    run.stdin.write(b"a\n")
    run.stdin.flush()
    while b"escher's contribution:" not in said and time.monotonic() < deadline:
        said += os.read(run.stdout.fileno(), 4096)
        assert run.poll() is None, said
    run.kill()
    run.wait()
    assert b"escher's contribution:" in said, said
    verified = subprocess.run(
        [sys.executable, "-m", "blowbyblow", "--db", str(db), "verify"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert verified.returncode == 0, verified
    assert "0 commands" in verified.stdout
    assert (
        "fair battle started, no command yet; waiting for contributions from goliath, escher"
        in (verified.stdout)
    )
    listed = subprocess.run(
        [sys.executable, "-m", "blowbyblow", "--db", str(db), "battles", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    (battle,) = [json.loads(line) for line in listed.stdout.splitlines()]
    assert battle["status"] == "started" and battle["commands"] == 0, battle
