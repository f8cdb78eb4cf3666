"""Typed dice through the front door, in process, measured by hand (never by a test):

    python benchmarks/typed.py [--commands 12] [--rounds 3] [--ruleset gangfight ...]

What a table typing physical dice costs the server in rules work, without HTTP: for each game
system's demo (physical dice, no commands), a battle is played ``--commands`` commands long
through ``Battle.answer`` as the table page plays it: one request a roll, each carrying every
answer given so far, each choice answered with its default, the completed command sent for
review and then written by one more request (SQLite store, in a temporary folder). Beside it,
a battle of seeded dice, one request a command (the rules run once: the least they can cost).

It prints, per game system, the CPU milliseconds a command (all its requests; the process's own
CPU, so the figure carries on a loaded machine), the requests a command, and how many times a
command's rules procedure was started from its beginning (the game system's ``procedure``
called): 1 means typed dice do not adjudicate the command again at each roll. Run it with
another checkout's Python to measure that one (``/path/to/main/.venv/bin/python
benchmarks/typed.py``): it uses only ``Battle.answer``, which both have.

With ``--held``, it prints instead how long each typed request holds its command's paused run
(``replay/battles/pending.py``: the run's lock, held while the rules go on from one question to
the next): the longest the server's event loop can wait when two phones race on one command and
the other's request took the run on in a worker thread (docs/web.md). Wall and thread CPU time
of each ``_Run.answer``, which runs under that lock."""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec

from blowbyblow.replay.battles import pending
from blowbyblow.replay.battles.battle import Battle
from blowbyblow.replay.battles.inputs import Need
from blowbyblow.replay.engine import logs
from blowbyblow.replay.engine.dice import ListedDice, ScriptedChoices
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.store.log import BattleStore

SYSTEMS = ["gangfight", "necromunda-2023", "necromunda-legacy", "wh40k-2e", "asl"]


def play(door: Battle, battle: Any, commands: int, rng: random.Random, typed: bool) -> list[int]:
    """Play up to ``commands`` commands (each one the rules offer, picked at random); returns
    the requests each took."""
    requests: list[int] = []
    for _ in range(commands):
        head = door.read(battle)
        system = head.system
        options = system.legal_commands(head.state, head.started.rulings)
        if not options:
            break
        command = system.build_command(options[rng.randrange(len(options))], {})
        if not typed:  # the battle's own dice, every choice its default: one request
            door.answer(head, command, dice=None, choices={}, ask=False)
            requests.append(1)
            continue
        dice: list[int] = []
        choices: dict[str, str] = {}
        sent = 0
        while True:  # one request a roll or choice, each with every answer so far, then review
            sent += 1
            word = door.answer(head, command, dice=list(dice), choices=dict(choices), write=False)
            if not isinstance(word, Need):
                break
            if word.kind == "dice":
                dice += [rng.randint(1, word.sides) for _ in range(word.n)]
            else:
                choices[word.key] = word.default
        door.answer(head, command, dice=list(dice), choices=dict(choices))  # "Write it"
        requests.append(sent + 1)
    return requests


def measure(ruleset: str, commands: int, typed: bool, folder: Path, seed: int) -> dict[str, Any]:
    system = get_game_system(ruleset)
    scenario = msgspec.structs.replace(
        system.demo(),
        commands=[],
        seed=None if typed else f"typed-{seed}",
        dice=[] if typed else None,
        label=f"typed {seed} {typed}",
    )
    door = Battle(BattleStore(folder / f"{ruleset}-{seed}-{typed}.sqlite"))
    dice = ListedDice([]) if typed else None
    head = door.start(scenario, dice=dice, choices=ScriptedChoices({}), quiet=True)
    procedure = system.procedure
    starts = [0]

    def counted(*args: Any) -> Any:
        starts[0] += 1
        return procedure(*args)

    # the registry's game system (a frozen dataclass) counts its procedure's starts meanwhile
    object.__setattr__(system, "procedure", counted)
    try:
        started = time.process_time()
        requests = play(door, head.id, commands, random.Random(seed), typed)
        cpu = time.process_time() - started
    finally:
        object.__setattr__(system, "procedure", procedure)
    if not requests:
        return {}
    return {
        "commands": len(requests),
        "cpu_ms": 1000 * cpu / len(requests),
        "requests": statistics.mean(requests),
        "starts": starts[0] / len(requests),
    }


def held(ruleset: str, commands: int, seeds: range, folder: Path) -> list[tuple[float, float]]:
    """Wall and thread CPU seconds of every ``_Run.answer`` (the run's lock held) over
    typed battles of ``commands`` commands, one a seed."""
    answer = pending._Run.answer
    times: list[tuple[float, float]] = []

    def timed(run: Any, *args: Any) -> Any:
        if run._go_on is None:  # a fresh run: no other request can find it before it speaks
            return answer(run, *args)
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return answer(run, *args)
        finally:
            times.append((time.perf_counter() - wall, time.thread_time() - cpu))

    pending._Run.answer = timed  # type: ignore[method-assign,assignment]
    try:
        for seed in seeds:
            measure(ruleset, commands, True, folder, seed)
    finally:
        pending._Run.answer = answer  # type: ignore[method-assign]
    return times


def print_held(args: argparse.Namespace) -> None:
    print("| system | requests | held ms p50 | p99 | max | thread CPU ms p50 | p99 | max |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for ruleset in args.ruleset:
            held(
                ruleset, 2, range(-1, 0), Path(tmp)
            )  # warm: the rules' modules imported, not measured
            times = held(ruleset, args.commands, range(args.rounds), Path(tmp))
            cells = []
            for figures in (sorted(1000 * w for w, _ in times), sorted(1000 * c for _, c in times)):
                p99 = figures[min(len(figures) - 1, int(0.99 * len(figures)))]
                cells += [statistics.median(figures), p99, figures[-1]]
            print(f"| {ruleset} | {len(times)} | " + " | ".join(f"{x:.2f}" for x in cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", type=int, default=12, help="per battle")
    parser.add_argument("--rounds", type=int, default=3, help="battles per system and way")
    parser.add_argument("--ruleset", nargs="+", default=SYSTEMS)
    parser.add_argument("--held", action="store_true", help="how long a request holds its run")
    args = parser.parse_args()
    logs.configure(level="warning")  # as ``bxb serve --log-level warning``: no line a rule step
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the start")
    if args.held:
        print_held(args)
        print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end")
        return
    print(
        "| system | way | commands | requests a command | procedure started a command | "
        "CPU ms a command (median of rounds) |"
    )
    print("|---|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for ruleset in args.ruleset:  # warm: the rules' modules imported, not measured
            for typed in (True, False):
                measure(ruleset, 2, typed, Path(tmp), -1)
        for ruleset in args.ruleset:
            for typed in (True, False):
                rows = [
                    measure(ruleset, args.commands, typed, Path(tmp), seed)
                    for seed in range(args.rounds)
                ]
                rows = [r for r in rows if r]
                way = "typed roll by roll, reviewed" if typed else "seeded dice, one request"
                print(
                    f"| {ruleset} | {way} | {sum(r['commands'] for r in rows)} | "
                    f"{statistics.mean(r['requests'] for r in rows):.1f} | "
                    f"{statistics.mean(r['starts'] for r in rows):.2f} | "
                    f"{statistics.median(r['cpu_ms'] for r in rows):.2f} |",
                    flush=True,
                )
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end")


if __name__ == "__main__":
    main()
