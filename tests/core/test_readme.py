"""The README's commands and example are what CI and a newcomer run: keep them true."""

from __future__ import annotations

import re
from pathlib import Path

from bxbtest import store_content

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()
CI = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text()


def test_the_python_example_runs(capsys: object) -> None:
    block = re.search(r"```python\n(.*?)```", README, re.S)
    assert block is not None
    exec(compile(block.group(1), "README.md", "exec"), {})


def test_ci_runs_exactly_the_readme_test_command() -> None:
    first_screen = "\n".join(README.splitlines()[:20])
    commands = re.findall(r"^    (python3 -m venv .*)$", first_screen, re.M)
    assert len(commands) == 2, commands
    demo, tests = commands
    assert demo.endswith("bxb demo")
    assert tests in CI.splitlines()


def test_the_tours_record_commands_run(tmp_path: Path) -> None:
    """Each `bxb record` line of the tour that needs no typing at a prompt, run as written (from
    the repository's root), in a fresh store."""
    import os

    from typer.testing import CliRunner

    from blowbyblow.cli.main import app

    tour = README[README.index("## A short tour") : README.index("For judges")]
    lines = re.findall(r"^bxb (record [^#\n]*?)\s*(?:#.*)?$", tour, re.M)
    runnable = [line.split() for line in lines if "physical" not in line]
    assert len(runnable) >= 2, lines
    root = Path(__file__).resolve().parents[2]
    here = Path.cwd()
    os.chdir(root)
    try:
        for n, args in enumerate(runnable):
            db = str(tmp_path / f"{n}.sqlite")
            result = CliRunner().invoke(app, ["--db", db, "--log-level", "error", *args, "-q"])
            assert result.exit_code == 0, (args, result.output)
    finally:
        os.chdir(here)


def test_the_readmes_demo_run_twice_shows_the_same_battle(tmp_path: Path) -> None:
    """A newcomer runs the README's first command again: the demo's dice are seeded, so it is
    the same battle. It is shown and verified again from the store, and nothing is written;
    before, each run kept another copy ('… #2', '… #3') beside it in their store."""
    from typer.testing import CliRunner

    from blowbyblow.cli.main import app

    first_screen = "\n".join(README.splitlines()[:20])
    (install,) = re.findall(r"^    (python3 -m venv .*bxb demo)$", first_screen, re.M)
    words = install.rsplit("&& ", 1)[-1].split()
    assert words[0].endswith("bxb")
    db = tmp_path / "battles.sqlite"
    runner = CliRunner(env={"BXB_DB": str(db), "COLUMNS": "200"})
    first = runner.invoke(app, words[1:])
    assert first.exit_code == 0, first.output
    before = store_content(db)
    again = runner.invoke(app, words[1:])
    assert again.exit_code == 0, again.output
    assert store_content(db) == before
    battle = re.search(r"^battle (\S+) \(", first.stdout, re.M)
    assert battle is not None, first.stdout
    assert f"the demo is already in {db} as battle {battle.group(1)}" in again.stdout
    assert "verify OK" in again.stdout
    listed = runner.invoke(app, ["battles", "--json"])
    assert listed.stdout.count("\n") == 1, listed.stdout
