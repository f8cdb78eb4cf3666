"""`bxb record` hands the table the receipt of the battle's last position (printed, and in
`--json`), signed with `--key` or the key folder's `judge.key`; `bxb verify --receipt` finds
the log holds it, and catches the battle cut short afterwards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.replay.evidence.receipts import parse_receipt, signature_ok
from blowbyblow.replay.evidence.seals import load_private_key, new_keys, public_hex
from blowbyblow.replay.store.log import BattleStore

from evidence_helpers import delete_rows

SCENARIO = Path(__file__).resolve().parents[2] / "cli" / "scenarios" / "necromunda-2023.toml"


def bxb(db: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["--db", str(db), "--log-level", "error", *args])
    return result.exit_code, result.output


def test_record_prints_the_receipt_of_its_last_position(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    keys = new_keys(tmp_path / "config" / "blowbyblow" / "keys")  # the default key folder
    db = tmp_path / "r.sqlite"
    code, out = bxb(db, "record", str(SCENARIO), "-q")
    assert code == 0, out
    [line] = [x.strip() for x in out.splitlines() if x.strip().startswith("bxb-receipt-v1 ")]
    receipt = parse_receipt(line)
    [info] = BattleStore(db).battles()
    events = BattleStore(db).read(info.battle)
    assert (receipt.battle, receipt.position) == (str(info.battle), len(events))
    assert receipt.public_key == public_hex(load_private_key(keys.private))
    assert signature_ok(receipt)

    kept = tmp_path / "kept.txt"
    kept.write_text(line + "\n")
    code, out = bxb(db, "verify", "--receipt", str(kept))
    assert code == 0 and "1 of 1 receipts hold" in out, out
    delete_rows(db, info.battle, after=len(events) - 1)  # its last event gone, chain intact
    code, out = bxb(db, "verify", "--receipt", str(kept))
    assert code == 1 and "truncated" in out, out


def test_record_json_holds_the_receipt_and_a_key_given(tmp_path: Path) -> None:
    keys = new_keys(tmp_path / "elsewhere")
    db = tmp_path / "r.sqlite"
    code, out = bxb(
        db, "record", str(SCENARIO), "--dice", "seed:7", "--key", str(keys.private), "--json"
    )
    assert code == 0, out
    row = json.loads(out)  # one JSON object, nothing else
    receipt = parse_receipt(json.dumps(row["receipt"]))
    assert receipt.battle == row["battle"] and receipt.position == row["events"]
    assert signature_ok(receipt)
    assert receipt.public_key == public_hex(load_private_key(keys.private))


def test_without_a_key_record_says_how_to_get_a_receipt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "nothing"))
    db = tmp_path / "r.sqlite"
    code, out = bxb(db, "record", str(SCENARIO), "-q")
    assert code == 0 and "(no receipt: no signing key at" in out and "bxb keys new" in out
    code, out = bxb(db, "record", str(SCENARIO), "--label", "again", "--json")
    assert code == 0 and json.loads(out)["receipt"] is None
    code, out = bxb(db, "record", str(SCENARIO), "--label", "x", "--key", str(tmp_path / "no"))
    assert code == 2 and "error: --key:" in out
    assert len(BattleStore(db).battles()) == 2  # the bad key refused before anything is written
