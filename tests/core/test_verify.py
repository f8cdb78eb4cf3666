"""Verification passes on what the rules produced and fails, naming the event, on any edit of a
stored die, modifier or outcome — by the hash chain, and by re-adjudication even when the chain
is forged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from blowbyblow.domain.core import BlowByBlowError, DiceRolled, RuleEvent
from blowbyblow.replay.battles.record import record
from blowbyblow.replay.engine.codec import codec_for, to_builtins
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.evidence.verify import verify_battle, verify_events
from blowbyblow.replay.store.log import BattleStore, LoggedEvent, chain

from bxbtest import RULESET_IDS, record_demo, tamper


def int_leaves(obj: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths to every int (not bool) in an event's plain data."""
    if isinstance(obj, dict):
        return [p for k, v in obj.items() for p in int_leaves(v, (*path, k))]
    if isinstance(obj, list):
        return [p for i, v in enumerate(obj) for p in int_leaves(v, (*path, i))]
    if isinstance(obj, int) and not isinstance(obj, bool):
        return [path]
    return []


def bump(data: dict[str, Any], path: tuple[Any, ...]) -> None:
    target: Any = data
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] += 1


def modifier_or_outcome(events: list[LoggedEvent]) -> tuple[LoggedEvent, tuple[Any, ...]]:
    """A rule step's number: a modifier's value where there is one, else any int it records."""
    for logged in events:
        if isinstance(logged.event, RuleEvent):
            for path in int_leaves(to_builtins(logged.event)):
                if "value" in path or "modifiers" in path:
                    return logged, path
    for logged in events:
        if isinstance(logged.event, RuleEvent):
            paths = int_leaves(to_builtins(logged.event))
            if paths:
                return logged, paths[0]
    raise AssertionError("no rule step records a number")


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_demo_verifies(ruleset_id: str) -> None:
    store = BattleStore(":memory:")
    rec = record_demo(store, ruleset_id)
    report = verify_battle(store, rec.battle)
    assert report.ok, report.problem
    assert report.commands == len(rec.ruleset.demo().commands)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
@pytest.mark.parametrize("what", ["die", "modifier-or-outcome"])
def test_an_edit_in_the_database_file_is_caught_and_named(
    tmp_path: Path, ruleset_id: str, what: str
) -> None:
    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    rec = record_demo(store, ruleset_id)
    if what == "die":
        target = next(e for e in rec.events if isinstance(e.event, DiceRolled))
        path: tuple[Any, ...] = ("values", 0)
        tamper(
            str(db),
            str(rec.battle),
            target.position,
            lambda ev: ev["values"].__setitem__(0, ev["values"][0] % ev["sides"] + 1),
        )
    else:
        target, path = modifier_or_outcome(rec.events)
        tamper(str(db), str(rec.battle), target.position, lambda ev: bump(ev, path))
    report = verify_battle(BattleStore(db), rec.battle)
    assert not report.ok
    assert report.problem is not None and report.problem.position == target.position, report.problem


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_forged_chain_is_still_caught_by_re_adjudication(ruleset_id: str) -> None:
    """Someone edits an outcome and recomputes every hash after it: the chain holds, the rules
    do not."""
    store = BattleStore(":memory:")
    rec = record_demo(store, ruleset_id)
    target, path = modifier_or_outcome(rec.events)
    plain = to_builtins(target.event)
    bump(plain, path)
    forged_event = codec_for(ruleset_id).from_builtins(plain)
    events = [e.event for e in rec.events]
    events[target.position - 1] = forged_event
    forged = chain(rec.battle, ruleset_id, None, events, [""] * len(events))
    report = verify_events(rec.battle, forged)
    assert report.problem is not None
    assert report.problem.position == target.position
    assert report.problem.kind == "differs"
    assert report.problem.rule


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_forged_seeded_die_is_caught_against_the_seed(ruleset_id: str) -> None:
    store = BattleStore(":memory:")
    demo = record_demo(store, ruleset_id).ruleset.demo()
    rec = None
    for n in range(100):  # a seed under which the demo's commands are all still legal
        try:
            rec = record(
                store, msgspec.structs.replace(demo, seed=f"forgery-{n}", dice=None), quiet=True
            )
            break
        except BlowByBlowError:
            continue
    assert rec is not None
    target = next(e for e in rec.events if isinstance(e.event, DiceRolled))
    die = target.event
    assert isinstance(die, DiceRolled) and die.source == "seeded"
    changed = msgspec.structs.replace(die, values=tuple(v % die.sides + 1 for v in die.values))
    events = [e.event for e in rec.events]
    events[target.position - 1] = changed
    forged = chain(rec.battle, ruleset_id, None, events, [""] * len(events))
    report = verify_events(rec.battle, forged)
    assert report.problem is not None and report.problem.kind == "dice"
    assert report.problem.position == target.position


def test_a_battle_started_with_no_command_yet_verifies() -> None:
    """Live play starts a battle before its first command: the log is its BattleStarted only."""
    store = BattleStore(":memory:")
    demo = get_game_system("necromunda-2023").demo()
    battle = record(store, msgspec.structs.replace(demo, commands=[]), quiet=True).battle
    report = verify_battle(store, battle)
    assert report.ok, report.problem and report.problem.describe()
    assert (report.events, report.commands) == (1, 0)
