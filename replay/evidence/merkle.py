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
from typing import TypeVar
from uuid import UUID

import msgspec

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.store.log import BattleStore

_T = TypeVar("_T")

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


# --- a tournament's tree: one leaf per battle, at its head -------------------------------------

ROOT_ALGORITHM = "bxb-root-v1"


class Head(msgspec.Struct, frozen=True, kw_only=True):
    """A battle at its head: a leaf of the tournament's tree."""

    battle: str
    events: int
    head: str  # hex of the chain hash of its last event

    def leaf(self) -> bytes:
        """The leaf hash: ``leaf_hash(head_leaf(...))``."""
        try:
            battle, head = UUID(self.battle), bytes.fromhex(self.head)
        except ValueError:
            raise MerkleError(f"leaf {self.battle!r}: not a battle id and a hex head") from None
        if not 0 < self.events < 2**63:
            raise MerkleError(f"leaf {self.battle}: {self.events} is not a number of events")
        return leaf_hash(head_leaf(battle, self.events, head))


class TreeHead(msgspec.Struct, frozen=True, kw_only=True):
    """A published root: the tree's size and root, with the leaves it was made of (kept by
    whoever publishes it, so a later check can name the leaves that changed)."""

    algorithm: str = ROOT_ALGORITHM
    size: int
    root: str  # hex
    leaves: list[Head] = msgspec.field(default_factory=list)

    def line(self) -> str:
        """The one line to publish: algorithm, size, root."""
        return f"{self.algorithm} {self.size} {self.root}"


class InclusionProof(msgspec.Struct, frozen=True, kw_only=True):
    """A battle's head is leaf ``index`` of the tree of ``size`` whose root is ``root``."""

    kind: str = "inclusion"
    algorithm: str = ROOT_ALGORITHM
    size: int
    root: str
    index: int
    leaf: Head
    path: list[str]


class ConsistencyProof(msgspec.Struct, frozen=True, kw_only=True):
    """The tree of ``size1`` (root ``root1``) is the first ``size1`` leaves of the tree of
    ``size2`` (root ``root2``): nothing published before was changed or removed."""

    kind: str = "consistency"
    algorithm: str = ROOT_ALGORITHM
    size1: int
    root1: str
    size2: int
    root2: str
    path: list[str]


def battle_heads(store: BattleStore, battles: Sequence[UUID] | None = None) -> list[Head]:
    """The head of each battle named (default: every battle in the store, in the order they
    were recorded). Raises UnreadableEvent when a battle's last record cannot be read."""
    heads: list[Head] = []
    for battle in battles if battles is not None else [b.battle for b in store.battles()]:
        last = store.last(battle)
        if last is None:
            raise MerkleError(f"no battle {battle} in this store")
        heads.append(Head(battle=str(battle), events=last.position, head=last.hash.hex()))
    return heads


def tree_head(heads: Sequence[Head]) -> TreeHead:
    return TreeHead(size=len(heads), root=root([h.leaf() for h in heads]).hex(), leaves=list(heads))


def prove_inclusion(heads: Sequence[Head], battle: UUID) -> InclusionProof:
    found = [i for i, h in enumerate(heads) if h.battle == str(battle)]
    if not found:
        raise MerkleError(f"battle {battle} is not one of the tree's {len(heads)} battles")
    leaves = [h.leaf() for h in heads]
    return InclusionProof(
        size=len(heads),
        root=root(leaves).hex(),
        index=found[0],
        leaf=heads[found[0]],
        path=[p.hex() for p in inclusion_proof(found[0], leaves)],
    )


def prove_consistency(heads: Sequence[Head], published: TreeHead) -> ConsistencyProof:
    """The proof that ``published`` is a prefix of the tree of ``heads``. Raises MerkleError,
    naming what changed when ``published`` lists its leaves, if the store no longer gives it."""
    if published.size < 1:
        raise MerkleError("a published tree of 0 battles commits to nothing")
    if published.size > len(heads):
        raise MerkleError(
            f"the published tree has {published.size} battles, the store's tree {len(heads)}: "
            f"battles were deleted since it was published{_changes(heads, published)}"
        )
    leaves = [h.leaf() for h in heads]
    earlier = root(leaves[: published.size]).hex()
    if earlier != published.root:
        raise MerkleError(
            f"the store's first {published.size} battles no longer give the published root "
            f"{published.root[:16]}… (they give {earlier[:16]}…){_changes(heads, published)}"
        )
    return ConsistencyProof(
        size1=published.size,
        root1=published.root,
        size2=len(heads),
        root2=root(leaves).hex(),
        path=[p.hex() for p in consistency_proof(published.size, leaves)],
    )


def _changes(heads: Sequence[Head], published: TreeHead) -> str:
    now = {h.battle: h for h in heads}
    changed: list[str] = []
    for i, then in enumerate(published.leaves):
        h = now.get(then.battle)
        if h is None:
            changed.append(f"battle {then.battle} (leaf {i}) is not in the store any more")
        elif h != then:
            changed.append(
                f"battle {then.battle} (leaf {i}) had {then.events} events with head "
                f"{then.head[:16]}…, now {h.events} with head {h.head[:16]}…"
            )
        elif i >= len(heads) or heads[i].battle != then.battle:
            changed.append(f"battle {then.battle} is no longer leaf {i}")
    return "".join(f"; {c}" for c in changed)


def _decode(text: str, kind: type[_T], what: str) -> _T:
    try:
        return msgspec.json.decode(text, type=kind)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as e:
        raise MerkleError(f"not {what}: {e}") from None


def parse_tree_head(text: str) -> TreeHead:
    """A published root: its line (``bxb-root-v1 SIZE ROOT``, or just ``SIZE ROOT``) or the
    JSON ``bxb root --json`` printed (with its leaves)."""
    text = text.strip()
    if text.startswith("{"):
        published = _decode(text, TreeHead, "a published root")
        if published.leaves and tree_head(published.leaves) != published:
            raise MerkleError("the published leaves do not give the published size and root")
    else:
        parts = text.split()
        if parts and parts[0] == ROOT_ALGORITHM:
            parts = parts[1:]
        if len(parts) != 2 or not (parts[0].isascii() and parts[0].isdigit()) or len(parts[0]) > 18:
            raise MerkleError(
                f"expected a published root, '{ROOT_ALGORITHM} SIZE ROOT', not {text[:80]!r}"
            )
        published = TreeHead(size=int(parts[0]), root=parts[1].lower())
    if published.algorithm != ROOT_ALGORITHM:
        raise MerkleError(f"expected a {ROOT_ALGORITHM} root, not {published.algorithm!r}")
    _hashes([published.root], "root")
    return published


def _hashes(values: Sequence[str], what: str) -> list[bytes]:
    out: list[bytes] = []
    for v in values:
        try:
            raw = bytes.fromhex(v)
        except ValueError:
            raw = b""
        if len(raw) != HASH_SIZE:
            raise MerkleError(f"{what}: expected {HASH_SIZE * 2} hex digits, not {v[:80]!r}")
        out.append(raw)
    return out


def check_proof(text: str, published: TreeHead | None = None) -> str:
    """Check a kept proof (the JSON ``bxb root --proof`` or ``--since`` printed), with no store:
    what it proves, in words; MerkleError if it does not hold. ``published``: the root it must
    be against (an inclusion proof's root, a consistency proof's later root)."""
    kind = _decode(text, _Kind, "a proof").kind
    if kind == "inclusion":
        inc = _decode(text, InclusionProof, "an inclusion proof")
        verify_inclusion(
            inc.leaf.leaf(),
            inc.index,
            inc.size,
            _hashes(inc.path, "path"),
            *_hashes([inc.root], "root"),
        )
        _against(published, inc.size, inc.root)
        return (
            f"battle {inc.leaf.battle} with {inc.leaf.events} events (head {inc.leaf.head[:16]}…) "
            f"is leaf {inc.index} of the tree of {inc.size} battles with root {inc.root}"
        )
    if kind == "consistency":
        con = _decode(text, ConsistencyProof, "a consistency proof")
        verify_consistency(
            con.size1,
            con.size2,
            _hashes(con.path, "path"),
            *_hashes([con.root1, con.root2], "root"),
        )
        _against(published, con.size2, con.root2)
        return (
            f"the tree of {con.size1} battles with root {con.root1} is the first {con.size1} "
            f"of the tree of {con.size2} with root {con.root2}: nothing in it changed"
        )
    raise MerkleError(f"expected an inclusion or a consistency proof, not {kind!r}")


class _Kind(msgspec.Struct):
    kind: str


def _against(published: TreeHead | None, size: int, root_hex: str) -> None:
    if published is not None and (published.size, published.root) != (size, root_hex):
        raise MerkleError(
            f"the proof is for the tree of {size} with root {root_hex[:16]}…, not the published "
            f"tree of {published.size} with root {published.root[:16]}…"
        )
