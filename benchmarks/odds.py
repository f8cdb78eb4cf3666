"""How fast the odds are, measured by hand (never by a test): the goal is every demo command of
every system at the speed of a tap (p95 <= 100 ms in process, exact or with its error bound).

    python benchmarks/odds.py                    # every demo command, 5 times each, here
    python benchmarks/odds.py --repeat 9 --against /path/to/main/.venv/bin/python
                                                 # main beside the change, in the same sitting
    python benchmarks/odds.py --viewer --against ...   # the viewer's odds (recorded commands,
                                                 # each checkout's own budget, 1000 samples)
    python benchmarks/odds.py --viewer --button --cpu --against ...
                                                 # as each checkout's odds button asks: a
                                                 # first answer (200 samples at once) beside
                                                 # the full one (before 2026-11-29: 500 runs
                                                 # and 200 samples first, then the full one)
    python benchmarks/odds.py --graph 5000       # each dice command as a graph and as a tree
    python benchmarks/odds.py --server           # the viewer's odds through the server (HTTP,
                                                 # the odds desk's worker process), this checkout
    python benchmarks/odds.py --server --first   # as the page asks them: the full answer, and a
                                                 # first one if the full one is not back in 50
                                                 # ms (at once before the eleventh sitting), from
                                                 # the tap to the first shown and to the full one
    python benchmarks/odds.py --viewer --cpu --only necromunda-2023#1 --against ...
                                                 # processor time, one command (repeatable)
    python benchmarks/odds.py --viewer --samples 200 --against ...
                                                 # the viewer's first answer (200 samples)
    python benchmarks/odds.py --viewer --no-graph --only necromunda-2023#1
                                                 # its full answer after a first sampled one:
                                                 # the graph not run again (this checkout only)

Every figure is printed with the machine's load average before and after. ``--against PYTHON``
times each command in a process of this checkout's interpreter and one of PYTHON (another
checkout's venv: e.g. ``git worktree add ../main-odds main`` and its own ``.venv``), taking turns
command by command, so both see the same load; the commands are asked through the public odds
interface only (``scenario_odds``, ``recorded_odds``), which both know.

Each command is timed as the odds button asks it: the scenario's choices (or the record's), the
default budget of runs (2000; the viewer's own, ``web/api.py`` ``ODDS_BUDGET``), Monte Carlo
past it (4000 samples; the viewer's 1000). The first call of a process pays for its imports and
caches: it is left out (one call per command first, then ``--repeat`` timed ones)."""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from typing import Any

# The worker: runs in a process of each interpreter compared; reads one JSON request a line
# ({"ruleset", "number", "viewer", "budget", "samples"}), answers one JSON line with the seconds
# (wall and processor), the method and the runs. Only the public odds interface is used.
WORKER = r"""
import json, sys, time
from blowbyblow.replay.engine.registry import game_systems
from blowbyblow.replay.engine.script import play
from blowbyblow.replay.odds.explore import HowToExplore, Policy, recorded_odds, scenario_odds

demos = {s.id: s.demo() for s in game_systems().values()}
battles = {}
QUICK_BUDGET = 500  # before 2026-11-29: the odds button's first runs, then the full answer
try:  # since 2026-11-29 the button asks a first answer (samples alone) beside the full one
    from blowbyblow.replay.odds.desk import first_odds
except ImportError:
    first_odds = None
# since the eleventh sitting (the desk's ``ahead``) only when the full one is not back in 50 ms
from blowbyblow.replay.odds.desk import DeskLimits
LATER = 0.050 if hasattr(DeskLimits(), "ahead") else None

def viewer_budget():
    # the viewer's own budget, as this checkout's server asks it (500 runs before 2026-11-28)
    try:
        from blowbyblow.web.api import ODDS_BUDGET
    except ImportError:
        return 500
    return ODDS_BUDGET

def positions(ruleset):
    if ruleset not in battles:
        events = play(demos[ruleset]).events
        starts = [i + 1 for i, e in enumerate(events) if type(e).__name__ == "CommandIssued"]
        battles[ruleset] = (events, starts)
    return battles[ruleset]

print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    ask = json.loads(line)
    demo = demos[ask["ruleset"]]
    wall, cpu = time.perf_counter(), time.process_time()
    first = took = None
    if ask["viewer"]:
        events, starts = positions(ask["ruleset"])
        budget = ask["budget"] or viewer_budget()
        samples = ask["samples"] or 1000
        at = starts[ask["number"] - 1]
        if ask.get("button") and first_odds is not None:
            # as this viewer's odds button asks (web/static/viewer.js): the full answer and a
            # first one (200 samples drawn at once) together, each by a worker of its own; here
            # one after the other, each timed alone: the page is shown the sooner of the two.
            # Since the eleventh sitting the first is asked only when the full one takes more
            # than LATER (50 ms of the clock), and comes that much later.
            odds = recorded_odds(events, at, HowToExplore(budget=budget, samples=samples))
            took = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
            spent, first = took["cpu"], dict(took)
            if LATER is None or took["wall"] > LATER:
                w, c = time.perf_counter(), time.process_time()
                first_odds(events, at, HowToExplore(budget=budget, samples=200, graph=False))
                first = {"wall": time.perf_counter() - w, "cpu": time.process_time() - c}
                spent = took["cpu"] + first["cpu"]
                first = {k: min(first[k] + (LATER or 0), took[k]) for k in first}
        elif ask.get("button"):
            # as the viewer's odds button asked before 2026-11-29: at most 500 runs and 200
            # samples first; when that is not exact, the viewer's budget and full samples (the
            # graph not run again when that budget is no larger: the odds desk remembers it)
            quick = min(QUICK_BUDGET, budget)
            odds = recorded_odds(events, at, HowToExplore(budget=quick, samples=200))
            first = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
            if odds.method != "exact":
                odds = recorded_odds(events, at, HowToExplore(budget=budget, samples=samples,
                                                              graph=budget > quick))
        else:
            how = HowToExplore(budget=budget, samples=samples,
                               **({"graph": False} if ask.get("graph") is False else {}))
            odds = recorded_odds(events, at, how)
    else:
        policy = Policy(name="scripted", answers=demo.choices)
        how = HowToExplore(policy=policy, budget=ask["budget"], samples=ask["samples"])
        odds = scenario_odds(demo, ask["number"], how)
    if took is None:
        took = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
        spent = took["cpu"]
    print(json.dumps({**took, "spent": spent, "method": odds.method, "runs": odds.runs,
                      "action": odds.action, "first": first, "budget": budget if ask["viewer"]
                      else ask["budget"]}), flush=True)
"""


class Worker:
    """A process of one interpreter, answering odds requests one at a time."""

    def __init__(self, python: str) -> None:
        self.python = python
        self.process = subprocess.Popen(
            [python, "-c", WORKER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self._read()

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"{self.python}: the odds worker stopped")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return self._read()

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def percentile(xs: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of ``xs``."""
    ordered = sorted(xs)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} processors)"


def commands(viewer: bool) -> list[tuple[str, int]]:
    from blowbyblow.replay.engine.registry import game_systems

    return [
        (system.id, number)
        for system in game_systems().values()
        for number in range(1, len(system.demo().commands) + 1)
    ]


def every_command(args: argparse.Namespace) -> None:
    """Each demo command ``--repeat`` times in each worker, taking turns: p50 and p95 of each,
    and over all of them."""
    pythons = [sys.executable, *([args.against] if args.against else [])]
    names = ["this checkout", "against"][: len(pythons)]
    workers = [Worker(p) for p in pythons]
    # the viewer's: each checkout's own budget (web/api.py ODDS_BUDGET) unless --budget says
    budget = args.budget if args.budget else (0 if args.viewer else 2000)
    samples = args.samples if args.samples else (1000 if args.viewer else 4000)
    what = (
        "the viewer's odds of each recorded demo command" if args.viewer else "every demo command"
    )
    if args.button:
        what += (
            " as each checkout's button asks them (a first answer of 200 samples beside the full"
            " one, each timed alone, the sooner shown; before 2026-11-29: at most 500 runs and"
            " 200 samples first, the viewer's budget and full samples when not exact); the tap's"
            " processor time: all its work"
        )
    print(
        f"{what}: budget {budget or 'each checkout viewer default'} runs, {samples} samples "
        f"past it, {args.repeat} times each, " + ("processor time" if args.cpu else "wall time")
    )
    print(f"before: {load()}")
    for name, python in zip(names, pythons, strict=True):
        print(f"  {name}: {python}")
    header = "| command |"
    rule = "|---|"
    for name in names:
        header += f" {name}: method | runs | p50 ms | p95 ms |"
        rule += "---|---:|---:|---:|"
        if args.button:
            header += " first answer p50 ms | the tap's processor time p50 ms |"
            rule += "---:|---:|"
    print(header)
    print(rule, flush=True)
    every: list[list[float]] = [[] for _ in workers]
    answers: list[dict[str, Any]] = []
    for ruleset, number in commands(args.viewer):
        if args.only and f"{ruleset}#{number}" not in args.only:
            continue
        request = {
            "ruleset": ruleset,
            "number": number,
            "viewer": args.viewer,
            "budget": budget,
            "samples": samples,
            **({"graph": False} if args.no_graph else {}),
            **({"button": True} if args.button else {}),
        }
        answers = one_command(args, workers, request, every)
    row = f"| all {len(every[0])} |"
    for k in range(len(workers)):
        row += f" | | {percentile(every[k], 50):.0f} | {percentile(every[k], 95):.0f} |"
        row += " | |" if args.button else ""
    print(row)
    if args.viewer and answers:
        budgets = ", ".join(f"{n} {a.get('budget')}" for n, a in zip(names, answers, strict=True))
        print(f"viewer's budget (runs): {budgets}")
    print(f"after: {load()}")
    for w in workers:
        w.close()


def one_command(
    args: argparse.Namespace,
    workers: list[Worker],
    request: dict[str, Any],
    every: list[list[float]],
) -> list[dict[str, Any]]:
    """One command ``--repeat`` times in each worker, taking turns: its row printed, its times
    added to ``every``; the last answers."""
    clock = "cpu" if args.cpu else "wall"
    times: list[list[float]] = [[] for _ in workers]
    firsts: list[list[float]] = [[] for _ in workers]
    spent: list[list[float]] = [[] for _ in workers]
    answers: list[dict[str, Any]] = [{} for _ in workers]
    for w in workers:  # the first call of each: imports and caches, not timed
        w.ask(request)
    for i in range(args.repeat):
        order = list(range(len(workers)))
        if i % 2:
            order.reverse()  # each goes first half of the time
        for k in order:
            answers[k] = workers[k].ask(request)
            times[k].append(answers[k][clock] * 1000)
            spent[k].append(answers[k].get("spent", answers[k]["cpu"]) * 1000)
            if answers[k].get("first"):
                firsts[k].append(answers[k]["first"][clock] * 1000)
    row = f"| {request['ruleset']} #{request['number']} {answers[0]['action']} |"
    for k in range(len(workers)):
        every[k] += times[k]
        method = "exact" if answers[k]["method"] == "exact" else "MC"
        row += (
            f" {method} | {answers[k]['runs']} | {percentile(times[k], 50):.0f} | "
            f"{percentile(times[k], 95):.0f} |"
        )
        if args.button:
            row += f" {percentile(firsts[k], 50):.0f} |" if firsts[k] else " |"
            row += f" {percentile(spent[k], 50):.0f} |"
    print(row, flush=True)
    return answers


def tree_against_graph(budget: int) -> None:
    """Each demo command that rolls dice, explored exactly as a graph (the odds' method) and as
    a tree (no branches shared), within ``budget`` runs each, in this process."""
    from blowbyblow.domain.core import exploring
    from blowbyblow.replay.engine.registry import game_systems
    from blowbyblow.replay.odds.chance import Explorer, TooBig, matcher
    from blowbyblow.replay.odds.explore import Policy, prepare, scenario_command
    from blowbyblow.replay.odds.sharing import Sharer

    print(f"before: {load()}")
    print(f"| graph against tree ({budget} runs each) | graph runs | shared | s | tree runs | s |")
    print("|---|---:|---:|---:|---:|---:|")
    for system in game_systems().values():
        demo = system.demo()
        for number in range(1, len(demo.commands) + 1):
            at, happened = scenario_command(demo, number)
            if not happened or not any(type(e).__name__ == "DiceRolled" for e in happened):
                continue
            measure, cmd = prepare(at, Policy(name="scripted", answers=demo.choices))
            group = matcher(measure.rules.order_insensitive)
            cells = []
            t = time.perf_counter()
            graph = Sharer(cmd, measure, budget=budget, group=group)
            try:
                with exploring():  # as the odds run: the rules' steps asked again kept
                    graph.margins()
                cells.append(str(graph.runs))
            except TooBig:
                cells.append(f"> {budget}")
            cells += [str(graph.shared), f"{time.perf_counter() - t:.2f}"]
            t = time.perf_counter()
            tree = Explorer(cmd, budget=budget, group=group)
            try:
                with exploring():
                    tree.explore()
                cells.append(str(tree.runs))
            except TooBig:
                cells.append(f"> {budget}")
            cells.append(f"{time.perf_counter() - t:.2f}")
            name = f"{system.id} #{number} {type(at.command).__name__}"
            print(f"| {name} | {' | '.join(cells)} |", flush=True)
    print(f"after: {load()}")


def through_the_server(args: argparse.Namespace) -> None:
    """The viewer's odds as the judge's viewer asks them: ``GET /api/battles/ID/odds?position=N``
    of each recorded demo command, on a server in this process (Litestar's test client, a
    SQLite store in a temporary folder) whose odds desk was warmed first, as ``bxb serve`` warms
    it. Each ask is worked out by the desk's worker (its budget one run more each time, so that
    no answer is kept from the ask before, nor a command remembered past a budget at least as
    large), then asked once more (kept). ``--first``: then, as the viewer's button asks, the
    full answer and a first one (``first=true``, 200 samples) from two threads, the first asked
    50 ms after the full one unless that is back (a checkout from before the eleventh sitting,
    the desk without ``ahead``: at once), the
    time from the tap to the first answer shown (the sooner of the two: a full one first is
    shown alone) and to the full one, each tap the first on its command (a new desk, warmed), how often the first shown was the sampled one, and the
    processor time the desk's workers spent on the tap (their /proc counts). A checkout without
    first answers (before 2026-11-29; run this file with its interpreter) is asked as its page
    asked: 500 runs and 200 samples, then, when that was not exact, the full answer."""
    import concurrent.futures as cf
    import logging
    import tempfile
    from pathlib import Path

    from litestar.testing import TestClient

    from blowbyblow.replay.battles.record import record
    from blowbyblow.replay.engine.registry import game_systems
    from blowbyblow.replay.odds.desk import DeskLimits
    from blowbyblow.replay.store.log import BattleStore
    from blowbyblow.web.app import create_app
    from blowbyblow.web.odds_desk import ServerOdds
    from blowbyblow.web.tournament import TournamentStore

    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request otherwise
    budget = args.budget or 2000  # the viewer's (web/api.py ODDS_BUDGET)
    samples = args.samples or 1000
    print(f"the viewer's odds through the server: budget {budget} runs, {samples} samples past it")
    print(f"before: {load()}")
    print(
        "| command | method | runs | worked out p50 ms | p95 ms | kept p50 ms |"
        + (
            " tap to the first shown p50 ms | p95 | tap to the full one p50 ms | p95 |"
            " sampled first shown | workers' processor time a tap p50 ms |"
            if args.first
            else ""
        )
    )
    print(
        "|---|---|---:|---:|---:|---:|" + ("---:|---:|---:|---:|---:|---:|" if args.first else ""),
        flush=True,
    )
    taps = cf.ThreadPoolExecutor(max_workers=2)  # the page's two asks at once
    try:
        from blowbyblow.replay.odds.desk import first_odds  # noqa: F401 - only whether it is
    except ImportError:
        beside = False  # a checkout from before first answers
    else:
        beside = True
    # since the eleventh sitting the page asks its first answer only 50 ms after the full one
    later = 0.050 if hasattr(DeskLimits(), "ahead") else None
    every: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "odds.sqlite")
        store = BattleStore(db)
        app = create_app(store, TournamentStore(db))
        battles = []
        for system in game_systems().values():
            recorded = record(store, system.demo(), quiet=True)
            starts = [
                e.originator_version
                for e in recorded.events
                if type(e.event).__name__ == "CommandIssued"
            ]
            battles += [(system.id, n, recorded.battle, p) for n, p in enumerate(starts, 1)]
        with TestClient(app) as client:
            app.state.server.service.odds_desk.desk().warm()
            for ruleset, number, battle, position in battles:
                if args.only and f"{ruleset}#{number}" not in args.only:
                    continue
                url = f"/api/battles/{battle}/odds?position={position}&samples={samples}"
                times, kept, first, full, spent = [], [], [], [], []
                sampled = 0
                service = app.state.server.service
                for _ in range(args.repeat if args.first else 0):
                    # each tap the first on its command: a new desk (warmed, untimed), nothing
                    # kept or remembered past its budget (a closed one stays closed)
                    service.odds_desk.close()
                    service.odds_desk = ServerOdds(service.odds_desk.limits)
                    desk = service.odds_desk.desk()
                    desk.warm()
                    asked = f"/api/battles/{battle}/odds?position={position}"
                    before = _workers_cpu(desk, beside)
                    t = time.perf_counter()
                    if not beside:  # as the page asked before 2026-11-29, one after the other
                        quick = client.get(f"{asked}&budget=500&samples=200")
                        first.append((time.perf_counter() - t) * 1000)
                        if quick.json()["method"] != "exact":
                            sampled += 1
                            client.get(f"{asked}&budget={budget}&samples={samples}")
                        full.append((time.perf_counter() - t) * 1000)
                        spent.append(_workers_cpu(desk, beside) - before)
                        continue
                    whole = taps.submit(client.get, f"{asked}&budget={budget}&samples={samples}")
                    back = cf.wait([whole], timeout=later)[0] if later else set()
                    sooner = (
                        None
                        if back
                        else taps.submit(
                            client.get, f"{asked}&budget={budget}&samples=200&first=true"
                        )
                    )
                    asks = [whole] if sooner is None else [whole, sooner]
                    shown, _ = cf.wait(asks, return_when=cf.FIRST_COMPLETED)
                    first.append((time.perf_counter() - t) * 1000)
                    sampled += whole not in shown
                    if whole.result().status_code != 200:
                        raise SystemExit(f"{ruleset} #{number}: {whole.result().text}")
                    full.append((time.perf_counter() - t) * 1000)
                    if sooner is not None:
                        sooner.result()
                    spent.append(_workers_cpu(desk, beside) - before)
                if args.first:  # a new desk again: nothing remembered from the taps
                    service.odds_desk.close()
                    service.odds_desk = ServerOdds(service.odds_desk.limits)
                    service.odds_desk.desk().warm()
                for i in range(args.repeat):
                    t = time.perf_counter()
                    r = client.get(f"{url}&budget={budget + i}")
                    times.append((time.perf_counter() - t) * 1000)
                    if r.status_code != 200:
                        raise SystemExit(f"{ruleset} #{number}: {r.status_code} {r.text}")
                    t = time.perf_counter()
                    client.get(f"{url}&budget={budget + i}")
                    kept.append((time.perf_counter() - t) * 1000)
                odds = r.json()
                every += times
                method = "exact" if odds["method"] == "exact" else "MC"
                print(
                    f"| {ruleset} #{number} {odds['action']} | {method} | {odds['runs']} | "
                    f"{percentile(times, 50):.0f} | {percentile(times, 95):.0f} | "
                    f"{percentile(kept, 50):.1f} |"
                    + (
                        f" {percentile(first, 50):.0f} | {percentile(first, 95):.0f} |"
                        f" {percentile(full, 50):.0f} | {percentile(full, 95):.0f} |"
                        f" {sampled} of {len(first)} | {percentile(spent, 50):.0f} |"
                        if args.first
                        else ""
                    ),
                    flush=True,
                )
            app.state.server.service.odds_desk.close()  # the last made here (the first, too)
    print(f"| all {len(every)} | | | {percentile(every, 50):.0f} | {percentile(every, 95):.0f} | |")
    print(f"after: {load()}")


def _workers_cpu(desk: Any, beside: bool) -> float:
    """The processor time (ms, user and system) of the odds desk's workers so far (``beside``:
    the first answers' one too), from /proc (in clock ticks: 10 ms on most Linux machines)."""
    tick = os.sysconf("SC_CLK_TCK")
    ms = 0.0
    for pid in [*desk.workers(), *(desk.workers(first=True) if beside else [])]:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        ms += (int(fields[11]) + int(fields[12])) * 1000 / tick
    return ms


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed calls of each command")
    parser.add_argument("--against", default="", help="another interpreter (main's venv)")
    parser.add_argument("--viewer", action="store_true", help="the viewer's odds instead")
    parser.add_argument(
        "--server", action="store_true", help="the viewer's odds through the server's odds desk"
    )
    parser.add_argument(
        "--budget",
        type=int,
        default=0,
        help="runs (default 2000; the viewer's: each checkout's own, web/api.py ODDS_BUDGET)",
    )
    parser.add_argument("--samples", type=int, default=0, help="default 4000; viewer 1000")
    parser.add_argument(
        "--no-graph",
        action="store_true",
        help="the viewer's odds sampled at once, as the odds desk asks a command it found past "
        "the budget (this checkout; not an interpreter that predates it)",
    )
    parser.add_argument(
        "--first",
        action="store_true",
        help="with --server: also as the page asks, the full answer and a first one (200 "
        "samples) at once: tap to the first shown and to the full one",
    )
    parser.add_argument(
        "--button",
        action="store_true",
        help="with --viewer: as each checkout's odds button asks (a first answer of 200 samples "
        "beside the full one; before 2026-11-29, at most 500 runs and 200 samples first, then "
        "the full answer when that was not exact): the full answer's time, the first shown's "
        "p50 and the processor time of all the tap's work",
    )
    parser.add_argument("--graph", type=int, default=0, help="only: graph against tree, N runs")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        help="only this command, as RULESET#N (repeatable), e.g. necromunda-2023#1",
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="processor time of the worker process instead of wall time (a figure that carries "
        "on a busy machine)",
    )
    args = parser.parse_args()
    if args.graph:
        tree_against_graph(args.graph)
        return
    if args.server:
        through_the_server(args)
        return
    every_command(args)


if __name__ == "__main__":
    main()
