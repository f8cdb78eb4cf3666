"""``bxb battles`` lists a battle a judge forked (its table taken over in the child the ruling
names) as ``superseded``, with the child (``--json``: ``superseded_by``), as the docs name it
(docs/judging.md, Disputes 5). It listed it as ``started``, as if its table played on in it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.replay.store.log import BattleStore

from bxbtest import record_demo


@pytest.mark.parametrize(
    "fork", [["--at", "20"], ["--before", "5", "--void", "6"]], ids=["at", "void"]
)
def test_a_forked_battle_is_listed_superseded_by_its_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fork: list[str]
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    db = tmp_path / "b.sqlite"
    parent = record_demo(BattleStore(db), "gangfight").battle
    other = record_demo(BattleStore(db), "asl").battle  # not forked: started, as it was
    runner = CliRunner()
    assert runner.invoke(app, ["--db", str(db), "keys", "new"]).exit_code == 0
    forked = runner.invoke(
        app, ["--db", str(db), "-q", "fork", *fork, "--reason", "misread", "--battle", str(parent)]
    )
    assert forked.exit_code == 0, forked.output
    listed = runner.invoke(app, ["--db", str(db), "battles", "--json"])
    rows = {row["battle"]: row for row in map(json.loads, listed.stdout.splitlines())}
    child = next(b for b in rows if b not in (str(parent), str(other)))
    said = {b: (row["status"], row["superseded_by"]) for b, row in rows.items()}
    assert said == {
        str(parent): ("superseded", child),
        str(other): ("started", None),
        child: ("started", None),
    }
    table = runner.invoke(app, ["--db", str(db), "battles"]).stdout
    statuses = {"started", "superseded", "abandoned", "sealed"}
    shown = [
        next(word for word in line.split() if word in statuses)
        for line in table.splitlines()
        if line.split()[0] in rows
    ]
    assert shown == ["superseded", "started", "started"], table
