"""``bxb at``'s quick path (cli/quick.py) prints what the full command (cli/battles.py) prints,
byte for byte, for every game system and every option; what it does not take, it leaves to the
full command having printed nothing; and the reading parts it imports of a system are the very
objects the system's ``GameSystem`` holds."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path
from uuid import UUID

import msgspec
import pytest
from typer.testing import CliRunner

from blowbyblow.cli import quick
from blowbyblow.cli.main import app
from blowbyblow.domain.system import ENTRY_POINT_GROUP
from blowbyblow.replay.battles.battle import Battle
from blowbyblow.replay.battles.record import record
from blowbyblow.replay.engine.readers import SHIPPED, reading_parts
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.store.log import BattleStore

from bxbtest import RULESET_IDS, record_demo

runner = CliRunner()
PARTS = (
    "setup_type",
    "state_type",
    "command_types",
    "event_types",
    "initial_state",
    "evolve",
    "describe_state",
    "narrate",
)


def test_the_reading_parts_are_the_systems_own() -> None:
    shipped = {
        ep.name
        for ep in entry_points(group=ENTRY_POINT_GROUP)
        if ep.value.startswith("blowbyblow.")
    }
    assert set(SHIPPED) == shipped
    for system_id in SHIPPED:
        system, parts = get_game_system(system_id), reading_parts(system_id)
        assert parts.id == system.id
        for name in PARTS:
            assert getattr(parts, name) is getattr(system, name), (system_id, name)
        assert parts.command_type == system.command_type


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, UUID]]:
    """A store of every demo, a gangfight battle with its last command voided, and battles
    labelled in other scripts (one column a character, and two)."""
    db = tmp_path_factory.mktemp("quick") / "b.sqlite"
    store = BattleStore(db)
    battles = {r: record_demo(store, r).battle for r in RULESET_IDS}
    demo = get_game_system("gangfight").demo()
    voided = record(store, msgspec.structs.replace(demo, label="voided"), quiet=True)
    Battle(store).void(voided.battle, 7, by="judge", reason="a die fell off the table")
    battles["voided"] = voided.battle
    for name, label in (("narrow", "Łódź: Ölaf gegen Ærø"), ("wide", "漢字の戦い")):
        scenario = msgspec.structs.replace(demo, label=label)
        battles[name] = record(store, scenario, quiet=True).battle
    return db, battles


def full(db: Path, argv: list[str]) -> tuple[int, str]:
    done = runner.invoke(app, ["--db", str(db), *argv])
    return done.exit_code, done.stdout


def said(db: Path, argv: list[str]) -> str | None:
    return quick.at(["--db", str(db), *argv])


def ways(db: Path, battle: UUID, label: str, last: int, commands: int) -> list[list[str]]:
    """`bxb at` of one battle, every way it can be asked."""
    ref = str(battle)
    middle = str(last // 2)
    return [
        ["at", "1", ref],
        ["at", "2", ref, "--json"],
        ["at", middle, ref[:8]],
        ["at", str(last), label],
        ["at", str(last), label, "--json"],
        ["at", "--command", "0", ref],
        ["at", "--command", str(commands), ref, "--json"],
        ["at", f"--command={max(commands - 1, 0)}", ref],
        ["at", ref, "--command", "1"],
        ["-q", "at", middle, ref],
        ["--log-json", "at", middle, "--json", ref],
        ["at", middle, ref, "--log-level", "INFO", "--debug"],
        ["--db", "elsewhere.sqlite", "at", "3", ref, "--db", str(db), "-q"],
    ]


@pytest.mark.parametrize("name", [*RULESET_IDS, "voided", "narrow"])
@pytest.mark.parametrize("columns", ["", "36", "200"])
def test_the_quick_path_prints_what_the_full_command_prints(
    store: tuple[Path, dict[str, UUID]], name: str, columns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, battles = store
    monkeypatch.setenv("COLUMNS", columns)
    reader = BattleStore(db)
    info = next(b for b in reader.battles() if b.battle == battles[name])
    asked = ways(db, info.battle, info.label, info.version, info.commands)
    if name == "voided":
        spans = reader.models.records.voids(info.battle)
        asked += [["at", str(p), str(info.battle)] for p in (spans[0].first, spans[0].last)]
    for argv in asked:
        code, printed = full(db, argv)
        assert code == 0, (argv, printed)
        assert said(db, argv) == printed, argv


def test_the_latest_battle_and_a_label_in_two_column_characters(
    store: tuple[Path, dict[str, UUID]],
) -> None:
    db, _ = store
    code, printed = full(db, ["at", "1"])  # the latest: the battle labelled 漢字の戦い
    assert code == 0 and "漢字の戦い" in printed
    assert said(db, ["at", "1"]) is None  # a line Rich wraps: the full command prints it
    assert said(db, ["at", "2", "--json"]) == full(db, ["at", "2", "--json"])[1]
    assert said(db, ["at", "3"]) == full(db, ["at", "3"])[1]


def test_what_the_quick_path_leaves_to_the_full_command(
    store: tuple[Path, dict[str, UUID]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, battles = store
    ref = str(battles["gangfight"])
    left = [
        ["at", "0", ref],  # errors, each said by the full command
        ["at", "9999", ref],
        ["at", "x", ref],
        ["at", "3", "nobody"],
        ["at", "3", "twin"[:0]],
        ["at"],
        ["at", "--command", "99", ref],
        ["at", "3", "--command", "1", ref],
        ["at", "3", ref, "extra"],
        ["-q", "--log-level", "info", "at", "3", ref],
        ["--log-level", "loud", "at", "3", ref],
        ["at", "3", ref, "--nope"],
        ["at", "--help"],
        ["--help", "at"],
        ["at", "--json", "3", ref, "--"],
        ["at", "+3", ref],  # forms of a number the full command reads itself
        ["at", " 3", ref],
        ["at", "--command", "0x1", ref],
        ["at", "-q3", ref],
    ]
    for argv in left:
        assert said(db, argv) is None, argv
    assert said(db, ["at", "+3", ref]) is None and full(db, ["at", "+3", ref])[1] == said(
        db, ["at", "3", ref]
    )
    for where in [":memory:", str(tmp_path / "none.sqlite"), str(tmp_path), "postgresql://x@y/z"]:
        assert quick.at(["--db", where, "at", "1"]) is None, where
    assert not (tmp_path / "none.sqlite").exists()
    monkeypatch.setenv("BXB_BUSY_TIMEOUT", "forever")
    assert said(db, ["at", "3", ref]) is None
    monkeypatch.delenv("BXB_BUSY_TIMEOUT")
    monkeypatch.setenv("COMPRESSOR_TOPIC", "zlib")
    assert said(db, ["at", "3", ref]) is None


def test_a_store_this_release_has_not_opened_is_left_to_the_full_command(tmp_path: Path) -> None:
    """A store written before the label index: the full command opens it (and adds the index),
    after which the quick path takes it."""
    import sqlite3

    db = tmp_path / "old.sqlite"
    record_demo(BattleStore(db), "asl")
    with sqlite3.connect(db) as con:
        con.execute("drop index bxb_battles_label")
    assert said(db, ["at", "3"]) is None
    printed = full(db, ["at", "3"])[1]
    assert said(db, ["at", "3"]) == printed


def _bxb(db: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    bxb = str(Path(sys.executable).with_name("bxb"))
    return subprocess.run([bxb, "--db", str(db), *argv], capture_output=True, text=True)


def test_the_console_script_prints_the_same_and_says_the_same_errors(
    store: tuple[Path, dict[str, UUID]],
) -> None:
    db, battles = store
    ref = str(battles["asl"])
    for argv in (["at", "5", ref], ["at", "5", ref, "--json"], ["at", "99", ref], ["at", "x"]):
        done = _bxb(db, *argv)
        code, printed = full(db, list(argv))
        assert (done.returncode, done.stdout) == (code, printed), argv
        if code:
            assert done.stderr == runner.invoke(app, ["--db", str(db), *argv]).stderr


@pytest.mark.parametrize("as_json", [False, True])
def test_an_output_that_cannot_be_written_is_one_error_line(
    store: tuple[Path, dict[str, UUID]], as_json: bool
) -> None:
    """`bxb at 5 > /dev/full` (a full disk): the quick path printed a traceback of the
    OSError; the full command (`bxb log > /dev/full`) says it in one line."""
    db, battles = store
    argv = ["at", "5", str(battles["asl"]), *(["--json"] if as_json else [])]
    bxb = str(Path(sys.executable).with_name("bxb"))
    with open("/dev/full", "w") as full_disk:
        done = subprocess.run(
            [bxb, "--db", str(db), *argv], stdout=full_disk, stderr=subprocess.PIPE, text=True
        )
    assert done.returncode == 1
    assert done.stderr == "error: No space left on device\n"
