"""Roots that others witness (issue 26): the tournament's root as a C2SP checkpoint, cosigned by
witnesses (c2sp.org/tlog-witness, tlog-cosignature) that never cosign two inconsistent
checkpoints of one log. Two witnesses run as `bxb witness serve` processes on loopback; one is
shown a rewritten log and refuses; the root is published only at the policy's quorum; a reader's
`bxb check-proof --checkpoint` checks the cosignatures."""

from __future__ import annotations

import base64
import hashlib
import json
import sqlite3
import time
from pathlib import Path
from uuid import UUID

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.core import CommandIssued
from blowbyblow.replay.evidence.merkle import battle_heads, prove_inclusion
from blowbyblow.replay.evidence.notes import (
    parse_note,
)
from blowbyblow.replay.evidence.seals import new_keys, public_hex
from blowbyblow.replay.evidence.witness import (
    WitnessError,
    check_witnessed,
    http_post,
    publish_root,
)
from blowbyblow.replay.store.log import BattleStore

from bxbtest import record_demo
from evidence_helpers import delete_rows
from witness_helpers import (
    ORIGIN,
    Running,
    log_of,
    policy_of,
    start_witness,
    stop_witness,
    store_with_battles,
)

runner = CliRunner()


def test_two_witnesses_cosign_and_one_shown_a_rewritten_log_refuses(
    tmp_path: Path, organiser: tuple[Ed25519PrivateKey, str], witnesses: list[Running]
) -> None:
    key, _ = organiser
    w1, w2 = witnesses
    db = tmp_path / "b.sqlite"
    store = store_with_battles(db, ["necromunda-2023", "wh40k-2e"])
    both = policy_of(witnesses, quorum=2)

    # Round 1: both witnesses see the log for the first time and cosign.
    first = publish_root(battle_heads(store), ORIGIN, key, both)
    assert first.said == {"w1.example": "cosigned", "w2.example": "cosigned"}
    assert check_witnessed(first.note.text(), log_of(organiser), both) == first.checkpoint

    # Round 2 is forked: w1 is shown the log grown by one battle; w2 a copy of it in which the
    # first battle was cut short and the chain recomputed (that battle's head differs).
    rewritten_db = tmp_path / "rewritten.sqlite"
    with sqlite3.connect(db) as source, sqlite3.connect(rewritten_db) as copy:
        source.backup(copy)
    record_demo(store, "gangfight")
    rewritten = BattleStore(rewritten_db)
    record_demo(rewritten, "gangfight")
    first_battle = battle_heads(rewritten)[0]
    events = rewritten.read(UUID(first_battle.battle))
    last_command = max(e.position for e in events if isinstance(e.event, CommandIssued))
    delete_rows(rewritten_db, UUID(first_battle.battle), after=last_command - 1)
    assert battle_heads(BattleStore(rewritten_db))[0] != first_battle
    assert battle_heads(BattleStore(rewritten_db))[1] == battle_heads(store)[1]

    grown = publish_root(battle_heads(store), ORIGIN, key, policy_of([w1], quorum=1))
    assert grown.said == {"w1.example": "cosigned"}
    with pytest.raises(WitnessError, match=r"0 of the 1 cosignatures") as refused:
        publish_root(battle_heads(BattleStore(rewritten_db)), ORIGIN, key, policy_of([w2], 1))
    assert "w2.example: refused (422: not consistent with the checkpoint of size 2" in str(
        refused.value
    )
    # w2 kept the refused checkpoint as evidence and its last cosigned one is round 1's.
    state = json.loads(w2.state.read_text())
    assert state["logs"][ORIGIN]["size"] == 2
    assert state["refused"] and "not consistent" in state["refused"][-1]["why"]

    # With both witnesses in the policy and a quorum of 2, the fork is never published: w1 has
    # moved on to the honest round 2 and refuses the rewritten log too.
    with pytest.raises(WitnessError, match=r"0 of the 2 cosignatures"):
        publish_root(battle_heads(BattleStore(rewritten_db)), ORIGIN, key, both)
    # ... and the honest log, which w2 can be shown next, is cosigned by both again.
    again = publish_root(battle_heads(store), ORIGIN, key, both)
    assert again.said == {"w1.example": "cosigned", "w2.example": "cosigned"}


def test_a_witness_never_cosigns_another_root_at_the_same_size(
    tmp_path: Path, organiser: tuple[Ed25519PrivateKey, str], witnesses: list[Running]
) -> None:
    key, _ = organiser
    w1 = witnesses[0]
    store = store_with_battles(tmp_path / "a.sqlite", ["necromunda-2023"])
    other = store_with_battles(tmp_path / "b.sqlite", ["wh40k-2e"])
    publish_root(battle_heads(store), ORIGIN, key, policy_of([w1], 1))
    with pytest.raises(WitnessError, match=r"409: conflict: a checkpoint of size 1"):
        publish_root(battle_heads(other), ORIGIN, key, policy_of([w1], 1))
    # Restarted with its key and its state file, it keeps its word.
    stop_witness(w1)
    again = start_witness(
        tmp_path, "w1.example", organiser[1], keyfile=tmp_path / "w1.example" / "witness.key"
    )
    try:
        with pytest.raises(WitnessError, match=r"409: conflict: a checkpoint of size 1"):
            publish_root(battle_heads(other), ORIGIN, key, policy_of([again], 1))
        assert publish_root(battle_heads(store), ORIGIN, key, policy_of([again], 1)).said == {
            "w1.example": "cosigned"
        }
    finally:
        stop_witness(again)


def test_the_witness_answers_what_the_protocol_says(
    tmp_path: Path, organiser: tuple[Ed25519PrivateKey, str], witnesses: list[Running]
) -> None:
    """404 for an unknown log, 403 for a checkpoint no trusted key signed, 400 for a malformed
    body or an old size past the new, 409 with the size it knows (text/x.tlog.size)."""
    key, _ = organiser
    w1 = witnesses[0]
    store = store_with_battles(tmp_path / "a.sqlite", ["necromunda-2023"])
    done = publish_root(battle_heads(store), ORIGIN, key, policy_of([w1], 1))
    body = done.note.body
    signed = "\n".join(done.note.text().splitlines()[:5]) + "\n"  # the log's signature only
    url = w1.url + "/add-checkpoint"
    assert http_post(url, f"old 0\n\n{signed}".encode()) == (409, b"1\n")
    stranger = Ed25519PrivateKey.generate()
    forged = body + "\n" + _sign_line(ORIGIN, stranger, body)
    assert http_post(url, f"old 1\n\n{forged}".encode())[0] == 403
    unknown = body.replace(ORIGIN, "elsewhere.example/root")
    assert (
        http_post(url, f"old 0\n\n{unknown}\n{_sign_line('x', stranger, unknown)}".encode())[0]
        == 404
    )
    assert http_post(url, f"old 2\n\n{signed}".encode())[0] == 400
    assert http_post(url, b"not a request")[0] == 400
    status, answer = http_post(url, f"old 1\n\n{signed}".encode())
    assert status == 200 and answer.decode().startswith("\u2014 w1.example ")


def _sign_line(name: str, key: Ed25519PrivateKey, body: str) -> str:
    raw = bytes.fromhex(public_hex(key))
    kid = hashlib.sha256(name.encode() + b"\n\x01" + raw).digest()[:4]
    return f"\u2014 {name} {base64.b64encode(kid + key.sign(body.encode())).decode()}\n"


def test_a_cosignature_is_what_tlog_cosignature_says(
    tmp_path: Path, organiser: tuple[Ed25519PrivateKey, str], witnesses: list[Running]
) -> None:
    """Recomputed from the specification's words, not from the code: the key ID is
    SHA-256(name ‖ 0x0A ‖ 0x04 ‖ key)[:4], then 8 bytes of time, then an Ed25519 signature over
    "cosignature/v1\\ntime T\\n" and the checkpoint's body (origin, size, base64 root)."""
    key, _ = organiser
    w1 = witnesses[0]
    store = store_with_battles(tmp_path / "a.sqlite", ["necromunda-2023", "asl"])
    before = int(time.time())
    done = publish_root(battle_heads(store), ORIGIN, key, policy_of([w1], 1))
    note = parse_note(done.note.text())
    lines = done.note.text().split("\n")
    assert lines[0] == ORIGIN and lines[1] == "2" and lines[3] == ""
    assert base64.b64decode(lines[2]) == done.checkpoint.root
    cosig = next(s for s in lines if s.startswith("\u2014 w1.example "))
    raw = base64.b64decode(cosig.split(" ")[2])
    public = bytes.fromhex(public_hex(w1.key))
    assert raw[:4] == hashlib.sha256(b"w1.example\n\x04" + public).digest()[:4]
    when = int.from_bytes(raw[4:12], "big")
    assert before <= when <= time.time()
    message = f"cosignature/v1\ntime {when}\n".encode() + "\n".join(lines[:3]).encode() + b"\n"
    Ed25519PublicKey.from_public_bytes(public).verify(raw[12:], message)
    assert note.body == "\n".join(lines[:3]) + "\n"


def test_check_proof_checks_the_checkpoint_cosignatures(
    tmp_path: Path, organiser: tuple[Ed25519PrivateKey, str], witnesses: list[Running]
) -> None:
    key, log = organiser
    store = store_with_battles(tmp_path / "a.sqlite", ["necromunda-2023", "wh40k-2e"])
    heads = battle_heads(store)
    published = publish_root(heads, ORIGIN, key, policy_of(witnesses, 2))
    proof = tmp_path / "proof.json"
    from blowbyblow.cli.evidence import msgspec_json

    proof.write_text(msgspec_json(prove_inclusion(heads, UUID(heads[1].battle))))
    checkpoint = tmp_path / "checkpoint.txt"
    checkpoint.write_text(published.note.text())
    policy = tmp_path / "policy.txt"
    policy.write_text(
        "".join(f"witness {w.verifier.vkey()} {w.url}\n" for w in witnesses) + "quorum 2\n"
    )
    args = ["check-proof", str(proof), "--checkpoint", str(checkpoint), "--log-key", log]
    ok = runner.invoke(app, [*args, "--witnesses", str(policy)])
    assert ok.exit_code == 0 and "checkpoint OK" in ok.output and "proof OK" in ok.output, ok.output
    # One cosignature dropped: the quorum of 2 is not met.
    lines = published.note.text().splitlines(keepends=True)
    checkpoint.write_text("".join(x for x in lines if not x.startswith("\u2014 w2.example")))
    short = runner.invoke(app, [*args, "--witnesses", str(policy)])
    assert short.exit_code == 1 and "cosigned by 1 of the policy's witnesses" in short.output
    # A cosignature with one bit changed holds no more.
    flipped = lines[-1].split(" ")
    sig = bytearray(base64.b64decode(flipped[2]))
    sig[-1] ^= 1
    flipped[2] = base64.b64encode(bytes(sig)).decode() + "\n"
    checkpoint.write_text("".join(lines[:-1]) + " ".join(flipped))
    bad = runner.invoke(app, [*args, "--witnesses", str(policy)])
    assert bad.exit_code == 1 and "cosigned by 1 of" in bad.output
    # A proof against another root than the checkpoint's.
    checkpoint.write_text(published.note.text())
    record_demo(store, "gangfight")
    proof.write_text(msgspec_json(prove_inclusion(battle_heads(store), UUID(heads[1].battle))))
    other = runner.invoke(app, [*args, "--witnesses", str(policy)])
    assert other.exit_code == 1 and "not the published tree of 2" in other.output


def test_bxb_root_publishes_only_at_the_quorum(
    tmp_path: Path, organiser: tuple[Ed25519PrivateKey, str], witnesses: list[Running]
) -> None:
    db = tmp_path / "a.sqlite"
    store_with_battles(db, ["necromunda-2023"])
    keyfile = tmp_path / "organiser" / "judge.key"
    policy = tmp_path / "policy.txt"
    policy.write_text(
        "# the club's witnesses\n"
        + "".join(f"witness {w.verifier.vkey()} {w.url}\n" for w in witnesses)
        + "quorum 2\n"
    )
    base = ["--db", str(db), "--log-level", "warning", "root", "--key", str(keyfile)]
    done = runner.invoke(app, [*base, "--witnesses", str(policy), "--origin", ORIGIN])
    assert done.exit_code == 0, done.output
    assert done.stdout.startswith(f"{ORIGIN}\n1\n")
    assert check_witnessed(done.stdout, log_of(organiser), policy_of(witnesses, 2))
    # One witness stopped: 1 of 2, nothing printed on standard output, exit 1.
    stop_witness(witnesses[1])
    failed = runner.invoke(app, [*base, "--witnesses", str(policy), "--origin", ORIGIN])
    assert failed.exit_code == 1 and failed.stdout == ""
    assert "1 of the 2 cosignatures" in failed.stderr and "w2.example: not reached" in failed.stderr
    bad = tmp_path / "bad.txt"
    bad.write_text("witness nobody\nquorum 1\n")
    refused = runner.invoke(app, [*base, "--witnesses", str(bad), "--origin", ORIGIN])
    assert refused.exit_code == 2 and "policy line 1" in refused.output


def test_verify_checks_the_store_against_a_cosigned_root(
    tmp_path: Path, organiser: tuple[Ed25519PrivateKey, str], witnesses: list[Running]
) -> None:
    """`bxb verify --checkpoint`: the battles verify, the round's root holds its quorum, and the
    store's first battles still give it. A battle cut short after the round (unsealed, so verify
    alone passes it) is caught by the witnessed root."""
    key, log = organiser
    db = tmp_path / "a.sqlite"
    store = store_with_battles(db, ["necromunda-2023", "wh40k-2e"])
    published = publish_root(battle_heads(store), ORIGIN, key, policy_of(witnesses, 2))
    checkpoint = tmp_path / "round1.checkpoint"
    checkpoint.write_text(published.note.text())
    policy = tmp_path / "policy.txt"
    policy.write_text(
        "".join(f"witness {w.verifier.vkey()} {w.url}\n" for w in witnesses) + "quorum 2\n"
    )
    args = ["--db", str(db), "--log-level", "warning", "verify", "--checkpoint", str(checkpoint)]
    args += ["--log-key", log, "--witnesses", str(policy)]
    ok = runner.invoke(app, args)
    assert ok.exit_code == 0, ok.output
    assert "checkpoint OK: the store's first 2 battles still give the cosigned root" in ok.output

    first = battle_heads(store)[0]
    events = store.read(UUID(first.battle))
    last_command = max(e.position for e in events if isinstance(e.event, CommandIssued))
    delete_rows(db, UUID(first.battle), after=last_command - 1)
    caught = runner.invoke(app, args)
    assert caught.exit_code == 1, caught.output
    assert "2 of 2 battles verified" in caught.output  # verify alone sees nothing wrong
    assert "checkpoint FAILED: the store's first 2 battles no longer give the published root" in (
        caught.output
    )


def test_a_witness_whose_state_is_broken_cosigns_nothing(
    tmp_path: Path, organiser: tuple[Ed25519PrivateKey, str]
) -> None:
    """A state file that cannot be read: refused at start in one line, and, broken under a
    running witness, a 500 that cosigns nothing (it would otherwise forget what it cosigned)."""
    key, log = organiser
    keys = new_keys(tmp_path / "w", name="witness")
    state = tmp_path / "w.state.json"
    state.write_text('{"logs": {"x": {"size": "two"}}}')
    started = runner.invoke(
        app,
        ["witness", "serve", "--name", "w", "--key", str(keys.private), "--state", str(state),
         "--log", log, "--port", "0"],
    )  # fmt: skip
    assert started.exit_code == 2 and "cannot be read" in started.output, started.output
    state.unlink()
    w = start_witness(tmp_path, "w3.example", log)
    try:
        store = store_with_battles(tmp_path / "a.sqlite", ["necromunda-2023"])
        w.state.write_text("not json")
        with pytest.raises(WitnessError, match="500: the witness cannot keep its state"):
            publish_root(battle_heads(store), ORIGIN, key, policy_of([w], 1))
    finally:
        stop_witness(w)
