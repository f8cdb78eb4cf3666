"""Where a process's waits come from, measured from inside it: its event loop's lag and its
garbage collector's pauses. ``benchmarks/server.py`` uses it on both ends of a load:

- in its own process (the load generator): ``Ticker``, a task that sleeps ``TICK`` and records
  how late it woke, with the loop thread's and the whole process's CPU over each tick, so a late
  tick says why it was late: the loop itself busy (a long step, or too much work queued), the
  process's other threads holding the interpreter, or the process not run at all (the machine's
  other processes had the cores);
- in the ``bxb serve`` process, run as ``python benchmarks/probe.py ARGS`` in its place (the same
  arguments as ``python -m blowbyblow.cli.main``): the same ticker on uvicorn's event loop, every
  garbage collection's generation and pause (``gc.callbacks``), and, for each stall of the loop
  past ``STALL``, the loop thread's stack at that moment (a watchdog thread looks), written as
  JSON to ``$BXB_PROBE_OUT`` when the server stops. Nothing of it is in the product: the server
  is the checkout's own (any checkout's, through its virtual environment's Python), the probe
  only wraps it, so two versions are measured alike.

Times are ``time.perf_counter()``, the system's monotonic clock on Linux, the same in every
process: a request's start and end in the load generator can be set against the server's ticks
and collections."""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import gc
import json
import math
import os
import runpy
import statistics
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TICK = 0.005  # the ticker's sleep: a tick later than this by more than a millisecond is a stall
STALL = 0.025  # the watchdog takes the loop thread's stack once a tick is this late
LATE = 0.002  # a tick later than this is kept with its CPU (the rest only as its lateness)


@dataclass
class Ticker:
    """An event loop's lag: how late each ``TICK`` sleep woke (``late``, seconds), and for each
    tick later than ``LATE``: when it woke, how late, the loop thread's CPU and the process's
    over the tick (``stalls``)."""

    late: list[float] = field(default_factory=list)
    stalls: list[tuple[float, float, float, float]] = field(default_factory=list)
    last: float = field(default_factory=time.perf_counter)  # the last tick (the watchdog reads it)

    async def run(self) -> None:
        while True:
            before, thread, process = time.perf_counter(), time.thread_time(), time.process_time()
            self.last = before
            await asyncio.sleep(TICK)
            now = time.perf_counter()
            self.last = now
            late = now - before - TICK
            self.late.append(late)
            if late > LATE:
                self.stalls.append(
                    (now, late, time.thread_time() - thread, time.process_time() - process)
                )


@dataclass
class Collections:
    """Every garbage collection: when it started, its generation, its pause (wall), the CPU it
    took (its thread's), what it freed, and the name of the thread it stopped."""

    done: list[tuple[float, int, float, float, int, str]] = field(default_factory=list)
    # after each full collection: when, the objects left for the next one to walk, and (with
    # BXB_PROBE_HEAP=1, which costs a walk of its own) the commonest of them by type
    heaps: list[tuple[float, int, list[tuple[str, int]]]] = field(default_factory=list)
    _started: tuple[float, float] = (0.0, 0.0)

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = (time.perf_counter(), time.thread_time())
        else:
            at, cpu = self._started
            self.done.append(
                (
                    at,
                    info["generation"],
                    time.perf_counter() - at,
                    time.thread_time() - cpu,
                    info["collected"],
                    threading.current_thread().name,
                )
            )
            if info["generation"] == 2:
                left = gc.get_objects(2)
                kinds: list[tuple[str, int]] = []
                if os.environ.get("BXB_PROBE_HEAP"):
                    kinds = Counter(type(o).__qualname__ for o in left).most_common(15)
                self.heaps.append((at, len(left), kinds))
                del left


@dataclass
class Stages:
    """With ``BXB_PROBE_STAGES=1``, when each part of the server's work began and ended, for
    setting against the slow requests (issue 25's tail): each hand-over to the store's workers
    (submitted, started in a worker, ended), each wait for a pooled connection, and each
    statement (psycopg's ``execute``: the store's and the relay's, its thread named), the last
    two only when longer than ``KEEP``."""

    KEEP = 0.002
    handed: list[tuple[float, float, float]] = field(default_factory=list)
    pooled: list[tuple[float, float, str]] = field(default_factory=list)
    statements: list[tuple[float, float, str, str]] = field(default_factory=list)

    def install(self) -> None:
        import concurrent.futures

        import psycopg
        import psycopg_pool

        handed, pooled, statements, keep = self.handed, self.pooled, self.statements, self.KEEP
        submit = concurrent.futures.ThreadPoolExecutor.submit

        def submitted(pool: Any, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
            at = time.perf_counter()

            def timed() -> Any:
                began = time.perf_counter()
                try:
                    return fn(*args, **kwargs)
                finally:
                    handed.append((at, began, time.perf_counter()))

            return submit(pool, timed)

        getconn = psycopg_pool.ConnectionPool.getconn

        def got(pool: Any, *args: Any, **kwargs: Any) -> Any:
            at = time.perf_counter()
            try:
                return getconn(pool, *args, **kwargs)
            finally:
                if (end := time.perf_counter()) - at > keep:
                    pooled.append((at, end, threading.current_thread().name))

        def timing(execute: Any) -> Any:
            def executed(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
                at = time.perf_counter()
                try:
                    return execute(self, query, *args, **kwargs)
                finally:
                    if (end := time.perf_counter()) - at > keep:
                        text = query if isinstance(query, str) else repr(query)
                        name = threading.current_thread().name
                        statements.append((at, end, name, text[:40]))

            return executed

        concurrent.futures.ThreadPoolExecutor.submit = submitted  # type: ignore[method-assign]
        psycopg_pool.ConnectionPool.getconn = got  # type: ignore[method-assign,assignment]
        psycopg.Cursor.execute = timing(psycopg.Cursor.execute)  # type: ignore[method-assign]
        psycopg.Connection.execute = timing(psycopg.Connection.execute)  # type: ignore[method-assign]


class Waits:
    """With ``BXB_PROBE_STAGES=1`` on PostgreSQL: what the database's sessions wait on, sampled
    every ``EVERY`` seconds from ``pg_stat_activity`` by a thread of the load generator (its own
    connection): for each sample, its time and each active session's wait (``type:event``, or
    ``cpu`` for an active one not waiting) with its statement's first words."""

    EVERY = 0.02

    def __init__(self, url: str) -> None:
        self.samples: list[tuple[float, list[tuple[str, str]]]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, args=(url,), daemon=True)
        self._thread.start()

    def _sample(self, url: str) -> None:
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            me = conn.info.backend_pid
            while not self._stop.wait(self.EVERY):
                rows = conn.execute(
                    "select coalesce(wait_event_type || ':' || wait_event, 'cpu'), "
                    "left(query, 30) from pg_stat_activity where state = 'active' "
                    "and pid <> %s and backend_type = 'client backend' "
                    "union all select wait_event_type || ':' || wait_event, backend_type "
                    "from pg_stat_activity where backend_type <> 'client backend' "
                    "and wait_event_type in ('IO', 'LWLock', 'Lock')",
                    (me,),
                ).fetchall()
                self.samples.append((time.perf_counter(), [(str(w), str(q)) for w, q in rows]))

    def stop(self) -> list[tuple[float, list[tuple[str, str]]]]:
        self._stop.set()
        self._thread.join(timeout=5)
        return self.samples


def stalled_stacks(ticker: Ticker, loop_thread: int, stacks: list[tuple[float, str]]) -> None:
    """The watchdog: whenever the loop's tick is ``STALL`` late, the loop thread's stack (its
    innermost 12 frames, outermost first), once a stall."""
    seen = 0.0
    while True:
        time.sleep(0.005)
        last = ticker.last
        if time.perf_counter() - last < STALL + TICK or last == seen:
            continue
        seen = last
        frame = sys._current_frames().get(loop_thread)
        names: list[str] = []
        while frame is not None and len(names) < 12:
            code = frame.f_code
            names.append(f"{os.path.basename(code.co_filename)}:{code.co_name}:{frame.f_lineno}")
            frame = frame.f_back
        stacks.append((last, ";".join(reversed(names))))


def quantiles(late: list[float]) -> tuple[float, float, float]:
    """p50, p99 and the most of a list of seconds, in milliseconds."""
    if not late:
        return (0.0, 0.0, 0.0)
    ordered = sorted(late)
    at = [ordered[min(len(ordered) - 1, int(q * len(ordered)))] for q in (0.5, 0.99)]
    return (1000 * at[0], 1000 * at[1], 1000 * ordered[-1])


Stall = tuple[float, float, float, float]  # woke at, how late, loop thread's CPU, process's CPU


def causes(stalls: list[Stall], past: float = STALL) -> dict[str, float]:
    """Seconds of ticks later than ``past``, by what the process did meanwhile: ``busy``, its loop
    thread ran (a step of its own, or work queued on it) for at least half the tick; ``threads``,
    its other threads did (and held the interpreter); ``idle``, neither: the process was not run
    (the machine's other processes had the cores) or waited on something outside Python."""
    out = {"busy": 0.0, "threads": 0.0, "idle": 0.0}
    for _, late, thread, process in stalls:
        if late <= past:
            continue
        tick = late + TICK
        kind = (
            "busy" if thread >= tick / 2 else "threads" if process - thread >= tick / 2 else "idle"
        )
        out[kind] += late
    return out


def covered(spans: list[tuple[float, float]], stalls: list[Stall]) -> float:
    """How much of the spans' time (each a request's start and end) fell in a late tick of
    ``stalls`` (each late tick the stretch of ``late`` seconds before it woke), summed."""
    late = sorted((at - by, at) for at, by, _, _ in stalls)
    starts = [a for a, _ in late]
    total = 0.0
    for start, end in spans:
        i = max(0, bisect.bisect_left(starts, start) - 1)
        while i < len(late) and late[i][0] < end:
            total += max(0.0, min(end, late[i][1]) - max(start, late[i][0]))
            i += 1
    return total


def bursts(
    slow: list[tuple[float, float]],
    servers: list[dict[str, Any]],
    client: list[Stall],
    database: list[tuple[float, list[tuple[str, str]]]],
    gap: float = 0.5,
) -> list[dict[str, Any]]:
    """The slow requests grouped by time (a request starting within ``gap`` of the last one's
    end joins its burst), and for each burst what the server did meanwhile (with
    ``BXB_PROBE_STAGES=1``): its loop's latest tick, its collections, the longest wait for a
    store worker, for a pooled connection, and the longest statements by thread kind."""
    out: list[dict[str, Any]] = []
    for start, end in sorted(slow):
        if out and start <= out[-1]["end"] + gap:
            out[-1]["end"] = max(out[-1]["end"], end)
            out[-1]["count"] += 1
            out[-1]["most"] = max(out[-1]["most"], end - start)
        else:
            out.append({"start": start, "end": end, "count": 1, "most": end - start})
    for b in out:
        lo, hi = float(b["start"]), float(b["end"])

        def within(at: float, until: float) -> bool:
            return at < hi and until > lo  # noqa: B023

        srv = servers
        b["lag"] = max(
            (st[1] for s in srv for st in s["stalls"] if within(st[0] - st[1], st[0])),
            default=0.0,
        )
        b["client_lag"] = max((st[1] for st in client if within(st[0] - st[1], st[0])), default=0.0)
        b["gc"] = sum(c[2] for s in srv for c in s["gc"] if within(c[0], c[0] + c[2]))
        b["queued"] = max(
            (h[1] - h[0] for s in srv for h in s.get("handed", []) if within(h[0], h[1])),
            default=0.0,
        )
        b["worked"] = max(
            (h[2] - h[1] for s in srv for h in s.get("handed", []) if within(h[1], h[2])),
            default=0.0,
        )
        b["pooled"] = max(
            (p[1] - p[0] for s in srv for p in s.get("pooled", []) if within(p[0], p[1])),
            default=0.0,
        )
        kinds: dict[str, tuple[float, str]] = {}
        for s in srv:
            for at, until, thread, text in s.get("statements", []):
                if within(at, until):
                    kind = "relay" if "relay" in thread else "store" if "work" in thread else thread
                    if until - at > kinds.get(kind, (0.0, ""))[0]:
                        kinds[kind] = (until - at, text)
        b["statements"] = kinds
        seen = [rows for at, rows in database if lo <= at <= hi]
        b["database"] = (
            len(seen),
            Counter(f"{w} ({q.split()[0] if q.split() else q})" for rows in seen for w, q in rows),
        )
    return out


def waits(
    client: Ticker,
    servers: list[dict[str, Any]],
    slow: list[tuple[float, float]],
    window: tuple[float, float],
    database: list[tuple[float, list[tuple[str, str]]]] | None = None,
) -> dict[str, object]:
    """What the run's waits were made of: the load generator's own loop lag and the servers'
    (p50/p99/max ms; seconds of stalls past ``STALL`` by cause), the servers' collections in the
    run's ``window`` (count by generation, pauses), and the share of the ``slow`` requests' time
    (start, end) when the generator's loop, or a server's, was late."""
    began, ended = window
    inside: list[Stall] = [
        (s[0], s[1], s[2], s[3]) for srv in servers for s in srv["stalls"] if began <= s[0] <= ended
    ]
    late = [x for srv in servers for x in srv["late"]]
    collected = [c for srv in servers for c in srv["gc"] if began <= c[0] <= ended]
    by_gen = Counter(int(c[1]) for c in collected)
    pauses = [c[2] for c in collected]
    cpu = [[1000 * c[3] for c in collected if c[1] == g] for g in range(3)]
    slow_time = sum(end - start for start, end in slow) or math.inf
    return {
        "client_lag": quantiles(client.late),
        "client_stalls": causes(client.stalls),
        "server_lag": quantiles(late),
        "server_stalls": causes(inside),
        "gc": [by_gen.get(g, 0) for g in range(3)],
        "gc_ms": (1000 * sum(pauses), 1000 * max(pauses, default=0.0)),
        # CPU a collection by generation, its median and most: what a pause is on a quiet machine
        "gc_cpu": [(statistics.median(c), max(c)) if c else (0.0, 0.0) for c in cpu],
        "gc_heap": max(
            (h for srv in servers for h in srv.get("heaps", []) if began <= h[0] <= ended),
            key=lambda h: h[1],
            default=(0.0, 0, []),
        ),
        "gc_threads": Counter(
            "loop" if c[5] == "MainThread" else "workers" if "work" in c[5] else "other"
            for c in collected
        ),
        "slow": len(slow),
        "slow_client": covered(slow, client.stalls) / slow_time,
        "slow_server": covered(slow, inside) / slow_time,
        "slow_gc": covered(slow, [(c[0] + c[2], c[2], 0.0, 0.0) for c in collected]) / slow_time,
        "stacks": Counter(
            stack for srv in servers for at, stack in srv["stacks"] if began <= at <= ended
        ),
        "bursts": bursts(slow, servers, client.stalls, database or []),
    }


def serve_probed() -> None:
    """``bxb serve`` with the probe: the arguments are the CLI's."""
    out = os.environ["BXB_PROBE_OUT"]
    ticker, collections, stacks = Ticker(), Collections(), list[tuple[float, str]]()
    gc.callbacks.append(collections)
    stages = Stages()
    if os.environ.get("BXB_PROBE_STAGES"):
        stages.install()
    tasks: list[asyncio.Task[None]] = []

    import uvicorn.server

    started = uvicorn.server.Server.startup

    async def startup(self: uvicorn.server.Server, sockets: Any = None) -> None:
        await started(self, sockets)
        if os.environ.get("BXB_PROBE_GC"):  # thresholds to try, over the checkout's: "700,10,10"
            gc.set_threshold(*map(int, os.environ["BXB_PROBE_GC"].split(",")))
        tasks.append(asyncio.get_running_loop().create_task(ticker.run()))
        if os.environ.get("BXB_PROBE_STACKS"):
            watch = (ticker, threading.get_ident(), stacks)
            threading.Thread(target=stalled_stacks, args=watch, daemon=True).start()

    stopping = uvicorn.server.Server.shutdown

    async def shutdown(self: uvicorn.server.Server, sockets: Any = None) -> None:
        await stopping(self, sockets)
        # here rather than at exit: every checkout reaches uvicorn's shutdown; an older one's
        # serve ended by the SIGTERM uvicorn raised again, with no atexit (since c241e7b a
        # stop exits 0 and atexit runs, but the probe measures older checkouts too)
        write()

    uvicorn.server.Server.startup = startup  # type: ignore[method-assign]
    uvicorn.server.Server.shutdown = shutdown  # type: ignore[method-assign]

    def write() -> None:
        Path(out).write_text(
            json.dumps(
                {
                    "late": ticker.late,
                    "stalls": ticker.stalls,
                    "gc": collections.done,
                    "heaps": collections.heaps,
                    "stacks": stacks,
                    "handed": stages.handed,
                    "pooled": stages.pooled,
                    "statements": stages.statements,
                    "threshold": gc.get_threshold(),
                    # what the collector walks at a full pass, by type (not the frozen start-up)
                    "old": Counter(type(o).__qualname__ for o in gc.get_objects(2)).most_common(30),
                    "tracked": len(gc.get_objects()),
                    "frozen": gc.get_freeze_count(),
                }
            )
        )

    sys.argv = ["bxb", *sys.argv[1:]]
    here = Path(__file__).resolve().parent  # not on the server's path: only the checkout's code
    sys.path[:] = [p for p in sys.path if not p or Path(p).resolve() != here]
    with contextlib.suppress(SystemExit):
        runpy.run_module("blowbyblow.cli.main", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    serve_probed()
