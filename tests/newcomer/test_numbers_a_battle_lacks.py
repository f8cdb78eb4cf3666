"""A position or a command number the battle lacks, given to any command, is a usage error:
exit 2 and one `error:` line naming the option, as a battle the store lacks is (docs/store.md),
with the store's bytes unchanged. Before, `bxb at 0` exited 2 where `bxb odds --position 0`,
`flag`, `void`, `note` and `fork` exited 1 for the same kind of input. A number the battle has,
given at the wrong moment (voiding a command that is not the last), is the command's refusal:
exit 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app

from bxbtest import store_content

# The demo: 88 events, commands 1 and 2; none of these needs a judge's key before its number is
# checked. ID: the demo's battle id.
LACKED = [
    (["at", "0"], "position"),
    (["at", "89"], "position"),
    (["at", "--command", "3"], "--command"),
    (["odds", "--battle", "ID", "--position", "0"], "--position"),
    (["odds", "--battle", "ID", "--position", "89"], "--position"),
    (["odds", "--battle", "ID", "--position", "1"], "--position"),  # the start, no command
    (["odds", "--battle", "ID", "--position", "9" * 30], "--position"),
    (["flag", "0", "--reason", "r"], "command"),
    (["flag", "3", "--reason", "r"], "command"),
    (["rule", "3", "--reason", "r"], "command"),
    (["void", "3", "--reason", "r"], "command"),
    (["void", "0", "--reason", "r"], "command"),
    (["note", "0", "a note"], "position"),
    (["note", "89", "a note"], "position"),
    (["fork", "--reason", "r", "--at", "0"], "--at"),
    (["fork", "--reason", "r", "--at", "89"], "--at"),
    (["fork", "--reason", "r", "--before", "3"], "--before"),
    (["fork", "--reason", "r", "--at", "5", "--void", "3"], "--void"),
]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    db = tmp_path_factory.mktemp("numbers") / "battles.sqlite"
    assert CliRunner().invoke(app, ["--db", str(db), "demo"]).exit_code == 0
    listed = CliRunner().invoke(app, ["--db", str(db), "battles", "--json"])
    return db, json.loads(listed.stdout)["battle"]


@pytest.mark.parametrize(("args", "option"), LACKED, ids=[" ".join(a) for a, _ in LACKED])
def test_a_number_the_battle_lacks_exits_2(
    demo: tuple[Path, str], tmp_path: Path, args: list[str], option: str
) -> None:
    db, battle = demo
    before = store_content(db)
    result = CliRunner(env={"HOME": str(tmp_path), "XDG_CONFIG_HOME": None}).invoke(
        app, ["--db", str(db), *[battle if a == "ID" else a for a in args]]
    )
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: {option}: "), result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert store_content(db) == before


def test_a_command_the_battle_has_at_the_wrong_moment_is_a_refusal(demo: tuple[Path, str]) -> None:
    db, _ = demo
    before = store_content(db)
    result = CliRunner().invoke(app, ["--db", str(db), "void", "1", "--reason", "r"])
    assert result.exit_code == 1, result.output
    assert "only the last command that stands (2) may be voided" in result.stderr
    assert store_content(db) == before
