"""What `bxb --help` and each command's `--help` show is what the code says: the list of
commands gives each command's summary (its help's first paragraph) whole, wrapped to the width
and not cut where the docstring's source lines end; and no word in brackets (`[voided]`,
`[choices]`) is eaten as Rich markup."""

from __future__ import annotations

import inspect
import re

import pytest
import typer.main
from typer import _click as click
from typer.core import TyperGroup
from typer.testing import CliRunner

from blowbyblow.cli.main import app

runner = CliRunner()


def _commands(group: TyperGroup, path: tuple[str, ...] = ()) -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []
    for name, command in sorted(group.commands.items()):
        found.append((" ".join((*path, name)), command))
        if isinstance(command, TyperGroup):
            found += _commands(command, (*path, name))
    return found


ROOT = typer.main.get_command(app)
assert isinstance(ROOT, TyperGroup)
COMMANDS = _commands(ROOT)


def _shown(*args: str, width: int = 100) -> str:
    result = runner.invoke(app, [*args, "--help"], env={"COLUMNS": str(width), "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    return result.output


def _plain(text: str) -> str:
    """A help text as shown: Rich's escape (``\\[``) undone, spaces and line breaks as one."""
    return " ".join(text.replace("\\[", "[").split())


@pytest.mark.parametrize(("name", "command"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_every_bracketed_word_of_a_help_text_is_shown(name: str, command: click.Command) -> None:
    texts = [command.help or "", *(getattr(p, "help", None) or "" for p in command.params)]
    bracketed = {w for text in texts for w in re.findall(r"(?<!\\)\[[a-z][a-z -]*\]", text)}
    shown = _shown(*name.split())
    for word in bracketed:
        assert word in shown, f"bxb {name} --help does not show {word}"


def test_the_list_of_commands_gives_each_summary_whole() -> None:
    """On a terminal wide enough, each command's summary is one row: a line break in the
    docstring's first paragraph must not end it early."""
    shown = _shown(width=1000)
    rows = {
        row.split()[0]: _plain(row[len(row.split()[0]) + 2 :])
        for line in shown[shown.index("Commands") :].splitlines()[1:]
        if (row := line.strip("│╰─╯ ").strip())
    }
    for name, command in COMMANDS:
        if " " in name:  # a subcommand: listed in its group's help
            continue
        summary = _plain(inspect.cleandoc(command.help or "").split("\n\n")[0])
        assert rows[name] == summary, name


def test_every_option_and_argument_says_what_it_is() -> None:
    """Each command's --help says what every option and argument is for: a bare `--json` or
    `--name` left a newcomer to guess its output or its use."""
    bare = [
        f"bxb {name} {param.opts[0]}"
        for name, command in COMMANDS
        for param in command.params
        if not (getattr(param, "help", None) or "").strip() and param.opts[0] != "--help"
    ]
    assert bare == []
