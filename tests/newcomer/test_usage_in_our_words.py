"""A value Click cannot convert is said the way bxb's own checks say theirs, in one line: the
option first, then what was expected (``--port: expected a whole number, not 'x'``, beside
``--port: expected 1 to 65535, not 0``). Before, Click's own words came in our line ("Invalid
value for '--port': 'x' is not a valid int"): two programs' voices for one kind of mistake."""

from __future__ import annotations

from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from blowbyblow.cli.main import app


def _number_options() -> list[tuple[list[str], str, str]]:
    """Every option of every command that takes a whole number or a number: (the command's
    words, the option, the kind)."""
    found = []

    def walk(command: Any, words: list[str]) -> None:
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            walk(sub, [*words, name])
        for param in command.params:
            kind = getattr(param.type, "name", "")
            if param.param_type_name == "option" and kind in ("int", "float"):
                found.append((words, max(param.opts, key=len), kind))

    walk(typer.main.get_command(app), [])
    return found


NUMBER_OPTIONS = _number_options()


def test_there_are_number_options_to_try() -> None:
    assert (["serve"], "--port", "int") in NUMBER_OPTIONS
    assert len(NUMBER_OPTIONS) > 10


@pytest.mark.parametrize(
    ("words", "option", "kind"), NUMBER_OPTIONS, ids=[f"{w} {o}" for w, o, _ in NUMBER_OPTIONS]
)
def test_a_value_that_is_no_number_is_said_in_our_words(
    tmp_path: Any, words: list[str], option: str, kind: str
) -> None:
    result = CliRunner().invoke(
        app, ["--db", str(tmp_path / "s.sqlite"), *words, option, "x"], prog_name="bxb"
    )
    expected = "a whole number" if kind == "int" else "a number"
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: {option}: expected {expected}, not 'x' (see `bxb {' '.join(words)} --help`)\n"
    )
    assert not (tmp_path / "s.sqlite").exists()


def test_an_argument_that_is_no_number_is_named_as_ours_are(tmp_path: Any) -> None:
    result = CliRunner().invoke(
        app, ["--db", str(tmp_path / "s"), "flag", "x", "--reason", "r"], prog_name="bxb"
    )
    assert result.exit_code == 2
    assert (
        result.stderr
        == "error: command: expected a whole number, not 'x' (see `bxb flag --help`)\n"
    )
