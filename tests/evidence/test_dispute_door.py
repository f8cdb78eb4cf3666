"""The front door's disputes read by the records' topics (``DisputeDoor``, replay/battles/
disputes.py): where a battle's flags, rulings and notes are is kept per battle and read onward
from the version looked at last; a look at one battle never waits on another battle's read of
the store (every table's page looks, through ``chain``)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from blowbyblow.replay.battles.battle import Battle
from blowbyblow.replay.store.log import BattleStore

from bxbtest import record_demo

WAIT = 60  # seconds: only a bound on a wait that ends at once when the door is right


def test_a_look_at_one_battle_does_not_wait_on_another_battles_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = BattleStore(tmp_path / "b.sqlite")
    slow = record_demo(store, "necromunda-2023").battle
    other = record_demo(store, "gangfight").battle
    door = Battle(store).disputes
    flagged = door.flag(other, command=1, by="table", reason="the die rolled off the table")
    reading, release = threading.Event(), threading.Event()
    topics = store.records.topics

    def held(battle: UUID, gt: int, lt: int) -> list[tuple[int, str]]:
        if battle == slow:  # this battle's read stays in the store until released
            reading.set()
            release.wait(WAIT)
        return topics(battle, gt, lt)

    monkeypatch.setattr(store.records, "topics", held)
    first = threading.Thread(target=door.said_at, args=(slow, store.version(slow)))
    first.start()
    assert reading.wait(WAIT), "the first look never read the store"
    said: list[Any] = []
    second = threading.Thread(
        target=lambda: said.append(door.said_at(other, flagged.originator_version))
    )
    second.start()
    second.join(WAIT)  # returns at once unless the look waits on the first battle's read
    waited = second.is_alive()
    release.set()
    first.join(WAIT)
    second.join(WAIT)
    assert not waited, "a look at one battle waited on another battle's read of the store"
    assert said == [[flagged.originator_version]]


def test_what_is_kept_moves_only_forward(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A look at an earlier version (a request that read the battle's version before another
    moved it on) whose read ends after a later look's keeps nothing over it: the next look at
    the later version reads nothing from the store again."""
    store = BattleStore(tmp_path / "b.sqlite")
    battle = record_demo(store, "gangfight").battle
    door = Battle(store).disputes
    before = store.version(battle)
    flagged = door.flag(battle, command=1, by="table", reason="the die rolled off the table")
    later = flagged.originator_version
    reading, release = threading.Event(), threading.Event()
    reads: list[tuple[int, int]] = []
    topics = store.records.topics

    def held(battle: UUID, gt: int, lt: int) -> list[tuple[int, str]]:
        reads.append((gt, lt))
        if lt == before + 1:  # the earlier look's read ends last
            reading.set()
            release.wait(WAIT)
        return topics(battle, gt, lt)

    monkeypatch.setattr(store.records, "topics", held)
    said: list[Any] = []
    early = threading.Thread(target=lambda: said.append(door.said_at(battle, before)))
    early.start()
    assert reading.wait(WAIT), "the earlier look never read the store"
    assert door.said_at(battle, later) == [later]
    release.set()
    early.join(WAIT)
    assert said == [[]]
    read = len(reads)
    assert door.said_at(battle, later) == [later]
    assert len(reads) == read, "what the later look kept was lost to the earlier one's"
