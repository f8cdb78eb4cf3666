"""``bxb serve`` stopped as an organiser stops it, Ctrl-C in its terminal: the terminal sends
SIGINT to every process of the group, the odds desk's worker processes too. The server stops
them itself as it stops; each printed a KeyboardInterrupt traceback of its own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from web_helpers import free_port

from blowbyblow.replay.odds.desk import NICE, DeskLimits


def stat(pid: int) -> list[str]:
    """``/proc/PID/stat``'s fields from the third (state, parent, ...), or none once gone."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return []


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = stat(int(entry.name))
            if fields and int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def started(pid: int) -> bool:
    """A worker whose start (``_lower_priority``) has run: its nice value is the desk's."""
    fields = stat(pid)
    return bool(fields) and int(fields[16]) == NICE


def waited(done: object, what: str, patience: float = 120.0) -> None:
    """Wait until ``done()`` (a guard against a hang, not a measure)."""
    deadline = time.monotonic() + patience
    while not done():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting for {what} after {patience:.0f} s")
        time.sleep(0.1)


def test_ctrl_c_in_the_terminal_stops_the_server_without_a_traceback(tmp_path: Path) -> None:
    port = free_port()
    serve = ["serve", "--port", str(port)]
    server = subprocess.Popen(
        [sys.executable, "-m", "blowbyblow.cli.main", "--db", str(tmp_path / "t.sqlite"), *serve],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a group of its own, as a terminal's job
        env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")},
    )
    try:

        def up() -> bool:
            try:
                return httpx.get(f"http://127.0.0.1:{port}/", timeout=5).status_code == 200
            except httpx.HTTPError:
                return server.poll() is not None  # stopped: the asserts below say why

        waited(up, "the server")
        workers = DeskLimits().workers
        # the desk's workers, warmed up at start-up (children of the forkserver, a child of
        # the server), each past its start: Ctrl-C while a worker starts is not this test's
        waited(
            lambda: sum(started(w) for c in children(server.pid) for w in children(c)) >= workers,
            "the odds desk's workers",
        )
        os.killpg(server.pid, signal.SIGINT)  # Ctrl-C
        _out, err = server.communicate(timeout=120)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.communicate()
    assert server.returncode == 0, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "serving http://" in err
