"""Throughput of the event store, measured by hand (never by a test):

    python benchmarks/replay.py [--events 100000] [--ruleset necromunda-2023]

Builds a log of at least --events events (copies of the ruleset's demo battle, each under its
own label) in a fresh SQLite file, and prints events/s for
  - append:  the store appending each command's events in one transaction (hash chain included);
  - replay:  reading every battle back and folding it into state;
  - verify:  `verify_battle` on every battle (chain, seeded dice, re-adjudication);
each beside a baseline on the same data in the same run: raw sqlite3 + msgspec (one table, one
transaction per command, WAL journal as eventsourcing uses; read + decode + fold; read + decode +
re-adjudicate and compare), with the ratio store/baseline."""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from uuid import UUID

import msgspec

from blowbyblow.domain.core import BattleStarted, CommandIssued, Event
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.projections.battle import fold_battle
from blowbyblow.replay.codec import Codec, codec_for, encode
from blowbyblow.replay.dice import RecordedChoices, RecordedDice, recorded_inputs
from blowbyblow.replay.driver import Table, Turn, adjudicate_commands
from blowbyblow.replay.registry import get_game_system
from blowbyblow.replay.session import play, split_by_command
from blowbyblow.replay.store import BattleStore, battle_id_for
from blowbyblow.replay.verify import verify_battle


def progress(label: str, done: int, total: int) -> None:
    if done == total or done % max(1, total // 20) == 0:
        print(
            f"\r  {label}: {done}/{total}",
            end="\n" if done == total else "",
            file=sys.stderr,
            flush=True,
        )


def raw_read(raw: sqlite3.Connection, codec: Codec, battle: UUID) -> list[Event]:
    """The baseline's read: one battle's rows, decoded."""
    rows = raw.execute(
        "select data from events where battle=? order by position", (battle.bytes,)
    ).fetchall()
    return [codec.decode(r[0]) for r in rows]


def raw_verify_battle(ruleset: AnyGameSystem, events: list[Event]) -> None:
    """The baseline's verification: re-adjudicate every command from its recorded dice and
    choices and compare the events (no chain, seal or seed checks)."""
    started = events[0]
    assert isinstance(started, BattleStarted)
    commands = split_by_command(events)[1:]
    turns = []
    for batch in commands:
        issued = batch[0]
        assert isinstance(issued, CommandIssued)
        dice, choices = recorded_inputs(batch)
        turns.append(Turn(issued.command, RecordedDice(dice), RecordedChoices(choices)))
    table = Table(
        system=ruleset,
        rulings=started.rulings,
        dice=RecordedDice({}),
        choices=RecordedChoices({}),
        quiet=True,
    )
    results = adjudicate_commands(table, fold_battle(ruleset, [started]), turns)
    for batch, result in zip(commands, results, strict=True):
        assert [encode(e) for e in result.events] == [encode(e) for e in batch]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--ruleset", default="necromunda-2023")
    args = ap.parse_args()

    ruleset = get_game_system(args.ruleset)
    demo = ruleset.demo()
    played = play(demo)
    per_battle = len(played.events)
    copies = -(-args.events // per_battle)
    print(
        f"{args.ruleset}: demo battle of {per_battle} events x {copies} battles = {per_battle * copies} events"
    )

    # Prepare the battles (adjudication is not what is measured here).
    started = played.events[0]
    assert isinstance(started, BattleStarted)
    battles: list[tuple[UUID, list[list[Event]]]] = []
    for n in range(copies):
        first = msgspec.structs.replace(started, label=f"{demo.label} #{n}")
        events = [first, *played.events[1:]]
        battles.append((battle_id_for(first), split_by_command(events)))
    total = per_battle * copies

    tmp = Path(tempfile.mkdtemp(prefix="bxb-bench-"))
    store = BattleStore(tmp / "store.sqlite")
    raw = sqlite3.connect(tmp / "raw.sqlite")
    raw.execute("pragma journal_mode=WAL")  # as eventsourcing's SQLite recorder sets it
    raw.execute(
        "create table events (battle blob, position integer, data blob, primary key (battle, position))"
    )
    codec = codec_for(ruleset.id)

    # --- append ---
    t = time.perf_counter()
    for i, (battle, batches) in enumerate(battles, start=1):
        version = 0
        for batch in batches:
            store.append(battle, ruleset.id, version, batch)
            version += len(batch)
        progress("append (store)", i, len(battles))
    store_append = time.perf_counter() - t
    t = time.perf_counter()
    for i, (battle, batches) in enumerate(battles, start=1):
        version = 0
        for batch in batches:
            with raw:
                raw.executemany(
                    "insert into events values (?, ?, ?)",
                    [
                        (battle.bytes, version + k, encode(ev))
                        for k, ev in enumerate(batch, start=1)
                    ],
                )
            version += len(batch)
        progress("append (raw)", i, len(battles))
    raw_append = time.perf_counter() - t

    # --- replay into state ---
    t = time.perf_counter()
    for i, (battle, _) in enumerate(battles, start=1):
        fold_battle(ruleset, [e.event for e in store.read(battle)])
        progress("replay (store)", i, len(battles))
    store_replay = time.perf_counter() - t
    t = time.perf_counter()
    for i, (battle, _) in enumerate(battles, start=1):
        fold_battle(ruleset, raw_read(raw, codec, battle))
        progress("replay (raw)", i, len(battles))
    raw_replay = time.perf_counter() - t

    # --- verify ---
    t = time.perf_counter()
    for i, (battle, _) in enumerate(battles, start=1):
        report = verify_battle(store, battle)
        assert report.ok, report.problem
        progress("verify (store)", i, len(battles))
    store_verify = time.perf_counter() - t
    t = time.perf_counter()
    for i, (battle, _) in enumerate(battles, start=1):
        raw_verify_battle(ruleset, raw_read(raw, codec, battle))
        progress("verify (raw)", i, len(battles))
    raw_verify = time.perf_counter() - t

    print(f"\n{'phase':<8} {'store ev/s':>12} {'raw sqlite3+msgspec ev/s':>26} {'ratio':>7}")
    for name, s, r in (
        ("append", store_append, raw_append),
        ("replay", store_replay, raw_replay),
        ("verify", store_verify, raw_verify),
    ):
        print(f"{name:<8} {total / s:>12,.0f} {total / r:>26,.0f} {r / s:>7.2f}")
    print(f"\n({total} events in {len(battles)} battles; files in {tmp})")


if __name__ == "__main__":
    main()
