"""A Merkle tree over battles' heads, as RFC 9162 (Certificate Transparency 2.0) §2.1 defines it,
so that an organiser can publish one root per round that commits to every table's log.

Written by hand: the one maintained Python library found (pymerkle) is GPL-3.0-or-later, which
this MIT project cannot ship, and its proofs carry its own bracketing rules rather than RFC 9162's
plain audit paths. The tests check this module against the RFC 6962 / RFC 9162 test vectors of
transparency-dev/merkle.

- ``MTH({}) = SHA-256()``; a leaf hashes as ``SHA-256(0x00 ‖ leaf data)``; a node as
  ``SHA-256(0x01 ‖ left ‖ right)``; the tree of n > 1 leaves splits at k, the largest power of
  two smaller than n (§2.1.1).
- Inclusion proofs: ``inclusion_proof`` is PATH(m, D[n]) (§2.1.3.1), ``verify_inclusion`` the
  verification algorithm of §2.1.3.2.
- Consistency proofs: ``consistency_proof`` is PROOF(m, D[n]) (§2.1.4.1), ``verify_consistency``
  the verification algorithm of §2.1.4.2.

A battle's leaf (``head_leaf``) is ``"bxb-head-v1" 0x00 ‖ battle id (16 bytes) ‖ number of
events (8 bytes, big-endian) ‖ chain hash of the last of them (32 bytes)``: it commits to the
battle's whole log up to that head."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from uuid import UUID

from blowbyblow.domain.core import BlowByBlowError

HEAD_ALGORITHM = "bxb-head-v1"
HASH_SIZE = 32


class MerkleError(BlowByBlowError):
    pass


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def head_leaf(battle: UUID, events: int, head: bytes) -> bytes:
    """A battle's leaf data: its id, its number of events and the chain hash of the last."""
    if len(head) != HASH_SIZE:
        raise MerkleError(f"a head is {HASH_SIZE} bytes, not {len(head)}")
    return HEAD_ALGORITHM.encode() + b"\x00" + battle.bytes + events.to_bytes(8, "big") + head


def _split(n: int) -> int:
    """The largest power of two smaller than n (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


def root(leaves: Sequence[bytes]) -> bytes:
    """MTH over leaf hashes (``leaf_hash`` of each leaf's data)."""
    n = len(leaves)
    if n == 0:
        return hashlib.sha256(b"").digest()
    if n == 1:
        return leaves[0]
    k = _split(n)
    return node_hash(root(leaves[:k]), root(leaves[k:]))


def inclusion_proof(index: int, leaves: Sequence[bytes]) -> list[bytes]:
    """PATH(index, D[n]): the audit path of leaf ``index`` (from 0) in the tree of ``leaves``."""
    n = len(leaves)
    if not 0 <= index < n:
        raise MerkleError(f"leaf {index} is not in a tree of {n}")
    if n == 1:
        return []
    k = _split(n)
    if index < k:
        return [*inclusion_proof(index, leaves[:k]), root(leaves[k:])]
    return [*inclusion_proof(index - k, leaves[k:]), root(leaves[:k])]


def consistency_proof(size: int, leaves: Sequence[bytes]) -> list[bytes]:
    """PROOF(size, D[n]): that the tree of the first ``size`` leaves is a prefix of this one."""
    n = len(leaves)
    if not 0 < size <= n:
        raise MerkleError(f"a tree of {n} has no earlier tree of {size} to prove consistent with")
    if size == n:
        return []
    return _subproof(size, leaves, True)


def _subproof(m: int, leaves: Sequence[bytes], whole: bool) -> list[bytes]:
    n = len(leaves)
    if m == n:
        return [] if whole else [root(leaves)]
    k = _split(n)
    if m <= k:
        return [*_subproof(m, leaves[:k], whole), root(leaves[k:])]
    return [*_subproof(m - k, leaves[k:], False), root(leaves[:k])]


def _fail(message: str) -> None:
    raise MerkleError(message)


def _check_sizes(*hashes: bytes) -> None:
    if any(len(h) != HASH_SIZE for h in hashes):
        _fail(f"every hash of a proof and a leaf hash is {HASH_SIZE} bytes")


def verify_inclusion(
    leaf: bytes, index: int, size: int, proof: Sequence[bytes], expected_root: bytes
) -> None:
    """RFC 9162 §2.1.3.2: raise MerkleError unless ``proof`` shows that the leaf hash ``leaf``
    is leaf ``index`` of the tree of ``size`` whose root is ``expected_root``."""
    if not 0 <= index < size:
        _fail(f"leaf {index} is not in a tree of {size}")
    _check_sizes(leaf, *proof)
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            _fail("the proof is longer than the tree is deep")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        _fail("the proof is shorter than the tree is deep")
    if r != expected_root:
        _fail("the proof leads to another root")


def verify_consistency(
    size1: int, size2: int, proof: Sequence[bytes], root1: bytes, root2: bytes
) -> None:
    """RFC 9162 §2.1.4.2: raise MerkleError unless ``proof`` shows that the tree of ``size1``
    with root ``root1`` is the first ``size1`` leaves of the tree of ``size2`` with ``root2``.
    A proof from the empty tree proves nothing and is refused, as transparency-dev/merkle does."""
    if not 0 < size1 <= size2:
        _fail(f"a tree of {size1} cannot be an earlier version of a tree of {size2}")
    _check_sizes(*proof)
    if size1 == size2:
        if proof:
            _fail("trees of the same size need an empty proof")
        if root1 != root2:
            _fail("two trees of the same size with different roots")
        return
    if not proof:
        _fail("the proof is empty")
    path = list(proof)
    if size1 & (size1 - 1) == 0:  # an exact power of two: the old root is a node of the new tree
        path.insert(0, root1)
    fn, sn = size1 - 1, size2 - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            _fail("the proof is longer than the tree is deep")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        _fail("the proof is shorter than the tree is deep")
    if fr != root1:
        _fail("the proof does not lead to the earlier root")
    if sr != root2:
        _fail("the proof does not lead to the later root")
