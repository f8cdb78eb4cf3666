"""A throwaway PostgreSQL server for the tests: initdb + pg_ctl in a temporary folder, trust
authentication on 127.0.0.1 only, stopped at the end. Needs PostgreSQL's server programs
(Debian: `apt-get install postgresql`; .ci/run installs them when missing)."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def find_program(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def postgres_server() -> Iterator[str]:
    """Yields a URL, postgresql://bxb@127.0.0.1:PORT/, of a fresh server."""
    initdb, pg_ctl = find_program("initdb"), find_program("pg_ctl")
    if not initdb or not pg_ctl:
        raise RuntimeError(
            "PostgreSQL server programs (initdb, pg_ctl) not found: "
            "install PostgreSQL (Debian: apt-get install postgresql)"
        )
    base = Path(tempfile.mkdtemp(prefix="bxb-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        shutil.chown(base, "nobody", "nogroup")
        as_user = ["runuser", "-u", "nobody", "--"]
    port = _free_port()
    data = base / "data"
    subprocess.run(
        [*as_user, initdb, "-D", str(data), "-U", "bxb", "--auth=trust", "-E", "UTF8"],
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [
            *as_user,
            pg_ctl,
            "-D",
            str(data),
            "-w",
            "-l",
            str(base / "log"),
            "-o",
            f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
        ],
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql://bxb@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*as_user, pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True
        )
        shutil.rmtree(base, ignore_errors=True)
