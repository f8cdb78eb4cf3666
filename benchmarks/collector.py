"""What the server's battles cost its garbage collector, measured by hand (never by a test):

    python benchmarks/collector.py [--battles 512] [--commands 10 40]

The server keeps up to 2,048 battles at their head, each with its whole log in memory
(``replay/battles/head.py``), and a full collection stops the whole server while it walks every
object the collector tracks. This plays one Gangfight battle of ``--commands`` seeded commands
(SQLite, in a temporary folder), then reads it ``--battles`` times afresh, as the server reads
each table's battle (``Battle.read``: its events decoded, its state and the commands on offer
worked out), and holds them all. It prints the objects the collector tracks beyond start-up's
(frozen first, as ``bxb serve`` does) and the CPU of a full collection (the median of 7; process
CPU, so the figure carries on a loaded machine). Run it with another checkout's Python to
measure that one (``/path/to/main/.venv/bin/python benchmarks/collector.py``)."""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec

from blowbyblow.replay.battles.battle import Battle
from blowbyblow.replay.engine import logs
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.store.log import BattleStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from typed import play  # this folder's


def measure(battles: int, commands: int, folder: Path) -> dict[str, Any]:
    system = get_game_system("gangfight")
    scenario = msgspec.structs.replace(
        system.demo(), commands=[], seed="collector", dice=None, label=f"collector {commands}"
    )
    db = folder / f"collector-{commands}.sqlite"
    door = Battle(BattleStore(db))
    battle = door.start(scenario, quiet=True).id
    play(door, battle, commands, random.Random(1), False)
    del door
    gc.collect()
    gc.freeze()
    held = []
    for _ in range(battles):
        head = Battle(BattleStore(db)).read(battle)
        head.system.legal_commands(head.state, head.started.rulings)
        held.append(head)
    gc.collect()
    tracked = len(gc.get_objects())
    cpu = []
    for _ in range(7):
        started = time.process_time()
        gc.collect()
        cpu.append(time.process_time() - started)
    gc.unfreeze()
    return {"events": held[0].version, "tracked": tracked, "ms": 1000 * statistics.median(cpu)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--battles", type=int, default=512)
    parser.add_argument("--commands", type=int, nargs="+", default=[10, 40])
    args = parser.parse_args()
    logs.configure(level="error")
    folder = Path(tempfile.mkdtemp(prefix="bxb-collector-"))
    print("| battles | events a battle | objects tracked | full collection CPU ms |")
    print("|---:|---:|---:|---:|")
    for commands in args.commands:
        r = measure(args.battles, commands, folder)
        print(f"| {args.battles} | {r['events']} | {r['tracked']:,} | {r['ms']:.1f} |")


if __name__ == "__main__":
    main()
