"""Signed receipts: what a player keeps after every command, and what it proves later."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.core import CommandIssued
from blowbyblow.replay.evidence.receipts import (
    Receipt,
    ReceiptError,
    check_receipts,
    parse_receipt,
    parse_receipts,
    receipt_for,
    sign_receipt,
    signature_ok,
    signed_bytes,
)
from blowbyblow.replay.evidence.seals import load_private_key, new_keys, public_hex
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore

from bxbtest import record_demo
from evidence_helpers import delete_rows, first_that_plays, receipts_per_command, rewrite

runner = CliRunner()
KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


def test_a_receipt_reads_back_from_its_line_and_its_json() -> None:
    rec = record_demo(BattleStore(":memory:"), "necromunda-2023")
    receipt = sign_receipt(KEY, rec.battle, rec.events[-1])
    assert receipt.position == len(rec.events) and receipt.head == rec.events[-1].hash.hex()
    assert signature_ok(receipt)
    line = receipt.text()
    assert "\n" not in line and line.startswith("bxb-receipt-v1 ")
    assert parse_receipt(line) == receipt
    assert parse_receipt(receipt.json()) == receipt
    assert parse_receipt(receipt.json()).encode() == receipt.encode()
    assert msgspec.msgpack.decode(receipt.encode())["position"] == receipt.position


def test_each_key_signs_as_itself_one_after_the_other() -> None:
    """The public key is worked out once a key (``_signer_of``): two keys in turn, and a key
    made again after the first is gone, each name their own."""
    rec = record_demo(BattleStore(":memory:"), "gangfight")
    for _ in range(2):
        for key in (KEY, Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()):
            receipt = sign_receipt(key, rec.battle, rec.events[-1])
            assert receipt.public_key == public_hex(key) and signature_ok(receipt)


class _SignsNothing(Ed25519PrivateKey):
    """A key whose own ``sign`` refuses: its bytes are still its own."""

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self._key = key

    def public_key(self) -> Ed25519PublicKey:
        return self._key.public_key()

    def private_bytes(self, *args: Any) -> bytes:
        return self._key.private_bytes(*args)

    def private_bytes_raw(self) -> bytes:
        return self._key.private_bytes_raw()

    def sign(self, data: bytes | bytearray | memoryview) -> bytes:
        raise AssertionError("cryptography's Ed25519 asked to sign a receipt")

    def __copy__(self) -> _SignsNothing:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> _SignsNothing:
        return self


def test_a_receipt_is_signed_by_libsodium_with_cryptography_s_bytes() -> None:
    """Ed25519 is deterministic: libsodium's signature (about half the instructions) is byte
    for byte the one cryptography's OpenSSL makes, for any key and any head."""
    rec = record_demo(BattleStore(":memory:"), "gangfight")
    for seed in (bytes(range(32)), bytes(32), b"\xff" * 32, *(bytes([n]) * 32 for n in (7, 99))):
        key = Ed25519PrivateKey.from_private_bytes(seed)
        for logged in rec.events:
            receipt = sign_receipt(_SignsNothing(key), rec.battle, logged)
            message = signed_bytes(rec.battle, logged.position, logged.hash)
            assert receipt.signature == key.sign(message).hex()
            assert receipt.public_key == public_hex(key) and signature_ok(receipt)


@pytest.mark.parametrize("field", ["battle", "position", "head"])
def test_the_signature_covers_battle_position_and_head(field: str) -> None:
    rec = record_demo(BattleStore(":memory:"), "necromunda-2023")
    receipt = sign_receipt(KEY, rec.battle, rec.events[-1])
    changed = {
        "battle": str(record_demo(BattleStore(":memory:"), "asl").battle),
        "position": receipt.position - 1,
        "head": rec.events[-2].hash.hex(),
    }[field]
    forged = msgspec.structs.replace(receipt, **{field: changed})
    assert not signature_ok(forged)
    [check] = check_receipts(rec.events, [forged]).checks
    assert check.verdict in ("forged", "skipped")
    if field != "battle":
        assert check.verdict == "forged" and not check.ok


@pytest.mark.parametrize(
    "line",
    [
        "bxb-receipt-v1 not-a-battle 3 aa bb cc",
        "bxb-receipt-v1 1 2 3",
        '{"algorithm": "bxb-receipt-v1"}',
        "[" * 100000,
        "{" + '"a":' * 5000,
    ],
)
def test_a_line_that_is_not_a_receipt_is_named(line: str) -> None:
    with pytest.raises(ReceiptError, match="line 2"):
        parse_receipts("# kept at table 4\n" + line + "\n")


def test_a_receipt_at_position_zero_or_with_short_hashes_is_refused() -> None:
    rec = record_demo(BattleStore(":memory:"), "necromunda-2023")
    good = sign_receipt(KEY, rec.battle, rec.events[-1])
    fields = json.loads(good.json())
    for change in ({"position": 0}, {"position": True}, {"head": "ab"}, {"signature": "zz"}):
        with pytest.raises(ReceiptError):
            parse_receipt(json.dumps({**fields, **change}))


def test_truncating_an_unsealed_battle_passes_verify_but_not_a_receipt(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    rec = record_demo(BattleStore(db), "wh40k-2e")
    receipts = receipts_per_command(KEY, rec.battle, rec.events)
    last_command = receipts[-2].position  # the head before the last command
    delete_rows(db, rec.battle, after=last_command)

    store = BattleStore(db)
    assert verify_battle(store, rec.battle).ok  # the chain alone cannot tell
    report = check_receipts(store, receipts)
    assert [c.verdict for c in report.checks] == ["holds"] * (len(receipts) - 1) + ["truncated"]
    assert f"now has {last_command}" in report.failed[0].message


def test_a_rewritten_middle_command_re_chained_passes_verify_but_not_a_receipt(
    tmp_path: Path,
) -> None:
    db = tmp_path / "b.sqlite"
    rec = record_demo(BattleStore(db), "wh40k-2e")
    receipts = receipts_per_command(KEY, rec.battle, rec.events)
    demo = rec.ruleset.demo()
    assert demo.dice is not None
    changed = [  # one physical die typed in differently, the battle re-adjudicated from it
        msgspec.structs.replace(
            demo, dice=[*demo.dice[:i], demo.dice[i] % 6 + 1, *demo.dice[i + 1 :]]
        )
        for i in range(len(demo.dice) // 2, len(demo.dice))
    ]
    _, events = first_that_plays(changed, lambda p: len(p.events) >= receipts[3].position)
    times = [e.recorded_at for e in rec.events]
    rewrite(db, rec.battle, events, (times * 2)[: len(events)])

    store = BattleStore(db)
    assert verify_battle(store, rec.battle).ok
    report = check_receipts(store, receipts)
    assert not report.ok
    first_bad = report.failed[0]
    assert first_bad.verdict in ("rewritten", "truncated")
    assert report.checks[0].verdict == "holds"
    rewritten = [c for c in report.checks if c.verdict == "rewritten"]
    assert rewritten and "between positions" in rewritten[0].message


def test_bxb_receipt_and_verify_receipt(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    rec = record_demo(BattleStore(db), "necromunda-2023")
    private, public, _ = new_keys(tmp_path / "keys")
    base = ["--db", str(db), "--log-level", "warning"]
    line = runner.invoke(app, [*base, "receipt", "--key", str(private)])
    assert line.exit_code == 0, line.output
    as_json = runner.invoke(app, [*base, "receipt", "--key", str(private), "--json"])
    kept = tmp_path / "receipts.txt"
    kept.write_text(line.output + as_json.output)
    assert parse_receipts(kept.read_text())[0] == parse_receipts(kept.read_text())[1]

    ok = runner.invoke(app, [*base, "verify", "--receipt", str(kept), "--receipt-key", str(public)])
    assert ok.exit_code == 0 and "2 of 2 receipts hold" in ok.output, ok.output
    other = new_keys(tmp_path / "other")[1]
    untrusted = runner.invoke(
        app, [*base, "verify", "--receipt", str(kept), "--receipt-key", str(other)]
    )
    assert untrusted.exit_code == 1 and "untrusted" in untrusted.output

    last_command = max(e.position for e in rec.events if isinstance(e.event, CommandIssued))
    delete_rows(db, rec.battle, after=last_command - 1)  # the last command, whole
    caught = runner.invoke(app, [*base, "verify", "--receipt", str(kept)])
    assert caught.exit_code == 1, caught.output
    assert "verify OK" in caught.output and "receipt FAILED" in caught.output
    assert "truncated" in caught.output

    exported = tmp_path / "b.jsonl"
    runner.invoke(app, [*base, "export", "-o", str(exported)])
    from_file = runner.invoke(
        app, [*base, "verify", "--file", str(exported), "--receipt", str(kept)]
    )
    assert from_file.exit_code == 1 and "truncated" in from_file.output

    bad = tmp_path / "bad.txt"
    bad.write_text("not a receipt\n")
    refused = runner.invoke(app, [*base, "verify", "--receipt", str(bad)])
    assert refused.exit_code == 1
    assert refused.output.startswith("error: --receipt") and "line 1" in refused.output
    assert "Traceback" not in refused.output


def test_receipt_for_signs_the_head_as_the_store_holds_it(tmp_path: Path) -> None:
    store = BattleStore(tmp_path / "b.sqlite")
    rec = record_demo(store, "asl")
    key = load_private_key(new_keys(tmp_path / "keys")[0])
    receipt = receipt_for(store, rec.battle, key)
    assert isinstance(receipt, Receipt) and receipt.public_key == public_hex(key)
    assert (receipt.position, receipt.head) == (len(rec.events), rec.events[-1].hash.hex())
    assert check_receipts(store, [receipt], trusted_keys=frozenset({public_hex(key)})).ok


def test_a_receipt_file_that_proves_nothing_does_not_pass(tmp_path: Path) -> None:
    """Issue 26, hole 7: an empty --receipt file (or one of comments only) made `verify` print
    OK as if the receipts held; so did receipts all of another battle. Each now fails, exit 1."""
    db = tmp_path / "b.sqlite"
    rec = record_demo(BattleStore(db), "necromunda-2023")
    other = record_demo(BattleStore(tmp_path / "other.sqlite"), "wh40k-2e")
    private = new_keys(tmp_path / "keys")[0]
    base = ["--db", str(db), "--log-level", "warning"]
    for text in ("", "\n\n", "# kept at table 3\n"):
        empty = tmp_path / "empty.txt"
        empty.write_text(text)
        for battle in ([], [str(rec.battle)]):
            result = runner.invoke(app, [*base, "verify", *battle, "--receipt", str(empty)])
            assert result.exit_code == 1, (text, result.output)
            assert result.output.startswith(f"error: --receipt {empty}: no receipt in it")
            assert "OK" not in result.output
    elsewhere = tmp_path / "elsewhere.txt"
    signed = receipt_for(
        BattleStore(tmp_path / "other.sqlite"), other.battle, load_private_key(private)
    )
    elsewhere.write_text(signed.text() + "\n")
    result = runner.invoke(app, [*base, "verify", str(rec.battle), "--receipt", str(elsewhere)])
    assert result.exit_code == 1, result.output
    assert f"none of the 1 receipts given is of battle {rec.battle}" in result.output
