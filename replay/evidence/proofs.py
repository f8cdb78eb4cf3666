"""Witnessed receipts: a battle's head proven to be in a round's root that the witnesses cosigned,
as one text a table keeps and anyone checks with no store (C2SP ``tlog-proof``, "a transparent
signature"): the line ``c2sp.org/tlog-proof@v1``, ``extra`` and the battle's leaf in base64
(``bxb-head-v1``: battle id, number of events, last chain hash, ``merkle.head_leaf``), ``index``
and the battle's place in the tree, the inclusion proof's hashes in base64 one a line (RFC 9162
§2.1.3, from the leaf's sibling up), an empty line, then the cosigned checkpoint verbatim.

A plain receipt (``receipts.py``) is the organiser's own signature: it proves what the log held to
whoever trusts that key. A witnessed receipt adds that the head was in a root the policy's quorum
of witnesses cosigned, each having checked that root consistent with every earlier one of the
tournament: an organiser who later shows another root, or a rewritten log, to someone else is
caught by whoever holds the witnessed receipt (docs/judging.md, Roots that others witness).

Written by hand as ``notes.py`` is, for the same reason: no well-kept Python implementation of
these formats is on the package index this project installs from."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import TYPE_CHECKING
from uuid import UUID

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.evidence.merkle import (
    HASH_SIZE,
    HEAD_ALGORITHM,
    Head,
    MerkleError,
    inclusion_proof,
    leaf_hash,
    root,
    verify_inclusion,
)
from blowbyblow.replay.evidence.notes import (
    Checkpoint,
    Note,
    NoteError,
    Verifier,
    cosigners,
    parse_checkpoint,
    parse_note,
    signed_by,
)

if TYPE_CHECKING:
    from blowbyblow.replay.evidence.witness import Policy

PROOF_HEADER = "c2sp.org/tlog-proof@v1"
MAX_PROOF_HASHES = 63  # a tree of up to 2^63 leaves
_LEAF_SIZE = len(HEAD_ALGORITHM) + 1 + 16 + 8 + HASH_SIZE


class ProofError(BlowByBlowError):
    pass


@dataclass(frozen=True)
class WitnessedReceipt:
    """A battle's head (``battle``, ``position``: its number of events, ``head``: the chain hash
    there) as leaf ``index`` of the checkpoint ``note`` (the log's signature and the witnesses'
    cosignatures), with the inclusion ``proof``."""

    battle: str
    position: int
    head: str  # hex
    index: int
    proof: tuple[bytes, ...]
    note: Note
    checkpoint: Checkpoint

    @property
    def leaf(self) -> bytes:
        return _leaf_data(self.battle, self.position, self.head)

    def text(self) -> str:
        lines = [
            PROOF_HEADER,
            "extra " + base64.b64encode(self.leaf).decode(),
            f"index {self.index}",
            *(base64.b64encode(p).decode() for p in self.proof),
        ]
        return "\n".join(lines) + "\n\n" + self.note.text()


def _leaf_data(battle: str, position: int, head: str) -> bytes:
    return (
        HEAD_ALGORITHM.encode()
        + b"\x00"
        + UUID(battle).bytes
        + position.to_bytes(8, "big")
        + bytes.fromhex(head)
    )


def witnessed_receipt(heads: list[Head], battle: UUID, note: Note) -> WitnessedReceipt:
    """The witnessed receipt of ``battle`` in the checkpoint ``note`` made over ``heads`` (the
    tree the round's root was published over). ProofError when the battle is not one of them or
    the note is not a checkpoint of that tree."""
    checkpoint = _checkpoint(note)
    leaves = [h.leaf() for h in heads]
    if checkpoint.size != len(heads) or checkpoint.root != root(leaves):
        raise ProofError(
            f"the checkpoint is of a tree of {checkpoint.size} battles, not of these {len(heads)}"
        )
    found = [i for i, h in enumerate(heads) if h.battle == str(battle)]
    if not found:
        raise ProofError(f"battle {battle} is not one of the checkpoint's {len(heads)} battles")
    head = heads[found[0]]
    return WitnessedReceipt(
        battle=head.battle,
        position=head.events,
        head=head.head,
        index=found[0],
        proof=tuple(inclusion_proof(found[0], leaves)),
        note=note,
        checkpoint=checkpoint,
    )


def _checkpoint(note: Note) -> Checkpoint:
    try:
        return parse_checkpoint(note.body)
    except NoteError as e:
        raise ProofError(f"checkpoint: {e}") from None


def is_witnessed_receipt(text: str) -> bool:
    return text.lstrip("\ufeff").startswith(PROOF_HEADER + "\n")


def parse_witnessed_receipt(text: str) -> WitnessedReceipt:
    """A witnessed receipt as ``WitnessedReceipt.text`` writes it; ProofError naming what is
    malformed. Nothing is trusted yet: ``check_witnessed_receipt`` does that."""
    head, sep, rest = text.lstrip("\ufeff").partition("\n\n")
    lines = head.split("\n")
    if not sep or lines[0] != PROOF_HEADER:
        raise ProofError(f"expected '{PROOF_HEADER}', its lines, an empty line, a checkpoint")
    if len(lines) < 3 or not lines[1].startswith("extra ") or not lines[2].startswith("index "):
        raise ProofError(
            "a witnessed receipt's second line is 'extra' and the battle's leaf, its third "
            "'index' and the battle's place in the tree"
        )
    leaf = _b64(lines[1][6:], "extra")
    if len(leaf) != _LEAF_SIZE or not leaf.startswith(HEAD_ALGORITHM.encode() + b"\x00"):
        raise ProofError(f"extra: expected a battle's {HEAD_ALGORITHM} leaf")
    index = lines[2][6:]
    if (
        not (index.isascii() and index.isdigit())
        or (index != "0" and index.startswith("0"))
        or len(index) > 19
    ):
        raise ProofError(f"index: expected a decimal number, not {index[:40]!r}")
    if len(lines) - 3 > MAX_PROOF_HASHES:
        raise ProofError(f"at most {MAX_PROOF_HASHES} proof lines")
    proof = tuple(_b64(line, "proof line") for line in lines[3:])
    if any(len(p) != HASH_SIZE for p in proof):
        raise ProofError(f"each proof line is a {HASH_SIZE}-byte hash in base64")
    try:
        note = parse_note(rest)
    except NoteError as e:
        raise ProofError(f"checkpoint: {e}") from None
    start = len(HEAD_ALGORITHM) + 1
    position = int.from_bytes(leaf[start + 16 : start + 24], "big")
    if not 0 < position < 2**63:
        raise ProofError(f"extra: {position} is not a number of events")
    return WitnessedReceipt(
        battle=str(UUID(bytes=leaf[start : start + 16])),
        position=position,
        head=leaf[start + 24 :].hex(),
        index=int(index),
        proof=proof,
        note=note,
        checkpoint=_checkpoint(note),
    )


def _b64(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error:
        raise ProofError(f"{what}: not base64: {text[:60]!r}") from None


def witness_problem(receipt: WitnessedReceipt, log: Verifier, policy: Policy) -> tuple[str, str]:
    """What ``receipt`` proves to whoever trusts the ``log`` key and the witness ``policy``: its
    verdict (``cosigned``; ``forged`` when the log's signature or the inclusion proof does not
    hold; ``unwitnessed`` when fewer than the policy's quorum of witnesses cosigned) and why."""
    cp = receipt.checkpoint
    if cp.origin != log.name or signed_by(receipt.note, log) is None:
        return "forged", f"no signature of the log {log.name} holds on its checkpoint"
    names = cosigners(receipt.note, policy.verifiers())
    if len(names) < policy.quorum:
        return "unwitnessed", (
            f"its checkpoint is cosigned by {len(names)} of the policy's witnesses"
            f"{' (' + ', '.join(names) + ')' if names else ''}, {policy.quorum} needed: "
            "it proves no more than the organiser's word"
        )
    try:
        verify_inclusion(leaf_hash(receipt.leaf), receipt.index, cp.size, receipt.proof, cp.root)
    except MerkleError as e:
        return "forged", f"the battle's head is not in the checkpoint's root: {e}"
    return "cosigned", (
        f"in the root of {cp.size} battles of {cp.origin} cosigned by {', '.join(names)}"
    )


__all__ = [
    "PROOF_HEADER",
    "ProofError",
    "WitnessedReceipt",
    "is_witnessed_receipt",
    "parse_witnessed_receipt",
    "witness_problem",
    "witnessed_receipt",
]
