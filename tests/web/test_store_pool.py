"""The store's pool of PostgreSQL connections beside the server's workers (issue 25's tail)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from uuid import uuid4

import psycopg
import pytest

from blowbyblow.replay.store.log import BattleStore
from blowbyblow.web.api import WORKERS

from pgserver import postgres_server


@pytest.fixture(scope="module")
def pg() -> Iterator[str]:
    with postgres_server() as url:
        yield url


def test_a_worker_has_a_connection_while_every_other_waits_on_the_database(pg: str) -> None:
    """Every other store worker of the server holds a pooled connection in a statement that
    waits on the database (as appends wait for the disk to flush the log, fsync on), and one more
    worker's read is still served: the store opens a connection for each worker. eventsourcing's
    pool (5 kept, 10 more) kept the sixteenth waiting for a connection, a whole flush behind the
    others, then refused it: fails on main d055c3b (15 of 39 held)."""
    store = BattleStore(pg)
    datastore = store.recorder.datastore  # type: ignore[attr-defined]
    holding = threading.Semaphore(0)
    errors: list[BaseException] = []

    def waiting_on_the_database() -> None:
        try:
            with datastore.get_connection() as conn:
                holding.release()
                conn.execute("select pg_advisory_lock_shared(4242)")
                conn.execute("select pg_advisory_unlock_shared(4242)")
        except BaseException as e:  # the pool's refusal, once its timeout has passed
            errors.append(e)

    workers = [threading.Thread(target=waiting_on_the_database) for _ in range(WORKERS - 1)]
    with psycopg.connect(pg, autocommit=True) as holder:
        holder.execute("select pg_advisory_lock(4242)")
        try:
            for w in workers:
                w.start()
            deadline = time.monotonic() + 30  # patience, not a timing: 39 connections made
            held = 0
            while held < len(workers) and holding.acquire(
                timeout=max(0, deadline - time.monotonic())
            ):
                held += 1
            assert held == WORKERS - 1, f"{held} of {WORKERS - 1} held a connection"
            assert store.head(uuid4()) is None  # the last worker's read, served
        finally:
            holder.execute("select pg_advisory_unlock(4242)")
            for w in workers:
                w.join(timeout=60)
            store.close()
    assert not errors


def test_the_pool_size_the_environment_sets_is_kept(
    pg: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``POSTGRES_POOL_SIZE`` is eventsourcing's own setting: one above ``CONNECTIONS`` still
    opens a store (the overflow is 0, never below), and one that is not a number is refused by
    eventsourcing's own error (an ``OSError`` naming the setting, which ``bxb`` prints as one
    line), not a ValueError of ours. Fails on main 0213989: `max_size must be greater or
    equal than min_size`, and `invalid literal for int()`."""
    monkeypatch.delenv("POSTGRES_MAX_OVERFLOW", raising=False)
    monkeypatch.setenv("POSTGRES_POOL_SIZE", str(WORKERS + 10))
    store = BattleStore(pg)
    try:
        assert store.head(uuid4()) is None
    finally:
        store.close()
    monkeypatch.setenv("POSTGRES_POOL_SIZE", "many")
    with pytest.raises(OSError, match="POSTGRES_POOL_SIZE"):
        BattleStore(pg).close()
