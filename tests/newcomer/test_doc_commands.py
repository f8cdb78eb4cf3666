"""Every command in a fenced ``bash``/``sh``/``console`` block of README.md, docs/*.md and
docs/rulesets/*.md, run as a reader would: each file's commands in order (later ones use what
earlier ones made: record, then log), in a fresh folder that looks like the repository's root (its
``cli`` and ``docs`` linked in), with a store and a home of its own.

How a doc line is read:
- ``$ `` before a command (a console block) is dropped; a line that is only a comment is skipped;
  a line ending in ``\\`` goes on on the next one.
- A comment ending in ``exits N`` says the command fails on purpose, with exit code N; any other command
  must exit 0.
- The words of ``PLACEHOLDERS`` stand for what the reader has at hand there (a battle's id, their
  own scenario file); ``FILES`` are the files the reader brings.
- ``NOT_RUN`` lists the few lines a test must not run, each with its reason.

``bxb`` lines run in this process through Typer's CliRunner, on the very ``app`` the ``bxb``
console script calls: a new Python process per line would cost about half a second each (some
sixty lines), and ``tests/newcomer/test_cli_conventions.py`` runs the console script itself. Any
other line (``python -m blowbyblow``, a pipe or a redirection, ``cp``) runs in bash, as written.

A fair start's secret seed is fresh at every recording (``new_fair_seed``), and about 1 draw in
300 leaves the Necromunda example's second action illegal (docs/scenarios.md): the README's and
docs/judging.md's ``record fight.toml --fair`` would then exit 1. The reader's fair starts here
take seeds of their own instead, the same every run (``DocReader-0``, ``-1``…, each playing the
example through), so what the test checks is the docs, not the draw.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.replay.battles import fair_start

from newcomer_helpers import REPO, environment

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
DOCS += sorted((REPO / "docs" / "rulesets").glob("*.md"))
SHELL_BLOCK = re.compile(r"^```(bash|sh|console)\n(.*?)^```", re.S | re.M)

# Lines not run, matched by how they start, each with its reason.
NOT_RUN = {
    "bxb serve": "runs the server until stopped (tests/web/test_cli_serve.py starts and stops it)",
    "pip install -e .": "installs a package into the environment "
    "(tests/core/test_out_of_tree_system.py installs the template into a throwaway folder)",
    "bxb demo --ruleset mygame": "needs the template installed by the `pip install` above "
    "(tests/core/test_out_of_tree_system.py records its demo)",
    "python -m pytest": "the test suite itself",
    "MYPYPATH=": "the type check of the template, run by .ci/typecheck",
    ".venv/bin/ruff": "the lint of the template, run by `ruff check .` in .ci/run",
}


@dataclass(frozen=True)
class DocCommand:
    file: str
    line: int
    text: str
    exits: int


EXITS = re.compile(r"#.*\bexits (\d+)\s*$")


def doc_commands(text: str, name: str) -> list[DocCommand]:
    """The commands of a document's shell blocks, in order, with the exit code each expects."""
    found: list[DocCommand] = []
    for block in SHELL_BLOCK.finditer(text):
        first_line = text[: block.start(2)].count("\n") + 1
        pending = ""
        for n, raw in enumerate(block.group(2).splitlines()):
            line = raw.removeprefix("$ ") if block.group(1) == "console" else raw
            if not pending and (not line.strip() or line.lstrip().startswith("#")):
                continue
            pending = f"{pending} {line.strip()}" if pending else line.strip()
            if pending.endswith("\\"):
                pending = pending[:-1].rstrip()
                continue
            exits = EXITS.search(pending)
            found.append(
                DocCommand(name, first_line + n, pending, int(exits.group(1)) if exits else 0)
            )
            pending = ""
    return found


def test_doc_lines_are_read_as_written() -> None:
    text = "```bash\n# a note\nbxb a  # one\nbxb b \\\n    --c d\nbxb e   # exits 1\n```\n"
    assert [(c.text, c.exits) for c in doc_commands(text, "x")] == [
        ("bxb a  # one", 0),
        ("bxb b --c d", 0),
        ("bxb e   # exits 1", 1),
    ]


def test_every_fenced_block_says_its_language() -> None:
    """A block of commands cannot hide from this test as an untagged block: every fence is tagged
    (``text`` for a transcript of a session, which is not run)."""
    for doc in DOCS:
        fences = re.findall(r"^```(\S*)", doc.read_text(), re.M)
        assert "" not in fences[::2], f"{doc.name}: a ``` block with no language"


def test_every_not_run_entry_is_still_in_the_docs() -> None:
    lines = [c.text for doc in DOCS for c in doc_commands(doc.read_text(), doc.name)]
    for start in NOT_RUN:
        assert any(line.startswith(start) for line in lines), start


@pytest.mark.parametrize("doc", [d for d in DOCS if SHELL_BLOCK.search(d.read_text())], ids=str)
def test_every_command_of_the_doc_runs(doc: Path, tmp_path: Path) -> None:
    commands = doc_commands(doc.read_text(), doc.name)
    Reader(tmp_path).run_all(commands)


class Reader:
    """A reader with a clone of the repository (``cli``, ``docs``), a store and a home of their
    own, running a document's commands one after the other."""

    def __init__(self, tmp_path: Path) -> None:
        self.root = tmp_path / "blowbyblow"
        self.root.mkdir()
        for folder in ("cli", "docs"):
            (self.root / folder).symlink_to(REPO / folder)
        self.env = environment(
            HOME=str(tmp_path),
            BXB_DB=str(tmp_path / "battles.sqlite"),
            XDG_DATA_HOME=None,
            XDG_CONFIG_HOME=None,
            NO_COLOR="1",
            COLUMNS="80",
            PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        )
        # What the env leaves out is unset for bash (its whole environment); for the lines run
        # in this process, CliRunner only sets what it is given: None unsets (a developer's or
        # the suite's XDG folders would otherwise hold the reader's keys and store).
        self.in_process: dict[str, str | None] = {
            **self.env,
            "XDG_DATA_HOME": None,
            "XDG_CONFIG_HOME": None,
        }
        self.fair_draws = itertools.count()

    def fair_seed(self) -> str:
        """The secret seed of the reader's next fair start: fixed, not fresh (module docstring)."""
        return hashlib.sha256(f"DocReader-{next(self.fair_draws)}".encode()).hexdigest()

    def run_all(self, commands: list[DocCommand]) -> None:
        here = Path.cwd()
        os.chdir(self.root)
        try:
            for command in commands:
                self.run(command)
        finally:
            os.chdir(here)

    def run(self, command: DocCommand) -> None:
        if any(command.text.startswith(start) for start in NOT_RUN):
            return
        typed = typed_at_prompts(shlex.split(command.text, comments=True))
        line = self.fill_in(command.text)
        home = self.env["HOME"]  # the shell's ~, as bash would expand it
        words = [re.sub(r"^~(?=/|$)", home, w) for w in shlex.split(line, comments=True)]
        if words[0] == "bxb" and not set(words) & {"|", ">", "<", "&&", ";"}:
            with mock.patch.object(fair_start, "new_fair_seed", self.fair_seed):
                result = CliRunner(env=self.in_process).invoke(app, words[1:], input=typed)
            code, output = result.exit_code, result.output
            if result.exception and not isinstance(result.exception, SystemExit):
                raise AssertionError(f"{command}: {result.exception!r}") from result.exception
        else:
            code, output = self.bash(line, typed)
        assert code == command.exits, (
            f"{command.file}:{command.line}: {command.text}\n"
            f"exit {code}, expected {command.exits}:\n{output}"
        )

    def bash(self, line: str, typed: str) -> tuple[int, str]:
        """Run ``line`` in bash; a `cd` in it holds for the lines after it, as in a terminal."""
        cwd_file = self.root.parent / "cwd"
        script = f"{line}\nstatus=$?; pwd > {shlex.quote(str(cwd_file))}; exit $status"
        done = subprocess.run(
            ["bash", "-c", script],
            capture_output=True,
            text=True,
            env=self.env,
            input=typed,
            timeout=120,
        )
        os.chdir(cwd_file.read_text().strip())
        return done.returncode, done.stdout + done.stderr

    def fill_in(self, line: str) -> str:
        """``line`` with each placeholder its command (not its comment) holds filled in."""
        command = " ".join(shlex.split(line, comments=True))
        for word, value in PLACEHOLDERS.items():
            if word in command:
                line = line.replace(word, value(self))
                command = command.replace(word, "")
        return line

    def battles(self) -> list[str]:
        listed = CliRunner(env=self.in_process).invoke(app, ["battles", "--json"])
        return [json.loads(row)["battle"] for row in listed.output.splitlines()]


def _latest(reader: Reader) -> str:
    return reader.battles()[-1]


# What the reader has at hand where a doc writes a placeholder: a battle's id (or a prefix of
# it), a scenario of their own.
PLACEHOLDERS: dict[str, Callable[[Reader], str]] = {
    "BATTLE_A": lambda r: r.battles()[-2],
    "BATTLE_B": _latest,
    "BATTLE": _latest,
    "4f1c": lambda r: _latest(r)[:4],
    "7128d19d": lambda r: _latest(r)[:8],
    "postgresql://…": lambda r: r.env["BXB_DB"],
}


def patient_typist(prompts: int = 60) -> str:
    """What a player types when they type in their dice, whatever is asked: at each prompt Enter
    (a question's default), then 1, 2, ... 6 dice showing 4, until one is accepted. Typed dice
    are no random input, so what it plays is the same every run."""
    return "".join("\n".join(" ".join("4" * n) for n in range(7)) + "\n" for _ in range(prompts))


def typed_at_prompts(words: list[str]) -> str:
    """What the reader types: dice when they type them in; at `bxb play` with digital dice (fair
    ones are random) the sides' contributions if asked (`bxb record --fair` too), then only Enter, so every question takes its default and no command is picked
    at the command prompt; then the input ends, which leaves the table as `quit` does."""
    if "physical" in words:
        return patient_typist()
    contributions = "chainaxe\nwych\n" if "--fair" in words else ""  # each side's, if asked
    return contributions + ("\n" * 100 if "play" in words else "")


def test_a_wrong_doc_command_fails(tmp_path: Path) -> None:
    """The test can fail: a ruling that does not exist (the README once had
    ``coup-de-grace=out-of-action``), and a command that fails where the doc says it succeeds."""
    wrong = doc_commands(
        "```bash\nbxb demo\nbxb whatif --ruling coup-de-grace=out-of-action\n```\n", "wrong.md"
    )
    with pytest.raises(AssertionError, match=r"wrong\.md:3: bxb whatif"):
        Reader(tmp_path).run_all(wrong)


def test_shell_lines_run_in_bash(tmp_path: Path) -> None:
    if shutil.which("bash") is None:
        pytest.fail("bash is needed to run the docs' shell lines")
    lines = doc_commands(
        "```bash\nbxb new --ruleset asl | grep -q ruleset\nfalse  # exits 1\n```\n", "x"
    )
    Reader(tmp_path).run_all(lines)


SHIPPED = ["README.md", "mkdocs.yml", "pyproject.toml", "docs", "domain", "replay", "cli", "web"]
SHIPPED += ["projections"]


def test_the_readme_opens_with_its_two_commands() -> None:
    """The first screen (24 lines): install and run the demo; install and run the tests."""
    first_screen = (REPO / "README.md").read_text().splitlines()[:24]
    commands = [line.strip() for line in first_screen if line.startswith("    python3 -m venv")]
    assert [c.rsplit("&& ", 1)[-1] for c in commands] == [
        ".venv/bin/bxb demo",
        ".venv/bin/python -m pytest",
    ]


def test_nothing_shipped_points_into_the_development_notes() -> None:
    """No user has the project's ../shared folder (its rules notes, its FACTS, its seed files):
    nothing the package ships or its docs say may send them there."""
    said = []
    for top in SHIPPED:
        for path in [REPO / top] if (REPO / top).is_file() else (REPO / top).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                text = path.read_text(errors="replace")
                said += [f"{path}: {w}" for w in ("../shared", "FACTS", "seed files") if w in text]
    assert said == []
