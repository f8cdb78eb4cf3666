"""A setup or scenario file that is refused (not there, a field the format lacks, a value past
its bound) is refused alike by `bxb play` and `bxb record`: the same one line, exit 2
(docs/scenarios.md), and no store made. Before, `bxb play` exited 1 where `bxb record` exited 2
with the same line."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app

FILES = {
    "not there": None,
    "unknown field": 'ruleset = "gangfight"\nlabel = "x"\nbogus = 1\n',
    "not TOML": "ruleset = \n",
}


@pytest.mark.parametrize("kind", sorted(FILES))
def test_play_and_record_refuse_a_bad_file_alike(tmp_path: Path, kind: str) -> None:
    setup = tmp_path / "setup.toml"
    text = FILES[kind]
    if text is not None:
        setup.write_text(text)
    said = {}
    for command in ("play", "record"):
        db = tmp_path / command / "b.sqlite"
        result = CliRunner().invoke(app, ["--db", str(db), command, str(setup)], input="")
        assert result.exit_code == 2, (command, result.exit_code, result.output)
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
        assert str(setup) in result.stderr and "Traceback" not in result.output
        assert not db.parent.exists(), "no store made"
        said[command] = result.stderr
    if kind != "unknown field":  # record alone asks for actions after the fields are read
        assert said["play"] == said["record"], said
