"""A store a newer blowbyblow wrote (a record format above this release's, an event type it
lacks): every command that meets it says so in one line naming what is too new and that an
upgrade reads it, exits 1 (the store cannot be used here; no usage error), and writes nothing;
``bxb verify`` does not pass it (a forger can make a record look newer) (docs/store.md)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.replay.engine.formats import CURRENT_FORMAT

_SORTED = msgspec.msgpack.Encoder(order="sorted")


def bxb(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--log-level", "error", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    code, _, err = bxb("--db", str(path), "demo")
    assert code == 0, err
    return path


def _newer_format(con: sqlite3.Connection, battle: str, position: int, envelope: Any) -> str:
    envelope["v"] = CURRENT_FORMAT + 1
    con.execute(
        "update stored_events set state=? where originator_id=? and originator_version=?",
        (_SORTED.encode(envelope), battle, position),
    )
    return f"record format {CURRENT_FORMAT + 1}"


def _newer_event_type(con: sqlite3.Connection, battle: str, position: int, envelope: Any) -> str:
    """The next record, chained after the last, of an event type no release of today has."""
    (topic,) = con.execute(
        "select topic from stored_events where originator_id=? and originator_version=?",
        (battle, position),
    ).fetchone()
    ruleset = topic.partition("/")[0]
    newer = {**envelope, "prev": envelope["hash"], "event": {"type": "BannerRaised"}}
    con.execute(
        "insert into stored_events (originator_id, originator_version, topic, state) "
        "values (?, ?, ?, ?)",
        (battle, position + 1, f"{ruleset}/BannerRaised", _SORTED.encode(newer)),
    )
    return "an event type this release lacks: BannerRaised"


@pytest.fixture(params=[_newer_format, _newer_event_type], ids=["format", "event-type"])
def newer(
    request: pytest.FixtureRequest, demo_store: Path, tmp_path: Path
) -> tuple[Path, str, int]:
    """A copy of the demo store with its last record as a newer release writes it: the copy,
    what is too new, and the battle's last position this release can read."""
    make: Callable[[sqlite3.Connection, str, int, Any], str] = request.param
    path = tmp_path / "newer.sqlite"
    con = sqlite3.connect(path)
    with sqlite3.connect(demo_store) as demo:
        demo.backup(con)  # the demo's write-ahead log included
    try:
        battle, position, state = con.execute(
            "select originator_id, originator_version, state from stored_events "
            "order by rowid desc limit 1"
        ).fetchone()
        what = make(con, battle, position, msgspec.msgpack.decode(state))
        con.commit()
    finally:
        con.close()
    return path, what, position - 1


@pytest.mark.parametrize("command", [["log"], ["verify"], ["battles"], ["at", "LAST"]])
def test_a_store_a_newer_release_wrote_says_upgrade(
    newer: tuple[Path, str, int], command: list[str]
) -> None:
    path, what, last = newer
    args = [str(last + 1) if a == "LAST" else a for a in command]
    before = _log(path)
    code, out, err = bxb("--db", str(path), *args)
    if command == ["battles"] and "format" in what:  # the list reads no record: it is listed
        assert code == 0 and "started" in out, err
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
