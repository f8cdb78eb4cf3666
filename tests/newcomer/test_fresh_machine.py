"""A fresh machine has no PostgreSQL of its own: the PostgreSQL store tests must pass with the
system's server programs out of reach, on the server the `dev` extra installs alone."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_SERVER = Path("/usr/lib/postgresql")  # Debian's PostgreSQL packages
# The programs that make or run a server (Debian's wrappers included); psql and other clients
# are no server.
PROGRAMS = ("initdb", "pg_ctl", "postgres", "postmaster", "pg_ctlcluster", "pg_createcluster")


def path_without_postgres(path: str, shims: Path) -> str:
    """PATH with every folder that holds a server program (/usr/local/bin/initdb, say) replaced
    by a folder of links to all its other programs."""
    folders = []
    for i, folder in enumerate(Path(d) for d in path.split(os.pathsep) if d):
        if not any((folder / p).exists() for p in PROGRAMS):
            folders.append(str(folder))
            continue
        shim = shims / str(i)
        shim.mkdir()
        for entry in folder.iterdir():
            if entry.name not in PROGRAMS:
                (shim / entry.name).symlink_to(entry)
        folders.append(str(shim))
    return os.pathsep.join(folders)


def _can_hide_system_server() -> bool:
    """Root with mount namespaces (CI) can also lay an empty folder over Debian's server."""
    if os.geteuid() != 0 or not SYSTEM_SERVER.is_dir() or not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True)
    return probe.returncode == 0


def test_postgres_tests_pass_with_the_system_server_out_of_reach(tmp_path: Path) -> None:
    path = path_without_postgres(os.environ.get("PATH", ""), tmp_path)
    for program in PROGRAMS:
        assert shutil.which(program, path=path) is None, program
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
    command += ["tests/core/test_postgres.py"]
    hidden = "PATH"
    if _can_hide_system_server():
        hide = (
            f"mount -t tmpfs empty {SYSTEM_SERVER} && ! ls {SYSTEM_SERVER}/*/bin/initdb 2>/dev/null"
        )
        command = ["unshare", "--mount", "sh", "-c", f'{hide} && exec "$@"', "sh", *command]
        hidden = f"PATH and {SYSTEM_SERVER}"
    done = subprocess.run(
        command,
        cwd=ROOT,
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
        timeout=300,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, f"with {hidden} hidden:\n{said}"
    # Every test ran and passed: no skip, no error, nothing deselected.
    assert re.search(r"^\d+ passed in ", said, re.MULTILINE), said
