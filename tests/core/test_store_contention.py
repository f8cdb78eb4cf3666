"""Many writer processes on one SQLite store, on a machine kept busy by them: every writer's
turn comes. A writer waits the busy timeout for the write lock as SQLite does, and again while
other writers keep committing (the machine is slow, not stuck); only a lock held through a whole
timeout with no commit gives up (test_errors: a store locked by another program)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from blowbyblow.replay.store.log import BattleStore

WRITERS = 16
BATTLES = 8  # each writer's, each adjudicated and written in a transaction of its own

# One writer: opens the store, waits at the gate with the others, then records its battles (the
# demo under labels of its own) as fast as it can; exit 3 on StoreBusy.
WRITER = """
import sys, time
from pathlib import Path
import msgspec
from blowbyblow.replay.battles.record import record
from blowbyblow.replay.engine.registry import game_systems
from blowbyblow.replay.store.log import BattleStore, StoreBusy
db, number, battles, gate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
demo = game_systems()["necromunda-2023"].demo()
try:
    store = BattleStore(db)
    while not gate.exists():
        time.sleep(0.01)
    for k in range(battles):
        record(store, msgspec.structs.replace(demo, label=f"writer {number} battle {k}"), quiet=True)
except StoreBusy as e:
    print(e)
    sys.exit(3)
"""


def test_many_writer_processes_on_a_busy_machine_all_write(tmp_path: Path) -> None:
    db = tmp_path / "battles.sqlite"
    BattleStore(db)  # made once, as a server or a first `bxb record` would
    gate = tmp_path / "go"
    # the shortest busy timeout: where writers on a busy machine gave up before
    env = {**os.environ, "BXB_BUSY_TIMEOUT": "1"}
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), str(n), str(BATTLES), str(gate)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for n in range(WRITERS)
    ]
    time.sleep(1)  # most have opened the store: they start together
    gate.touch()
    results = [(w.wait(timeout=300), w.stdout.read() if w.stdout else "") for w in writers]
    gave_up = [out for code, out in results if code != 0]
    assert not gave_up, f"{len(gave_up)} of {WRITERS} writers gave up:\n" + "\n".join(gave_up)
    battles = BattleStore(db).battles()
    assert len(battles) == WRITERS * BATTLES
    assert {b.label for b in battles} == {
        f"writer {n} battle {k}" for n in range(WRITERS) for k in range(BATTLES)
    }
