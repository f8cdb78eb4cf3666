"""The same store on PostgreSQL, as a tournament server runs it: battles recorded and verified,
many tables writing at once with a stale writer writing nothing, and a fair battle recorded at a
table and sealed on the judge's machine."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import msgspec
import psycopg
import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hpke
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from psycopg import sql

from blowbyblow.domain.core import BattleStarted
from blowbyblow.domain.judging import BattleSealed, SeedEscrowed
from blowbyblow.replay.battles.record import record
from blowbyblow.replay.engine.dice import fair_dice_seed
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.evidence.fairness import FairTerms
from blowbyblow.replay.evidence.seals import JudgingError, load_private_key, new_keys, open_escrow
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore, StaleVersion

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


def test_a_write_says_the_types_of_its_arrays_once(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write's four arrays (ids, positions, topics, bytes) go with their element types said,
    not worked out by psycopg from the elements at every execute (issue 25); the battles read
    back and verify as before."""
    from psycopg.types.array import ListBinaryDumper

    store = BattleStore(pg_url)

    def worked_out(*args: object) -> None:
        raise AssertionError("an array's element type worked out at an execute")

    monkeypatch.setattr(ListBinaryDumper, "_find_list_element", worked_out)
    ids = [record_demo(store, r).battle for r in ("gangfight", "asl")]
    monkeypatch.undo()
    again = BattleStore(pg_url)
    assert [b.battle for b in again.battles()] == ids
    for battle in ids:
        assert verify_battle(again, battle).ok


def test_an_append_dumps_its_arrays_in_one_pass(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An append's arrays are dumped flat in one pass, not through psycopg's element-by-element
    walk of nested lists (issue 25), and the bytes sent are psycopg's own, byte for byte: for
    every array type, one element or several, empty, and with a null (psycopg's way)."""
    from uuid import UUID

    from psycopg.adapt import PyFormat, Transformer
    from psycopg.types.array import ListBinaryDumper

    from blowbyblow.replay.store.postgres import typed_arrays

    values: list[list[Any]] = [
        [UUID(int=0), uuid4(), UUID(int=2**128 - 1)],
        [1, 0, -5, 2**40, 2**63 - 1],
        ["gangfight/HitRolled", "ünïcödé ✓", ""],
        [b"", b"\x00\x01", bytes(range(256)), bytearray(b"xy")],
    ]
    tx = Transformer()
    for array, items in zip(typed_arrays(), values, strict=True):
        dumper = tx.get_dumper(array(items), PyFormat.BINARY)
        assert isinstance(dumper, ListBinaryDumper)
        for some in (items, items[:1], [], [*items, None]):
            sent = dumper.dump(array(some))
            theirs = ListBinaryDumper.dump(dumper, array(some))
            assert sent is not None and theirs is not None
            assert bytes(sent) == bytes(theirs)

    def walked(*args: object) -> None:
        raise AssertionError("an append's array walked element by element")

    store = BattleStore(pg_url)
    monkeypatch.setattr(ListBinaryDumper, "_dump_list", walked)
    ids = [record_demo(store, r).battle for r in ("gangfight", "necromunda-2023")]
    monkeypatch.undo()
    again = BattleStore(pg_url)
    assert [b.battle for b in again.battles()] == ids
    for battle in ids:
        assert verify_battle(again, battle).ok


def test_a_pooled_connection_keeps_its_cursor(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each pooled connection keeps the cursor the store's statements run on: a cursor made
    for every statement started with none of its parameters' dumpers made, and made them all
    again at every write (issue 25). What is written reads back and verifies as before."""
    from blowbyblow.replay.battles.battle import Battle

    store = BattleStore(pg_url)
    door = Battle(store)
    system = get_game_system("gangfight")
    scenario = msgspec.structs.replace(system.demo(), commands=[], seed="cursor", dice=None)
    battle = door.start(scenario, quiet=True).id
    made: list[object] = []
    cursor = psycopg.Connection.cursor

    def counted(self: psycopg.Connection[Any], *args: Any, **kwargs: Any) -> Any:
        made.append(self)
        return cursor(self, *args, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "cursor", counted)
    pool = store.records.datastore.pool  # type: ignore[attr-defined]
    writes = 0
    for _ in range(3 * pool.max_size):  # each connection of the pool used more than once
        head = door.read(battle)
        if not head.options:
            break
        door.answer(head, system.build_command(head.options[0], {}), dice=None, choices={})
        writes += 1
    monkeypatch.undo()
    assert writes > 2 * pool.max_size
    assert len(made) <= pool.max_size  # one a connection, whatever it ran
    again = BattleStore(pg_url)
    assert verify_battle(again, battle).ok
    assert again.head(battle).version == door.read(battle).version  # type: ignore[union-attr]


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


# --- fair dice with the store on a server -----------------------------------------------------


def _every_byte(url: str) -> bytes:
    """Every row of every table of the database, as bytes: all that reading the store can see."""
    out: list[bytes] = []
    with psycopg.connect(url) as con:
        tables = con.execute(
            "select table_schema, table_name from information_schema.tables "
            "where table_schema not in ('pg_catalog', 'information_schema')"
        ).fetchall()
        assert tables
        for schema, table in tables:
            query = sql.SQL("select * from {}.{}").format(
                sql.Identifier(schema), sql.Identifier(table)
            )
            for row in con.execute(query):
                for value in row:
                    out.append(value if isinstance(value, bytes) else str(value).encode())
    return b"\n".join(out)


def _forms(hex_text: str) -> list[bytes]:
    return [hex_text.encode(), hex_text.upper().encode(), bytes.fromhex(hex_text)]


def test_a_fair_battle_recorded_at_a_table_is_sealed_on_the_judges_machine(
    pg_url: str, tmp_path: Path
) -> None:
    """The table records against the server with only the judge's escrow public key; the
    judge's machine, holding only the judge's private key (no seed folder, nothing else),
    seals it from the server; until then nothing in the database tells the seed."""
    judge = new_keys(tmp_path / "judge-keys")
    sides = {"goliath": "chainaxe", "escher": "wych"}
    scenario = get_game_system("necromunda-2023").demo()
    scenario = msgspec.structs.replace(
        scenario, commands=scenario.commands[:1]
    )  # legal whatever the dice
    table = BattleStore(pg_url)
    terms = FairTerms(judge_keys=[judge.escrow.read_text()], ask=lambda fair: sides)
    rec = record(table, scenario, quiet=True, fair=terms)
    before = _every_byte(pg_url)
    report = verify_battle(table, rec.battle)
    assert (
        report.ok and report.dice_checked == 0 and "cannot be checked yet" in "".join(report.notes)
    )

    # The judge's machine: a home of its own holding the private key and nothing else.
    home = tmp_path / "judge-machine"
    (home / "keys").mkdir(parents=True, mode=0o700)
    key = home / "keys" / "judge.key"
    shutil.copyfile(judge.private, key)
    os.chmod(key, 0o600)
    env = {k: v for k, v in os.environ.items() if k != "BXB_DB"}
    env |= {"HOME": str(home), "XDG_CONFIG_HOME": str(home), "XDG_DATA_HOME": str(home)}
    bxb = str(Path(sys.executable).with_name("bxb"))
    sealed = subprocess.run(
        [bxb, "--db", pg_url, "--log-level", "warning", "seal", str(rec.battle), "--key", str(key)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert sealed.returncode == 0, sealed.stderr
    assert "seed revealed" in sealed.stdout
    assert sorted(p.name for p in home.rglob("*")) == ["judge.key", "keys"]

    report = verify_battle(BattleStore(pg_url), rec.battle)
    assert report.ok and report.dice_checked > 0, report
    last = BattleStore(pg_url).read(rec.battle)[-1].event
    assert isinstance(last, BattleSealed) and last.checkpoint.seed is not None
    seed = last.checkpoint.seed
    # Before the seal no row held the seed, nor the seed the dice are drawn from, in any form...
    secrets = _forms(seed) + _forms(fair_dice_seed(seed, sides))
    assert [s for s in secrets if s in before] == []
    # ...and the search does find it once the seal has revealed it.
    assert seed.encode() in _every_byte(pg_url)

    # The escrow opens with the judge's key only.
    started, escrow = (e.event for e in table.read(rec.battle)[:2])
    assert isinstance(started, BattleStarted) and isinstance(escrow, SeedEscrowed)
    commit = started.dice.commitment or ""
    assert open_escrow(escrow, str(rec.battle), commit, load_private_key(judge.private)) == seed
    with pytest.raises(JudgingError):
        open_escrow(escrow, str(rec.battle), commit, Ed25519PrivateKey.generate())
    with pytest.raises(InvalidTag):  # even aimed straight at the box, another key fails
        suite = hpke.Suite(hpke.KEM.X25519, hpke.KDF.HKDF_SHA256, hpke.AEAD.CHACHA20_POLY1305)
        info = f"bxb-escrow-v1\x00{rec.battle}\x00{commit}".encode()
        suite.decrypt(bytes.fromhex(escrow.boxes[0].sealed), X25519PrivateKey.generate(), info=info)


def test_the_server_is_the_one_the_dev_extra_installs(server: str) -> None:
    """Not a PostgreSQL that happens to be on the machine: the tests run the same everywhere."""
    with psycopg.connect(server) as con:
        row = con.execute("show server_version").fetchone()
    assert row is not None
    assert str(row[0]).split()[0] == server_version()


def test_a_forked_battle_is_found_superseded_on_postgresql(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``bxb battles`` finds a superseded battle by its rulings' records alone: PostgreSQL's
    query finds the positions the topics say (``Records.ruled``), and the child."""
    from typer.testing import CliRunner

    from blowbyblow.cli.main import app
    from blowbyblow.replay.store.records import Records

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    store = BattleStore(pg_url)
    parent = record_demo(store, "gangfight").battle
    runner = CliRunner()
    assert runner.invoke(app, ["keys", "new"]).exit_code == 0
    forked = runner.invoke(
        app, ["--db", pg_url, "-q", "fork", "--at", "20", "--reason", "x", "--battle", str(parent)]
    )
    assert forked.exit_code == 0, forked.output
    again = BattleStore(pg_url)
    ruled = again.records.ruled(parent)
    assert ruled == Records.ruled(again.records, parent) and len(ruled) == 1
    child = again.superseded_by(parent)
    assert child is not None and child in [b.battle for b in again.battles()]
    assert again.superseded_by(child) is None


def _mark(url: str) -> str | None:
    with psycopg.connect(url) as con:
        row = con.execute("select obj_description('public.bxb_battles'::regclass)").fetchone()
    return None if row is None else row[0]


def _mark_as(url: str, comment: str | None) -> None:
    with psycopg.connect(url, autocommit=True) as con:
        con.execute(
            sql.SQL("comment on table public.bxb_battles is {}").format(
                sql.Literal(comment) if comment is not None else sql.SQL("null")
            )
        )


def _events_written(url: str) -> int:
    """The rows of every table of the store's database (nothing written: none changes)."""
    with psycopg.connect(url) as con:
        names = con.execute(
            "select table_schema, table_name from information_schema.tables "
            "where table_schema not in ('pg_catalog', 'information_schema')"
        ).fetchall()
        total = 0
        for schema, table in names:
            query = sql.SQL("select count(*) from {}.{}").format(
                sql.Identifier(schema), sql.Identifier(table)
            )
            row = con.execute(query).fetchone()
            assert row is not None
            total += int(row[0])
        return total


def test_a_new_postgresql_store_is_marked_and_a_newer_one_refused(pg_url: str) -> None:
    """A store this release makes on PostgreSQL is marked by its battle index's comment, as
    SQLite's header marks a file (docs/store.md); one marked above this release's schema is
    refused by every command in one line, exit 1, nothing written."""
    from blowbyblow.replay.store.schema import SCHEMA, NewerStore

    from bxbtest import bxb_quietly

    battle = record_demo(BattleStore(pg_url), "gangfight").battle
    assert _mark(pg_url) == f"blowbyblow store schema {SCHEMA}"
    _mark_as(pg_url, f"blowbyblow store schema {SCHEMA + 1}")
    written = _events_written(pg_url)
    with pytest.raises(NewerStore, match=f"store schema {SCHEMA + 1}; this release reads 1 to"):
        BattleStore(pg_url)
    for args in (
        ["battles"],
        ["verify", str(battle)],
        ["demo"],
        ["at", "3", str(battle)],
        ["tournament", "list"],  # a register read alone
        ["roster", "list"],
    ):
        code, _, err = bxb_quietly("--db", pg_url, *args)
        assert code == 1 and err.count("\n") == 1, (args, err)
        assert "was written by a newer blowbyblow" in err and "upgrade blowbyblow" in err
    assert _events_written(pg_url) == written


@pytest.mark.parametrize("comment", [None, "the club's store, 2025"])
def test_an_unmarked_postgresql_store_opens_verifies_and_stays_unmarked(
    pg_url: str, comment: str | None
) -> None:
    """A store made before the mark (its index without the comment, or with one a person wrote)
    opens and verifies as it always has, and opening it does not mark it."""
    battle = record_demo(BattleStore(pg_url), "gangfight").battle
    _mark_as(pg_url, comment)
    again = BattleStore(pg_url)
    assert verify_battle(again, battle).ok
    assert _mark(pg_url) == comment
