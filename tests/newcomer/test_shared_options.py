"""The options every command shares (--db, --debug, --log-level, --log-json, -q) are taken after
the command's name as well as before it: `bxb demo --db x.db` as `bxb --db x.db demo`."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner, Result

from blowbyblow.cli.app import SHARED
from blowbyblow.cli.main import app

from newcomer_helpers import SCENARIOS


def _leaves(command: object, path: str = "bxb") -> list[tuple[str, object]]:
    commands = getattr(command, "commands", None)
    if commands is None:
        return [(path, command)]
    return [leaf for name, sub in commands.items() for leaf in _leaves(sub, f"{path} {name}")]


def test_every_command_takes_the_shared_options_after_its_name() -> None:
    """A command added later gets them too: they are copied onto every command of the tree."""
    group = typer.main.get_command(app)
    leaves = _leaves(group)
    assert len(leaves) > 25
    for path, command in leaves:
        names = {p.name for p in command.params}  # type: ignore[attr-defined]
        assert set(SHARED) <= names, path
        assert "--db" in {o for p in command.params for o in p.opts}, path  # type: ignore[attr-defined]


class Store:
    """Commands run with ``--db`` after their name, in a home whose default store must stay
    unmade: a command that ignored the option would read or write there."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.db = str(tmp_path / "x.sqlite")
        self.env = {"HOME": str(tmp_path), "BXB_DB": None, "XDG_DATA_HOME": None}

    def run(self, *args: str, db: str | None = None, typed: str = "") -> Result:
        result = CliRunner(env=self.env).invoke(app, [*args, "--db", db or self.db], input=typed)
        assert result.exit_code == 0, (args, result.output)
        return result

    def default_store_made(self) -> bool:
        return any(self.tmp.glob(".local/share/blowbyblow/*"))


def test_db_after_the_command_is_the_store_every_command_uses(tmp_path: Path) -> None:
    s = Store(tmp_path)
    demo = s.run("demo")
    battle = s.run("battles").output.split()[0]
    assert battle[:8] in demo.output
    key = tmp_path / "keys" / "judge.key"
    s.run("keys", "new", "--dir", str(key.parent))
    reads = [
        ("battles",),
        ("log",),
        ("log", battle[:8]),
        ("at", "12"),
        ("verify",),
        ("whatif", "--ruling", "coup-de-grace-effect=injury-dice"),
        ("luck",),
        ("odds", "--battle", battle, "--position", "40"),
        ("receipt", "--key", str(key)),
        ("root",),
    ]
    for args in reads:  # on the default store, empty, each would fail or print nothing
        assert s.run(*args).output.strip(), args
    s.run("export", "-o", str(tmp_path / "fight.jsonl"))
    s.run("import", str(tmp_path / "fight.jsonl"), db=str(tmp_path / "y.sqlite"))
    assert battle in CliRunner().invoke(app, ["--db", str(tmp_path / "y.sqlite"), "battles"]).output
    s.run("record", str(SCENARIOS / "necromunda-2023.toml"))
    s.run("play", "--battle", battle[:8], typed="quit\n")
    s.run("void", "2", "--reason", "a test", "--battle", battle[:8])
    s.run("seal", battle[:8], "--key", str(key))
    s.run("diff", battle[:8], battle[:8])
    s.run("tournament", "new", "open", "--name", "Open")
    s.run("tournament", "list")
    s.run("tables", "add", "open", "--count", "1", "--url", "http://127.0.0.1:8000")
    assert not s.default_store_made()


def test_logging_options_after_the_command(tmp_path: Path) -> None:
    """`bxb record` logs only when asked (it narrates): asked after its name, it logs."""
    db = str(tmp_path / "b.sqlite")
    scenario = str(SCENARIOS / "asl.toml")

    def record(label: str, *shared: str) -> Result:
        return CliRunner().invoke(app, ["record", scenario, "--label", label, "--db", db, *shared])

    as_json = record("json", "--log-json", "--log-level", "info")
    assert as_json.exit_code == 0, as_json.output
    lines = as_json.stderr.splitlines()
    assert len(lines) > 10 and all(json.loads(line)["level"] == "info" for line in lines)
    readable = record("readable", "--log-level", "info")
    assert readable.stderr.count("[info") > 10
    assert record("its own default").stderr == ""  # it narrates: no log unless asked
    assert record("warnings only", "--log-json", "--log-level", "warning").stderr == ""
    both = CliRunner().invoke(app, ["-q", "battles", "--log-level", "info", "--db", db])
    assert both.exit_code == 2
    assert both.stderr == "error: -q/--quiet and --log-level: give one of them\n"
