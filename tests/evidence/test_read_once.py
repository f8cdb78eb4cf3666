"""``bxb flag``, ``rule``, ``void`` and ``fork`` read the battle's whole log once: the check that
the command number stands (``cli/numbers.require_command``) reads it, and the command goes on
with what it read (before, each read it again: ``fork --before N --void M`` five times, its
dice and its preview included; ``fork --at`` alone twice, for its dice and the fork). The
void checks the store's head against what was read."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.replay.store.log import BattleStore
from blowbyblow.replay.store.reading import StoreReader

from bxbtest import record_demo

COMMANDS = [
    ["flag", "3", "--reason", "out of range", "--by", "ogres"],
    ["rule", "3", "--reason", "in range", "--judge", "Ana"],
    ["void", "7", "--reason", "misread", "--by", "ogres"],
    ["fork", "--before", "5", "--void", "6", "--reason", "not played", "--judge", "Ana"],
    ["fork", "--at", "20", "--reason", "rewound", "--judge", "Ana"],  # read twice on 54f50f0
    ["fork", "--before", "5", "--reason", "rewound", "--judge", "Ana"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c[:2]) for c in COMMANDS])
def test_the_battle_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    db = tmp_path / "b.sqlite"
    battle = record_demo(BattleStore(db), "gangfight").battle  # seven commands, seeded dice
    runner = CliRunner()
    assert runner.invoke(app, ["--db", str(db), "keys", "new"]).exit_code == 0
    reads: list[object] = []
    whole = StoreReader.read

    def counted(self: StoreReader, b: object, *, lte: int | None = None) -> object:
        reads.append(b)
        return whole(self, b, lte=lte)  # type: ignore[arg-type]

    monkeypatch.setattr(StoreReader, "read", counted)
    args = ["--db", str(db), "--log-level", "warning", *command, "--battle", str(battle)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert reads == [battle], reads
