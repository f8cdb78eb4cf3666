"""Roots that others witness (c2sp.org/tlog-witness): an organiser's tournament root counts only
once independent witnesses have cosigned it, and a witness never cosigns two inconsistent
checkpoints of one log.

The witness (``Witness``, served over HTTP by ``bxb witness serve``): it trusts a list of logs
(each an origin and the log's note key), keeps in a state file the last checkpoint it cosigned
of each, and answers ``add-checkpoint`` as the specification says: 404 for an unknown origin,
403 when no signature of the log's key holds, 400 for an old size past the new one, 409 (with
its size) when the old size is not the one it last cosigned or a same-size checkpoint has another
root, 422 when the consistency proof from its last checkpoint does not hold; otherwise it writes
the new checkpoint to its state, then answers with its cosignature. The check and the write are
one step under a lock, so two requests cannot roll its state back; refused checkpoints are kept
in the state file too (at most ``KEPT_REFUSALS``), as evidence that a log forked.

The organiser's side (``publish_root``): sign the tournament's checkpoint with the log key, ask
each witness of the policy for its cosignature with the consistency proof from the size it last
cosigned, and publish only when the policy's quorum of cosignatures holds."""

from __future__ import annotations

import base64
import binascii
import fcntl
import json
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.engine.numbers import whole_number
from blowbyblow.replay.evidence.merkle import (
    Head,
    MerkleError,
    consistency_proof,
    root,
    verify_consistency,
)
from blowbyblow.replay.evidence.notes import (
    COSIGNATURE_V1,
    Checkpoint,
    Note,
    NoteError,
    Verifier,
    cosign,
    cosigners,
    parse_checkpoint,
    parse_note,
    parse_signature_line,
    parse_vkey,
    sign_checkpoint,
    signed_by,
)

SIZE_TYPE = "text/x.tlog.size"
MAX_PROOF_LINES = 63
MAX_REQUEST_BYTES = 64 * 1024
KEPT_REFUSALS = 100


class WitnessError(BlowByBlowError):
    pass


@dataclass(frozen=True)
class Answer:
    """A witness's HTTP answer: status, content type, body."""

    status: int
    body: str
    content_type: str = "text/plain; charset=utf-8"


def _refuse(status: int, why: str) -> Answer:
    return Answer(status, why + "\n")


@dataclass(frozen=True)
class AddCheckpoint:
    old: int
    proof: list[bytes]
    note: Note
    checkpoint: Checkpoint


def parse_add_checkpoint(body: bytes) -> AddCheckpoint:
    """An ``add-checkpoint`` request body: ``old N``, the proof's hashes, an empty line, the
    signed checkpoint. WitnessError naming what is malformed."""
    if len(body) > MAX_REQUEST_BYTES:
        raise WitnessError(f"a request is at most {MAX_REQUEST_BYTES} bytes")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise WitnessError("the request is not UTF-8 text") from None
    head, sep, rest = text.partition("\n\n")
    lines = head.split("\n")
    if not sep or not lines[0].startswith("old "):
        raise WitnessError("expected 'old SIZE', the proof's lines, an empty line, a checkpoint")
    old = lines[0][4:]
    if (
        not (old.isascii() and old.isdigit())
        or (old != "0" and old.startswith("0"))
        or len(old) > 19
    ):
        raise WitnessError(f"old size: expected a decimal number, not {old[:40]!r}")
    if len(lines) - 1 > MAX_PROOF_LINES:
        raise WitnessError(f"at most {MAX_PROOF_LINES} proof lines")
    proof: list[bytes] = []
    for line in lines[1:]:
        try:
            proof.append(base64.b64decode(line, validate=True))
        except binascii.Error:
            raise WitnessError(f"proof line {line[:60]!r} is not base64") from None
    try:
        note = parse_note(rest)
        checkpoint = parse_checkpoint(note.body)
    except NoteError as e:
        raise WitnessError(str(e)) from None
    return AddCheckpoint(int(old), proof, note, checkpoint)


class Witness:
    """A witness with its own key and state file, for the logs it trusts."""

    def __init__(
        self,
        name: str,
        key: Ed25519PrivateKey,
        state: Path,
        logs: Sequence[Verifier],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.name = name
        self.key = key
        self.state_path = state
        self.logs = {v.name: v for v in logs}  # a log's key name is its origin
        self.clock = clock
        self._lock = threading.Lock()
        if not state.parent.is_dir():
            raise WitnessError(f"--state {state}: its folder does not exist")
        # One witness a state file: two processes, each with its own lock, could each cosign
        # a checkpoint the other's contradicts. Held (and released by the system if the process
        # dies) for as long as this witness lives.
        self._held = state.with_name(state.name + ".lock").open("a")
        try:
            fcntl.flock(self._held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._held.close()
            raise WitnessError(
                f"--state {state}: another witness is using it; one witness a state file"
            ) from None
        try:
            self._read_state()  # a state file that cannot be read stops the witness at its start
        except WitnessError:
            self._held.close()
            raise

    def close(self) -> None:
        """Let another witness take the state file."""
        self._held.close()

    def _read_state(self) -> dict[str, Any]:
        if not self.state_path.exists():
            return {"logs": {}, "refused": []}
        try:
            state = json.loads(self.state_path.read_text())
            if not isinstance(state, dict) or not isinstance(state.get("logs"), dict):
                raise ValueError("not a witness's state")
            for origin, last in state["logs"].items():
                if not (
                    isinstance(last, dict)
                    and isinstance(last.get("size"), int)
                    and last["size"] > 0
                    and len(base64.b64decode(str(last.get("root")), validate=True)) == 32
                ):
                    raise ValueError(f"log {origin!r}: expected its size and root")
        except (OSError, ValueError) as e:
            raise WitnessError(f"--state {self.state_path}: cannot be read ({e})") from None
        return state

    def _write_state(self, state: dict[str, Any]) -> None:
        """Written whole and moved into place, so a crash leaves the old state or the new."""
        temporary = self.state_path.with_name(self.state_path.name + ".new")
        with temporary.open("w") as f:
            json.dump(state, f, sort_keys=True, indent=1)
            f.flush()
            os.fsync(f.fileno())
        temporary.replace(self.state_path)
        # The move itself made durable: else a power cut could bring back the old state, and
        # the witness would cosign again what contradicts what it has just cosigned.
        folder = os.open(self.state_path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)

    def add_checkpoint(self, body: bytes) -> Answer:
        try:
            request = parse_add_checkpoint(body)
        except WitnessError as e:
            return _refuse(400, str(e))
        cp = request.checkpoint
        log = self.logs.get(cp.origin)
        if log is None:
            return _refuse(404, f"unknown log {cp.origin!r}")
        if signed_by(request.note, log) is None:
            return _refuse(403, f"no signature of {cp.origin}'s key holds")
        if request.old > cp.size:
            return _refuse(400, f"old size {request.old} is past the checkpoint's {cp.size}")
        with self._lock:  # the check and the write as one step (the specification's race)
            try:
                return self._decide(request)
            except (WitnessError, OSError) as e:  # its state file, not the request, is at fault
                return _refuse(500, f"the witness cannot keep its state: {e}")

    def _decide(self, request: AddCheckpoint) -> Answer:
        """Check ``request`` against the state file and write what it changes; the caller holds
        the lock."""
        cp = request.checkpoint
        state = self._read_state()
        answer = self._check(state, request)
        if answer is None:
            state["logs"][cp.origin] = {
                "size": cp.size,
                "root": base64.b64encode(cp.root).decode(),
            }
            self._write_state(state)
            line = cosign(cp.body(), self.name, self.key, int(self.clock()))
            return Answer(200, line.line())
        if answer.status == 422 or answer.body.startswith("conflict"):
            refused = state.setdefault("refused", [])
            refused.append({"checkpoint": request.note.text(), "why": answer.body.strip()})
            state["refused"] = refused[-KEPT_REFUSALS:]
            self._write_state(state)
        return answer

    def _check(self, state: dict[str, Any], request: AddCheckpoint) -> Answer | None:
        """None when ``request`` extends what this witness last cosigned of its log."""
        cp = request.checkpoint
        last = state["logs"].get(cp.origin, {"size": 0, "root": ""})
        if request.old != last["size"]:
            return Answer(409, f"{last['size']}\n", SIZE_TYPE)
        if request.old == 0:
            return None if not request.proof else _refuse(400, "a proof from size 0 is empty")
        kept = base64.b64decode(last["root"])
        if request.old == cp.size and kept != cp.root:
            return _refuse(409, f"conflict: a checkpoint of size {cp.size} with another root")
        try:
            verify_consistency(request.old, cp.size, request.proof, kept, cp.root)
        except MerkleError as e:
            return _refuse(
                422, f"not consistent with the checkpoint of size {request.old} cosigned: {e}"
            )
        return None


# --- the organiser's side: ask the witnesses, publish at the quorum -----------------------------


@dataclass(frozen=True)
class WitnessAt:
    """A witness of a policy: its cosignature key (name and public key) and where to ask it."""

    verifier: Verifier
    url: str


@dataclass(frozen=True)
class Policy:
    """The witnesses a root is shown to and how many must cosign it (``quorum``)."""

    witnesses: tuple[WitnessAt, ...]
    quorum: int

    def verifiers(self) -> list[Verifier]:
        return [w.verifier for w in self.witnesses]


def parse_policy(text: str) -> Policy:
    """A policy file: ``witness VKEY URL`` lines (URL optional for a reader who only checks) and
    one ``quorum N`` line; blank lines and ``#`` comments skipped."""
    witnesses: list[WitnessAt] = []
    quorum: int | None = None
    for n, raw in enumerate(text.splitlines(), start=1):
        words = raw.split()
        if not words or words[0].startswith("#"):
            continue
        try:
            if words[0] == "witness" and len(words) in (2, 3):
                verifier = parse_vkey(words[1])
                if verifier.kind != COSIGNATURE_V1:
                    raise NoteError("a witness's key is a cosignature key (type 0x04)")
                witnesses.append(WitnessAt(verifier, words[2] if len(words) == 3 else ""))
            elif words[0] == "quorum" and len(words) == 2 and whole_number(words[1]) is not None:
                quorum = whole_number(words[1]) or 0
            else:
                raise NoteError("expected 'witness VKEY [URL]' or 'quorum N'")
        except NoteError as e:
            raise WitnessError(f"policy line {n}: {e}") from None
    names = [w.verifier.name for w in witnesses]
    if len(set(names)) != len(names):
        raise WitnessError("policy: each witness once")
    if quorum is None or not 1 <= quorum <= len(witnesses):
        raise WitnessError(
            f"policy: expected 'quorum N' with N from 1 to its {len(witnesses)} witness(es)"
        )
    return Policy(tuple(witnesses), quorum)


Post = Callable[[str, bytes], tuple[int, bytes]]


def http_post(url: str, body: bytes) -> tuple[int, bytes]:
    """POST ``body`` to ``url``: the status and body of the answer (urllib, no redirects)."""
    request = urllib.request.Request(url, data=body, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status), bytes(answer.read(MAX_REQUEST_BYTES))
    except urllib.error.HTTPError as e:
        return int(e.code), bytes(e.read(MAX_REQUEST_BYTES))


@dataclass
class WitnessedRoot:
    """A checkpoint of the tournament's tree and what each witness said of it."""

    checkpoint: Checkpoint
    note: Note  # the log's signature and every cosignature that holds
    said: dict[str, str] = field(default_factory=dict)  # witness -> "cosigned" or why not


def _request(old: int, proof: Sequence[bytes], note: Note) -> bytes:
    lines = [f"old {old}", *(base64.b64encode(p).decode() for p in proof)]
    return ("\n".join(lines) + "\n\n" + note.text()).encode()


def _ask(witness: WitnessAt, note: Note, leaves: Sequence[bytes], post: Post) -> str | Note:
    """One witness's cosignature on ``note`` (a Note with it added), or why there is none.
    The size it last cosigned is learnt from its 409 (the specification's way), then asked."""
    old = 0
    for _ in range(2):
        proof = consistency_proof(old, leaves) if old else []
        try:
            status, body = post(
                witness.url.rstrip("/") + "/add-checkpoint", _request(old, proof, note)
            )
        except (OSError, ValueError) as e:
            return f"not reached ({e})"
        text = body.decode("utf-8", "replace").strip()
        size = whole_number(text)
        if status == 409 and size is not None and size != old and size <= len(leaves):
            old = size
            continue
        if status != 200:
            return f"refused ({status}: {text[:200]})"
        try:
            lines = [parse_signature_line(x) for x in text.splitlines()]
        except NoteError as e:
            return f"answered no cosignature ({e})"
        cosigned = Note(note.body, note.signatures + tuple(lines))
        if signed_by(cosigned, witness.verifier) is None:
            return "answered a cosignature that does not hold"
        return cosigned
    return f"refused (its last cosigned size is past this tree's {len(leaves)})"


def publish_root(
    heads: Sequence[Head],
    origin: str,
    key: Ed25519PrivateKey,
    policy: Policy,
    post: Post = http_post,
) -> WitnessedRoot:
    """The tournament's checkpoint over ``heads``, signed with the log ``key`` under ``origin``
    and shown to every witness of ``policy``; WitnessError (naming what each witness said)
    unless the quorum cosigned it. The server calls this where it publishes a round's root."""
    leaves = [h.leaf() for h in heads]
    checkpoint = Checkpoint(origin=origin, size=len(leaves), root=root(leaves))
    signed = sign_checkpoint(checkpoint, origin, key)
    result = WitnessedRoot(checkpoint, signed)
    for witness in policy.witnesses:
        got = _ask(witness, signed, leaves, post)
        if isinstance(got, str):
            result.said[witness.verifier.name] = got
            continue
        result.said[witness.verifier.name] = "cosigned"
        mine = [s for s in got.signatures if s.name == witness.verifier.name]
        result.note = Note(result.note.body, result.note.signatures + tuple(mine))
    count = len(cosigners(result.note, policy.verifiers()))
    if count < policy.quorum:
        raise WitnessError(
            f"the root of {checkpoint.size} battles is not published: {count} of the "
            f"{policy.quorum} cosignatures the policy needs ("
            + "; ".join(f"{name}: {said}" for name, said in result.said.items())
            + ")"
        )
    return result


def check_witnessed(note_text: str, log: Verifier, policy: Policy) -> Checkpoint:
    """A cosigned checkpoint as a reader checks it: the log's signature, then the policy's
    quorum of cosignatures. WitnessError saying which is missing."""
    try:
        note = parse_note(note_text)
        checkpoint = parse_checkpoint(note.body)
    except NoteError as e:
        raise WitnessError(f"checkpoint: {e}") from None
    if checkpoint.origin != log.name or signed_by(note, log) is None:
        raise WitnessError(f"checkpoint: no signature of the log {log.name} holds")
    names = cosigners(note, policy.verifiers())
    if len(names) < policy.quorum:
        raise WitnessError(
            f"checkpoint: cosigned by {len(names)} of the policy's witnesses"
            f"{' (' + ', '.join(names) + ')' if names else ''}, {policy.quorum} needed"
        )
    return checkpoint
