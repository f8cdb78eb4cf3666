"""The mutation test: over a sealed battle of every game system, every single-field edit, every
deleted event, every swapped pair of neighbouring events and every truncation — in the database
file and in the exported file — must be caught by verification. The counts are printed
(`pytest -s tests/judging/test_mutation.py`)."""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from blowbyblow.replay.battles.record import seal_battle
from blowbyblow.replay.evidence.export import export_battle, read_export
from blowbyblow.replay.evidence.seals import load_private_key, new_keys
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore, seal_id

from bxbtest import RULESET_IDS, record_demo

_SORTED = msgspec.msgpack.Encoder(order="sorted")


def leaves(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from leaves(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from leaves(v, (*path, i))
    else:
        yield path


def mutated(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "~"
    if isinstance(value, bytes):
        return bytes([value[0] ^ 1]) + value[1:] if value else b"\x01"
    if value is None:
        return 0
    raise TypeError(value)  # pragma: no cover


def with_edit(obj: Any, path: tuple[Any, ...]) -> Any:
    copy = (
        json.loads(json.dumps(obj))
        if not _has_bytes(obj)
        else msgspec.msgpack.decode(_SORTED.encode(obj))
    )
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = mutated(target[path[-1]])
    return copy


def _has_bytes(obj: Any) -> bool:
    if isinstance(obj, dict):
        return any(_has_bytes(v) for v in obj.values())
    if isinstance(obj, list):
        return any(_has_bytes(v) for v in obj)
    return isinstance(obj, bytes)


class Tally:
    def __init__(self) -> None:
        self.tried = 0
        self.missed: list[str] = []

    def check(self, what: str, caught: bool) -> None:
        self.tried += 1
        if not caught:
            self.missed.append(what)


def mutate_database(db: Path, battle: Any, tally: Tally) -> None:
    store = BattleStore(db)
    con = sqlite3.connect(db)
    ids = (battle.hex, seal_id(battle).hex)

    def caught() -> bool:
        return not verify_battle(store, battle).ok

    rows = con.execute(
        "select originator_id, originator_version, topic, state from stored_events "
        "where originator_id in (?, ?) order by originator_id = ?, originator_version",
        (*ids, ids[1]),
    ).fetchall()
    assert caught() is False

    def put(oid: str, version: int, topic: str, state: bytes) -> None:
        con.execute(
            "update stored_events set topic=?, state=? where originator_id=? and originator_version=?",
            (topic, state, oid, version),
        )
        con.commit()

    for oid, version, topic, state in rows:
        envelope = msgspec.msgpack.decode(state)
        for path in leaves(envelope):
            put(oid, version, topic, _SORTED.encode(with_edit(envelope, path)))
            tally.check(f"db {oid[:4]}@{version} {'.'.join(map(str, path))}", caught())
        put(oid, version, topic + "~", state)
        tally.check(f"db {oid[:4]}@{version} topic", caught())
        put(oid, version, topic, state)
    for oid, version, topic, state in rows:  # deletions
        con.execute(
            "delete from stored_events where originator_id=? and originator_version=?",
            (oid, version),
        )
        con.commit()
        tally.check(f"db delete {oid[:4]}@{version}", caught())
        con.execute(
            "insert into stored_events (originator_id, originator_version, topic, state) values (?,?,?,?)",
            (oid, version, topic, state),
        )
        con.commit()
    battle_rows = [r for r in rows if r[0] == ids[0]]
    for a, b in itertools.pairwise(battle_rows):  # swapped neighbours
        put(a[0], a[1], b[2], b[3])
        put(b[0], b[1], a[2], a[3])
        tally.check(f"db swap {a[1]}<->{b[1]}", caught())
        put(a[0], a[1], a[2], a[3])
        put(b[0], b[1], b[2], b[3])
    for keep in range(len(battle_rows)):  # truncations
        con.execute(
            "delete from stored_events where originator_id=? and originator_version>?",
            (ids[0], keep),
        )
        con.commit()
        tally.check(f"db truncate to {keep}", caught())
        for r in battle_rows[keep:]:
            con.execute(
                "insert into stored_events (originator_id, originator_version, topic, state) values (?,?,?,?)",
                r,
            )
        con.commit()
    assert caught() is False  # everything restored
    con.close()


def mutate_file(text: str, tally: Tally) -> None:
    lines = text.splitlines()

    def caught(new_lines: list[str]) -> bool:
        return not read_export("\n".join(new_lines) + "\n").report.ok

    assert caught(lines) is False
    for n, line in enumerate(lines):
        obj = json.loads(line)
        for path in leaves(obj):
            edited = [*lines]
            edited[n] = json.dumps(with_edit(obj, path), sort_keys=True, separators=(",", ":"))
            tally.check(f"file line {n + 1} {'.'.join(map(str, path))}", caught(edited))
    for n in range(len(lines)):
        tally.check(f"file delete line {n + 1}", caught(lines[:n] + lines[n + 1 :]))
    for n in range(1, len(lines) - 1):
        swapped = [*lines]
        swapped[n], swapped[n + 1] = swapped[n + 1], swapped[n]
        tally.check(f"file swap lines {n + 1},{n + 2}", caught(swapped))
    for keep in range(len(lines)):
        tally.check(f"file truncate to {keep} lines", caught(lines[:keep]))


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_mutation_of_a_sealed_battle_is_caught(tmp_path: Path, ruleset_id: str) -> None:
    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    rec = record_demo(store, ruleset_id)
    key = load_private_key(new_keys(tmp_path / "keys")[0])
    seal_battle(store, rec.battle, key)
    text = export_battle(store, rec.battle).decode()

    in_db, in_file = Tally(), Tally()
    mutate_database(db, rec.battle, in_db)
    mutate_file(text, in_file)
    print(
        f"\n{ruleset_id}: database {in_db.tried} mutations tried, {in_db.tried - len(in_db.missed)} caught; "
        f"export {in_file.tried} tried, {in_file.tried - len(in_file.missed)} caught"
    )
    assert in_db.missed == [] and in_file.missed == []
    assert in_db.tried > len(rec.events) * 5 and in_file.tried > len(rec.events) * 5
