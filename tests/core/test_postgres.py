"""The same store on PostgreSQL, as a tournament server runs it: battles recorded and verified,
and many tables writing at once with a stale writer writing nothing."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from uuid import uuid4

import psycopg
import pytest

from blowbyblow.replay.store import BattleStore, StaleVersion
from blowbyblow.replay.verify import verify_battle

from bxbtest import RULESET_IDS, record_demo
from pgserver import postgres_server, server_version


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with postgres_server() as url:
        yield url


@pytest.fixture
def pg_url(server: str) -> str:
    name = f"bxb_{uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as con:
        con.execute(f"create database {name}")
    return server.rsplit("/", 1)[0] + "/" + name


def test_every_demo_records_and_verifies_on_postgresql(pg_url: str) -> None:
    store = BattleStore(pg_url)
    ids = [record_demo(store, r).battle for r in RULESET_IDS]
    again = BattleStore(pg_url)  # another connection, as another process would have
    assert [b.battle for b in again.battles()] == ids
    for battle in ids:
        assert verify_battle(again, battle).ok


def test_concurrent_writers_one_wins_the_other_writes_nothing(pg_url: str) -> None:
    store = BattleStore(pg_url)
    rec = record_demo(store, RULESET_IDS[0])
    version = store.version(rec.battle)
    tail = [e.event for e in rec.events[-3:]]
    writers = [BattleStore(pg_url) for _ in range(4)]
    outcomes: list[str] = []
    barrier = threading.Barrier(len(writers))

    def write(w: BattleStore) -> None:
        barrier.wait()
        try:
            w.append(rec.battle, rec.ruleset.id, version, tail)
            outcomes.append("written")
        except StaleVersion:
            outcomes.append("stale")

    threads = [threading.Thread(target=write, args=(w,)) for w in writers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["stale"] * (len(writers) - 1) + ["written"]
    assert store.version(rec.battle) == version + len(tail)
    assert (
        verify_battle(store, rec.battle).ok is False
    )  # the copied tail does not follow from the rules
    assert [e.position for e in store.read(rec.battle)] == list(range(1, version + len(tail) + 1))


def test_the_server_is_the_one_the_dev_extra_installs(server: str) -> None:
    """Not a PostgreSQL that happens to be on the machine: the tests run the same everywhere."""
    with psycopg.connect(server) as con:
        row = con.execute("show server_version").fetchone()
    assert row is not None
    assert str(row[0]).split()[0] == server_version()
