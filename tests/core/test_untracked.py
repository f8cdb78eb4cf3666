"""A battle's log as read is not walked by the garbage collector (issue 25).

The server keeps up to 2,048 battles at their head, each with its whole log in memory
(``replay/battles/head.py``). Every full collection walked every one of those events, their
commands and their dice: at 512 tables of 300 events each, about 290,000 objects and 140 ms of
one core, during which no request moves. Events, commands, the values they carry and the
commands on offer are frozen
and can take no part in a reference cycle, so they are kept out of the collector's walk
(msgspec's ``gc=False``): this checks it for every game system's demo, as read from a store."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from blowbyblow.domain.core import BattleStarted
from blowbyblow.replay.store.log import BattleStore

from bxbtest import RULESET_IDS, record_demo


def structs(value: object) -> Iterator[msgspec.Struct]:
    """Every msgspec Struct in ``value``, itself and within its fields, tuples, lists, dicts."""
    if isinstance(value, BattleStarted):
        yield value
    elif isinstance(value, msgspec.Struct):
        yield value
        for name in value.__struct_fields__:
            yield from structs(getattr(value, name))
    elif isinstance(value, tuple | list):
        for item in value:
            yield from structs(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from structs(item)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_logs_events_are_not_walked_by_the_collector(tmp_path: Path, ruleset_id: str) -> None:
    db = tmp_path / "log.sqlite"
    recorded = record_demo(BattleStore(db), ruleset_id)
    logged = BattleStore(db).read(recorded.battle)  # decoded afresh, as a server reads
    assert len(logged) > 5
    # A battle's setup (its forces, within its first event) may stay tracked: one a battle.
    walked = [e.event if isinstance(e.event, BattleStarted) else e for e in logged]
    tracked = {type(s).__name__ for e in walked for s in structs(e) if gc.is_tracked(s)}
    assert not tracked
    assert not any(gc.is_tracked(e) for e in logged)
    # ... nor the commands on offer, which the server keeps with each battle's head
    started = logged[0].event
    assert isinstance(started, BattleStarted)
    offered = recorded.ruleset.legal_commands(recorded.state, started.rulings)
    assert offered and not any(gc.is_tracked(o) for o in offered)
