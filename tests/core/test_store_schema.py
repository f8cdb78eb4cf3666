"""A SQLite file that is no blowbyblow store (another program's tables, another application's
id), or a store whose table layout a newer blowbyblow made (a store schema above this
release's, marked in the file's header): every command that opens it says so in one line, exits
1 and leaves the file as it was (before, a foreign file got the store's tables made in it and
was read as an empty store). A store this release makes is marked; stores of earlier releases
(no mark) still open and verify, and are not marked by reading (docs/store.md)."""

from __future__ import annotations

import shutil
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from blowbyblow.replay.store.schema import APPLICATION_ID, SCHEMA

from bxbtest import bxb_quietly, copy_store, demo_store_in

OLD_STORES = sorted((Path(__file__).parents[1] / "fixtures" / "stores").glob("*.sqlite"))
COMMANDS = [
    ["at", "1"],
    ["log"],
    ["battles"],
    ["verify"],
    ["play", "--battle", "krug"],
    ["tournament", "list"],
    ["tables", "list", "spring"],
    ["roster", "list"],
]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_store_in(tmp_path_factory.mktemp("demo"))


def _pragmas(path: Path) -> tuple[int, int]:
    con = sqlite3.connect(path)
    try:
        return con.execute("pragma application_id").fetchone()[0], con.execute(
            "pragma user_version"
        ).fetchone()[0]
    finally:
        con.close()


def _another_programs(path: Path) -> str:
    con = sqlite3.connect(path)
    con.execute("create table notes (id integer primary key, body text)")
    con.execute("insert into notes (body) values ('not a battle')")
    con.commit()
    con.close()
    return "not a blowbyblow store: it holds another program's tables (notes)"


def _another_application(path: Path) -> str:
    con = sqlite3.connect(path)
    con.execute(f"pragma application_id = {int.from_bytes(b'GPKG', 'big')}")  # a GeoPackage
    con.execute("create table stored_events (x)")
    con.commit()
    con.close()
    return "not a blowbyblow store: its SQLite application id is 0x47504b47"


def _newer(path: Path, demo: Path) -> str:
    copy_store(demo, path)
    con = sqlite3.connect(path)
    con.execute("alter table bxb_battles add column table_number integer")  # a layout changed
    con.execute(f"pragma user_version = {SCHEMA + 1}")
    con.commit()
    con.close()
    return f"written by a newer blowbyblow (store schema {SCHEMA + 1}; this release reads 1 to {SCHEMA})"


@pytest.fixture(params=["another program's", "another application's", "newer"])
def refused(request: pytest.FixtureRequest, tmp_path: Path, demo: Path) -> tuple[Path, str]:
    path = tmp_path / "file.sqlite"
    if request.param == "newer":
        return path, _newer(path, demo)
    make = _another_programs if request.param == "another program's" else _another_application
    return path, make(path)


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c[:2]) for c in COMMANDS])
def test_a_file_no_store_of_this_release_is_refused_in_one_line(
    refused: tuple[Path, str], command: list[str]
) -> None:
    path, said = refused
    before = path.read_bytes()
    code, out, err = bxb_quietly("--db", str(path), *command)
    assert code == 1, (code, out, err)
    assert err.startswith("error: ") and err.count("\n") == 1 and said in err, err
    if "newer" in said:
        assert "upgrade blowbyblow" in err, err
    assert out == "" and "Traceback" not in err
    assert path.read_bytes() == before, "the file is left as it was"


def test_bxb_serve_refuses_it_before_serving(refused: tuple[Path, str]) -> None:
    path, said = refused
    before = path.read_bytes()
    with socket.socket() as s:  # a port free now: the refusal comes before any bind
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    done = subprocess.run(
        [sys.executable, "-m", "blowbyblow.cli.main", "--db", str(path), "serve", "--port", port],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert done.stderr.startswith("error: ") and said in done.stderr, done.stderr
    assert path.read_bytes() == before


def test_a_store_made_now_is_marked(demo: Path) -> None:
    assert _pragmas(demo) == (APPLICATION_ID, SCHEMA)


@pytest.mark.parametrize("old", OLD_STORES, ids=[p.stem for p in OLD_STORES])
def test_an_earlier_releases_store_opens_verifies_and_stays_unmarked(
    old: Path, tmp_path: Path
) -> None:
    path = tmp_path / old.name
    shutil.copy(old, path)
    assert _pragmas(path) == (0, 0)
    code, out, err = bxb_quietly("--db", str(path), "verify")
    assert code == 0 and "verify OK" in out, (out, err)
    assert _pragmas(path) == (0, 0)
