"""Witnesses as processes of their own for the tests: `bxb witness serve` on a free loopback port
(each test stops only the processes it started, by their handles), the organiser's key, a
policy over them, a store with battles."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from blowbyblow.replay.evidence.notes import COSIGNATURE_V1, NOTE_SIGNATURE, Verifier, vkey
from blowbyblow.replay.evidence.seals import load_private_key, new_keys, public_hex
from blowbyblow.replay.evidence.witness import Policy, WitnessAt
from blowbyblow.replay.store.log import BattleStore

from bxbtest import record_demo

ORIGIN = "spring-open.example/root"


@dataclass
class Running:
    name: str
    url: str
    key: Ed25519PrivateKey
    state: Path
    process: subprocess.Popen[str]

    @property
    def verifier(self) -> Verifier:
        return Verifier(self.name, bytes.fromhex(public_hex(self.key)), COSIGNATURE_V1)


def start_witness(tmp: Path, name: str, log_vkey: str, keyfile: Path | None = None) -> Running:
    """A `bxb witness serve` process of its own on a free loopback port; its key is made unless
    given (a restart keeps its key and its state file)."""
    keyfile = keyfile or new_keys(tmp / name, name="witness").private
    state = tmp / f"{name}.state.json"
    process = subprocess.Popen(
        [
            sys.executable, "-m", "blowbyblow.cli.main", "witness", "serve",
            "--name", name, "--key", str(keyfile), "--state", str(state),
            "--log", log_vkey, "--port", "0",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert process.stderr is not None
    line = process.stderr.readline()
    found = re.search(r"on (http://127\.0\.0\.1:\d+)/add-checkpoint", line)
    assert found, line
    return Running(name, found.group(1), load_private_key(keyfile), state, process)


def stop_witness(witness: Running) -> None:
    witness.process.terminate()  # only a process this test started, by its handle
    witness.process.wait(timeout=10)


@pytest.fixture
def organiser(tmp_path: Path) -> tuple[Ed25519PrivateKey, str]:
    keys = new_keys(tmp_path / "organiser")
    key = load_private_key(keys.private)
    return key, vkey(ORIGIN, NOTE_SIGNATURE, bytes.fromhex(public_hex(key)))


@pytest.fixture
def witnesses(tmp_path: Path, organiser: tuple[Ed25519PrivateKey, str]) -> Iterator[list[Running]]:
    running = [start_witness(tmp_path, n, organiser[1]) for n in ("w1.example", "w2.example")]
    yield running
    for r in running:
        if r.process.poll() is None:
            stop_witness(r)


def policy_of(witnesses: list[Running], quorum: int) -> Policy:
    return Policy(tuple(WitnessAt(w.verifier, w.url) for w in witnesses), quorum)


def store_with_battles(db: Path, systems: list[str]) -> BattleStore:
    store = BattleStore(db)
    for system in systems:
        record_demo(store, system)
    return store


def log_of(organiser: tuple[Ed25519PrivateKey, str]) -> Verifier:
    key, _ = organiser
    return Verifier(ORIGIN, bytes.fromhex(public_hex(key)), NOTE_SIGNATURE)


def policy_file(path: Path, witnesses: list[Running], quorum: int) -> Path:
    path.write_text(
        "".join(f"witness {w.verifier.vkey()} {w.url}\n" for w in witnesses) + f"quorum {quorum}\n"
    )
    return path
