"""``bxb flag``, ``rule``, ``note``, ``fork`` and ``at --command`` on a recorded battle: who may do
what (a flag needs no key; a ruling, a note and a fork need the judge's key), what ``bxb log``
shows, and that both battles verify after a fork."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.core import CommandIssued, DiceRolled
from blowbyblow.domain.judging import BattleForked, CommandFlagged, NoteAdded, RulingGiven
from blowbyblow.projections.battle import fold_battle
from blowbyblow.projections.disputes import commands_played
from blowbyblow.replay.engine.codec import encode, to_builtins
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.store.log import BattleStore

from bxbtest import record_demo


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "b.sqlite"


def bxb(db: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["--db", str(db), "--log-level", "warning", *args])
    return result.exit_code, result.output


def test_flag_rule_note_fork_and_step_by_command(env: Path) -> None:
    store = BattleStore(env)
    battle = record_demo(store, "gangfight").battle  # seven commands, seeded dice
    bid = str(battle)
    code, out = bxb(env, "flag", "3", "--reason", "out of range", "--by", "ogres", "--battle", bid)
    assert code == 0, out
    # Only whoever holds the judge's key rules, notes and forks.
    code, out = bxb(env, "rule", "3", "--reason", "in range", "--battle", bid)
    assert code == 1 and "judge.key" in out, out
    assert bxb(env, "keys", "new")[0] == 0
    code, out = bxb(env, "rule", "3", "--reason", "in range", "--battle", bid, "--judge", "Ana")
    assert code == 0, out
    code, out = bxb(env, "note", "2", "measured twice", "--battle", bid, "--judge", "Ana")
    assert code == 0, out
    kinds = [type(e.event) for e in store.read(battle)[-3:]]
    assert kinds == [CommandFlagged, RulingGiven, NoteAdded]
    code, out = bxb(env, "log", bid)
    assert "FLAG: command 3" in out and "RULING by Ana on command 3" in out
    assert "NOTE by Ana on position 2: measured twice" in out

    # Step by command: the state after command 3 is the state after its last event.
    events = [e.event for e in store.read(battle)]
    third = commands_played(events)[2]
    code, out = bxb(env, "at", "--command", "3", bid, "--json")
    assert code == 0, out
    system = get_game_system("gangfight")
    expected = json.loads(json.dumps(to_builtins(fold_battle(system, events, third.last))))
    assert json.loads(out)["position"] == third.last and json.loads(out)["state"] == expected
    code, out = bxb(env, "at", "--command", "9", bid)
    assert code == 2 and "--command: expected 0 to 7" in out

    # A fork with a corrected die of the first command after the third that rolls one.
    disputed = next(
        c for c in commands_played(events)[3:] if any(isinstance(e, DiceRolled) for e in c.events)
    )
    die = next(e for e in disputed.events if isinstance(e, DiceRolled))
    face = die.values[0] % die.sides + 1
    values = ",".join(map(str, (face, *die.values[1:])))
    before = str(disputed.index)
    args = ["fork", "--battle", bid, "--before", before, "--die", f"{die.key}={values}"]
    code, out = bxb(env, *args, "--reason", "the die showed another face", "--judge", "Ana")
    assert code == 0, out
    assert f"battle {bid} is superseded by battle" in " ".join(out.split())
    code, out = bxb(env, "verify")
    assert code == 0, out
    assert "link holds" in out
    child = next(b.battle for b in store.battles() if b.battle != battle)
    child_events = [e.event for e in store.read(child)]
    assert isinstance(child_events[1], BattleForked)
    kept = commands_played(child_events)[: disputed.index - 1]
    assert [encode(e) for c in kept for e in c.events] == [
        encode(e) for c in commands_played(events)[: disputed.index - 1] for e in c.events
    ]
    # Compared as played, parent and child part at the corrected die (the child's link and the
    # parent's flag, ruling and note are not play).
    code, out = bxb(env, "diff", bid, str(child))
    words = " ".join(out.split())
    assert code == 1 and "label: " in words, out
    parent_at = next(e.position for e in store.read(battle) if e.event == die)
    child_at = next(
        e.position
        for e in store.read(child)
        if isinstance(e.event, DiceRolled) and e.event.key == die.key
    )
    assert f"first divergence at position {parent_at} of A, {child_at} of B" in words, out
    # The parent is superseded: no more flags there.
    code, out = bxb(env, "flag", "1", "--reason", "again", "--battle", bid)
    assert code == 1 and "superseded" in out
    assert sum(isinstance(e, CommandIssued) for e in child_events) >= 3


def test_fork_options_are_checked_before_anything_is_written(env: Path) -> None:
    store = BattleStore(env)
    battle = record_demo(store, "gangfight").battle
    bid = str(battle)
    assert bxb(env, "keys", "new")[0] == 0
    version = store.version(battle)
    for args, message in (
        (["--die", "c4/x=1", "--void", "4", "--before", "4"], "give one change"),
        (["--die", "c4/x", "--before", "4"], "--die: expected KEY=VALUES"),
        (["--die", "c4/x=1"], "--at POSITION or --before COMMAND"),
        (["--before", "99"], "--before: expected a command that stands"),
        (["--void", "1", "--before", "4"], "void: expected a command after position"),
        (["--ruling", "nonsense=1", "--before", "4"], "ruling: expected one of"),
    ):
        code, out = bxb(env, "fork", "--battle", bid, "--reason", "r", *args)
        assert code in (1, 2) and message in " ".join(out.split()), (args, out)
    assert store.version(battle) == version and len(store.battles()) == 1
