"""The server publishes a tournament's root only once its witnesses cosigned it (issue 26):
`bxb serve --witnesses POLICY --origin NAME`, a judge's POST /api/tournaments/SLUG/root. Two
`bxb witness serve` processes on loopback; an organiser who rewrote a battle of the store after
round 1 shows the rewritten log to one witness, which refuses, and nothing is published; the
honest log is cosigned by both. A table keeps its battle's witnessed receipt (GET
/api/battles/ID/proof) and `bxb verify --receipt` checks the log with it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from litestar.testing import TestClient
from typer.testing import CliRunner

from blowbyblow.cli.main import app as bxb_app
from blowbyblow.domain.core import CommandIssued
from blowbyblow.replay.evidence.notes import NOTE_SIGNATURE, Verifier, vkey
from blowbyblow.replay.evidence.seals import public_hex
from blowbyblow.replay.evidence.witness import check_witnessed
from blowbyblow.replay.store.log import BattleStore
from blowbyblow.web.app import create_app
from blowbyblow.web.roots import RootTerms
from blowbyblow.web.tournament import TournamentStore

from evidence_helpers import delete_rows
from witness_helpers import Running, policy_file, policy_of, start_witness, stop_witness

SERVER = "club.example"
LOG = f"{SERVER}/spring"


@pytest.fixture
def key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


@pytest.fixture
def log(key: Ed25519PrivateKey) -> Verifier:
    return Verifier(LOG, bytes.fromhex(public_hex(key)), NOTE_SIGNATURE)


@pytest.fixture
def two(tmp_path: Path, log: Verifier) -> Iterator[list[Running]]:
    running = [start_witness(tmp_path, n, log.vkey()) for n in ("w1.example", "w2.example")]
    yield running
    for r in running:
        if r.process.poll() is None:
            stop_witness(r)


class Site:
    def __init__(self, db: Path, key: Ed25519PrivateKey) -> None:
        self.db, self.key = db, key
        self.tournaments = TournamentStore(str(db))
        if not self.tournaments.tournaments():
            self.tournaments.new_tournament("spring")
            made = self.tournaments.add_tables("spring", 3)
            self.tables = dict(made.tables)
            self.judge = made.judge_token

    def client(self, witnesses: list[Running] | None, quorum: int = 2) -> TestClient[Any]:
        terms = None if witnesses is None else RootTerms(SERVER, policy_of(witnesses, quorum))
        return TestClient(
            create_app(BattleStore(self.db), self.tournaments, key=self.key, witnesses=terms)
        )


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _play(client: TestClient[Any], site: Site, table: int, seed: str, seal: bool = True) -> str:
    r = client.post(
        f"/api/tournaments/spring/tables/{table}/battles",
        json={"ruleset": "gangfight", "seed": seed},
        headers=_bearer(site.tables[table]),
    )
    assert r.status_code == 201, r.text
    battle = str(r.json()["battle"])
    for _ in range(2):
        r = client.post(
            f"/api/battles/{battle}/commands",
            json={"option": 0},
            headers=_bearer(site.tables[table]),
        )
        assert r.status_code == 201, r.text
    if seal:
        r = client.post(f"/api/battles/{battle}/seal", headers=_bearer(site.judge))
        assert r.status_code in (200, 201), r.text
    return battle


def _publish(client: TestClient[Any], site: Site) -> Any:
    return client.post("/api/tournaments/spring/root", headers=_bearer(site.judge))


def test_a_root_is_published_at_the_quorum_and_a_rewritten_log_is_refused(
    tmp_path: Path, key: Ed25519PrivateKey, log: Verifier, two: list[Running]
) -> None:
    w1, w2 = two
    site = Site(tmp_path / "site.sqlite", key)
    with site.client(two) as client:
        first = _play(client, site, 1, "one")
        _play(client, site, 2, "two")
        _play(client, site, 3, "still playing", seal=False)  # no leaf until it is sealed
        assert (
            client.post("/api/tournaments/spring/root", headers=_bearer(site.tables[1])).status_code
            == 403
        )  # a table does not publish the tournament's root
        r = _publish(client, site)
        assert r.status_code == 201, r.text
        root1 = r.json()
        assert root1["size"] == 2 and root1["said"] == {
            "w1.example": "cosigned",
            "w2.example": "cosigned",
        }
        assert root1["log_key"] == vkey(LOG, NOTE_SIGNATURE, log.public)
        assert check_witnessed(root1["checkpoint"], log, policy_of(two, 2)).size == 2
        assert _publish(client, site).status_code == 200  # nothing moved: the same root
        assert (
            client.get("/api/tournaments/spring/root").json()["checkpoint"] == root1["checkpoint"]
        )
        proof = client.get(f"/api/battles/{first}/proof")
        assert proof.status_code == 200 and proof.text.startswith("c2sp.org/tlog-proof@v1\n")

    # The table's witnessed receipt checks the log, store in hand.
    kept = tmp_path / "table1.tlog-proof"
    kept.write_text(proof.text)
    policy = policy_file(tmp_path / "policy.txt", two, 2)
    args = ["--db", str(site.db), "verify", first, "--receipt", str(kept)]
    args += ["--log-key", log.vkey(), "--witnesses", str(policy)]
    done = CliRunner().invoke(bxb_app, args)
    assert done.exit_code == 0 and "1 of them witnessed" in done.output, done.output

    # The organiser copies the store and cuts battle 1 short in the copy (chain recomputed as
    # far as it goes), adds round 2's battle there, and shows it to w2 alone: w2 refuses.
    rewritten = tmp_path / "rewritten.sqlite"
    with sqlite3.connect(site.db) as source, sqlite3.connect(rewritten) as copy:
        source.backup(copy)
    events = BattleStore(rewritten).read(UUID(first))
    last_command = max(e.position for e in events if isinstance(e.event, CommandIssued))
    delete_rows(rewritten, UUID(first), after=last_command - 1)
    cheat = Site(rewritten, key)
    cheat.tables, cheat.judge = site.tables, site.judge
    with cheat.client([w2], quorum=1) as client:
        _play(client, cheat, 3, "three")  # round 2's battle, sealed
        r = _publish(client, cheat)
        assert r.status_code == 409, r.text
        said = r.json()["message"]
        assert "0 of the 1 cosignatures" in said and "w2.example: refused (422" in said, said
        assert client.get("/api/tournaments/spring/root").json()["size"] == 2  # nothing kept

    # The honest log grows by round 2's battle: both witnesses cosign it, w2 too.
    with site.client(two) as client:
        _play(client, site, 3, "three")
        r = _publish(client, site)
        assert r.status_code == 201, r.text
        assert r.json()["size"] == 3 and set(r.json()["said"].values()) == {"cosigned"}
        # One witness away: 1 of 2, nothing published; the last root stays the one kept.
        _play(client, site, 1, "one again")
    stop_witness(w1)
    with site.client(two) as client:
        r = _publish(client, site)
        assert r.status_code == 409 and "1 of the 2 cosignatures" in r.json()["message"], r.text
        assert "w1.example: not reached" in r.json()["message"]
        assert client.get("/api/tournaments/spring/root").json()["size"] == 3


def test_a_server_without_witnesses_says_how_to_have_them(
    tmp_path: Path, key: Ed25519PrivateKey
) -> None:
    site = Site(tmp_path / "site.sqlite", key)
    with site.client(None) as client:
        _play(client, site, 1, "one")
        r = _publish(client, site)
        assert r.status_code == 409 and "--witnesses POLICY --origin NAME" in r.json()["message"]
    site_two = Site(tmp_path / "other.sqlite", key)
    with site_two.client([]) as client:
        _play(client, site_two, 1, "one", seal=False)
        r = _publish(client, site_two)
        assert r.status_code == 409 and "none is sealed yet" in r.json()["message"], r.text
    with site.client(None) as client:
        assert client.get("/api/tournaments/spring/root").status_code == 404
        assert client.get("/api/tournaments/autumn/root").status_code == 404


def test_serve_takes_witnesses_and_origin_together(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    policy = tmp_path / "policy.txt"
    policy.write_text("quorum 1\n")
    base = ["--db", str(tmp_path / "s.sqlite"), "serve", "--port", port]
    key = ["--key", str(tmp_path / "none.key")]
    for args, said in (
        (["--witnesses", str(policy)], "--witnesses and --origin go together"),
        (["--origin", "club.example"], "--witnesses and --origin go together"),
        (["--witnesses", str(policy), "--origin", "a b"], "--origin: expected a name"),
    ):
        done = CliRunner().invoke(bxb_app, [*base, *args])
        assert done.exit_code == 2 and said in done.output, done.output
    done = CliRunner().invoke(bxb_app, [*base, *key, "--witnesses", str(policy), "--origin", "c"])
    assert done.exit_code == 2 and "--key" in done.output, done.output


def test_a_root_cosigned_but_not_kept_is_published_again(
    tmp_path: Path, key: Ed25519PrivateKey, two: list[Running], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The witnesses cosigned, then the server could not keep the root (its disk failed, or it
    was killed): nothing is published; asked again, the witnesses, already at that root,
    cosign it again, and it is kept."""
    import sqlite3

    from blowbyblow.replay.evidence.witness import publish_root as real
    from blowbyblow.web import roots

    def cosigned_then_lost(*args: Any, **kwargs: Any) -> Any:
        real(*args, **kwargs)
        raise sqlite3.OperationalError("disk I/O error")

    site = Site(tmp_path / "site.sqlite", key)
    with site.client(two) as client:
        _play(client, site, 1, "one")
        monkeypatch.setattr(roots, "publish_root", cosigned_then_lost)
        r = _publish(client, site)
        assert r.status_code == 503 and "nothing was written" in r.json()["message"], r.text
        assert client.get("/api/tournaments/spring/root").status_code == 404
        monkeypatch.setattr(roots, "publish_root", real)
        r = _publish(client, site)
        assert r.status_code == 201 and set(r.json()["said"].values()) == {"cosigned"}, r.text
