"""Reads from a PostgreSQL streaming replica (``bxb serve --read-db``, issue 25): writes go to the
primary, pages and reads to the replica, and a read is never older than its reader's own last
write, whichever server process answers it. The replica is a real hot standby of the tests'
throwaway server, made with the wheel's ``pg_basebackup``; its replay is paused to hold it
behind the primary."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from uuid import uuid4

import psycopg
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from test_processes import waited
from web_helpers import Site, bearer, make_site

from blowbyblow.replay.store.log import BattleStore
from blowbyblow.replay.store.replica import Replica
from blowbyblow.web.app import create_app
from blowbyblow.web.freshness import COOKIE
from blowbyblow.web.tournament import TournamentStore

from pgserver import Postgres, controlled_postgres


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[Postgres, Postgres]]:
    with controlled_postgres() as primary, primary.replica() as replica:
        yield primary, replica


def _db(url: str, name: str) -> str:
    return url.rsplit("/", 1)[0] + "/" + name


def _replaying(replica_url: str, on: bool) -> None:
    with psycopg.connect(replica_url, autocommit=True) as con:
        con.execute("select pg_wal_replay_resume()" if on else "select pg_wal_replay_pause()")


def _replica(app: Litestar) -> Replica:
    found = app.state.server.service.replica
    assert isinstance(found, Replica)
    return found


def test_reads_go_to_the_replica_never_older_than_the_readers_own_write(
    servers: tuple[Postgres, Postgres], tmp_path: Path
) -> None:
    primary, standby = servers
    name = f"bxb_{uuid4().hex[:12]}"
    with psycopg.connect(primary.url, autocommit=True) as con:
        con.execute(f"create database {name}")
    db, read_db = _db(primary.url, name), _db(standby.url, name)
    site: Site = make_site(tmp_path, db)

    def connects() -> bool:
        try:
            psycopg.connect(read_db).close()
            return True
        except psycopg.OperationalError:
            return False

    waited(connects, "the database on the replica")

    def process() -> Litestar:  # a server process: its own stores, register and memory
        return create_app(
            BattleStore(db),
            TournamentStore(db),
            key=site.key,
            read_store=BattleStore(read_db, read_only=True),
        )

    t1 = bearer(site.tables[1])
    with TestClient(process()) as a, TestClient(process()) as b:
        r = a.post(
            "/api/tournaments/spring/tables/1/battles",
            json={"ruleset": "gangfight", "seed": "replica"},
            headers=t1,
        )
        assert r.status_code == 201, r.text
        assert COOKIE in r.cookies  # where the write reached, handed back to the phone
        battle = r.json()["battle"]
        r = a.post(f"/api/battles/{battle}/commands", json={"option": 0}, headers=t1)
        assert r.status_code == 201, r.text
        replica_b = _replica(b.app)
        waited(lambda: replica_b.replayed() >= int(a.cookies[COOKIE], 16), "the replica")
        served = replica_b.served
        assert b.get(f"/api/battles/{battle}/legal").json()["version"] == r.json()["version"]
        assert replica_b.served > served  # read from the replica

        _replaying(standby.url, on=False)  # the replica stays behind from now on
        try:
            r = a.post(f"/api/battles/{battle}/commands", json={"option": 0}, headers=t1)
            assert r.status_code == 201, r.text
            written = r.json()["version"]
            started = a.post(
                "/api/tournaments/spring/tables/2/battles",
                json={"ruleset": "gangfight", "seed": "behind"},
                headers=bearer(site.tables[2]),
            ).json()["battle"]
            # someone who wrote nothing reads the replica as it stands: behind
            assert b.get(f"/api/battles/{battle}/legal").json()["version"] < written
            assert b.get(f"/api/battles/{started}").status_code == 404
            # the phone that wrote, its next request reaching the other process: up to date
            b.cookies.set(COOKIE, a.cookies[COOKIE])
            fell_back = replica_b.fell_back
            assert b.get(f"/api/battles/{battle}/legal").json()["version"] == written
            assert b.get(f"/api/battles/{battle}/log").json()[-1]["position"] == written
            assert b.get(f"/api/battles/{started}").status_code == 200
            assert b.get(f"/battles/{battle}").status_code == 200  # the viewer's page too
            assert replica_b.fell_back > fell_back  # from the primary, the replica behind
        finally:
            _replaying(standby.url, on=True)
        waited(lambda: replica_b.replayed() >= int(a.cookies[COOKIE], 16), "the replica")
        served = replica_b.served
        assert b.get(f"/api/battles/{battle}/legal").json()["version"] == written
        assert replica_b.served > served  # caught up: the replica serves the reader again
