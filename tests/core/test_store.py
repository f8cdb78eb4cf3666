"""The store: what is recorded is what was adjudicated, replays identically anywhere, and a
stale writer writes nothing. Run for every registered game system's demo."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from blowbyblow.domain.core import BattleStarted
from blowbyblow.projections.battle import fold_battle
from blowbyblow.replay.battles.record import AlreadyRecorded, record, save_events
from blowbyblow.replay.battles.whatif import what_if
from blowbyblow.replay.engine.codec import encode
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play
from blowbyblow.replay.store.log import BattleStore, StaleVersion, chain

from bxbtest import RULESET_IDS, record_demo


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_the_log_holds_exactly_what_was_adjudicated(tmp_path: Path, ruleset_id: str) -> None:
    store = BattleStore(tmp_path / "b.sqlite")
    rec = record_demo(store, ruleset_id)
    played = play(get_game_system(ruleset_id).demo())
    stored = BattleStore(tmp_path / "b.sqlite").read(rec.battle)  # a fresh connection
    assert [e.data for e in stored] == [encode(e) for e in played.events]
    rs = get_game_system(ruleset_id)
    first = stored[0].event
    assert isinstance(first, BattleStarted)
    replayed = fold_battle(rs, [e.event for e in stored])
    assert encode(replayed) == encode(rec.state) == encode(played.state)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_replay_in_a_fresh_process_gives_byte_identical_state(
    tmp_path: Path, ruleset_id: str
) -> None:
    db = tmp_path / "b.sqlite"
    rec = record_demo(BattleStore(db), ruleset_id)
    script = f"""
import hashlib
from uuid import UUID
from blowbyblow.replay.engine.codec import encode
from blowbyblow.projections.battle import fold_battle
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.store.log import BattleStore
events = BattleStore({str(db)!r}).read(UUID({str(rec.battle)!r}))
rs = get_game_system(events[0].event.ruleset)
state = fold_battle(rs, [e.event for e in events])
print(hashlib.sha256(encode(state)).hexdigest())
"""
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "12345", "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.strip() == hashlib.sha256(encode(rec.state)).hexdigest()


def test_a_stale_writer_writes_nothing(tmp_path: Path) -> None:
    store = BattleStore(tmp_path / "b.sqlite")
    rec = record_demo(store, RULESET_IDS[0])
    version = store.version(rec.battle)
    # Two writers read the battle at `version`; the first appends, the second is stale.
    tail = [e.event for e in rec.events[-2:]]
    store.append(rec.battle, rec.ruleset.id, version, tail)
    before = [e.data for e in store.read(rec.battle)]
    with pytest.raises(StaleVersion, match=f"not {version}"):
        store.append(rec.battle, rec.ruleset.id, version, tail)
    assert [e.data for e in store.read(rec.battle)] == before


def test_a_batch_that_conflicts_part_way_is_not_written_at_all(tmp_path: Path) -> None:
    """The database's own guard: positions v+1 (free) and v (taken) in one insert: neither lands."""
    store = BattleStore(tmp_path / "b.sqlite")
    rec = record_demo(store, RULESET_IDS[0])
    v = store.version(rec.battle)
    last = rec.events[-1]
    fresh = chain(rec.battle, rec.ruleset.id, last, [last.event], ["t"])
    taken = chain(rec.battle, rec.ruleset.id, rec.events[-2], [last.event], ["t"])
    with pytest.raises(StaleVersion):
        store._save(rec.battle, v, [*fresh, *taken])
    assert store.version(rec.battle) == v


def test_the_same_battle_is_not_recorded_twice(tmp_path: Path) -> None:
    store = BattleStore(tmp_path / "b.sqlite")
    rec = record_demo(store, RULESET_IDS[0])
    with pytest.raises(AlreadyRecorded, match=str(rec.battle)):
        record(store, rec.ruleset.demo(), quiet=True)
    assert len(store.battles()) == 1


def test_an_in_memory_store_keeps_battles_apart(tmp_path: Path) -> None:
    store = BattleStore(":memory:")
    ids = {record_demo(store, r).battle for r in RULESET_IDS}
    assert [b.battle for b in store.battles()] == [
        b for b in (x.battle for x in store.battles()) if b in ids
    ]
    assert len(store.battles()) == len(RULESET_IDS)


def test_live_play_one_command_at_a_time_and_the_stale_session_writes_nothing(
    tmp_path: Path,
) -> None:
    """Two judges' terminals open the same battle; the first to play a command wins, the second
    is told its view is stale and writes nothing; the battle ends as if recorded in one go."""
    from blowbyblow.replay.battles.battle import Battle
    from blowbyblow.replay.battles.inputs import Need
    from blowbyblow.replay.engine.dice import ScriptedChoices, SeededDice

    demo = get_game_system("necromunda-2023").demo()
    assert demo.seed is not None and len(demo.commands) >= 2
    store = BattleStore(tmp_path / "b.sqlite")
    rec = record(store, msgspec.structs.replace(demo, commands=demo.commands[:1]), quiet=True)
    door = Battle(store)
    first = second = door.read(rec.battle)  # two terminals, the same view of the battle
    dice, choices = SeededDice(demo.seed), ScriptedChoices(demo.choices)
    played = door.play(first, demo.commands[1], dice=dice, choices=choices)
    version = store.version(rec.battle)
    with pytest.raises(StaleVersion):
        door.play(second, demo.commands[1], dice=dice, choices=choices)
    assert store.version(rec.battle) == version
    in_one_go = play(msgspec.structs.replace(demo, commands=demo.commands[:2]))
    assert [e.data for e in store.read(rec.battle)] == [encode(e) for e in in_one_go.events]
    assert not isinstance(played, Need)
    assert encode(played.head.state) == encode(in_one_go.state)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_recording_a_battle_is_one_transaction(
    ruleset_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recorded scenario (and a saved what-if) is written whole in one transaction, so an
    interruption can never leave a truncated battle that verifies as complete."""
    store = BattleStore(":memory:")
    writes: list[int] = []
    save = store.save

    def counting_save(*items: Any, **kw: Any) -> Any:
        writes.append(len(items))
        return save(*items, **kw)

    monkeypatch.setattr(store, "save", counting_save)
    rec = record_demo(store, ruleset_id)
    assert writes == [len(rec.events)]
    what = what_if(store.read(rec.battle), {})
    saved = save_events(store, what.ruleset, what.alternative)
    assert writes[1:] == [len(saved.events)]


def test_racing_reads_of_a_battle_not_kept_read_its_whole_log_once(tmp_path: Path) -> None:
    """Requests racing for a battle the door does not keep yet (the viewer's, at a page of a
    long battle): one reads the whole log, the others wait for it and take the head it kept."""
    import threading

    from blowbyblow.replay.battles.battle import Battle

    store = BattleStore(tmp_path / "b.sqlite")
    rec = record(store, get_game_system("gangfight").demo(), quiet=True)
    door = Battle(store)
    whole = door._read_whole
    inside, go_on = threading.Event(), threading.Event()
    reads: list[int] = []

    def slow_whole(source: Any, battle: Any) -> Any:
        reads.append(1)
        inside.set()
        assert go_on.wait(30)
        return whole(source, battle)

    door._read_whole = slow_whole  # type: ignore[method-assign]
    heads: list[Any] = []
    first = threading.Thread(target=lambda: heads.append(door.read(rec.battle)))
    first.start()
    assert inside.wait(30)  # the first read is reading the whole log
    others = [
        threading.Thread(target=lambda: heads.append(door.read(rec.battle))) for _ in range(3)
    ]
    for t in others:
        t.start()
    go_on.set()
    for t in [first, *others]:
        t.join(30)
    assert len(heads) == 4 and all(h is heads[0] for h in heads)
    assert reads == [1]
    assert heads[0].version == store.version(rec.battle)
