"""Load on the tournament server, measured by hand (never by a test):

    python benchmarks/server.py [--tables 1 8 32] [--commands 12] [--seconds 120]
                                [--backend sqlite postgresql]

For each store (a SQLite file; a throwaway PostgreSQL server, as tests/pgserver.py starts one)
and each number of tables, it runs ``bxb serve`` on a loopback port in a process of its own,
creates a tournament with that many tables, and has two phones per table play the same battle
at once (Gangfight, seeded dice) through the JSON API: each phone reads the battle's version
and plays the first legal command from it, so the two race and optimistic concurrency turns
one of them away (409) whenever both send from the same version; the loser reads again and
retries. Each table stops once --commands are written (the phone that loses the last race may
add one more) or when the run's --seconds are up.

It prints commands/s (commands written, over the run's wall time) with p50 and p99 latency of
the writes that succeeded, and the 409s; then checks every battle: it verifies, and it holds
exactly the commands the phones were told were written, numbered 1, 2, 3... (none lost, none
doubled). Loopback only; bounded: at most 64 tables, 50 commands a table."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from uuid import UUID

import httpx

from blowbyblow.domain.core import CommandIssued
from blowbyblow.replay.store import BattleStore
from blowbyblow.replay.verify import verify_battle
from blowbyblow.web.tournament import TournamentStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from pgserver import postgres_server  # the tests' throwaway server

RULESET = "gangfight"  # always offers a command (a new turn at least): tables play as long as asked


@dataclass
class TableRun:
    """One table's battle and what its phones were told."""

    number: int
    token: str
    battle: str = ""
    written: list[int] = field(default_factory=list)  # command numbers answered 201
    latencies: list[float] = field(default_factory=list)
    conflicts: int = 0
    errors: list[str] = field(default_factory=list)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve(db: str) -> Iterator[str]:
    """``bxb serve`` on the store, in its own process, on a free loopback port."""
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "blowbyblow.cli.main",
            "--db",
            db,
            "--log-level",
            "warning",
            "serve",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{base}/api/rulesets", timeout=2)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("bxb serve did not start") from None
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=15)


def phone(base: str, table: TableRun, commands: int, stop_at: float, lock: threading.Lock) -> None:
    """One of a table's two phones: read the version, play from it, retry when beaten."""
    headers = {"Authorization": f"Bearer {table.token}"}
    with httpx.Client(base_url=base, headers=headers, timeout=30) as client:
        while time.monotonic() < stop_at:
            with lock:
                if len(table.written) >= commands:
                    return
            version = client.get(f"/api/battles/{table.battle}").json()["version"]
            started = time.perf_counter()
            r = client.post(
                f"/api/battles/{table.battle}/commands", json={"option": 0, "version": version}
            )
            elapsed = time.perf_counter() - started
            with lock:
                if r.status_code == 201:
                    issued = [e for e in r.json()["events"] if e["type"] == "CommandIssued"]
                    table.written.append(int(issued[0]["event"]["index"]))
                    table.latencies.append(elapsed)
                elif r.status_code == 409:
                    table.conflicts += 1
                else:
                    table.errors.append(f"{r.status_code} {r.text[:200]}")
                    return


def run(db: str, backend: str, n: int, commands: int, seconds: float) -> dict[str, object]:
    slug = f"load-{n}"
    tournaments = TournamentStore(db)
    tournaments.new_tournament(slug)
    made = tournaments.add_tables(slug, n)
    tables = [TableRun(number=number, token=token) for number, token in made.tables]
    with serve(db) as base:
        for t in tables:
            r = httpx.post(
                f"{base}/api/tournaments/{slug}/tables/{t.number}/battles",
                json={"ruleset": RULESET, "seed": f"{slug}-{t.number}"},
                headers={"Authorization": f"Bearer {t.token}"},
                timeout=30,
            )
            r.raise_for_status()
            t.battle = r.json()["battle"]
        lock = threading.Lock()
        started = time.perf_counter()
        stop_at = time.monotonic() + seconds
        threads = [
            threading.Thread(target=phone, args=(base, t, commands, stop_at, lock))
            for t in tables
            for _ in range(2)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - started
    store = BattleStore(db)
    verified = lost_or_doubled = 0
    for t in tables:
        battle = UUID(t.battle)
        issued = [e.event.index for e in store.read(battle) if isinstance(e.event, CommandIssued)]
        if verify_battle(store, battle).ok:
            verified += 1
        if sorted(t.written) != issued or issued != list(range(1, len(issued) + 1)):
            lost_or_doubled += 1
    latencies = sorted(x for t in tables for x in t.latencies)
    written = len(latencies)
    return {
        "backend": backend,
        "tables": n,
        "commands": written,
        "seconds": wall,
        "per_second": written / wall if wall else 0.0,
        "p50": 1000 * statistics.median(latencies) if latencies else 0.0,
        "p99": 1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
        if latencies
        else 0.0,
        "conflicts": sum(t.conflicts for t in tables),
        "errors": sum(len(t.errors) for t in tables),
        "verified": f"{verified}/{n}",
        "lost_or_doubled": lost_or_doubled,
    }


def report(rows: list[dict[str, object]]) -> None:
    print(
        "| store | tables | commands | seconds | commands/s | p50 ms | p99 ms | 409s | errors "
        "| verified | lost or doubled |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['backend']} | {r['tables']} | {r['commands']} | {r['seconds']:.1f} "
            f"| {r['per_second']:.1f} | {r['p50']:.1f} | {r['p99']:.1f} | {r['conflicts']} "
            f"| {r['errors']} | {r['verified']} | {r['lost_or_doubled']} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--commands", type=int, default=12, help="per table (at most 50)")
    parser.add_argument("--seconds", type=float, default=120, help="at most, per run")
    parser.add_argument(
        "--backend", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"]
    )
    args = parser.parse_args()
    if any(not 1 <= n <= 64 for n in args.tables) or not 1 <= args.commands <= 50:
        parser.error("--tables: 1 to 64 each; --commands: 1 to 50")
    rows: list[dict[str, object]] = []
    folder = tempfile.mkdtemp(prefix="bxb-load-")
    for backend in args.backend:
        for n in args.tables:
            print(f"{backend}, {n} tables…", file=sys.stderr, flush=True)
            if backend == "sqlite":
                rows.append(
                    run(
                        os.path.join(folder, f"load-{n}.sqlite"),
                        backend,
                        n,
                        args.commands,
                        args.seconds,
                    )
                )
            else:
                with postgres_server() as url:
                    rows.append(run(url, backend, n, args.commands, args.seconds))
    report(rows)


if __name__ == "__main__":
    main()
