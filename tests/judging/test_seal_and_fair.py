"""Seals catch truncation; fair dice verify from an export and a public key alone."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.core import BattleStarted, DiceRolled
from blowbyblow.domain.judging import BattleSealed
from blowbyblow.replay.battles.record import record, seal_battle
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.evidence.export import export_battle, read_export
from blowbyblow.replay.evidence.fairness import FairTerms
from blowbyblow.replay.evidence.seals import (
    JudgingError,
    KeyFiles,
    load_private_key,
    new_keys,
    public_hex,
)
from blowbyblow.replay.evidence.verify import verify_battle, verify_events
from blowbyblow.replay.store.log import BattleStore, StoreError, chain

from bxbtest import RULESET_IDS, record_demo

runner = CliRunner()


@pytest.fixture
def key_files(tmp_path: Path) -> KeyFiles:
    return new_keys(tmp_path / "keys")


def test_a_sealed_battle_verifies_and_takes_no_more_events(
    tmp_path: Path, key_files: KeyFiles
) -> None:
    store = BattleStore(tmp_path / "b.sqlite")
    rec = record_demo(store, RULESET_IDS[0])
    key = load_private_key(key_files[0])
    sealed = seal_battle(store, rec.battle, key)
    assert isinstance(sealed.event, BattleSealed)
    assert sealed.event.checkpoint.length == len(rec.events)
    report = verify_battle(store, rec.battle, trusted_keys=frozenset({public_hex(key)}))
    assert report.ok, report.problem
    with pytest.raises(StoreError, match="sealed"):
        store.append(rec.battle, rec.ruleset.id, sealed.position, [rec.events[-1].event])
    with pytest.raises(JudgingError, match="sealed already"):
        seal_battle(store, rec.battle, key)
    other = new_keys(tmp_path / "other")[0]
    report = verify_battle(
        store, rec.battle, trusted_keys=frozenset({public_hex(load_private_key(other))})
    )
    assert not report.ok and "not a key you trust" in report.problem.message  # type: ignore[union-attr]


@pytest.mark.parametrize("keep", [0, 1, 5, -1])
def test_deleting_trailing_events_of_a_sealed_battle_is_caught(
    tmp_path: Path, key_files: KeyFiles, keep: int
) -> None:
    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    rec = record_demo(store, RULESET_IDS[0])
    seal_battle(store, rec.battle, load_private_key(key_files[0]))
    total = store.version(rec.battle)
    keep_n = total + keep if keep < 0 else keep
    con = sqlite3.connect(db)
    con.execute(
        "delete from stored_events where originator_id=? and originator_version>?",
        (rec.battle.hex, keep_n),
    )
    con.commit()
    con.close()
    report = verify_battle(BattleStore(db), rec.battle)
    assert not report.ok
    assert report.problem is not None and report.problem.kind == "seal", report.problem


def test_fair_battle_verifies_from_its_export_and_public_key_alone(
    tmp_path: Path, key_files: KeyFiles
) -> None:
    store = BattleStore(tmp_path / "b.sqlite")
    # The Necromunda 2023 demo's first command, a charge, is legal whatever the dice.
    demo = get_game_system("necromunda-2023").demo()
    demo = msgspec.structs.replace(demo, commands=demo.commands[:1])
    terms = FairTerms(
        judge_keys=[key_files.escrow.read_text()],
        ask=lambda fair: {"goliath": "chainaxe", "escher": "wych"},  # once it is committed
    )
    rec = record(store, demo, quiet=True, fair=terms)
    first = rec.events[0].event
    assert isinstance(first, BattleStarted)
    assert first.dice.mode == "fair" and first.dice.seed is None and first.dice.commitment
    before = verify_battle(store, rec.battle)
    assert before.ok and any("not revealed" in n for n in before.notes)
    assert before.dice_checked == 0
    seal_battle(store, rec.battle, load_private_key(key_files[0]))
    exported = tmp_path / "fair.jsonl"
    exported.write_bytes(export_battle(store, rec.battle))

    empty = tmp_path / "empty.sqlite"
    result = runner.invoke(
        app,
        [
            "--db",
            str(empty),
            "--log-level",
            "warning",
            "verify",
            "--file",
            str(exported),
            "--public-key",
            str(key_files[1]),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "seeded dice recomputed" in result.output
    assert BattleStore(empty).battles() == []

    # Change one digital die in the file: caught.
    lines = exported.read_text().splitlines()
    k = next(n for n, line in enumerate(lines) if '"type":"DiceRolled"' in line)
    line = json.loads(lines[k])
    line["event"]["values"][0] = line["event"]["values"][0] % line["event"]["sides"] + 1
    lines[k] = json.dumps(line, sort_keys=True, separators=(",", ":"))
    bad = read_export("\n".join(lines) + "\n").report
    assert not bad.ok and bad.problem is not None and bad.problem.position == k

    # Change it and re-forge every hash after it (dropping the seal, which cannot be re-signed):
    # re-adjudication from the changed die no longer gives the recorded outcome.
    read = read_export(exported.read_bytes())
    events = [e.event for e in read.events[:-1]]
    die = events[k - 1]
    assert isinstance(die, DiceRolled)
    events[k - 1] = msgspec.structs.replace(
        die, values=tuple(v % die.sides + 1 for v in die.values)
    )
    forged = chain(rec.battle, rec.ruleset.id, None, events, [""] * len(events))
    assert not verify_events(rec.battle, forged).ok
