"""``bxb root``, ``--proof``, ``--since`` and ``bxb check-proof``, as an organiser and a player
use them over a round."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.replay.store.log import BattleStore

from bxbtest import record_demo
from evidence_helpers import delete_rows

runner = CliRunner()


def test_a_round_published_proved_and_checked(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    store = BattleStore(db)
    first = record_demo(store, "necromunda-2023")
    second = record_demo(store, "asl")
    base = ["--db", str(db), "--log-level", "warning"]

    shown = runner.invoke(app, [*base, "root"])
    assert shown.exit_code == 0, shown.output
    line = shown.output.splitlines()[1]
    assert line.startswith("bxb-root-v1 2 ")
    round1 = tmp_path / "round1.json"
    as_json = runner.invoke(app, [*base, "root", "--json"])
    round1.write_text(as_json.output)
    assert json.loads(as_json.output)["root"] == line.split()[2]

    proof = tmp_path / "proof.json"
    proof.write_text(runner.invoke(app, [*base, "root", "--proof", str(second.battle)]).output)
    checked = runner.invoke(app, ["check-proof", str(proof), "--root", line])
    assert checked.exit_code == 0 and str(second.battle) in checked.output, checked.output
    wrong_root = line[:-1] + ("0" if line[-1] != "0" else "1")
    assert runner.invoke(app, ["check-proof", str(proof), "--root", wrong_root]).exit_code == 1
    forged = json.loads(proof.read_text())
    forged["leaf"]["events"] += 1
    proof.write_text(json.dumps(forged))
    refused = runner.invoke(app, ["check-proof", str(proof)])
    assert refused.exit_code == 1 and "proof FAILED" in refused.output

    record_demo(store, "wh40k-2e")  # round 2
    since = runner.invoke(app, [*base, "root", "--since", str(round1)])
    assert since.exit_code == 0, since.output
    consistency = tmp_path / "consistency.json"
    consistency.write_text(since.output)
    assert runner.invoke(app, ["check-proof", str(consistency)]).exit_code == 0
    assert runner.invoke(app, [*base, "root", "--since", line]).exit_code == 0

    delete_rows(db, first.battle)
    caught = runner.invoke(app, [*base, "root", "--since", str(round1)])
    assert caught.exit_code == 1
    assert f"battle {first.battle} (leaf 0) is not in the store any more" in caught.output


def test_bad_input_to_root_is_one_error_line(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    record_demo(BattleStore(db), "asl")
    base = ["--db", str(db), "--log-level", "warning"]
    garbage = tmp_path / "garbage.json"
    garbage.write_text("[" * 100000)
    for args in (
        [*base, "root", "--since", "bxb-root-v1 two roots"],
        [*base, "root", "--since", str(garbage)],
        [*base, "root", "--proof", "no-such-battle"],
        ["check-proof", str(garbage)],
        ["check-proof", str(tmp_path / "missing.json")],
        ["check-proof", str(garbage), "--root", "bxb-root-v1 1 abc"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code in (1, 2), (args, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), args
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(("error:", "proof FAILED", "root FAILED"))
