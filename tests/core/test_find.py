"""Naming a battle (``bxb at``/``log``/``verify`` BATTLE, the server's lookups): by id, unique id
prefix or label, or the latest, each one indexed lookup in the battle index, with the answers
the earlier reading of the whole index gave (kept here as the reference)."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID, uuid4

import msgspec
import psycopg
import pytest

from blowbyblow.replay.battles.record import record
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.store.find import BattleNotFound, resolve_battle
from blowbyblow.replay.store.log import BattleStore

from pgserver import postgres_server

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "stores"


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with postgres_server() as url:
        yield url


def _store(request: pytest.FixtureRequest, where: str, tmp_path: Path) -> BattleStore:
    if where == "memory":
        return BattleStore(":memory:")
    if where == "sqlite":
        return BattleStore(tmp_path / "b.sqlite")
    server: str = request.getfixturevalue("server")
    name = f"bxb_{uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as con:
        con.execute(f"create database {name}")
    return BattleStore(server.rsplit("/", 1)[0] + "/" + name)


def scanned(store: BattleStore, ref: str | None) -> UUID | str:
    """The answer of the earlier resolve_battle, which read every row of the index."""
    battles = store.battles()
    if not battles:
        return "the store holds no battles yet (try `bxb demo`)"
    if ref is None:
        return battles[-1].battle
    if not ref.strip():
        return "the battle named is empty; expected a battle id, id prefix or label (see `bxb battles`)"
    exact = [b for b in battles if str(b.battle) == ref]
    if exact:
        return exact[0].battle
    by_prefix = [b for b in battles if str(b.battle).startswith(ref.lower())]
    by_label = [b for b in battles if b.label == ref]
    matches = by_prefix or by_label
    if len(matches) == 1:
        return matches[0].battle
    if len(matches) > 1:
        return f"{ref!r} names {len(matches)} battles: " + ", ".join(
            f"{b.battle} ({b.label})" for b in matches[:5]
        )
    return f"no battle {ref!r} in this store (see `bxb battles`)"


def found(store: BattleStore, ref: str | None) -> UUID | str:
    try:
        return resolve_battle(store, ref)
    except BattleNotFound as e:
        return str(e)


def fill(store: BattleStore, labels: list[str]) -> list[UUID]:
    """A battle under each label (seeded apart: two of one label are two battles)."""
    demo = get_game_system("gangfight").demo()
    return [
        record(
            store,
            msgspec.structs.replace(demo, label=label, seed=f"{n}", dice=None, commands=[]),
            quiet=True,
        ).battle
        for n, label in enumerate(labels)
    ]


def names_to_try(ids: list[UUID]) -> list[str | None]:
    refs: list[str | None] = [None, "", "  ", "nobody", "twin", "solo", "-", "{", "g"]
    for battle in ids:
        text = str(battle)
        refs += [text, text.upper(), text[:1], text[:8], text[:9], text[:10], text[:20]]
        refs += [battle.hex, battle.hex[:9], text[:35] + "g", "{" + text + "}", text + "0"]
    refs += [f"{d:x}" for d in range(16)]
    return refs


@pytest.mark.parametrize("where", ["memory", "sqlite", "postgresql"])
def test_a_name_finds_what_reading_the_whole_index_found(
    request: pytest.FixtureRequest, tmp_path: Path, where: str
) -> None:
    store = _store(request, where, tmp_path)
    assert found(store, None) == scanned(store, None)
    assert found(store, "x") == scanned(store, "x") == scanned(store, None)
    ids = fill(store, ["twin", "twin", "solo", *(f"b{n}" for n in range(13))])
    # a label that is another battle's id prefix: the prefix wins, as before
    ids += fill(store, [str(ids[2])[:6], str(ids[3])])
    for ref in names_to_try(ids):
        assert found(store, ref) == scanned(store, ref), ref
    assert found(store, "twin") == f"'twin' names 2 battles: {ids[0]} (twin), {ids[1]} (twin)"


def test_a_battle_whose_records_are_gone_is_not_found(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    first, last = fill(store, ["first", "last"])
    with sqlite3.connect(db) as con:
        con.execute("delete from stored_events where originator_id=?", (last.hex,))
    fresh = BattleStore(db)
    assert found(fresh, None) == first
    assert found(fresh, "last") == "no battle 'last' in this store (see `bxb battles`)"
    assert found(fresh, str(last)[:8]) == scanned(fresh, str(last)[:8])


def _steps(store: BattleStore, ref: str | None) -> int:
    """SQLite's virtual-machine steps to resolve ``ref`` (its progress handler, called at every
    step): the work of the lookup, which a machine's load does not change."""
    steps = 0

    def step() -> int:
        nonlocal steps
        steps += 1
        return 0

    reader = store.records._readers.connection  # type: ignore[attr-defined]
    reader.set_progress_handler(step, 1)
    try:
        found(store, ref)
    finally:
        reader.set_progress_handler(None, 1)
    return steps


def test_a_name_is_one_indexed_lookup(tmp_path: Path) -> None:
    """Each way of naming a battle reads the battle index through an index (the unique id, the
    label index, the rowid's order): the work does not grow with the battles in the store."""
    small, large = BattleStore(tmp_path / "small.sqlite"), BattleStore(tmp_path / "large.sqlite")
    names = ["solo", "twin", "twin"]
    fill(small, names)
    fill(large, [*(f"other {n}" for n in range(120)), *names])
    for store in (small, large):
        found(store, None)  # each thread's reading connection opened
    for ref in [None, "solo", "twin", "nobody", "newest"]:
        assert _steps(large, ref) <= 2 * _steps(small, ref) + 50, ref
    for n in (-1, -3):  # by id, and by a prefix (unique in both stores)
        for cut in (36, 7):
            mine = str(large.battles()[n].battle)[:cut]
            theirs = str(small.battles()[n].battle)[:cut]
            assert _steps(large, mine) <= 2 * _steps(small, theirs) + 50, mine


def _chained(db: Path) -> str:
    """A hash of every record the hash chain covers, as stored."""
    with sqlite3.connect(db) as con:
        rows = con.execute("select * from stored_events order by originator_id, originator_version")
        return hashlib.sha256(repr(rows.fetchall()).encode()).hexdigest()


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.sqlite")))
def test_a_store_of_an_earlier_release_gets_the_label_index_when_opened(
    tmp_path: Path, name: str
) -> None:
    db = tmp_path / name
    shutil.copy(FIXTURES / name, db)
    with sqlite3.connect(db) as con:
        con.execute("drop index if exists bxb_battles_label")
    before = _chained(db)
    store = BattleStore(db)
    with sqlite3.connect(db) as con:
        made = con.execute("select name from sqlite_master where type='index'").fetchall()
    assert ("bxb_battles_label",) in made
    assert _chained(db) == before
    label = store.battles()[0].label
    assert found(store, label) == scanned(store, label)
