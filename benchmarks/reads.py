"""Start-up and reads at a real event's size (issue 25), measured by hand (never by a test):

    python benchmarks/reads.py [--python main=../main/.venv/bin/python change=.venv/bin/python]
                               [--battles 100000] [--listed 10000] [--events 1000000]
                               [--runs 7] [--stores DIR] [--instructions] [--only PART ...]

Every figure is a process of its own, run with each Python of ``--python`` (the interpreter of
each checkout's virtual environment, so that today's main and a change are measured in the same
sitting, on the same stores), the Pythons taking turns run by run so that the machine's drift
falls on all alike: its wall time and its processor time (user + system), the medians of
``--runs``, and its peak memory (VmHWM, which the process reports of itself as it exits).
Ratios are taken run by run against a baseline run in the same turn, and their median and range
given: a figure that holds on a loaded machine better than the times do. ``--instructions``
also runs each command of start-up, naming and listing once under callgrind and gives the
ratio of the instructions counted, which the machine's load does not move at all (a minute or
so a run on a loaded machine). The load average (1, 5, 15 min) is printed beside each table.

1. **start-up**: ``bxb at 3`` (the console script) on a store of one battle (the Gangfight demo),
   against ``python -c "import msgspec, sqlite3"``, the least a process that reads the store
   and decodes its records imports. Goal: at most 2x.
2. **naming**: ``bxb at 3 NAME`` on a store of ``--battles`` battles (each but the last a battle's
   opening, the last the demo), by id, by id prefix (8 characters), by label, and with no name
   (the latest), against the same on the store of one battle. Goal: within 10%.
3. **streamed**: ``bxb log``, ``bxb log --json`` and ``bxb export`` of a Gangfight battle of
   ``--events`` events (benchmarks/replay.py's ``long_battle``), standard output to /dev/null.
   Goal: under 60 MB.
4. **listing**: ``bxb battles`` (the table, at 80 columns) against ``bxb battles --json``, on a
   store of ``--listed`` battles. Goal: within 2x.

The stores are built with the code of the Python running this script (the building is not
measured) in ``--stores`` (default: a new temporary folder), and kept there: a later run with
the same ``--stores`` reuses them (a battle of 10^6 events takes about ten minutes to build)."""

from __future__ import annotations

import argparse
import functools
import importlib.util
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from blowbyblow.domain.core import BattleStarted
from blowbyblow.replay.battles.record import record
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.store.log import BattleInfo, BattleStore, battle_id_for


@functools.cache
def beside(name: str) -> Any:
    """A module of benchmarks/ by its file (the repository's own ``replay`` folder has the name
    of ``benchmarks/replay.py``)."""
    spec = importlib.util.spec_from_file_location(
        f"bench_{name}", Path(__file__).parent / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # msgspec reads its structs' annotations from it
    spec.loader.exec_module(module)
    return module


# ``bxb ARGS`` as its console script runs it, reporting its peak memory as it exits.
PEAK = """
import atexit, sys
def peak():
    status = open("/proc/self/status").read()
    sys.stderr.write(status.split("VmHWM:")[1].split()[0] + " PEAK\\n")
atexit.register(peak)
sys.argv = ["bxb", *sys.argv[1:]]
from blowbyblow.cli.main import main
main()
"""


def load() -> str:
    return str(beside("replay").load())


CALLGRIND = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]


def run(command: list[str], *, count: bool = False) -> dict[str, float]:
    """``command`` run once, standard output to /dev/null: its wall and processor (user +
    system) seconds, the peak memory (MB) it reported if it did, and with ``count`` the
    instructions it ran instead (under callgrind: a figure the machine's load does not move)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [*CALLGRIND, *command] if count else command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    lines = done.stderr.splitlines()
    if count:
        collected = next(x for x in lines if "Collected :" in x)
        return {"instructions": int(collected.split("Collected :")[1].replace(",", ""))}
    found = {
        "wall": wall,
        "cpu": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
    }
    peak = next((x.split()[0] for x in lines if x.endswith(" PEAK")), None)
    if peak is not None:
        found["peak"] = int(peak) / 1024
    return found


class Turns:
    """Commands measured in turns, run by run: each a name and, per Python, its command. With
    ``count``, each is also run once under callgrind, its instructions counted."""

    def __init__(self, runs: int, warmup: int = 1, count: bool = False) -> None:
        self.runs, self.warmup, self.count = runs, warmup, count
        self.found: dict[tuple[str, str, str], list[float]] = {}  # (figure, name, python)

    def measure(self, commands: dict[str, dict[str, list[str]]]) -> None:
        """``commands``: figure name -> Python name -> command. One run of each, in turn, for
        every run (after ``warmup`` runs of each not counted)."""
        for n in range(self.runs + self.warmup):
            for name, per_python in commands.items():
                for python, command in per_python.items():
                    figures = run(command)
                    if n >= self.warmup:
                        for figure, value in figures.items():
                            self.found.setdefault((figure, name, python), []).append(value)
        if self.count:
            for name, per_python in commands.items():
                for python, command in per_python.items():
                    found = run(command, count=True)["instructions"]
                    self.found[("instructions", name, python)] = [found]

    def median(self, name: str, python: str, figure: str = "wall") -> float:
        return statistics.median(self.found[(figure, name, python)])

    def wall(self, name: str, python: str) -> str:
        """The median wall seconds, and in brackets the median processor seconds."""
        return f"{self.median(name, python):.3f} ({self.median(name, python, 'cpu'):.3f})"

    def peak(self, name: str, python: str) -> str:
        found = self.found.get(("peak", name, python))
        return f"{max(found):.0f} MB" if found else "—"

    def ratio(self, name: str, base: str, python: str, figure: str = "wall") -> str:
        """The median over the runs of ``name``'s ``figure`` over ``base``'s in the same run, and
        its range; for instructions, the one count over the other."""
        mine, theirs = self.found[(figure, name, python)], self.found[(figure, base, python)]
        found = sorted(a / b for a, b in zip(mine, theirs, strict=True))
        if len(found) == 1:
            return f"{found[0]:.2f}"
        return f"{statistics.median(found):.2f} ({found[0]:.2f}-{found[-1]:.2f})"

    def ratios(self, name: str, base: str, python: str) -> str:
        """Table cells: the ratio of wall times, of processor times, and of instructions
        (— when not counted)."""
        counted = ("instructions", name, python) in self.found
        cells = [
            self.ratio(name, base, python),
            self.ratio(name, base, python, "cpu"),
            self.ratio(name, base, python, "instructions") if counted else "—",
        ]
        return " | ".join(cells)

    def instructions(self, name: str, python: str) -> str:
        found = self.found.get(("instructions", name, python))
        return f"{found[0] / 1e6:,.0f} M" if found else "—"


def bxb(python: str, db: Path, *args: str) -> list[str]:
    return [python, "-c", PEAK, "--db", str(db), *args]


def console_script(python: str, db: Path, *args: str) -> list[str]:
    """``bxb ARGS``: the console script of ``python``'s environment, run by ``python`` (as its
    first line says; so that callgrind follows the interpreter)."""
    return [python, str(Path(python).with_name("bxb")), "--db", str(db), *args]


# --- the stores ---------------------------------------------------------------------------------


def one_battle(db: Path) -> str:
    """A store of the Gangfight demo alone; its id."""
    if not db.exists():
        record(BattleStore(db), get_game_system("gangfight").demo(), quiet=True)
    return str(BattleStore(db).battles()[-1].battle)


def many_battles(db: Path, count: int) -> str:
    """A store of ``count`` battles: ``count - 1`` openings (the demo's, each under a label of
    its own), then the demo itself, the latest; the demo's id."""
    if db.exists():
        return str(BattleStore(db).battles()[-1].battle)
    system = get_game_system("gangfight")
    store = BattleStore(db)
    records: Any = store.records
    with records._writing():  # the store's writing connection, made now, ...
        pass
    records._writer.execute("pragma synchronous=OFF")  # ... not waiting for the disk to build
    demo = system.demo()
    started = record(BattleStore(":memory:"), demo, quiet=True).events[0].event
    assert isinstance(started, BattleStarted)
    for n in range(count - 1):
        first = msgspec.structs.replace(started, label=f"opening {n:07d}")
        store.append(battle_id_for(first), system.id, 0, [first])
        if n % 10_000 == 0:
            print(f"\r  building {db.name}: {n}/{count}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return str(record(store, demo, quiet=True).battle)


def long_battle(db: Path, events: int) -> str:
    if db.exists():
        return str(BattleStore(db).battles()[-1].battle)
    return str(beside("replay").long_battle(db, events))


# --- the figures --------------------------------------------------------------------------------


def start_up(pythons: dict[str, str], one: Path, battle: str, runs: int, count: bool) -> None:
    turns = Turns(runs, count=count)
    commands: dict[str, dict[str, list[str]]] = {
        "bare": {p: [path, "-c", "import msgspec, sqlite3"] for p, path in pythons.items()},
        "at": {p: console_script(path, one, "at", "3", battle) for p, path in pythons.items()},
    }
    peaks = {"at peak": {p: bxb(path, one, "at", "3", battle) for p, path in pythons.items()}}
    turns.measure(commands)
    memory = Turns(1, warmup=0)  # the peak, once: VmHWM as the process exits
    memory.measure(peaks)
    print(f'\n1. start-up, load {load()}: `bxb at 3` against `python -c "import msgspec, sqlite3"`')
    print(
        "\n| Python | bare python: wall s (processor s) | instructions | `bxb at 3`: wall s "
        "(processor s) | instructions | peak | at / bare: wall, median (range) | processor "
        "| instructions |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p in pythons:
        print(
            f"| {p} | {turns.wall('bare', p)} | {turns.instructions('bare', p)} | "
            f"{turns.wall('at', p)} | {turns.instructions('at', p)} | "
            f"{memory.peak('at peak', p)} | {turns.ratios('at', 'bare', p)} |"
        )


def naming(  # noqa: PLR0913 - the stores, and how they are measured
    pythons: dict[str, str], one: Path, many: Path, battles: int, runs: int, count: bool
) -> None:
    ids = {db: BattleStore(db).battles()[-1] for db in (one, many)}
    names: dict[str, Callable[[BattleInfo], list[str]]] = {
        "by id": lambda info: ["3", str(info.battle)],
        "by prefix": lambda info: ["3", str(info.battle)[:8]],
        "by label": lambda info: ["3", info.label],
        "latest": lambda info: ["3"],
    }
    commands: dict[str, dict[str, list[str]]] = {}
    for way, args in names.items():
        for db in (one, many):
            commands[f"{way} {db.name}"] = {
                p: console_script(path, db, "at", *args(ids[db])) for p, path in pythons.items()
            }
    turns = Turns(runs, count=count)
    turns.measure(commands)
    print(f"\n2. naming a battle, load {load()}: `bxb at 3 NAME`, {battles:,} battles against one")
    print(
        "\n| name | Python | 1 battle: wall s (processor s) | many | many / one: wall, median "
        "(range) | processor | instructions |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for way in names:
        for p in pythons:
            a, b = f"{way} {one.name}", f"{way} {many.name}"
            print(
                f"| {way} | {p} | {turns.wall(a, p)} | {turns.wall(b, p)} | {turns.ratios(b, a, p)} |"
            )


def streamed(pythons: dict[str, str], long: Path, events: int, runs: int) -> None:
    battle = str(BattleStore(long).battles()[-1].battle)
    commands = {
        "log": {p: bxb(path, long, "log", battle) for p, path in pythons.items()},
        "log --json": {p: bxb(path, long, "log", "--json", battle) for p, path in pythons.items()},
        "export": {p: bxb(path, long, "export", battle) for p, path in pythons.items()},
    }
    turns = Turns(runs, warmup=0)
    turns.measure(commands)
    print(f"\n3. streamed, load {load()}: a battle of {events:,} events, output to /dev/null")
    print("\n| command | Python | wall s (processor s) | peak |")
    print("|---|---|---:|---:|")
    for name in commands:
        for p in pythons:
            print(f"| `bxb {name}` | {p} | {turns.wall(name, p)} | {turns.peak(name, p)} |")


def listing(pythons: dict[str, str], listed: Path, count: int, runs: int, counted: bool) -> None:
    commands = {
        "table": {p: bxb(path, listed, "battles") for p, path in pythons.items()},
        "json": {p: bxb(path, listed, "battles", "--json") for p, path in pythons.items()},
    }
    os.environ["COLUMNS"] = "80"
    turns = Turns(runs, count=counted)
    turns.measure(commands)
    print(f"\n4. listing, load {load()}: `bxb battles` of {count:,} battles, table and JSON")
    print(
        "\n| Python | table: wall s (processor s) | JSON | table / JSON: wall, median (range) "
        "| processor | instructions | peak |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for p in pythons:
        print(
            f"| {p} | {turns.wall('table', p)} | {turns.wall('json', p)} | "
            f"{turns.ratios('table', 'json', p)} | {turns.peak('table', p)} |"
        )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--python",
        nargs="+",
        default=[f"this={sys.executable}"],
        help="NAME=PYTHON: each checkout's interpreter (default: this one)",
    )
    ap.add_argument("--battles", type=int, default=100_000, help="the store of many battles")
    ap.add_argument("--listed", type=int, default=10_000, help="the store `bxb battles` lists")
    ap.add_argument("--events", type=int, default=1_000_000, help="the long battle (0: skip)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--stores", type=Path, help="where the stores are built and kept")
    ap.add_argument(
        "--instructions",
        action="store_true",
        help="count instructions too, but of the streamed (callgrind: slow, but load-proof)",
    )
    ap.add_argument(
        "--only", nargs="*", choices=("start-up", "naming", "streamed", "listing"), help="parts"
    )
    args = ap.parse_args()
    pythons = dict(p.split("=", 1) for p in args.python)
    folder = args.stores or Path(tempfile.mkdtemp(prefix="bxb-reads-"))
    folder.mkdir(parents=True, exist_ok=True)
    beside("replay").compiled_once(folder)  # modules compiled once, outside the checkouts
    only = set(args.only or ("start-up", "naming", "streamed", "listing"))
    print(f"`python benchmarks/reads.py {' '.join(sys.argv[1:])}`, {os.cpu_count()} cores")
    print("Pythons: " + ", ".join(f"{k} = {v}" for k, v in pythons.items()))
    one = folder / "one.sqlite"
    battle = one_battle(one)
    if "start-up" in only:
        start_up(pythons, one, battle, args.runs, args.instructions)
    if "naming" in only:
        many = folder / f"battles-{args.battles}.sqlite"
        many_battles(many, args.battles)
        naming(pythons, one, many, args.battles, args.runs, args.instructions)
    if "streamed" in only and args.events:
        long = folder / f"long-{args.events}.sqlite"
        long_battle(long, args.events)
        streamed(pythons, long, args.events, 1)  # minutes a run at 10^6 events
    if "listing" in only:
        listed = folder / f"battles-{args.listed}.sqlite"
        many_battles(listed, args.listed)
        listing(pythons, listed, args.listed, args.runs, args.instructions)
    print(f"\n(stores in {folder})")


if __name__ == "__main__":
    main()
