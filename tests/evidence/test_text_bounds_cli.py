"""Free text typed at the command line is bounded as a scenario file's is (issue 26: a start's
label had no limit): an over-long label, reason, name or note is refused in one line, nothing
written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.replay.store.log import BattleStore

from bxbtest import record_demo

LONG = "z" * 1001


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "b.sqlite"


def bxb(db: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["--db", str(db), "--log-level", "warning", *args])
    return result.exit_code, result.output


def written(db: Path) -> list[tuple[str, int]]:
    store = BattleStore(db)
    return [(str(b.battle), store.version(b.battle)) for b in store.battles()]


def one_line_naming(out: str, what: str) -> None:
    lines = [x for x in out.splitlines() if x.strip()]
    assert len(lines) <= 2 and what in out and "Traceback" not in out, out[:500]
    assert len(out) < 1000, out[:300]


def test_a_label_of_more_than_1000_characters_is_refused(env: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "fight.toml"
    assert bxb(env, "examples", "gangfight", "-o", str(scenario))[0] == 0
    code, out = bxb(env, "record", str(scenario), "--label", LONG)
    assert code != 0
    one_line_naming(out, "label: 1001 characters; expected at most 1000")
    assert not env.exists() or written(env) == []


@pytest.mark.parametrize(
    "args",
    [
        ["flag", "3", "--reason", LONG, "--by", "ogres"],
        ["flag", "3", "--reason", "out of range", "--by", LONG],
        ["rule", "3", "--reason", LONG],
        ["note", "2", LONG],
        ["fork", "--before", "3", "--reason", LONG],
        ["void", "7", "--reason", LONG],
        ["void", "7", "--reason", "typo", "--by", LONG],
    ],
)
def test_over_long_words_of_a_dispute_or_void_are_refused(env: Path, args: list[str]) -> None:
    battle = str(record_demo(BattleStore(env), "gangfight").battle)
    assert bxb(env, "keys", "new")[0] == 0
    before = written(env)
    code, out = bxb(env, *args, "--battle", battle)
    assert code != 0
    one_line_naming(out, "1001 characters; expected at most 1000")
    assert written(env) == before


def test_a_tournament_name_is_bounded(env: Path) -> None:
    code, out = bxb(env, "tournament", "new", "spring", "--name", "n" * 201)
    assert code != 0
    one_line_naming(out, "tournament name: 201 characters; expected at most 200")
    code, out = bxb(env, "tournament", "list")
    assert "spring" not in out


def test_a_witness_name_is_bounded(env: Path) -> None:
    assert bxb(env, "keys", "new", "--name", "witness")[0] == 0
    code, out = bxb(env, "witness", "key", "w" * 256)
    assert code != 0
    one_line_naming(out, "1 to 255 characters")
