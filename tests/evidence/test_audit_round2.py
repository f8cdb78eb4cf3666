"""The surfaces added in the last session audited again (issue 26, round two), as a player who
can write the database file and as an unlucky organiser would try them:

- a fork, a ruling or a note signed by someone's own key (not the judge's) passes verify as
  long as its signature holds by the key it names: `--ruling-key` (the judge's public key) now
  refuses it, naming the key that signed;
- a second witness on one state file (two processes, each with its lock) could cosign two
  inconsistent checkpoints: the state file is now locked for the witness's life;
- a witness's state written whole and moved into place, but the move not made durable (its
  folder not synced): a power cut could roll it back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.judging import Rewound
from blowbyblow.projections.disputes import commands_played
from blowbyblow.replay.battles.fork import Judge, fork, rule
from blowbyblow.replay.evidence.merkle import battle_heads
from blowbyblow.replay.evidence.notes import COSIGNATURE_V1, Verifier
from blowbyblow.replay.evidence.seals import public_hex
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.evidence.witness import (
    Policy,
    Witness,
    WitnessAt,
    WitnessError,
    publish_root,
)
from blowbyblow.replay.store.log import BattleStore

from bxbtest import record_demo
from evidence_helpers import rewrite
from witness_helpers import ORIGIN, log_of

JUDGE = Judge("Ana", Ed25519PrivateKey.generate())
MALLORY = Judge("Ana", Ed25519PrivateKey.generate())  # a player's own key, the judge's name


def test_a_fork_by_a_key_that_is_not_the_judges_is_refused_with_the_judges_key(
    tmp_path: Path,
) -> None:
    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    parent = record_demo(store, "gangfight").battle
    third = commands_played([e.event for e in store.read(parent)])[2]
    forked = fork(
        store, parent, position=third.first - 1, change=Rewound(), judge=MALLORY, reason="mine"
    )
    judge = public_hex(JUDGE.key)
    # Without the judge's key, verify cannot tell: it passes and names the key that signed.
    report = verify_battle(store, forked.child)
    assert report.ok, report.problem
    assert any(public_hex(MALLORY.key)[:16] in note for note in report.notes), report.notes
    refused = verify_battle(store, forked.child, judge_keys=frozenset({judge}))
    assert not refused.ok and refused.problem is not None
    assert (
        refused.problem.position == 2 and "not a judge's key you trust" in refused.problem.message
    )
    # The parent's ruling naming the child, too.
    refused = verify_battle(store, parent, judge_keys=frozenset({judge}))
    assert not refused.ok and "not a judge's key you trust" in str(refused.problem)
    assert verify_battle(store, parent, judge_keys=frozenset({public_hex(MALLORY.key)})).ok
    code = CliRunner().invoke(
        app, ["--db", str(db), "verify", str(forked.child), "--ruling-key", judge]
    )
    assert code.exit_code == 1 and "not a judge's key you trust" in code.output, code.output


def test_a_ruling_by_another_key_is_refused_with_the_judges_key(tmp_path: Path) -> None:
    store = BattleStore(tmp_path / "b.sqlite")
    battle = record_demo(store, "gangfight").battle
    rule(store, battle, command=2, judge=MALLORY, reason="stands, says I")
    assert verify_battle(store, battle).ok
    judge = frozenset({public_hex(JUDGE.key)})
    report = verify_battle(store, battle, judge_keys=judge)
    assert not report.ok and "not a judge's key you trust" in str(report.problem)
    rule(store, battle, command=3, judge=JUDGE, reason="stands")
    assert verify_battle(store, battle, judge_keys=frozenset({public_hex(MALLORY.key)})).ok is False


def test_two_witnesses_on_one_state_file_are_refused(
    tmp_path: Path, organiser: tuple[Ed25519PrivateKey, str]
) -> None:
    state = tmp_path / "w.state.json"
    key = Ed25519PrivateKey.generate()
    first = Witness("w.example", key, state, [log_of(organiser)])
    with pytest.raises(WitnessError, match="another witness"):
        Witness("w.example", key, state, [log_of(organiser)])
    first.close()
    Witness("w.example", key, state, [log_of(organiser)]).close()  # once the first has gone


def test_a_witness_makes_its_new_state_durable(
    tmp_path: Path, organiser: tuple[Ed25519PrivateKey, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The state file moved into place, then its folder synced, before the cosignature goes."""
    synced: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    state = tmp_path / "w.state.json"
    key = Ed25519PrivateKey.generate()
    witness = Witness("w.example", key, state, [log_of(organiser)])
    store = BattleStore(tmp_path / "b.sqlite")
    record_demo(store, "gangfight")

    def post(url: str, body: bytes) -> tuple[int, bytes]:
        answer = witness.add_checkpoint(body)
        return answer.status, answer.body.encode()

    verifier = Verifier("w.example", bytes.fromhex(public_hex(key)), COSIGNATURE_V1)
    policy = Policy((WitnessAt(verifier, "http://w.example"),), 1)
    publish_root(battle_heads(store), ORIGIN, organiser[0], policy, post=post)
    assert str(tmp_path) in synced, synced
    witness.close()


def test_a_log_rewritten_before_a_judges_ruling_is_caught_by_the_ruling(tmp_path: Path) -> None:
    """The ruling signs the log's length and last hash: the recording times of the commands
    before it rewritten and every hash recomputed (verify alone could not see it) break it."""
    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    battle = record_demo(store, "gangfight").battle
    rule(store, battle, command=3, judge=JUDGE, reason="stands")
    assert verify_battle(store, battle).ok
    logged = store.read(battle)
    times = [e.recorded_at for e in logged]
    times[3] = "2020-01-01T00:00:00.000+00:00"
    rewrite(db, battle, [e.event for e in logged], times)
    report = verify_battle(BattleStore(db), battle)
    assert not report.ok and report.problem is not None
    assert report.problem.position == len(logged) and "signed the ruling over another log" in (
        report.problem.message
    )
