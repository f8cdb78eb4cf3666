"""Running bxb as a person does: the installed command in a process of its own."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "cli" / "scenarios"
BXB = str(Path(sys.executable).parent / "bxb")  # the console script the install made


def environment(**changes: str | None) -> dict[str, str]:
    """This process's environment without a store of its own, with ``changes`` (None: unset)."""
    env = {k: v for k, v in os.environ.items() if k not in ("BXB_DB", "NO_COLOR")}
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BXB, *args],
        capture_output=True,
        text=True,
        env=env or environment(),
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


def run_on_a_terminal(*args: str, env: dict[str, str]) -> str:
    """What a terminal shows: standard output and error both on a pseudo-terminal."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        list(args), stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env
    )
    os.close(slave)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    assert proc.wait(timeout=120) == 0, b"".join(chunks).decode(errors="replace")
    return b"".join(chunks).decode(errors="replace")
