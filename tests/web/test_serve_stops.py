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
import pytest
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


def serving(tmp_path: Path, port: int) -> subprocess.Popen[str]:
    """``bxb serve`` on ``port``, in a process group of its own, as a terminal's job."""
    serve = ["serve", "--port", str(port)]
    return subprocess.Popen(
        [sys.executable, "-m", "blowbyblow.cli.main", "--db", str(tmp_path / "t.sqlite"), *serve],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a group of its own, as a terminal's job
        env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")},
    )


def up_and_warm(server: subprocess.Popen[str], port: int) -> None:
    """Wait until the server answers and its odds desk's workers have started."""

    def up() -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{port}/", timeout=5).status_code == 200
        except httpx.HTTPError:
            return server.poll() is not None  # stopped: the asserts below say why

    waited(up, "the server")
    workers = DeskLimits().workers
    # the desk's workers, warmed up at start-up (children of the forkserver, a child of
    # the server), each past its start
    waited(
        lambda: sum(started(w) for c in children(server.pid) for w in children(c)) >= workers,
        "the odds desk's workers",
    )


def stopped(server: subprocess.Popen[str]) -> str:
    """The server's stderr once it has ended (killed, with all its group, if it hangs)."""
    try:
        return server.communicate(timeout=120)[1]
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.communicate()


def left(session: int) -> list[int]:
    """The processes still running in ``session`` (the server's: every process it started)."""
    return [
        int(e.name)
        for e in Path("/proc").iterdir()
        if e.name.isdigit() and (f := stat(int(e.name))) and int(f[3]) == session and f[0] != "Z"
    ]


def test_ctrl_c_in_the_terminal_stops_the_server_without_a_traceback(tmp_path: Path) -> None:
    port = free_port()
    server = serving(tmp_path, port)
    try:
        up_and_warm(server, port)  # Ctrl-C while a worker starts: the next test
        os.killpg(server.pid, signal.SIGINT)  # Ctrl-C
    finally:
        err = stopped(server)
    assert server.returncode == 0, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "serving http://" in err


def test_ctrl_c_as_the_server_starts_is_one_line_and_a_clean_exit(tmp_path: Path) -> None:
    """Ctrl-C before uvicorn's own handlers were in place (the server's first seconds) ended
    ``bxb serve`` with exit 130, and a worker of the odds desk still starting printed a
    traceback (a KeyboardInterrupt, or its pool's semaphores gone under it)."""
    port = free_port()
    server = serving(tmp_path, port)
    try:
        # its first child: multiprocessing's resource tracker, as the odds desk starts
        waited(lambda: bool(children(server.pid)) or server.poll() is not None, "a child")
        os.killpg(server.pid, signal.SIGINT)  # Ctrl-C
    finally:
        err = stopped(server)
    assert server.returncode == 0, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    if "serving http://" not in err:  # stopped before it served: said so
        assert "bxb serve: stopped before it was serving" in err, err
    waited(lambda: not left(server.pid), "the server's processes to end", patience=30)


@pytest.mark.parametrize("whom", ["server", "group"])
def test_sigterm_stops_the_server_with_exit_0(tmp_path: Path, whom: str) -> None:
    """A service manager's stop: SIGTERM to the server (``kill PID``), or to all its processes
    (systemd's default). uvicorn shut down and raised the signal again, and its default ended
    the process (exit -15) before multiprocessing's finalizers ran: sometimes a warning of
    leaked semaphores."""
    port = free_port()
    server = serving(tmp_path, port)
    try:
        up_and_warm(server, port)
        (os.kill if whom == "server" else os.killpg)(server.pid, signal.SIGTERM)
    finally:
        err = stopped(server)
    assert server.returncode == 0, err
    assert "Traceback" not in err and "leaked" not in err and "warn" not in err.lower(), err
    waited(lambda: not left(server.pid), "the server's processes to end", patience=30)


def test_the_serve_command_does_not_load_the_entry_point() -> None:
    """``bxb serve``'s module and the entry point share the line a stop before serving prints
    (``STOPPED``): it lives in the package, so the command does not import ``cli/main.py``."""
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, blowbyblow.cli.serve; print(*sorted(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert "blowbyblow.cli.serve" in loaded
    assert "blowbyblow.cli.main" not in loaded
