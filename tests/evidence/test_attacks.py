"""Attack 2 of the audit: against a player who can write the store file, the hash chain alone is
no evidence (anyone can recompute plain SHA-256). Each attack below is carried out in full (the
battle re-adjudicated where the rules ask it, every hash recomputed), verify is shown to pass
where it cannot tell, and the layer that does catch it is named: the receipts handed to the
table after every command, the seal (and its record), or the tournament's published root.
docs/store.md lists the same table."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from blowbyblow.domain.core import BattleStarted, CommandIssued
from blowbyblow.replay.battles.record import Recorded, seal_battle
from blowbyblow.replay.evidence.merkle import (
    MerkleError,
    TreeHead,
    battle_heads,
    check_proof,
    prove_consistency,
    prove_inclusion,
    tree_head,
)
from blowbyblow.replay.evidence.receipts import Receipt, check_receipts, sign_receipt
from blowbyblow.replay.evidence.seals import load_private_key, new_keys
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore, battle_id_for, seal_id

from bxbtest import record_demo, tamper
from evidence_helpers import delete_rows, first_that_plays, receipts_per_command, rewrite

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


@dataclass
class Tournament:
    db: Path
    table: Recorded  # the battle the attacks are made on: physical dice, eight commands
    other: Recorded  # another table's battle, left alone
    receipts: list[Receipt]  # handed to the table after every command
    published: TreeHead  # the round's root, published when both battles were played


@pytest.fixture(name="t")
def tournament(tmp_path: Path) -> Tournament:
    db = tmp_path / "t.sqlite"
    store = BattleStore(db)
    table = record_demo(store, "wh40k-2e")
    other = record_demo(store, "necromunda-2023")
    return Tournament(
        db=db,
        table=table,
        other=other,
        receipts=receipts_per_command(KEY, table.battle, table.events),
        published=tree_head(battle_heads(store)),
    )


def _verify_passes(t: Tournament) -> BattleStore:
    store = BattleStore(t.db)
    for battle in store.battles():
        report = verify_battle(store, battle.battle)
        assert report.ok, report.problem
    return store


def _receipts_catch(store: BattleStore, t: Tournament, verdict: str) -> None:
    report = check_receipts(store, t.receipts)
    assert not report.ok
    assert verdict in {c.verdict for c in report.failed}, report.failed


def _root_catches(store: BattleStore, t: Tournament) -> None:
    with pytest.raises(MerkleError, match=str(t.table.battle)):
        prove_consistency(battle_heads(store), t.published)


def _times(t: Tournament, n: int) -> list[str]:
    times = [e.recorded_at for e in t.table.events]
    return (times * 2)[:n]


def test_deleting_the_last_command_is_caught_by_a_receipt_and_the_root(t: Tournament) -> None:
    last = max(e.position for e in t.table.events if isinstance(e.event, CommandIssued))
    delete_rows(t.db, t.table.battle, after=last - 1)
    store = _verify_passes(t)
    _receipts_catch(store, t, "truncated")
    _root_catches(store, t)


def test_changing_a_physical_die_is_caught_by_a_receipt(t: Tournament) -> None:
    demo = t.table.ruleset.demo()
    assert demo.dice is not None
    variants = [
        msgspec.structs.replace(
            demo, dice=[*demo.dice[:i], demo.dice[i] % 6 + 1, *demo.dice[i + 1 :]]
        )
        for i in range(len(demo.dice))
    ]
    _, events = first_that_plays(variants, lambda p: p.events != [e.event for e in t.table.events])
    first = events[0]
    assert isinstance(first, BattleStarted)
    assert battle_id_for(first) == t.table.battle  # the same battle, as far as its id goes
    rewrite(t.db, t.table.battle, events, _times(t, len(events)))
    store = _verify_passes(t)
    _receipts_catch(store, t, "rewritten")
    _root_catches(store, t)


def test_deleting_a_middle_command_is_caught_by_a_receipt(t: Tournament) -> None:
    demo = t.table.ruleset.demo()
    assert demo.dice is not None
    n = len(demo.commands)
    variants = [
        msgspec.structs.replace(
            demo, commands=[*demo.commands[:k], *demo.commands[k + 1 :]], dice=list(demo.dice) * 2
        )
        for k in range(1, n - 1)
    ]
    _, events = first_that_plays(variants)
    assert sum(isinstance(e, CommandIssued) for e in events) == n - 1
    rewrite(t.db, t.table.battle, events, _times(t, len(events)))
    store = _verify_passes(t)
    _receipts_catch(store, t, "rewritten")
    _root_catches(store, t)


def test_rewriting_times_is_caught_by_a_receipt(t: Tournament) -> None:
    events = [e.event for e in t.table.events]
    rewrite(t.db, t.table.battle, events, ["2020-01-01T00:00:00.000+00:00"] * len(events))
    store = _verify_passes(t)  # times are evidence, but verify never compares them
    _receipts_catch(store, t, "rewritten")
    _root_catches(store, t)


def test_deleting_a_whole_battle_is_caught_by_the_published_root(t: Tournament) -> None:
    store = BattleStore(t.db)
    kept = prove_inclusion(battle_heads(store), t.table.battle)  # handed to the table
    kept_json = msgspec.json.encode(kept).decode()
    delete_rows(t.db, t.table.battle)
    store = _verify_passes(t)
    assert [b.battle for b in store.battles()] == [t.other.battle]
    _root_catches(store, t)
    # The table's proof still shows their battle, at that head, was in the published root.
    assert str(t.table.battle) in check_proof(kept_json, t.published)
    _receipts_catch(store, t, "missing")


def test_deleting_a_sealed_battles_seal_and_seal_record_is_caught_by_a_receipt(
    t: Tournament, tmp_path: Path
) -> None:
    key = load_private_key(new_keys(tmp_path / "keys")[0])
    sealed = seal_battle(BattleStore(t.db), t.table.battle, key)
    t.receipts.append(sign_receipt(KEY, t.table.battle, sealed))
    delete_rows(t.db, t.table.battle, after=sealed.position - 1)
    report = verify_battle(BattleStore(t.db), t.table.battle)
    assert report.problem is not None and report.problem.kind == "seal"  # the seal record
    # ... and with the seal record deleted too, the battle looks unsealed and verifies:
    con = sqlite3.connect(t.db)
    con.execute("delete from stored_events where originator_id=?", (seal_id(t.table.battle).hex,))
    con.commit()
    con.close()
    store = _verify_passes(t)
    _receipts_catch(store, t, "truncated")


def test_an_edit_without_recomputing_the_chain_is_caught_by_verify(t: Tournament) -> None:
    k = next(e.position for e in t.table.events if e.position > 10)

    def edit(event: dict[str, object]) -> None:
        event["label"] = "edited"  # any field: the hash no longer matches
        if "values" in event:
            event["values"] = [1] * len(event["values"])  # type: ignore[arg-type]

    tamper(str(t.db), str(t.table.battle), k, edit)
    report = verify_battle(BattleStore(t.db), t.table.battle)
    assert report.problem is not None and report.problem.kind in ("chain", "unreadable")


def test_the_round_root_is_consistent_with_the_next_round_when_nothing_changed(
    t: Tournament,
) -> None:
    store = BattleStore(t.db)
    record_demo(store, "asl")  # round 2 adds a battle
    proof = prove_consistency(battle_heads(store), t.published)
    assert (proof.size1, proof.size2) == (2, 3)
    assert "nothing in it changed" in check_proof(msgspec.json.encode(proof).decode())
