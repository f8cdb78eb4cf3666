"""``bxb tournament new``, ``bxb tables add`` (one token per table with its link and QR code,
and a judge token; only hashes stored) and ``bxb serve`` (bound to 127.0.0.1 unless told)."""

from __future__ import annotations

import re
import socket
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from blowbyblow.cli import serve
from blowbyblow.cli.main import app as cli
from blowbyblow.web.guard import PatientHttp
from blowbyblow.web.tournament import TournamentStore, token_hash


def warm_ups_ended() -> None:
    """The odds desks' warm-ups (``ServerOdds.warm``: a thread) have ended, whatever they did."""
    for thread in threading.enumerate():
        if thread.name == "odds-warm":
            thread.join(120)
            assert not thread.is_alive(), "a warm-up never ended"


def bxb(db: Path, *args: str) -> Any:
    return CliRunner().invoke(cli, ["--db", str(db), "--log-level", "error", *args])


def test_tables_add_prints_tokens_links_and_qr_codes_and_stores_only_hashes(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    made = bxb(db, "tournament", "new", "spring", "--name", "Spring Open")
    assert made.exit_code == 0, made.output
    out = bxb(db, "tables", "add", "spring", "--count", "2", "--url", "http://10.0.0.5:8000")
    assert out.exit_code == 0, out.output
    tokens = dict(re.findall(r"^(table \d+|judge): token (\S+)$", out.output, re.M))
    assert set(tokens) == {"table 1", "table 2", "judge"}
    for token in tokens.values():
        assert f"http://10.0.0.5:8000/join/{token}" in out.output
    assert out.output.count("█") > 100  # the QR codes, as text
    store = TournamentStore(str(db))
    t1 = store.principal(tokens["table 1"])
    assert t1 is not None and (t1.role, t1.table) == ("table", 1)
    judge = store.principal(tokens["judge"])
    assert judge is not None and judge.is_judge
    with sqlite3.connect(db) as con:
        stored = {row[0] for row in con.execute("select hash from bxb_tokens")}
    assert stored == {token_hash(t) for t in tokens.values()}
    raw = db.read_bytes()
    assert not any(t.encode() in raw for t in tokens.values())
    again = bxb(db, "tables", "add", "spring", "--no-qr")
    assert "table 3: token" in again.output and "█" not in again.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tournament", "new", "Spring Open"], "tournament id 'Spring Open'"),
        (["tables", "add", "nowhere"], "no tournament 'nowhere'"),
        (["tables", "add", "spring", "--count", "0"], "count: expected 1 to 500"),
        (["tables", "add", "spring", "--url", "10.0.0.5"], "--url: expected http://"),
        (["serve", "--reading", "sometimes"], "--reading: expected open or tokens"),
        (["serve", "--key", "/nonexistent/judge.key"], "--key:"),
        (["serve", "--judge-key", "abcd"], "--judge-key: 'abcd' is not an escrow key"),
    ],
)
def test_bad_input_is_one_error_line(tmp_path: Path, args: list[str], message: str) -> None:
    db = tmp_path / "t.sqlite"
    bxb(db, "tournament", "new", "spring")
    result = bxb(db, *args)
    assert result.exit_code == 2, result.output
    assert f"error: {message}" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["serve", "--port", "1"],
            "a server's tables write with the tokens `bxb tables add` makes",
        ),
        (["tournament", "new", "spring"], "a tournament made in memory is gone"),
    ],
)
def test_a_store_in_memory_is_refused_where_it_must_outlive_the_command(
    args: list[str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bxb serve --db :memory:` served an empty store no table could ever write to (the tokens
    are made by another command, on the store), and lost everything at the stop: refused before
    the server starts, as is a tournament made in memory."""
    served: list[Any] = []
    monkeypatch.setattr(serve, "_uvicorn", lambda *a: served.append(a))
    result = bxb(Path(":memory:"), *args)
    assert result.exit_code == 2, result.output
    lines = result.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --db :memory:: "), result.output
    assert message in lines[0] and "expected a SQLite file" in lines[0]
    assert served == []


def _tables(db: Path) -> list[str]:
    with sqlite3.connect(db) as con:
        return sorted(row[0] for row in con.execute("select name from sqlite_master"))


def _dump(db: Path) -> list[str]:
    con = sqlite3.connect(db)
    try:
        return list(con.iterdump())
    finally:
        con.close()


def test_reading_a_register_not_there_writes_nothing(tmp_path: Path) -> None:
    """A command that only reads (or is refused) leaves the store as it was: opening
    the tournaments' or rosters' register made its tables in a store of battles."""
    db = tmp_path / "t.sqlite"
    assert bxb(db, "demo").exit_code == 0
    before = _dump(db)  # what it holds (its bytes move as the demo's connection, open in this
    # process, checkpoints its WAL file into it whenever it is collected)
    said = bxb(db, "tournament", "list")
    assert said.exit_code == 0 and said.output == "no tournaments yet (`bxb tournament new SLUG`)\n"
    assert bxb(db, "roster", "list").exit_code == 0
    for args in (["tables", "add", "x"], ["tables", "list", "x"], ["tables", "revoke", "x", "1"]):
        refused = bxb(db, *args)
        assert refused.exit_code == 2 and "error: no tournament 'x'" in refused.output
    refused = bxb(db, "roster", "export", "-t", "x", "-p", "y", "-n", "z")
    assert refused.exit_code == 1 and "no roster 'z'" in refused.output
    assert _dump(db) == before
    made = bxb(db, "tournament", "new", "spring")  # the register made when it is written to
    assert made.exit_code == 0 and "bxb_tournaments" in _tables(db)
    assert bxb(db, "tournament", "list").output.startswith("spring  0 tables")


@pytest.mark.parametrize(
    "args", [["Spring Open"], ["spring", "--name", "x" * 1000]], ids=["slug", "name"]
)
def test_a_tournament_refused_leaves_the_store_as_it_was(tmp_path: Path, args: list[str]) -> None:
    """Its id or name refused before the store is opened: no store file made where there was
    none, and a store of battles not given the register's tables (it was, before the refusal)."""
    db = tmp_path / "t.sqlite"
    refused = bxb(db, "tournament", "new", *args)
    assert refused.exit_code == 2, refused.output
    assert refused.output.count("error: ") == 1 and "Traceback" not in refused.output
    assert not db.exists()
    assert bxb(db, "demo").exit_code == 0
    battles = _tables(db)
    assert bxb(db, "tournament", "new", *args).exit_code == 2
    assert _tables(db) == battles


def test_serve_binds_loopback_unless_told(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    seen: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.append(kw))
    # Ports 8000 and 9000 may be in use on this machine: the check that they are free is not
    # what this test is about (the next one is).
    monkeypatch.setattr(serve, "_check_free", lambda host, port: None)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no judge key there
    db = tmp_path / "t.sqlite"
    local = bxb(db, "serve")
    assert local.exit_code == 0 and "reachable by others" not in local.output
    opened = bxb(db, "serve", "--host", "0.0.0.0", "--port", "9000")
    assert opened.exit_code == 0
    assert "warning: --host 0.0.0.0: the server is now reachable by others" in opened.output
    assert [(s["host"], s["port"]) for s in seen] == [("127.0.0.1", 8000), ("0.0.0.0", 9000)]
    assert {s["http"] for s in seen} == {PatientHttp}  # half-sent requests are timed out


def test_serve_runs_full_collections_ten_times_less_often(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25: a full garbage collection stops the whole server (80-190 ms at 512 tables,
    benchmarks/probe.py); Python runs one after every 10 collections of generation 1. The
    server waits for 100, and keeps what start-up made out of every collection."""
    import gc

    import uvicorn

    seen: list[tuple[int, int, int]] = []
    before = gc.get_threshold()
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.append(gc.get_threshold()))
    monkeypatch.setattr(serve, "_check_free", lambda host, port: None)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    try:
        assert bxb(tmp_path / "t.sqlite", "serve").exit_code == 0
        assert seen == [(before[0], before[1], 100)]
        assert gc.get_freeze_count() > 0
    finally:
        gc.set_threshold(*before)


@pytest.mark.parametrize("level", [["--log-level", "warning"], ["--log-level", "error"], ["-q"]])
def test_serve_on_a_port_taken_says_so_at_any_log_level(tmp_path: Path, level: list[str]) -> None:
    """Issue 26, hole 7: a server whose port is taken said "serving http://…" and then exited
    with only uvicorn's log line, or none at some log levels. Now one error line naming the
    port, nothing claimed, exit 1."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(
            cli, ["--db", str(tmp_path / "t.sqlite"), *level, "serve", "--port", str(port)]
        )
    assert result.exit_code == 1, result.output
    assert f"error: --port: {port} on 127.0.0.1 is taken by another program" in result.output
    assert "serving" not in result.output and "Traceback" not in result.output


def test_serve_stopped_as_it_starts_says_so_and_leaves_no_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C (or SIGTERM) before uvicorn's own handlers are in place: typer ended the command
    with exit 130 and left the warmed odds desk's workers running. Now one line, exit 0, the
    desk closed, and the signals' handlers as they were."""
    import signal

    import uvicorn

    served: list[Any] = []

    def interrupted(app: Any, **kw: Any) -> None:
        served.append(app)
        signal.raise_signal(signal.SIGINT)  # Ctrl-C before uvicorn's handlers are in place

    monkeypatch.setattr(uvicorn, "run", interrupted)
    monkeypatch.setattr(serve, "_check_free", lambda host, port: None)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    result = bxb(tmp_path / "t.sqlite", "serve")
    assert result.exit_code == 0, result.output
    assert "bxb serve: stopped before it was serving" in result.output
    assert "Traceback" not in result.output
    [app] = served
    warm_ups_ended()
    assert app.state.server.service.odds_desk._desk is None  # closed: no worker left
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_serve_whose_uvicorn_returns_leaves_no_odds_desk_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """uvicorn.run returned without the app's shutdown (a stub in these tests, or a stop
    before its lifespan began): the desk warmed up at start-up was left running, its worker
    processes until the process exited."""
    import uvicorn

    served: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.append(app))
    monkeypatch.setattr(serve, "_check_free", lambda host, port: None)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert bxb(tmp_path / "t.sqlite", "serve").exit_code == 0
    [app] = served
    warm_ups_ended()
    assert app.state.server.service.odds_desk._desk is None


@pytest.mark.parametrize(("command", "code"), [("serve", 0), ("battles", 130)])
def test_ctrl_c_while_a_command_loads_is_no_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], command: str, code: int
) -> None:
    """Ctrl-C while ``bxb``'s modules load (its first few tenths of a second) printed
    Python's KeyboardInterrupt traceback. ``bxb serve`` says it stopped, as it does later in
    its start-up; any other command ends as typer ends one stopped by Ctrl-C (130, no word)."""
    import signal

    from blowbyblow.cli import main as cli_main

    def interrupted(modules: tuple[str, ...]) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_main, "register", interrupted)
    monkeypatch.setattr("sys.argv", ["bxb", "--db", "x.sqlite", command])
    before = signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(SystemExit) as ended:
            cli_main.main()
    except KeyboardInterrupt:  # left to Python: its traceback (and pytest's session ended)
        pytest.fail("the KeyboardInterrupt escaped bxb")
    finally:
        signal.signal(signal.SIGTERM, before)
    assert ended.value.code == code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert ("bxb serve: stopped before it was serving" in err) == (command == "serve")
