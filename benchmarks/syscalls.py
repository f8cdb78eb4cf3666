"""Where the tournament server's processor time goes a command beyond the instructions callgrind
counts: user and system time apart, the system calls by kind and the threads' wake-ups,
measured by hand (never by a test):

    python benchmarks/syscalls.py [--commands 40] [--judges 0] [--typed] [--key]
                                  [--server-python LABEL=PATH ...] [--rounds 1]

As ``benchmarks/instructions.py`` (whose tables and commands it plays: 4 tables, 5 commands
each to warm, then ``--commands`` more at each as the table page writes them; PostgreSQL, fsync
off), but with no valgrind: each server runs at full speed, and over the counted commands it
reads from ``/proc`` each of the server's threads' user and system time and its voluntary and
involuntary context switches (a voluntary one is the thread going to sleep: on a futex, in
``epoll_wait``, in a read), grouped by kind of thread (the event loop's, the store's workers
``bxb-work``, the rest), and the process's read and write calls (``/proc/PID/io``). Then it
counts the same commands again with ``strace -f`` attached (which slows the server, so those
counts are kept apart from the times): the system calls by kind, a command. The server's own
processor time a command is what ``benchmarks/server.py`` reports (user + system of the process
and its children); callgrind counts only the user-space instructions of it.

``/proc``'s times are in clock ticks (10 ms): count enough commands (``--commands 40`` at 4
tables is 160 commands, some 700 requests typed). strace is not a dependency (``apt-get install
strace``)."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from instructions import TABLES, WARM, _play, load_tournament, open_tables  # this folder's
from server import free_port, wait_serving
from threads import Snapshot, kind_of, split_table

from pgserver import postgres_server  # the tests' throwaway server

_CALL = re.compile(r"^(\d+)\s+(\w+)\(")
_DATA = re.compile(r'^(\d+)\s+(?:<\.\.\. )?(read|write)(?:\(\d+, | resumed>)"([A-Z/.0-9 ]{0,9})')
_METHODS = ("GET ", "POST ", "HEAD ", "PUT ", "DELETE ", "PATCH ", "OPTIONS ")


def strace_counts(text: str, pid: int) -> Counter[tuple[str, str]]:
    """``strace -f``'s lines: calls by kind of thread and system call (a call interrupted and
    resumed counted once)."""
    calls: Counter[tuple[str, str]] = Counter()
    for line in text.splitlines():
        m = _CALL.match(line)
        if m:
            calls[kind_of(pid, int(m[1])), m[2]] += 1
        d = _DATA.match(line)
        if d and kind_of(pid, int(d[1])) == "loop":  # what the loop's socket calls carried
            if d[2] == "read" and d[3].startswith(_METHODS):
                calls["loop", "read: a request's head"] += 1
            elif d[2] == "write":
                head = d[3].startswith("HTTP/1.")
                calls["loop", "write: " + ("an answer's head" if head else "anything else")] += 1
    return calls


@dataclass
class Found:
    label: str
    commands: int
    split: Snapshot
    calls: Counter[tuple[str, str]]
    load: tuple[float, float]  # the 1-minute load average before and after
    wall: float


def measure(  # noqa: PLR0913 - the server, what it plays
    label: str, python: str, commands: int, judges: int, typed: bool, signing: bool
) -> Found:
    with postgres_server(fsync=False) as db, tempfile.TemporaryDirectory() as folder:
        made, key = load_tournament(db, Path(folder), signing)
        port = free_port()
        server = subprocess.Popen(
            [
                *(python, "-m", "blowbyblow.cli.main", "--db", db, "--log-level", "warning"),
                *("serve", "--port", str(port), *key),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            wait_serving(base, server, patience=120, ask=10, pause=0.2)
            tables = open_tables(base, made, typed, timeout=60)
            asyncio.run(_play(base, tables, WARM, judges, typed))
            marks: list[tuple[Snapshot, float]] = []

            def timed(on: bool) -> None:
                marks.append((Snapshot.of(server.pid), time.monotonic()))

            load_before = os.getloadavg()[0]
            asyncio.run(_play(base, tables, commands, judges, typed, timed))
            (before, began), (after, ended) = marks
            out = tempfile.mktemp(prefix="bxb-strace-")
            tracer: list[subprocess.Popen[bytes]] = []

            def traced(on: bool) -> None:
                if on:
                    tracer.append(
                        subprocess.Popen(
                            ["strace", "-f", "-qq", "-o", out, "-p", str(server.pid)],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,
                        )
                    )
                    time.sleep(1.0)  # attached to every thread
                else:
                    tracer[0].send_signal(signal.SIGINT)
                    tracer[0].wait(timeout=60)

            asyncio.run(_play(base, tables, commands, judges, typed, traced))
            calls = strace_counts(Path(out).read_text(), server.pid)
            Path(out).unlink()
        finally:
            server.terminate()
            server.wait(timeout=60)
    return Found(
        label,
        TABLES * commands,
        after - before,
        calls,
        (load_before, os.getloadavg()[0]),
        ended - began,
    )


def _calls(f: Found) -> int:
    """The system calls counted (not the rows that say what the loop's reads and writes
    carried: they count some of those calls again)."""
    return sum(c for (_, name), c in f.calls.items() if ":" not in name)


def report(found: list[Found], typed: bool) -> None:
    for f in found:
        print(
            f"\n{f.label}: {f.commands} commands ({'typed' if typed else 'seeded'}), "
            f"{f.wall:.1f} s, load average {f.load[0]:.1f}-{f.load[1]:.1f}"
        )
        split_table(f.split, f.commands)
    print(
        "\n| thread, system call: calls a command (strace -f) | "
        + " | ".join(f.label for f in found)
        + " |"
    )
    print("|---|" + "---:|" * len(found))
    names = Counter[tuple[str, str]]()
    for f in found:
        names.update(f.calls)
    for (kind, name), _ in names.most_common():
        cells = " | ".join(f"{f.calls[kind, name] / f.commands:.1f}" for f in found)
        print(f"| {kind}: {name} | {cells} |")
    cells = " | ".join(f"{_calls(f) / f.commands:.1f}" for f in found)
    print(f"| all | {cells} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", type=int, default=40, help="counted, at each table")
    parser.add_argument("--judges", type=int, default=0)
    parser.add_argument("--typed", action="store_true", help="physical dice, typed")
    parser.add_argument("--key", action="store_true", help="sign a receipt for each write")
    parser.add_argument("--rounds", type=int, default=1, help="each server this many times")
    parser.add_argument("--server-python", nargs="+", default=[sys.executable])
    args = parser.parse_args()
    if not 1 <= args.commands <= 50 or not 0 <= args.judges <= 50:
        parser.error("--commands: 1 to 50; --judges: 0 to 50")
    found = []
    for _ in range(args.rounds):
        for server in args.server_python:
            label, _, python = server.rpartition("=")
            found.append(
                measure(label or python, python, args.commands, args.judges, args.typed, args.key)
            )
    report(found, args.typed)


if __name__ == "__main__":
    main()
