"""bxb behaves like the command-line tools people know: --version, python -m, shell completion,
NO_COLOR, -q, and - for standard input and output."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Annotated

import typer
from typer.testing import CliRunner

from blowbyblow.cli.app import read_input, write_output
from blowbyblow.replay.engine.registry import game_systems

from newcomer_helpers import BXB, REPO, SCENARIOS, environment, run, run_on_a_terminal

EXAMPLE = str(SCENARIOS / "necromunda-2023.toml")


def test_version_names_the_package_and_every_game_system_version() -> None:
    done = run("--version")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"bxb (blowbyblow) {version('blowbyblow')}"
    for system in game_systems().values():
        assert f"  {system.id} {system.version}: {system.title}" in lines


def test_bxb_alone_shows_its_help_once_and_exits_0() -> None:
    """A newcomer typing `bxb` (or a group alone, `bxb tables`) asked what it can do: the help,
    once, as `--help` gives it, exit 0. Before, the help was shown twice and exited 2."""
    for words in ((), ("tables",)):
        alone, helped = run(*words), run(*words, "--help")
        assert alone.returncode == 0, alone.stderr
        assert alone.stdout.rstrip() == helped.stdout.rstrip() and alone.stderr == ""
        assert alone.stdout.count("Usage: bxb") == 1


def test_python_m_blowbyblow_is_bxb(tmp_path: Path) -> None:
    def python_m(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "blowbyblow", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,  # not the repository: the installed package, not a folder here
            env=environment(),
            timeout=120,
        )

    helped = python_m("--help")
    assert helped.returncode == 0, helped.stderr
    assert "Usage: python -m blowbyblow" in helped.stdout
    assert python_m("--version").stdout == run("--version").stdout


def test_completion_installs_and_completes_commands_rulesets_and_examples(tmp_path: Path) -> None:
    # Typer finds the shell in the process tree (none under a job runner without a shell);
    # its own switch for tests makes --install-completion take the shell's name instead.
    env = environment(
        HOME=str(tmp_path), SHELL="/bin/bash", _TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION="1"
    )
    done = run("--install-completion", "bash", env=env)
    assert done.returncode == 0, done.stderr
    script = tmp_path / ".bash_completions" / "bxb.sh"
    assert f"source '{script}'" in (tmp_path / ".bashrc").read_text()
    registered = subprocess.run(
        ["bash", "-c", f"source {script} && complete -p bxb"], capture_output=True, text=True
    )
    assert "-F _bxb_completion bxb" in registered.stdout, registered.stderr

    def complete(line: str) -> list[str]:
        words = line.split(" ")
        asked = environment(
            _BXB_COMPLETE="complete_bash", COMP_WORDS=line, COMP_CWORD=str(len(words) - 1)
        )
        return run(env=asked).stdout.split()

    assert complete("bxb ver") == ["verify"]
    assert complete("bxb new --ruleset necro") == ["necromunda-2023", "necromunda-legacy"]
    assert complete("bxb examples wh") == ["wh40k-2e"]


SGR = re.compile(r"\x1b\[([0-9;]*)m")


def colours(text: str) -> list[str]:
    """The colour settings among the terminal's style codes (bold or dim are no colour)."""
    found = []
    for params in SGR.findall(text):
        for p in params.split(";"):
            if p and (30 <= int(p) <= 49 or 90 <= int(p) <= 107):
                found.append(p)
    return found


def test_no_color_is_honoured_on_a_terminal(tmp_path: Path) -> None:
    """The rule-step log and the help are coloured on a terminal, and not with NO_COLOR set."""
    db = str(tmp_path / "b.sqlite")
    for label, no_color in (("coloured", None), ("plain", "1")):
        env = environment(TERM="xterm-256color", NO_COLOR=no_color)
        logged = run_on_a_terminal(
            BXB,
            "--db",
            db,
            "--log-level",
            "info",
            "record",
            "-q",
            EXAMPLE,
            "--label",
            label,
            env=env,
        )
        helped = run_on_a_terminal(BXB, "--help", env=env)
        assert "CommandIssued" in logged and "Usage" in helped
        for shown in (logged, helped):
            if no_color:
                assert not colours(shown), shown[:300]
            else:  # colour without NO_COLOR: the check can tell
                assert colours(shown), shown[:300]


def test_record_shows_each_step_once_and_q_silences_the_log(tmp_path: Path) -> None:
    db = str(tmp_path / "b.sqlite")
    narrated = run("--db", db, "record", EXAMPLE, "--label", "narrated")
    assert narrated.returncode == 0, narrated.stderr
    assert "Grax" in narrated.stdout  # the steps, in words
    assert "[info" not in narrated.stderr and narrated.stderr == ""
    logged = run("--db", db, "--log-level", "info", "record", "-q", EXAMPLE, "--label", "logged")
    assert logged.stderr.count("[info") > 10  # the log is there when asked for
    for quiet in ("-q", "--quiet"):
        silenced = run("--db", db, quiet, "--log-json", "record", EXAMPLE, "--label", quiet)
        assert silenced.returncode == 0 and silenced.stderr == "", silenced.stderr
    both = run("--db", db, "-q", "--log-level", "info", "battles")
    assert both.returncode == 2
    assert both.stderr == "error: -q/--quiet and --log-level: give one of them\n"


def test_dash_is_standard_input_and_output(tmp_path: Path) -> None:
    """The shared helpers commands use for a file argument: "-" reads standard input, writes
    standard output; a file that cannot be read is one error line, exit 2 (a file not there:
    docs/store.md's usage error)."""
    app = typer.Typer()

    @app.command()
    def copy(source: Path, out: Annotated[Path | None, typer.Option("-o")] = None) -> None:
        write_output(out, read_input(source, "scenario"))

    runner = CliRunner()
    piped = runner.invoke(app, ["-", "-o", "-"], input="ruleset = 'asl'\n")
    assert piped.exit_code == 0 and piped.stdout == "ruleset = 'asl'\n"
    (tmp_path / "in.toml").write_text("a = 1\n")
    to_file = runner.invoke(app, [str(tmp_path / "in.toml"), "-o", str(tmp_path / "out.toml")])
    assert to_file.exit_code == 0 and (tmp_path / "out.toml").read_text() == "a = 1\n"
    missing = runner.invoke(app, [str(tmp_path / "nope.toml")])
    assert missing.exit_code == 2
    assert missing.stderr == f"error: scenario {tmp_path / 'nope.toml'}: cannot be read " + (
        "(No such file or directory)\n"
    )


def test_new_writes_to_standard_output_with_dash() -> None:
    assert run("new", "--ruleset", "asl", "-o", "-").stdout == run("new", "--ruleset", "asl").stdout


def test_repository_has_no_blowbyblow_folder() -> None:
    """`python -m blowbyblow` comes from cli/_top (setup.py maps it to the package's top):
    the package stays a namespace, with nothing else at its top."""
    assert not (REPO / "blowbyblow").exists()
    assert sorted(p.name for p in (REPO / "cli" / "_top").iterdir() if p.suffix == ".py") == [
        "__main__.py"
    ]
