"""A ``bxb`` process imports what its command uses, each of these costing 5 to 60 ms of every
run (docs/architecture.md, Packages): no command that logs nothing imports structlog (imported
when a line is logged, replay/engine/logs.py); none imports pydantic (typer 0.29+ builds a pydantic
adapter for every parameter); none but ``bxb play`` at a terminal imports prompt_toolkit; and
``bxb at`` imports neither Rich's console, cryptography nor the machinery that adjudicates and
records (replay/battles/record.py); and, by its quick path (cli/quick.py), no command-line
framework, no eventsourcing, no scan of the installed packages and no more of its battle's game
system than its fold, narration and description.

structlog being imported late, the logging options must still hold in a fresh process: each is
run here as its own ``bxb`` process (in the test process structlog is imported already)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from blowbyblow.replay.store.log import BattleStore

from bxbtest import modules_imported, record_demo

SCENARIO = Path(__file__).resolve().parents[2] / "cli" / "scenarios" / "asl.toml"
WATCHED = (
    "pydantic",
    "structlog",
    "cryptography",
    "rich.console",
    "prompt_toolkit",
    "blowbyblow.replay.battles.record",
    "blowbyblow.replay.engine.driver",
)


def _loaded(db: Path, *args: str) -> set[str]:
    """Which of WATCHED a ``bxb`` process running ``args`` imported."""
    return set(WATCHED) & modules_imported(db, *args)


SERVICE, DRIVER = "blowbyblow.replay.battles.record", "blowbyblow.replay.engine.driver"


def test_each_command_imports_what_it_uses_and_no_more(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    record_demo(BattleStore(db), "gangfight")
    expected: dict[tuple[str, ...], set[str]] = {
        # prints plain lines: no Rich, no keys, nothing of the rules' loop
        ("at", "3"): set(),
        ("at", "2", "--json"): set(),
        ("battles",): {"rich.console"},
        # checks the hash chain (replay/evidence/chain.py): nothing of the rules' loop
        ("log",): {"rich.console"},
        # re-adjudicates every command, silently
        ("verify",): {"cryptography", SERVICE, DRIVER},
        # registers every command's module; prompt_toolkit waits for a table played at a terminal
        ("--help",): {"rich.console", "cryptography", SERVICE, DRIVER},
    }
    for args, modules in expected.items():
        assert _loaded(db, *args) == modules, args
    # a command that adjudicates and logs does import structlog (the table above can fail)
    assert "structlog" in _loaded(db, "record", str(SCENARIO), "--log-level", "info")


FRAMEWORKS = ("typer", "click", "eventsourcing", "importlib.metadata", "blowbyblow.cli.app")
BEYOND_READING = ("procedure", "legal", "odds", "demo", "system", "rulings")


def test_bxb_at_imports_no_framework_and_only_what_reads_its_battle(tmp_path: Path) -> None:
    from blowbyblow.replay.engine.readers import SHIPPED

    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    for system_id, (package, _, _) in SHIPPED.items():
        battle = str(record_demo(store, system_id).battle)
        for args in (("at", "3", battle), ("at", "--command", "1", battle, "--json")):
            loaded = modules_imported(db, *args)
            assert not {m for m in loaded if m.split(".")[0] in FRAMEWORKS[:3]}, args
            assert not {m for m in loaded if m.startswith(FRAMEWORKS[3:])}, args
            rules = {
                m.split(".")[-1] for m in loaded if m.startswith(f"blowbyblow.domain.{package}.")
            }
            assert not rules & set(BEYOND_READING), (system_id, rules)
            others = {m.split(".")[2] for m in loaded if m.startswith("blowbyblow.domain.")}
            assert others <= {"core", "system", "judging", "common", package}, others


def _bxb(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    bxb = str(Path(sys.executable).with_name("bxb"))
    done = subprocess.run([bxb, "--db", str(db), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done


def _logged_on_stdout(out: str) -> list[str]:
    """Lines as structlog prints them (readable or JSON), which belong on stderr only."""
    return [line for line in out.splitlines() if "[info " in line or '"level"' in line]


def test_logging_options_hold_in_a_fresh_process(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    # JSON lines, one per rule step, each at info, on stderr only
    as_json = _bxb(db, "--log-json", "--log-level", "info", "record", str(SCENARIO), "--label", "j")
    lines = [json.loads(line) for line in as_json.stderr.splitlines()]
    assert len(lines) > 10 and {line["level"] for line in lines} == {"info"}
    assert any("rule" in line for line in lines)
    assert _logged_on_stdout(as_json.stdout) == []
    # readable lines
    readable = _bxb(db, "--log-level", "info", "record", str(SCENARIO), "--label", "r")
    assert readable.stderr.count("[info ") == len(lines)
    assert _logged_on_stdout(readable.stdout) == []
    # `record` narrates: no log unless asked; -q: none either
    for quiet in ([], ["-q"]):
        done = _bxb(db, *quiet, "record", str(SCENARIO), "--label", f"q{len(quiet)}")
        assert done.stderr == "" and _logged_on_stdout(done.stdout) == []
    # a command that logs at info by default (void), and the same silenced
    voided = _bxb(db, "void", "3", "--reason", "a test", "--battle", "j")
    assert "CommandVoided" in voided.stderr and "[info " in voided.stderr
    assert _logged_on_stdout(voided.stdout) == []
    silenced = _bxb(db, "-q", "void", "3", "--reason", "a test", "--battle", "r")
    assert silenced.stderr == "" and _logged_on_stdout(silenced.stdout) == []
