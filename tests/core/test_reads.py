"""Reads that scale: the state at any position from the nearest snapshot (checked against a
fold from position 1), snapshots rebuilt from zero, the battle index kept as events land and
checked against the log, reads that stop at the position asked, verification streamed, and
commands that load only what they use."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import msgspec
import pytest

from blowbyblow.cli import main as cli_main
from blowbyblow.domain.core import BattleStarted, CommandIssued, Event
from blowbyblow.domain.judging import BattleSealed
from blowbyblow.projections.battle import commands_standing, fold_battle, voided_commands
from blowbyblow.projections.snapshots import EVERY, Snapshot, usable
from blowbyblow.replay.battles.record import record, seal_battle, void_command
from blowbyblow.replay.engine.dice import ScriptedChoices, SeededDice
from blowbyblow.replay.engine.driver import Table
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play
from blowbyblow.replay.evidence import verify as verify_module
from blowbyblow.replay.evidence.seals import load_private_key, new_keys
from blowbyblow.replay.evidence.verify import verify_battle, verify_events
from blowbyblow.replay.store.log import BattleStore, battle_id_for

from bxbtest import RULESET_IDS, modules_imported, record_demo

GANGFIGHT = get_game_system("gangfight")


def in_order(state: Any) -> bytes:
    """A state's bytes with its dicts in their own order: equal only for the very same state."""
    return msgspec.msgpack.encode(state)


@dataclass
class Long:
    """A Gangfight battle over two snapshot intervals, played one command per transaction,
    with a command voided across a snapshot's position and two voided at the end."""

    db: Path
    battle: UUID
    voided_across: int  # the position of the snapshot the void reaches back over


def _play(store: BattleStore, battle: UUID, state: Any, until: int) -> Any:
    """Play the first command the rules offer until the battle has ``until`` events (twenty
    commands to a transaction: the test is about reading)."""
    version = store.version(battle)
    started = store.read(battle, lte=1)[0].event
    assert isinstance(started, BattleStarted)
    table = Table(
        system=GANGFIGHT,
        rulings=started.rulings,
        dice=SeededDice("reads"),
        choices=ScriptedChoices({}),
        quiet=True,
    )
    index = sum(1 for _, e in _standing(store, battle) if isinstance(e, CommandIssued))
    pending: list[Event] = []
    while version + len(pending) < until:
        index += 1
        options = GANGFIGHT.legal_commands(state, started.rulings)
        command = GANGFIGHT.build_command(options[index % len(options)], {})
        first = version + len(pending) + 1
        result = table.adjudicate(state, command, index, first_position=first)
        pending.extend(result.events)
        state = result.state
        if index % 20 == 0:
            store.append(battle, GANGFIGHT.id, version, pending)
            version, pending = version + len(pending), []
    if pending:
        store.append(battle, GANGFIGHT.id, version, pending)
    return state


def _void_last(store: BattleStore, battle: UUID) -> int:
    """Void the last command standing; the position of its CommandIssued."""
    last = [(p, e) for p, e in _standing(store, battle) if isinstance(e, CommandIssued)][-1]
    assert isinstance(last[1], CommandIssued)
    void_command(store, battle, command=last[1].index, by="judge", reason="typed wrong")
    return last[0]


def _standing(store: BattleStore, battle: UUID) -> list[tuple[int, Event]]:
    from blowbyblow.projections.battle import standing

    return standing([e.event for e in store.read(battle)])


@pytest.fixture(scope="module")
def long(tmp_path_factory: pytest.TempPathFactory) -> Long:
    db = tmp_path_factory.mktemp("long") / "b.sqlite"
    store = BattleStore(db)
    scenario = msgspec.structs.replace(
        GANGFIGHT.demo(), commands=[], seed="reads", dice=None, label="long"
    )
    battle = record(store, scenario, quiet=True).battle
    state = fold_battle(GANGFIGHT, [e.event for e in store.read(battle)])
    # Commands voided, newest first, back over the snapshot at EVERY: it must not be used.
    state = _play(store, battle, state, EVERY)
    while _void_last(store, battle) > EVERY:
        pass
    state = fold_battle(GANGFIGHT, [e.event for e in store.read(battle)])
    state = _play(store, battle, state, 2 * EVERY + 150)
    for _ in range(2):  # the last two commands voided, newest first
        _void_last(store, battle)
    return Long(db=db, battle=battle, voided_across=EVERY)


def _positions(total: int) -> list[int]:
    near = [1, 2, EVERY - 1, EVERY, EVERY + 1, 2 * EVERY - 1, 2 * EVERY, 2 * EVERY + 1]
    return sorted({p for p in [*near, *range(3, total + 1, 37), total] if 1 <= p <= total})


def test_the_state_at_any_position_is_the_fold_from_position_1(long: Long) -> None:
    store = BattleStore(long.db)
    events = [e.event for e in store.read(long.battle)]
    voided = voided_commands(events)
    assert len(voided) >= 3 and any(v.first <= long.voided_across < v.voided_at for v in voided)
    for position in _positions(len(events)):
        at = store.state_at(long.battle, position)
        assert in_order(at.state) == in_order(fold_battle(GANGFIGHT, events, position)), position
        assert at.of == len(events) and at.position == position
        assert msgspec.msgpack.encode(at.event) == msgspec.msgpack.encode(events[position - 1])
        inside = next((v for v in voided if v.covers(position)), None)
        assert at.voided == inside


def test_a_read_reads_only_up_to_its_position_and_from_its_snapshot(long: Long) -> None:
    """Snapshots every EVERY events: the state at a position reads the records after the
    nearest one (and the record at it, to check its hash), none after the position."""
    store = BattleStore(long.db)
    store.state_at(long.battle)  # every snapshot this battle can have is made now
    asked: list[tuple[int, int | None]] = []
    states = store.records.states

    def counting(battle: UUID, gt: int, lte: int, limit: int) -> Any:
        found = states(battle, gt, lte, limit)
        asked.append((gt, lte))
        assert all(p <= lte for p, _ in found)
        return found

    def not_read(battle: UUID, gt: int, lte: int | None, limit: int) -> Any:
        raise AssertionError("a read to state reads positions and bytes only")

    store.records.states = counting  # type: ignore[method-assign]
    store.records.page = not_read  # type: ignore[method-assign]
    for position in (2 * EVERY + 7, 2 * EVERY + 120, EVERY + 500):
        asked.clear()
        store.state_at(long.battle, position)
        assert max(lte or 0 for _, lte in asked) == position
        assert min(gt for gt, _ in asked) >= (position // EVERY) * EVERY - 1 or (
            position // EVERY == 1  # the snapshot at EVERY was voided over: the one before it
        )
        assert sum((lte or 0) - gt for gt, lte in asked) <= EVERY + 1 or position < 2 * EVERY


def test_a_snapshot_made_before_a_void_that_reaches_back_over_it_is_not_used(long: Long) -> None:
    store = BattleStore(long.db)
    store.state_at(long.battle)
    voided = store.records.voids(long.battle)
    made_before = Snapshot(position=EVERY, hash=b"", voids=0, fingerprint="", state=b"")
    assert voided[0].first <= EVERY and not usable(made_before, voided)
    assert usable(msgspec.structs.replace(made_before, voids=len(voided)), voided)
    con = sqlite3.connect(long.db)
    kept = dict(
        con.execute(
            "select position, voids from bxb_snapshots where battle=?", (long.battle.hex,)
        ).fetchall()
    )
    con.close()
    # The one at EVERY was made (again) counting the voids; the one at 2 * EVERY too, by the
    # append that reached it, after the voids before it.
    assert kept[2 * EVERY] >= 1
    assert EVERY not in kept or kept[EVERY] >= 1


def test_snapshots_and_index_rebuilt_from_zero_give_the_same_reads(long: Long) -> None:
    store = BattleStore(long.db)
    before = store.battles()
    events = [e.event for e in store.read(long.battle)]
    con = sqlite3.connect(long.db)
    con.execute("delete from bxb_snapshots")
    con.execute("update bxb_battles set label='stale', commands=99")
    con.commit()
    assert store.rebuild_read_models() == 1
    assert store.battles() == before
    made = [p for (p,) in con.execute("select position from bxb_snapshots order by position")]
    assert 2 * EVERY in made
    con.close()
    for position in _positions(len(events))[::3]:
        at = store.state_at(long.battle, position)
        assert in_order(at.state) == in_order(fold_battle(GANGFIGHT, events, position))


def test_a_snapshot_made_by_other_code_or_for_other_records_is_not_trusted(long: Long) -> None:
    store = BattleStore(long.db)
    events = [e.event for e in store.read(long.battle)]
    position = 2 * EVERY + 3
    store.state_at(long.battle, position)
    con = sqlite3.connect(long.db)
    # A state that is not this battle's, under the right code and the wrong hash...
    wrong = msgspec.msgpack.encode(fold_battle(GANGFIGHT, events, 2))
    con.execute(
        "update bxb_snapshots set state=?, hash=? where battle=? and position=?",
        (wrong, bytes(32), long.battle.hex, 2 * EVERY),
    )
    con.commit()
    at = store.state_at(long.battle, position)
    assert in_order(at.state) == in_order(fold_battle(GANGFIGHT, events, position))
    # ... and under the right hash but another fingerprint (other code folded it).
    con.execute(
        "update bxb_snapshots set state=?, fingerprint='other code' where battle=?",
        (wrong, long.battle.hex),
    )
    con.commit()
    con.close()
    at = store.state_at(long.battle, position)
    assert in_order(at.state) == in_order(fold_battle(GANGFIGHT, events, position))


def test_verify_streams_a_long_battle_with_voids(
    long: Long, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = BattleStore(long.db)
    report = verify_battle(store, long.battle)
    assert report.ok, report.problem and report.problem.describe()
    assert report.voided >= 3 and report.events == store.version(long.battle)
    # With room for one state only, the second of the last two voids goes back further than
    # verification keeps: it folds the log up to the command instead, with the same verdict.
    monkeypatch.setattr(verify_module, "KEPT_STATES", 1)
    assert verify_battle(store, long.battle) == report
    assert store.battles()[0].verified is True


def test_verify_from_the_store_and_from_the_records_agree_on_a_forgery(tmp_path: Path) -> None:
    store = BattleStore(tmp_path / "b.sqlite")
    rec = record_demo(store, "gangfight")
    events = store.read(rec.battle)
    forged = [*events[:3], *events[4:]]
    assert not verify_events(rec.battle, forged).ok
    assert verify_battle(store, rec.battle).ok
    assert store.battles()[0].verified is True


# --- the battle index ---------------------------------------------------------------------------


def _scanned(store: BattleStore, battle: UUID) -> dict[str, Any]:
    """What the index must say of a battle, computed from its whole log."""
    logged = store.read(battle)
    events = [e.event for e in logged]
    first = events[0]
    assert isinstance(first, BattleStarted)
    return {
        "label": first.label,
        "ruleset": first.ruleset,
        "version": len(events),
        "commands": commands_standing(events),
        "voided": len(voided_commands(events)),
        "sealed": isinstance(events[-1], BattleSealed),
        "dice": first.dice.mode,
        "last_recorded": logged[-1].recorded_at,
    }


def _indexed(store: BattleStore) -> dict[UUID, dict[str, Any]]:
    return {
        b.battle: {
            "label": b.label,
            "ruleset": b.ruleset,
            "version": b.version,
            "commands": b.commands,
            "voided": b.voided,
            "sealed": b.sealed,
            "dice": b.dice,
            "last_recorded": b.last_recorded,
        }
        for b in store.battles()
    }


@pytest.mark.parametrize("db", ["file", ":memory:"])
def test_the_index_is_kept_as_events_land(tmp_path: Path, db: str) -> None:
    store = BattleStore(tmp_path / "b.sqlite" if db == "file" else ":memory:")
    ids = [record_demo(store, r).battle for r in RULESET_IDS]
    last = [e for e in store.read(ids[0]) if isinstance(e.event, CommandIssued)][-1]
    assert isinstance(last.event, CommandIssued)
    void_command(store, ids[0], command=last.event.index, by="judge", reason="typed wrong")
    key = load_private_key(new_keys(tmp_path / "keys")[0])
    seal_battle(store, ids[1], key)
    assert list(_indexed(store)) == ids  # oldest first
    assert _indexed(store) == {b: _scanned(store, b) for b in ids}
    assert _indexed(store)[ids[0]]["voided"] == 1 and _indexed(store)[ids[1]]["sealed"]


def test_the_index_follows_an_edit_of_the_database_behind_the_store(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    ids = [record_demo(store, r).battle for r in RULESET_IDS[:3]]
    con = sqlite3.connect(db)
    con.execute("delete from stored_events where originator_id=?", (ids[0].hex,))
    con.execute(
        "delete from stored_events where originator_id=? and originator_version>5", (ids[1].hex,)
    )
    con.commit()
    con.close()
    again = BattleStore(db)
    assert list(_indexed(again)) == ids[1:]
    assert _indexed(again)[ids[1]] == _scanned(again, ids[1])
    # The battle deleted can be recorded again: its stale row does not stand in the way.
    assert record_demo(again, RULESET_IDS[0]).battle == ids[0]
    assert _indexed(again)[ids[0]] == _scanned(again, ids[0])


def test_a_store_written_before_the_index_gets_it_built(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    ids = [record_demo(store, r).battle for r in RULESET_IDS]
    con = sqlite3.connect(db)
    for table in ("bxb_battles", "bxb_voids", "bxb_snapshots", "bxb_read_models"):
        con.execute(f"drop table {table}")
    con.commit()
    con.close()
    again = BattleStore(db)
    assert _indexed(again) == {b: _scanned(again, b) for b in ids}


def test_a_stale_writer_writes_nothing_and_the_index_stays_true(tmp_path: Path) -> None:
    store = BattleStore(tmp_path / "b.sqlite")
    rec = record_demo(store, "gangfight")
    other = BattleStore(tmp_path / "b.sqlite")  # another process's view, read now
    version = other.version(rec.battle)
    tail = [e.event for e in rec.events[-2:]]
    store.append(rec.battle, rec.ruleset.id, version, tail)
    with pytest.raises(Exception, match=f"not {version}"):
        other.append(rec.battle, rec.ruleset.id, version, tail)
    assert _indexed(other)[rec.battle] == _scanned(other, rec.battle)


# --- commands load what they use ----------------------------------------------------------------


def test_each_command_is_found_in_the_module_that_registers_it() -> None:
    app = cli_main.app  # every module registered
    names: dict[str, str] = {}
    for command in app.registered_commands:
        assert command.name is not None and command.callback is not None
        names[command.name] = command.callback.__module__.rsplit(".", 1)[-1]
    for group in app.registered_groups:
        assert group.name is not None and group.typer_instance is not None
        first = group.typer_instance.registered_commands[0].callback
        assert first is not None
        names[group.name] = first.__module__.rsplit(".", 1)[-1]
    assert names == cli_main.COMMANDS
    assert cli_main.modules_for(["--db", "at", "-q", "at", "3"]) == ("battles",)
    assert cli_main.modules_for(["--log-level", "info", "keys", "new"]) == ("judging",)
    assert cli_main.modules_for(["no-such-command"]) == cli_main.MODULES
    assert cli_main.modules_for(["--help"]) == cli_main.MODULES


def _systems_loaded(db: Path, *args: str) -> set[str]:
    imported = modules_imported(db, *args)
    return {m.split(".")[2] for m in imported if m.startswith("blowbyblow.domain.")}


def test_help_and_battles_load_no_game_system_and_at_only_its_own(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    for r in RULESET_IDS:
        record_demo(store, r)
    gangfight = next(b.battle for b in store.battles() if b.ruleset == "gangfight")
    # the engine's own domain modules, and not even the helpers game systems share (common)
    engine = {"core", "system", "judging"}
    assert _systems_loaded(db, "--help") == engine
    assert _systems_loaded(db, "battles") == engine
    assert _systems_loaded(db, "at", "3", str(gangfight)) - {"common"} == {*engine, "gangfight"}


def test_bxb_battles_shows_the_verdict_of_verify(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    rec = record_demo(store, "asl")
    runner = CliRunner()
    rows = runner.invoke(cli_main.app, ["--db", str(db), "battles", "--json"]).output
    assert json.loads(rows)["verified"] is None
    assert runner.invoke(cli_main.app, ["--db", str(db), "verify"]).exit_code == 0
    row = json.loads(runner.invoke(cli_main.app, ["--db", str(db), "battles", "--json"]).output)
    assert row["verified"] is True and row["events"] == len(rec.events)


def test_a_new_battle_can_be_played_after_the_whole_store_is_read(tmp_path: Path) -> None:
    """Reads keep snapshots (best effort); they never stand in the way of the next write."""
    store = BattleStore(tmp_path / "b.sqlite")
    demo = GANGFIGHT.demo()
    played = play(demo)
    first = played.events[0]
    assert isinstance(first, BattleStarted)
    battle = battle_id_for(first)
    store.append(battle, GANGFIGHT.id, 0, played.events)
    assert in_order(store.state_at(battle).state) == in_order(played.state)
    again = msgspec.structs.replace(first, label="again")
    store.append(battle_id_for(again), GANGFIGHT.id, 0, [again, *played.events[1:]])
    assert [b.label for b in store.battles()] == [first.label, "again"]


# --- PostgreSQL ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    from uuid import uuid4

    import psycopg

    from pgserver import postgres_server

    with postgres_server() as url:
        name = f"bxb_{uuid4().hex[:12]}"
        with psycopg.connect(url, autocommit=True) as con:
            con.execute(f"create database {name}")
        yield url.rsplit("/", 1)[0] + "/" + name


def test_on_postgresql_writers_at_many_tables_keep_the_index_true(
    pg_url: str, tmp_path: Path
) -> None:
    store = BattleStore(pg_url)
    ids = [record_demo(store, r).battle for r in RULESET_IDS]
    last = [e for e in store.read(ids[0]) if isinstance(e.event, CommandIssued)][-1]
    assert isinstance(last.event, CommandIssued)
    void_command(store, ids[0], command=last.event.index, by="judge", reason="typed wrong")
    seal_battle(store, ids[1], load_private_key(new_keys(tmp_path / "keys")[0]))
    # Tables writing at once, each to its own battle, from stores of their own.
    started = play(GANGFIGHT.demo()).events
    first = started[0]
    assert isinstance(first, BattleStarted)
    labels = [msgspec.structs.replace(first, label=f"table {n}") for n in range(6)]

    def table(writer: BattleStore, start: BattleStarted[Any]) -> None:
        writer.append(battle_id_for(start), GANGFIGHT.id, 0, [start])
        writer.append(battle_id_for(start), GANGFIGHT.id, 1, started[1:])

    writers = [BattleStore(pg_url) for _ in labels]  # opened one by one: each creates tables
    threads = [threading.Thread(target=table, args=ws) for ws in zip(writers, labels, strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids += [battle_id_for(s) for s in labels]
    again = BattleStore(pg_url)
    assert set(_indexed(again)) == set(ids)
    assert _indexed(again) == {b: _scanned(again, b) for b in ids}
    events = [e.event for e in again.read(ids[0])]
    for position in range(1, len(events) + 1, 5):
        at = again.state_at(ids[0], position)
        system = get_game_system(RULESET_IDS[0])
        assert in_order(at.state) == in_order(fold_battle(system, events, position))
    assert verify_battle(again, ids[1]).ok and again.battles()[1].verified is True
