"""A process's threads' processor time, context switches and read and write calls from
``/proc``, by kind of thread, for ``benchmarks/server.py --split`` and
``benchmarks/syscalls.py``."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def kind_of(pid: int, tid: int) -> str:
    """A thread's kind: the event loop's (the process's main thread) or another (the store's
    workers ``bxb-work``, uvloop's and the libraries' own: Python 3.11 names no thread to the
    system, so they are told apart by what they do, in the system calls' table)."""
    return "loop" if tid == pid else "other threads"


@dataclass
class Snapshot:
    """What ``/proc`` says of a process's threads at one moment, by kind of thread."""

    user: Counter[str] = field(default_factory=Counter)  # clock ticks
    system: Counter[str] = field(default_factory=Counter)
    voluntary: Counter[str] = field(default_factory=Counter)
    involuntary: Counter[str] = field(default_factory=Counter)
    threads: Counter[str] = field(default_factory=Counter)
    io: Counter[str] = field(default_factory=Counter)  # syscr, syscw of the process
    process: Counter[str] = field(default_factory=Counter)  # its threads', those ended too

    @classmethod
    def of(cls, pid: int) -> Snapshot:
        s = cls()
        tasks = [(t, kind_of(pid, int(t.name))) for t in Path(f"/proc/{pid}/task").iterdir()]
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            tasks += [(t, "children") for t in Path(f"/proc/{child}/task").iterdir()]
        for task, kind in tasks:
            try:
                stat = (task / "stat").read_text()
                status = (task / "status").read_text()
            except OSError:  # the thread ended meanwhile
                continue
            fields = stat.rsplit(")", 1)[1].split()
            s.user[kind] += int(fields[11])
            s.system[kind] += int(fields[12])
            for line in status.splitlines():
                if line.startswith("voluntary_ctxt_switches"):
                    s.voluntary[kind] += int(line.split()[1])
                elif line.startswith("nonvoluntary_ctxt_switches"):
                    s.involuntary[kind] += int(line.split()[1])
            s.threads[kind] += 1
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        s.process["user"], s.process["system"] = int(fields[11]), int(fields[12])
        for line in Path(f"/proc/{pid}/io").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("syscr", "syscw"):
                s.io[key] = int(value)
        return s

    def __sub__(self, before: Snapshot) -> Snapshot:
        d = Snapshot()
        for name in ("user", "system", "voluntary", "involuntary", "io", "process"):
            after, was = getattr(self, name), getattr(before, name)
            getattr(d, name).update({k: after[k] - was[k] for k in after})
        d.threads = self.threads
        return d


def split_table(s: Snapshot, n: int) -> None:
    """``s``'s times, switches and calls a command, ``n`` commands."""
    ms = 1000 / TICK
    print(
        "| threads | count | user ms/command | system ms/command | voluntary switches "
        "/command | involuntary /command |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for k in sorted(s.threads):
        print(
            f"| {k} | {s.threads[k]} | {ms * s.user[k] / n:.2f} | "
            f"{ms * s.system[k] / n:.2f} | {s.voluntary[k] / n:.1f} | "
            f"{s.involuntary[k] / n:.1f} |"
        )
    print(
        f"| all | {s.threads.total()} | {ms * s.user.total() / n:.2f} | "
        f"{ms * s.system.total() / n:.2f} | {s.voluntary.total() / n:.1f} | "
        f"{s.involuntary.total() / n:.1f} |"
    )
    print(
        f"the process (its threads ended meanwhile too): user {ms * s.process['user'] / n:.2f}, "
        f"system {ms * s.process['system'] / n:.2f} ms a command; read calls "
        f"{s.io['syscr'] / n:.1f}, write calls {s.io['syscw'] / n:.1f} a command"
    )
