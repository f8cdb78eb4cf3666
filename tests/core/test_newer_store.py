"""A store a newer blowbyblow wrote (a record format above this release's, an event type it
lacks): every command that meets it says so in one line naming what is too new and that an
upgrade reads it, exits 1 (the store cannot be used here; no usage error), and writes nothing;
``bxb verify`` does not pass it (a forger can make a record look newer) (docs/store.md)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import msgspec
import pytest

from bxbtest import NEWER, bxb_quietly, copy_store, demo_store_in, written_by_a_newer_release


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_store_in(tmp_path_factory.mktemp("demo"))


@pytest.fixture(params=sorted(NEWER))
def newer(
    request: pytest.FixtureRequest, demo_store: Path, tmp_path: Path
) -> tuple[Path, str, int]:
    """A copy of the demo store with its last record as a newer release writes it: the copy,
    what is too new, and the battle's last position this release can read."""
    path = tmp_path / "newer.sqlite"
    copy_store(demo_store, path)
    _, last, what = written_by_a_newer_release(path, request.param)
    return path, what, last


@pytest.mark.parametrize("command", [["log"], ["verify"], ["battles"], ["at", "LAST"]])
def test_a_store_a_newer_release_wrote_says_upgrade(
    newer: tuple[Path, str, int], command: list[str]
) -> None:
    path, what, last = newer
    args = [str(last + 1) if a == "LAST" else a for a in command]
    before = _log(path)
    code, out, err = bxb_quietly("--db", str(path), *args)
    if command == ["battles"]:  # listed, its verdict not this release's to give
        assert code == 0 and "Traceback" not in err, err
        assert "newer" in out.split() and "verified" not in out.split(), out
        assert _log(path) == before, "nothing written"
        return
    lines = [line for line in (out + err).splitlines() if "newer blowbyblow" in line]
    assert code == 1, (code, err)
    assert len(lines) == 1 and what in lines[0] and "upgrade blowbyblow" in lines[0], out + err
    assert "Traceback" not in err
    if command == ["verify"]:  # not verified: a forger can make a record look newer
        assert lines[0].startswith(("error:", "verify FAILED:")), lines[0]
    else:
        assert err.strip() == lines[0] and lines[0].startswith("error:"), err
        assert "bxb verify" not in lines[0], lines[0]
    assert _log(path) == before, "nothing written"


def _log(path: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as con:
        return con.execute("select * from stored_events order by rowid").fetchall()


def test_battles_as_json_names_what_is_newer(newer: tuple[Path, str, int]) -> None:
    """``bxb battles --json``: the verdict withheld (null) and what is newer named, where the
    index held verify's verdict from before the newer record."""
    path, what, _ = newer
    code, out, err = bxb_quietly("--db", str(path), "battles", "--json")
    assert code == 0, err
    (row,) = [msgspec.json.decode(line) for line in out.splitlines()]
    assert row["verified"] is None and what in row["newer"], row
