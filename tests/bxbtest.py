"""Shared test helpers: every registered game system, its demo, recorded into a real store."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from blowbyblow.replay.battles.record import Recorded, record
from blowbyblow.replay.engine.registry import game_systems
from blowbyblow.replay.store.log import BattleStore

RULESET_IDS = sorted(game_systems())


def record_demo(store: BattleStore, ruleset_id: str) -> Recorded:
    return record(store, game_systems()[ruleset_id].demo(), quiet=True)


def modules_imported(db: Path, *args: str) -> set[str]:
    """Every module a ``bxb --db DB ARGS...`` process of its own had imported when it ended."""
    script = (
        "import sys, atexit\n"
        "def shown():\n"
        "    sys.__stderr__.write('LOADED ' + ' '.join(sorted(sys.modules)) + '\\n')\n"
        "atexit.register(shown)\n"
        f"sys.argv = ['bxb', '--db', {str(db)!r}, *{list(args)!r}]\n"
        "from blowbyblow.cli.main import main\n"
        "main()\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stderr.splitlines() if x.startswith("LOADED"))
    return set(line.split()[1:])


def tamper(
    db_path: str, battle: str, position: int, edit: Callable[[dict[str, Any]], None]
) -> None:
    """Edit one stored event in the SQLite file, as someone with the file in hand could:
    decode its envelope, change the event's plain data, write it back (hash left as it was)."""
    battle = battle.replace("-", "")  # eventsourcing's SQLite recorder keeps UUIDs as hex
    con = sqlite3.connect(db_path)
    try:
        (state,) = con.execute(
            "select state from stored_events where originator_id=? and originator_version=?",
            (battle, position),
        ).fetchone()
        envelope = msgspec.msgpack.decode(state)
        edit(envelope["event"])
        con.execute(
            "update stored_events set state=? where originator_id=? and originator_version=?",
            (_SORTED.encode(envelope), battle, position),
        )
        con.commit()
    finally:
        con.close()


_SORTED = msgspec.msgpack.Encoder(order="sorted")
