"""The store's read and write paths against raw baselines, measured by hand (never by a test):

    python benchmarks/replay.py [--events 100000] [--ruleset necromunda-2023]
                                [--at 1000 10000 100000 1000000] [--postgres] [--seconds 8]

1. A store of at least --events events (copies of the ruleset's demo battle, each under its own
   label) in a fresh SQLite file, and events/s, side by side in one run, for
   - append: the store appending each command's events in one transaction (hash chain, battle
     index, voids and snapshots included), against a raw append doing the same work: the same
     rows, the hash chain computed, one transaction per command, WAL and synchronous=FULL;
   - replay: every battle read back into its state (``BattleStore.state_at``), against a raw
     sqlite3 read + msgspec decode of the same rows, and against that read + decode + fold;
   - verify: ``verify_battle`` on every battle, against a raw read + decode + re-adjudication
     and comparison (no chain, seal or seed checks).
2. With --at: one long battle of each size (Gangfight, seeded dice, each command the first one
   the rules offer), and, each in a process of its own, with its wall time and peak RSS:
   ``bxb at`` at the first, middle and last position, replay of the whole battle from position 1
   (streamed, no snapshot), and ``bxb verify``.
3. With --postgres: a throwaway PostgreSQL server (as tests/pgserver.py starts one) and
   commands/s appended by 1, 8 and 32 writer processes on battles of their own, with how busy
   the machine's processors were, against a raw psycopg append of the same rows (one writer)."""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
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
from blowbyblow.replay.store import (
    GENESIS,
    BattleStore,
    Envelope,
    Link,
    battle_id_for,
    chain_hash,
)

TESTS = Path(__file__).resolve().parents[1] / "tests"


def progress(label: str, done: int, total: int) -> None:
    if done == total or done % max(1, total // 20) == 0:
        print(
            f"\r  {label}: {done}/{total}",
            end="\n" if done == total else "",
            file=sys.stderr,
            flush=True,
        )


def timed(label: str, items: list[Any], work: Callable[[Any], object]) -> float:
    started = time.perf_counter()
    for i, item in enumerate(items, start=1):
        work(item)
        progress(label, i, len(items))
    return time.perf_counter() - started


# --- the raw baselines --------------------------------------------------------------------------


def raw_rows(battle: UUID, ruleset: str, prev: bytes, first: int, batch: list[Event]) -> Any:
    """The rows the store writes for ``batch``, hash chain and all, chained after ``prev``."""
    rows = []
    for position, event in enumerate(batch, start=first):
        data = encode(event)
        at = "2026-01-01T00:00:00.000+00:00"
        digest = chain_hash(
            Link(battle=battle, position=position, prev=prev, format=3, at=at, data=data)
        )
        envelope = Envelope(v=3, event=msgspec.Raw(data), prev=prev, hash=digest, at=at)
        rows.append((battle.hex, position, f"{ruleset}/{type(event).__name__}", encode(envelope)))
        prev = digest
    return rows, prev


def raw_decoder(codec: Codec) -> Any:
    """msgspec's decoder of a stored record's event, the record's other fields skipped."""
    record = msgspec.defstruct("Record", [("event", codec.event_type)])
    return msgspec.msgpack.Decoder(record)


def raw_read(raw: sqlite3.Connection, decoder: Any, battle: UUID) -> list[Event]:
    """The baseline's read: one battle's rows, each record's event decoded."""
    rows = raw.execute(
        "select state from events where battle=? order by position", (battle.hex,)
    ).fetchall()
    decode = decoder.decode
    return [decode(r[0]).event for r in rows]


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


# --- 1. a store of demo battles -----------------------------------------------------------------


def demo_battles(ruleset: AnyGameSystem, events: int) -> list[tuple[UUID, list[list[Event]]]]:
    demo = ruleset.demo()
    played = play(demo)
    copies = -(-events // len(played.events))
    started = played.events[0]
    assert isinstance(started, BattleStarted)
    battles = []
    for n in range(copies):
        first = msgspec.structs.replace(started, label=f"{demo.label} #{n}")
        battles.append((battle_id_for(first), split_by_command([first, *played.events[1:]])))
    return battles


def store_vs_raw(ruleset: AnyGameSystem, events: int, folder: Path) -> None:
    battles = demo_battles(ruleset, events)
    total = sum(len(b) for _, batches in battles for b in batches)
    print(f"{ruleset.id}: {len(battles)} demo battles, {total} events")
    store = BattleStore(folder / "store.sqlite")
    raw = sqlite3.connect(folder / "raw.sqlite", isolation_level=None)
    raw.execute("pragma journal_mode=WAL")
    raw.execute("pragma synchronous=FULL")
    raw.execute(
        "create table events (battle text, position integer, topic text, state blob, "
        "primary key (battle, position))"
    )
    codec = raw_decoder(codec_for(ruleset.id))

    def store_append(item: tuple[UUID, list[list[Event]]]) -> None:
        battle, batches = item
        version = 0
        for batch in batches:
            store.append(battle, ruleset.id, version, batch)
            version += len(batch)

    def raw_append(item: tuple[UUID, list[list[Event]]]) -> None:
        battle, batches = item
        prev, version = GENESIS, 0
        for batch in batches:
            rows, prev = raw_rows(battle, ruleset.id, prev, version + 1, batch)
            raw.execute("begin")
            raw.executemany("insert into events values (?, ?, ?, ?)", rows)
            raw.execute("commit")
            version += len(batch)

    # In turns, ten battles each, so that the machine's drift falls on both alike.
    mine = base = 0.0
    for k in range(0, len(battles), 10):
        mine += timed("append (store)", battles[k : k + 10], store_append)
        base += timed("append (raw)", battles[k : k + 10], raw_append)
    figures = [("append", mine, base, 0.0)]
    ids = [b for b, _ in battles]
    cold = timed("replay (store, first read)", ids, store.state_at)
    replay = timed("replay (store)", ids, store.state_at)
    decode = timed("read + decode (raw)", ids, lambda b: raw_read(raw, codec, b))
    folded = timed(
        "read + decode + fold (raw)", ids, lambda b: fold_battle(ruleset, raw_read(raw, codec, b))
    )
    figures.append(("replay, first read", cold, decode, folded))
    figures.append(("replay", replay, decode, folded))
    from blowbyblow.replay.verify import verify_battle

    def verify(battle: UUID) -> None:
        report = verify_battle(store, battle)
        assert report.ok, report.problem

    verified = timed("verify (store)", ids, verify)
    raw_verified = timed(
        "verify (raw)", ids, lambda b: raw_verify_battle(ruleset, raw_read(raw, codec, b))
    )
    figures.append(("verify", verified, raw_verified, 0.0))
    print("\n| phase | store ev/s | raw ev/s | store/raw | raw + fold ev/s | store/(raw + fold) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, mine, base, with_fold in figures:
        fold_cells = f"{total / with_fold:,.0f} | {with_fold / mine:.2f}" if with_fold else "— | —"
        print(
            f"| {name} | {total / mine:,.0f} | {total / base:,.0f} | {base / mine:.2f} "
            f"| {fold_cells} |"
        )
    print("(raw for append: the same rows, hash chain, one transaction per command; for replay:")
    print(
        " a sqlite3 read + msgspec decode of each event; for verify: read, decode, re-adjudicate)\n"
    )


# --- 2. long battles: at, replay and verify in processes of their own ---------------------------


def long_battle(path: Path, events: int) -> UUID:
    """A Gangfight battle of at least ``events`` events, each command the first the rules offer,
    appended a hundred commands to a transaction (building it is not what is measured)."""
    from blowbyblow.replay.dice import ScriptedChoices, SeededDice

    system = get_game_system("gangfight")
    scenario = msgspec.structs.replace(
        system.demo(), commands=[], seed="long", dice=None, label=f"long {events}"
    )
    started = play(scenario).events[0]
    assert isinstance(started, BattleStarted)
    battle = battle_id_for(started)
    store = BattleStore(path)
    store.append(battle, system.id, 0, [started])
    table = Table(
        system=system,
        rulings=started.rulings,
        dice=SeededDice("long"),
        choices=ScriptedChoices({}),
        quiet=True,
    )
    state, version, index = fold_battle(system, [started]), 1, 0
    pending: list[Event] = []
    while version + len(pending) < events:
        index += 1
        options = system.legal_commands(state, started.rulings)
        command = system.build_command(options[0], {})
        result = table.adjudicate(state, command, index, first_position=version + 1)
        pending.extend(result.events)
        state = result.state
        if index % 100 == 0:
            store.append(battle, system.id, version, pending)
            version, pending = version + len(pending), []
            progress(f"building {events}", min(version, events), events)
    store.append(battle, system.id, version, pending)
    progress(f"building {events}", events, events)
    return battle


def measured(command: list[str]) -> tuple[float, float, str]:
    """Wall seconds and peak RSS (MB) of ``command`` run as a process of its own."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert process.stdout is not None
    out = process.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if process.returncode:
        raise RuntimeError(f"{' '.join(command)} failed:\n{out[-2000:]}")
    return wall, usage.ru_maxrss / 1024, out


REPLAY = """
import sys, time
from uuid import UUID
from blowbyblow.projections.battle import fold_standing
from blowbyblow.replay.registry import get_game_system
from blowbyblow.replay.store import BattleStore
store, battle = BattleStore(sys.argv[1]), UUID(sys.argv[2])
started = time.perf_counter()
pages = store.stream(battle)
first, events = next(pages)
system = get_game_system(events[0].ruleset)
state = fold_standing(system, system.initial_state(events[0].setup), [(2, events[1:])], [])
state = fold_standing(system, state, pages, store.models.records.voids(battle))
print(f"{time.perf_counter() - started:.3f}")
"""


def long_battles(sizes: list[int], folder: Path) -> None:
    bxb = [sys.executable, "-m", "blowbyblow.cli.main", "-q"]
    print(
        "| events | at 1: s, MB | at middle: s, MB | at last: s, MB | replay from 1: s, MB | verify: s, MB |"
    )
    print("|---:|---|---|---|---|---|")
    for size in sizes:
        db = folder / f"long-{size}.sqlite"
        battle = long_battle(db, size)
        total = BattleStore(db).version(battle)
        cells = []
        for position in (1, total // 2, total):
            wall, rss, _ = measured([*bxb, "--db", str(db), "at", str(position), str(battle)])
            cells.append(f"{wall:.2f}, {rss:.0f}")
        wall, rss, _ = measured([sys.executable, "-c", REPLAY, str(db), str(battle)])
        cells.append(f"{wall:.2f}, {rss:.0f}")
        wall, rss, _ = measured([*bxb, "--db", str(db), "verify", str(battle)])
        cells.append(f"{wall:.1f}, {rss:.0f}")
        print(f"| {total:,} | " + " | ".join(cells) + " |", flush=True)
    print("(whole processes: start-up and imports included)\n")


# --- 3. PostgreSQL: concurrent writers ---------------------------------------------------------


def busy() -> tuple[int, int]:
    """The machine's processor time so far: busy and total ticks (/proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def writer(url: str, number: int, seconds: float, out: Any, gate: Any) -> None:
    """Append the demo's commands to battles of its own for ``seconds``."""
    os.environ["POSTGRES_POOL_SIZE"], os.environ["POSTGRES_MAX_OVERFLOW"] = "1", "0"
    ruleset = get_game_system("necromunda-2023")
    played = play(ruleset.demo())
    start = played.events[0]
    assert isinstance(start, BattleStarted)
    with gate[0]:  # stores open one at a time: each creates the tables if missing
        store = BattleStore(url)
    gate[1].wait()
    commands, n, started = 0, 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        first = msgspec.structs.replace(start, label=f"w{number}-{n}-{os.getpid()}")
        n += 1
        battle, version = battle_id_for(first), 0
        for batch in split_by_command([first, *played.events[1:]]):
            store.append(battle, ruleset.id, version, batch)
            version += len(batch)
            commands += 1
    out.put((commands, time.perf_counter() - started))


def raw_pg_writer(url: str, seconds: float) -> float:
    """One writer appending the same rows straight through psycopg: one transaction per
    command, the hash chain computed, the previous hash kept in memory."""
    import psycopg

    ruleset = get_game_system("necromunda-2023")
    played = play(ruleset.demo())
    start = played.events[0]
    assert isinstance(start, BattleStarted)
    commands, n, started = 0, 0, time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "create table raw_events (battle text, position bigint, topic text, state bytea, "
            "primary key (battle, position))"
        )
        while time.perf_counter() - started < seconds:
            first = msgspec.structs.replace(start, label=f"raw-{n}")
            n += 1
            battle, prev, version = battle_id_for(first), GENESIS, 0
            for batch in split_by_command([first, *played.events[1:]]):
                rows, prev = raw_rows(battle, ruleset.id, prev, version + 1, batch)
                with conn.transaction(), conn.cursor() as cur:
                    cur.executemany("insert into raw_events values (%s, %s, %s, %s)", rows)
                version += len(batch)
                commands += 1
    return commands / (time.perf_counter() - started)


def postgres(seconds: float) -> None:
    sys.path.insert(0, str(TESTS))
    from pgserver import postgres_server

    with postgres_server() as url:
        BattleStore(url)
        print("| PostgreSQL writers | commands/s | processors busy |")
        print("|---:|---:|---:|")
        for n in (1, 8, 32):
            out: Any = mp.Queue()
            gate = (mp.Lock(), mp.Barrier(n))
            before = busy()
            processes = [
                mp.Process(target=writer, args=(url, i, seconds, out, gate)) for i in range(n)
            ]
            for p in processes:
                p.start()
            done = [out.get() for _ in processes]
            for p in processes:
                p.join()
            after = busy()
            rate = sum(c for c, _ in done) / max(w for _, w in done)
            used = (after[0] - before[0]) / max(1, after[1] - before[1])
            print(f"| {n} | {rate:,.0f} | {100 * used:.0f}% |", flush=True)
        print(f"| raw psycopg, 1 | {raw_pg_writer(url, seconds):,.0f} | |")
    print("(each command: one transaction of the demo's events for one command)")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--events", type=int, default=100_000, help="0: skip the store of demos")
    ap.add_argument("--ruleset", default="necromunda-2023")
    ap.add_argument("--at", type=int, nargs="*", default=[], help="long battles of these sizes")
    ap.add_argument("--postgres", action="store_true")
    ap.add_argument("--seconds", type=float, default=8.0, help="per PostgreSQL run")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bxb-bench-"))
    if args.events:
        store_vs_raw(get_game_system(args.ruleset), args.events, folder)
    if args.at:
        long_battles(args.at, folder)
    if args.postgres:
        postgres(args.seconds)
    print(f"(files in {folder})")


if __name__ == "__main__":
    main()
