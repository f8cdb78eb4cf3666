"""The tournament Merkle tree against RFC 6962 / RFC 9162 test vectors.

``rfc6962_vectors.json`` holds the inclusion and consistency probes of transparency-dev/merkle
(``testdata/inclusion``, ``testdata/consistency``; Apache-2.0, its ``source`` field names the
commit): happy paths and their mutations (a bit flipped, a hash added or dropped, sizes
changed...), each saying whether verification must fail. The roots are those of
``testonly/constants.go``, the reference tree of RFC 6962's test data."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blowbyblow.replay.evidence.merkle import (
    MerkleError,
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    root,
    verify_consistency,
    verify_inclusion,
)

VECTORS = json.loads((Path(__file__).parent / "rfc6962_vectors.json").read_text())

# The reference tree's leaf inputs and the root of each of its first n leaves, n = 0..8.
LEAF_INPUTS = [
    "",
    "00",
    "10",
    "2021",
    "3031",
    "40414243",
    "5051525354555657",
    "606162636465666768696a6b6c6d6e6f",
]
ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
LEAVES = [leaf_hash(bytes.fromhex(x)) for x in LEAF_INPUTS]


def _b(text: str | None) -> bytes:
    return base64.b64decode(text or "")


def _proof(probe: dict[str, Any]) -> list[bytes]:
    return [_b(h) for h in probe["proof"] or []]


@pytest.mark.parametrize("n", range(9))
def test_roots_of_the_reference_tree(n: int) -> None:
    assert root(LEAVES[:n]).hex() == ROOTS[n]


@pytest.mark.parametrize("probe", VECTORS["inclusion"], ids=lambda p: p["file"])
def test_inclusion_vectors(probe: dict[str, Any]) -> None:
    def check() -> None:
        verify_inclusion(
            _b(probe["leafHash"]),
            probe["leafIdx"],
            probe["treeSize"],
            _proof(probe),
            _b(probe["root"]),
        )

    if probe["wantErr"]:
        with pytest.raises(MerkleError):
            check()
    else:
        check()


@pytest.mark.parametrize("probe", VECTORS["consistency"], ids=lambda p: p["file"])
def test_consistency_vectors(probe: dict[str, Any]) -> None:
    def check() -> None:
        verify_consistency(
            probe["size1"], probe["size2"], _proof(probe), _b(probe["root1"]), _b(probe["root2"])
        )

    if probe["wantErr"]:
        with pytest.raises(MerkleError):
            check()
    else:
        check()


HAPPY = [p for p in VECTORS["inclusion"] + VECTORS["consistency"] if p["desc"] == "happy path"]


@pytest.mark.parametrize("probe", HAPPY, ids=lambda p: p["file"])
def test_proofs_generated_are_the_vectors(probe: dict[str, Any]) -> None:
    """Every happy-path probe is over the reference tree: our proofs are those proofs."""
    if "leafIdx" in probe:
        size = probe["treeSize"]
        assert _b(probe["root"]) == root(LEAVES[:size])
        assert inclusion_proof(probe["leafIdx"], LEAVES[:size]) == _proof(probe)
    else:
        size = probe["size2"]
        assert _b(probe["root2"]) == root(LEAVES[:size])
        assert consistency_proof(probe["size1"], LEAVES[:size]) == _proof(probe)


@settings(deadline=None)  # no timed assertion: the machine may be busy
@given(st.integers(1, 40), st.data())
def test_every_proof_verifies_and_no_flipped_bit_does(n: int, data: st.DataObject) -> None:
    leaves = [leaf_hash(i.to_bytes(2, "big")) for i in range(n)]
    top = root(leaves)
    index = data.draw(st.integers(0, n - 1))
    path = inclusion_proof(index, leaves)
    verify_inclusion(leaves[index], index, n, path, top)
    m = data.draw(st.integers(1, n))
    old = root(leaves[:m])
    proof = consistency_proof(m, leaves)
    verify_consistency(m, n, proof, old, top)
    for hashes, k in ((path, "inclusion"), (proof, "consistency")):
        if not hashes:
            continue
        i = data.draw(st.integers(0, len(hashes) - 1), label=k)
        bad = list(hashes)
        bad[i] = bytes([bad[i][0] ^ 1]) + bad[i][1:]
        with pytest.raises(MerkleError):
            if k == "inclusion":
                verify_inclusion(leaves[index], index, n, bad, top)
            else:
                verify_consistency(m, n, bad, old, top)


def test_a_changed_leaf_breaks_consistency_with_the_earlier_root() -> None:
    leaves = [leaf_hash(bytes([i])) for i in range(7)]
    published = root(leaves[:5])
    leaves[2] = leaf_hash(b"rewritten")
    with pytest.raises(MerkleError):
        verify_consistency(5, 7, consistency_proof(5, leaves), published, root(leaves))
