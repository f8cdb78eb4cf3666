"""A start killed between its two writes (issue 26, hole 2): the battle is written through the
front door, then placed at its table in the register; a server killed (SIGKILL) between the two
left a battle at no table, and the table could not start again that round (409, the same battle
already recorded). The same start again now places that battle, and the table plays it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from litestar.testing import TestClient
from web_helpers import Site, bearer

# The server's process, its register's write replaced by a SIGKILL: the battle is in the store,
# its table never told.
KILLED_BETWEEN = textwrap.dedent(
    """
    import os, signal, sys
    from litestar.testing import TestClient
    from blowbyblow.replay.store.log import BattleStore
    from blowbyblow.web.app import create_app
    from blowbyblow.web.tournament import TournamentStore

    def killed(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    db, token = sys.argv[1], sys.argv[2]
    tournaments = TournamentStore(db)
    tournaments.assign = killed
    with TestClient(create_app(BattleStore(db), tournaments)) as client:
        client.post(
            "/api/tournaments/spring/tables/1/battles",
            json={"ruleset": "necromunda-2023", "seed": "half"},
            headers={"Authorization": "Bearer " + token},
        )
    """
)


def test_a_start_killed_before_its_table_was_told_starts_again_and_plays(site: Site) -> None:
    done = subprocess.run(
        [sys.executable, "-c", KILLED_BETWEEN, site.db, site.tables[1]],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path.cwd())},
    )
    assert done.returncode == -9, done.stderr
    orphans = [b.battle for b in site.store.battles()]
    assert len(orphans) == 1 and site.tournaments.place_of(orphans[0]) is None
    with TestClient(site.app()) as client:
        r = client.post(
            "/api/tournaments/spring/tables/1/battles",
            json={"ruleset": "necromunda-2023", "seed": "half"},
            headers=bearer(site.tables[1]),
        )
        assert r.status_code == 201, r.text
        assert r.json()["battle"] == str(orphans[0])
        assert r.json()["place"] == {"tournament": "spring", "table": 1, "round": 1}
        r = client.post(
            f"/api/battles/{orphans[0]}/commands",
            json={"option": 0},
            headers=bearer(site.tables[1]),
        )
        assert r.status_code == 201, r.text
        page = client.get("/tournaments/spring/tables/1", headers=bearer(site.tables[1]))
        assert str(orphans[0]) in page.text


# The same, for a fair start: the server's key is the judges', so it opens the escrow.
KILLED_FAIR = (
    KILLED_BETWEEN.replace(
        "create_app(BattleStore(db), tournaments)",
        "create_app(BattleStore(db), tournaments, key=load_private_key(Path(sys.argv[3])))",
    )
    .replace(
        '{"ruleset": "necromunda-2023", "seed": "half"}',
        '{"ruleset": "necromunda-2023", "fair": True}',
    )
    .replace(
        "import os, signal, sys",
        "import os, signal, sys\nfrom pathlib import Path\n"
        "from blowbyblow.replay.evidence.seals import load_private_key",
    )
)


def test_a_fair_start_killed_before_its_table_was_told_is_taken_over_not_orphaned(
    site: Site, tmp_path: Path
) -> None:
    """A fair battle's id is new at each try (its commitment is), so the same start again made
    another battle and left the first at no table for ever (issue 26). The same fair start now
    takes over the untouched one; the table then gives its values and plays in it."""
    key = tmp_path / "judge.key"
    key.write_bytes(
        site.key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    key.chmod(0o600)
    done = subprocess.run(
        [sys.executable, "-c", KILLED_FAIR, site.db, site.tables[1], str(key)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path.cwd())},
    )
    assert done.returncode == -9, done.stderr
    [orphan] = [b.battle for b in site.store.battles()]
    assert site.tournaments.place_of(orphan) is None
    fair = {"ruleset": "necromunda-2023", "fair": True}
    with TestClient(site.app()) as client:
        # Another table's start is not this one (its label names its table): a battle of its own.
        r = client.post(
            "/api/tournaments/spring/tables/2/battles", json=fair, headers=bearer(site.tables[2])
        )
        assert r.status_code == 201 and r.json()["battle"] != str(orphan), r.text
        r = client.post(
            "/api/tournaments/spring/tables/1/battles", json=fair, headers=bearer(site.tables[1])
        )
        assert r.status_code == 201, r.text
        assert r.json()["battle"] == str(orphan)
        assert r.json()["place"] == {"tournament": "spring", "table": 1, "round": 1}
        given = client.post(
            f"/api/battles/{orphan}/contributions",
            json={"contributions": {"goliath": "hammer", "escher": "whip"}},
            headers=bearer(site.tables[1]),
        )
        assert given.status_code == 201, given.text
        r = client.post(
            f"/api/battles/{orphan}/commands", json={"option": 0}, headers=bearer(site.tables[1])
        )
        assert r.status_code == 201, r.text
        # Once placed, it is no orphan: the same start again is another battle.
        r = client.post(
            "/api/tournaments/spring/tables/3/battles", json=fair, headers=bearer(site.tables[3])
        )
        assert r.status_code == 201 and r.json()["battle"] != str(orphan), r.text
    assert len(site.store.battles()) == 3


def test_a_battle_already_at_a_table_is_not_started_twice(site: Site) -> None:
    start = {"ruleset": "necromunda-2023", "seed": "twice"}
    with TestClient(site.app()) as client:
        first = client.post(
            "/api/tournaments/spring/tables/1/battles", json=start, headers=bearer(site.tables[1])
        )
        assert first.status_code == 201, first.text
        again = client.post(
            "/api/tournaments/spring/tables/1/battles", json=start, headers=bearer(site.tables[1])
        )
        assert again.status_code == 409 and again.json()["field"] == "label", again.text


def test_a_round_past_what_the_register_holds_is_refused_before_anything_is_written(
    site: Site,
) -> None:
    """The path the API fuzz left answering 500 (issue 26, hole 7): a round of 10^30 fitted the
    request and the battle was written, then the register's integer column refused it."""
    before = site.written()
    with TestClient(site.app(), raise_server_exceptions=False) as client:
        for round_ in (10**30, 1001):
            r = client.post(
                "/api/tournaments/spring/tables/1/battles",
                json={"ruleset": "necromunda-2023", "round": round_},
                headers=bearer(site.tables[1]),
            )
            assert r.status_code == 422 and r.json()["field"] == "round", r.text
    assert site.written() == before


def test_a_register_that_cannot_write_is_a_503_and_the_start_heals_once_it_can(
    site: Site,
) -> None:
    """A full disk (or a file locked too long) under the register's own SQLite connection was a
    bare 500; now the same 503 as a store away, and the same start again places the battle the
    first try wrote."""
    import sqlite3

    assign = site.tournaments.assign

    def full(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    start = {"ruleset": "gangfight", "seed": "full"}
    with TestClient(site.app(), raise_server_exceptions=False) as client:
        site.tournaments.assign = full  # type: ignore[method-assign,assignment]
        r = client.post(
            "/api/tournaments/spring/tables/1/battles", json=start, headers=bearer(site.tables[1])
        )
        assert r.status_code == 503 and r.json()["field"] == "store", r.text
        assert "disk is full" in r.json()["message"]
        site.tournaments.assign = assign  # type: ignore[method-assign]
        r = client.post(
            "/api/tournaments/spring/tables/1/battles", json=start, headers=bearer(site.tables[1])
        )
        assert r.status_code == 201 and r.json()["place"]["table"] == 1, r.text
    assert len(site.store.battles()) == 1
