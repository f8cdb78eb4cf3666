"""Witnessed receipts (issue 26): a battle's head in a round's root the witnesses cosigned, kept
by the table as one C2SP tlog-proof, checked by `bxb verify --receipt` and `bxb check-proof`
against the log's key and the witness policy. A receipt whose checkpoint lacks the policy's
quorum of cosignatures (one dropped, one forged), whose log signature is forged or whose
inclusion proof does not lead to the root is refused in one line; a battle cut short after the
round is caught."""

from __future__ import annotations

import base64
from pathlib import Path
from uuid import UUID

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.core import CommandIssued
from blowbyblow.replay.evidence.merkle import battle_heads, leaf_hash, root, verify_inclusion
from blowbyblow.replay.evidence.witness import publish_root
from blowbyblow.replay.store.log import BattleStore

from evidence_helpers import delete_rows
from witness_helpers import ORIGIN, Running, policy_file, policy_of, store_with_battles

DASH = "\u2014"


def bxb(db: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["--db", str(db), "--log-level", "warning", *args])
    return result.exit_code, result.output


@pytest.fixture
def round_one(
    tmp_path: Path, organiser: tuple[Ed25519PrivateKey, str], witnesses: list[Running]
) -> tuple[Path, Path, Path, str]:
    """A store of three battles whose round root both witnesses cosigned; the second battle's
    witnessed receipt (as `bxb root --proof --checkpoint` prints it) and the policy (quorum 2)."""
    key, _ = organiser
    db = tmp_path / "b.sqlite"
    store = store_with_battles(db, ["necromunda-2023", "wh40k-2e", "gangfight"])
    published = publish_root(battle_heads(store), ORIGIN, key, policy_of(witnesses, 2))
    checkpoint = tmp_path / "round1.checkpoint"
    checkpoint.write_text(published.note.text())
    battle = battle_heads(store)[1].battle
    code, out = bxb(db, "root", "--proof", battle, "--checkpoint", str(checkpoint))
    assert code == 0, out
    proof = tmp_path / "table2.tlog-proof"
    proof.write_text(out)
    return db, proof, policy_file(tmp_path / "policy.txt", witnesses, 2), battle


def test_a_witnessed_receipt_is_what_tlog_proof_says(
    round_one: tuple[Path, Path, Path, str],
) -> None:
    """Read from the specification's words: the header line, 'extra' and the leaf (here the
    battle's bxb-head-v1 leaf), 'index', the proof's hashes, an empty line, the checkpoint."""
    db, proof, _, battle = round_one
    text = proof.read_text()
    head, checkpoint = text.split("\n\n", 1)
    lines = head.split("\n")
    assert lines[0] == "c2sp.org/tlog-proof@v1"
    leaf = base64.b64decode(lines[1].removeprefix("extra "))
    assert leaf[:12] == b"bxb-head-v1\x00" and UUID(bytes=leaf[12:28]) == UUID(battle)
    index = int(lines[2].removeprefix("index "))
    hashes = [base64.b64decode(x) for x in lines[3:]]
    origin, size, root_b64 = checkpoint.split("\n")[:3]
    assert origin == ORIGIN and int(size) == 3 and index == 1
    verify_inclusion(leaf_hash(leaf), index, 3, hashes, base64.b64decode(root_b64))
    heads = battle_heads(BattleStore(db))
    assert base64.b64decode(root_b64) == root([h.leaf() for h in heads])
    assert int.from_bytes(leaf[28:36], "big") == heads[1].events
    assert leaf[36:].hex() == heads[1].head


def test_verify_and_check_proof_take_a_witnessed_receipt(
    round_one: tuple[Path, Path, Path, str], organiser: tuple[Ed25519PrivateKey, str]
) -> None:
    db, proof, policy, battle = round_one
    log = organiser[1]
    witnessed = ["--receipt", str(proof), "--log-key", log, "--witnesses", str(policy)]
    code, out = bxb(db, "verify", battle, *witnessed)
    assert code == 0, out
    assert "1 of 1 receipts hold, 1 of them witnessed" in out
    assert "cosigned by w1.example, w2.example" in out
    code, out = bxb(db, "check-proof", str(proof), "--log-key", log, "--witnesses", str(policy))
    assert code == 0 and "proof OK: battle " + battle in out, out

    # The battle cut short after the round: the witnessed receipt catches it.
    events = BattleStore(db).read(UUID(battle))
    last_command = max(e.position for e in events if isinstance(e.event, CommandIssued))
    delete_rows(db, UUID(battle), after=last_command - 1)
    code, out = bxb(db, "verify", battle, *witnessed)
    assert code == 1 and "receipt FAILED" in out and "truncated" in out, out


def _drop(text: str, name: str) -> str:
    return "".join(x for x in text.splitlines(keepends=True) if not x.startswith(f"{DASH} {name}"))


def _flip(text: str, name: str) -> str:
    out = []
    for line in text.splitlines(keepends=True):
        if line.startswith(f"{DASH} {name} "):
            parts = line.rstrip("\n").split(" ")
            raw = bytearray(base64.b64decode(parts[2]))
            raw[-1] ^= 1
            line = " ".join([*parts[:2], base64.b64encode(bytes(raw)).decode()]) + "\n"
        out.append(line)
    return "".join(out)


def _other_leaf(text: str) -> str:
    """The receipt's leaf claims one more event: its proof no longer leads to the root."""
    lines = text.split("\n")
    leaf = bytearray(base64.b64decode(lines[1].removeprefix("extra ")))
    leaf[35] += 1
    lines[1] = "extra " + base64.b64encode(bytes(leaf)).decode()
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda t: _drop(t, "w2.example"), "unwitnessed: its checkpoint is cosigned by 1 of"),
        (lambda t: _flip(t, "w1.example"), "unwitnessed: its checkpoint is cosigned by 1 of"),
        (
            lambda t: _drop(_drop(t, "w1.example"), "w2.example"),
            "unwitnessed: its checkpoint is cosigned by 0 of",
        ),
        (lambda t: _flip(t, ORIGIN), f"forged: no signature of the log {ORIGIN} holds"),
        (_other_leaf, "forged: the battle's head is not in the checkpoint's root"),
    ],
)
def test_a_witnessed_receipt_below_the_quorum_or_forged_is_refused_in_one_line(
    round_one: tuple[Path, Path, Path, str],
    organiser: tuple[Ed25519PrivateKey, str],
    edit: object,
    said: str,
) -> None:
    db, proof, policy, battle = round_one
    assert callable(edit)
    proof.write_text(edit(proof.read_text()))
    log = organiser[1]
    code, out = bxb(
        db, "verify", battle, "--receipt", str(proof), "--log-key", log, "--witnesses", str(policy)
    )
    assert code == 1, out
    failed = [x for x in out.splitlines() if x.startswith("receipt FAILED")]
    assert len(failed) == 1 and said in failed[0], out
    code, out = bxb(db, "check-proof", str(proof), "--log-key", log, "--witnesses", str(policy))
    assert code == 1, out
    [line] = [x for x in out.splitlines() if "FAILED" in x]
    assert said in line, out


def test_a_witnessed_receipt_needs_the_log_key_and_the_policy(
    round_one: tuple[Path, Path, Path, str],
    organiser: tuple[Ed25519PrivateKey, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db, proof, policy, battle = round_one
    monkeypatch.setenv("XDG_CONFIG_HOME", str(db.parent / "config"))
    code, out = bxb(db, "verify", battle, "--receipt", str(proof))
    assert code == 2 and "give --log-key (the log's key) and --witnesses" in out, out
    code, out = bxb(db, "verify", battle, "--receipt", str(proof), "--witnesses", str(policy))
    assert code == 2 and "--log-key and --witnesses go together" in out, out
    # A policy with nothing to check it against says so, rather than read as witnessed.
    plain = proof.with_name("plain.txt")
    assert bxb(db, "keys", "new")[0] == 0
    code, out = bxb(db, "receipt", battle)
    plain.write_text(out)
    code, out = bxb(
        db, "verify", battle, "--receipt", str(plain), "--log-key", organiser[1],
        "--witnesses", str(policy),
    )  # fmt: skip
    assert code == 2 and "neither is given" in out, out
