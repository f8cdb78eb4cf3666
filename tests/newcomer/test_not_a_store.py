"""A `--db` file that is not a database, given to any command, is said so in one line, exit 1
(the store cannot be used: not a usage error), and the file is left as it was. Before, `bxb
demo`, `tournament list` and `tables list` exited 2, and `roster list` named another error
("cannot rollback - no transaction is active": the register's rollback after its `begin` had
failed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app

from newcomer_helpers import REPO

ROSTER = str(REPO / "docs" / "rosters" / "iron-fists.toml")
COMMANDS = [
    ["demo"],
    ["battles"],
    ["log"],
    ["roster", "list"],
    ["roster", "import", ROSTER, "-t", "spring"],
    ["tournament", "list"],
    ["tables", "list", "spring"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(a[:2]) for a in COMMANDS])
def test_a_file_that_is_not_a_store_is_said_so(tmp_path: Path, args: list[str]) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a store\n")
    result = CliRunner().invoke(app, ["--db", str(notes), *args])
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "not a database" in result.stderr, result.stderr
    assert notes.read_text() == "not a store\n"
