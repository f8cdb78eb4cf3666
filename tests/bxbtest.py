"""Shared test helpers: every registered game system, its demo, recorded into a real store."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from blowbyblow.domain.core import BattleStarted, Context, RuleViolation
from blowbyblow.replay.battles.record import Recorded, record
from blowbyblow.replay.battles.whatif import what_if
from blowbyblow.replay.engine.formats import CURRENT_FORMAT
from blowbyblow.replay.engine.registry import game_systems, get_game_system
from blowbyblow.replay.engine.scenario import scenario_from_dict
from blowbyblow.replay.evidence.export import read_export
from blowbyblow.replay.odds.explore import HowToExplore, scenario_odds
from blowbyblow.replay.store.log import BattleStore

RULESET_IDS = sorted(game_systems())


def record_demo(store: BattleStore, ruleset_id: str) -> Recorded:
    return record(store, game_systems()[ruleset_id].demo(), quiet=True)


def first_action_only(folder: Path) -> Path:
    """The Necromunda 2023 example cut to its first action, which is legal whatever the dice: for
    tests that record with fresh dice (fair ones) and need every draw to play through. Its second
    action, Sera's charge, is refused when Nyx's reaction leaves Grax down (about 1 draw in 300)."""
    text = (
        Path(__file__).resolve().parents[1] / "cli" / "scenarios" / "necromunda-2023.toml"
    ).read_text(encoding="utf-8")
    first = text.index("[[actions]]")
    second = text.index("[[actions]]", first + 1)
    assert first < second
    path = folder / "first-action.toml"
    path.write_text(text[:second], encoding="utf-8")
    return path


def refused_whole(scenario: Any) -> RuleViolation:
    """Recording ``scenario`` is refused by the rules, and nothing at all is written."""
    store = BattleStore(":memory:")
    with pytest.raises(RuleViolation) as refused:
        record(store, scenario, quiet=True)
    assert store.battles() == [], "nothing written"
    return refused.value


def reads_as_recorded(export: Path, version: str, before: dict[str, str]) -> Any:
    """A battle an older ``version`` recorded and exported: it verifies byte for byte, it
    recorded none of the rulings added since (``before``: each with the value that gives the
    rules of ``version``), those values fill them in, and a what-if under them changes nothing.
    Returns its events, for a what-if under another reading."""
    read = read_export(export.read_bytes())
    assert read.report.ok, read.report.problem and read.report.problem.describe()
    started = read.events[0].event
    assert isinstance(started, BattleStarted)
    assert started.ruleset_version == version and not set(before) & set(started.rulings)
    in_force = get_game_system(started.ruleset).rulings_in_force(version, started.rulings)
    assert {name: in_force[name] for name in before} == before
    assert what_if(read.events, before).divergence is None
    return read.events


def diverges(events: Any, rulings: dict[str, str]) -> bool:
    """A what-if of ``events`` under ``rulings`` goes otherwise than the record."""
    changed = what_if(events, rulings)
    return changed.divergence is not None or bool(changed.stopped)


def modules_imported(db: Path, *args: str) -> set[str]:
    """Every module a ``bxb --db DB ARGS...`` process of its own had imported when it ended."""
    script = (
        "import sys, atexit\n"
        "def shown():\n"
        "    sys.__stderr__.write('LOADED ' + ' '.join(sorted(sys.modules)) + '\\n')\n"
        "atexit.register(shown)\n"
        f"sys.argv = ['bxb', '--db', {str(db)!r}, *{list(args)!r}]\n"
        "from blowbyblow.cli.main import main\n"
        "main()\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stderr.splitlines() if x.startswith("LOADED"))
    return set(line.split()[1:])


def tamper(
    db_path: str, battle: str, position: int, edit: Callable[[dict[str, Any]], None]
) -> None:
    """Edit one stored event in the SQLite file, as someone with the file in hand could:
    decode its envelope, change the event's plain data, write it back (hash left as it was)."""
    battle = battle.replace("-", "")  # eventsourcing's SQLite recorder keeps UUIDs as hex
    con = sqlite3.connect(db_path)
    try:
        (state,) = con.execute(
            "select state from stored_events where originator_id=? and originator_version=?",
            (battle, position),
        ).fetchone()
        envelope = msgspec.msgpack.decode(state)
        edit(envelope["event"])
        con.execute(
            "update stored_events set state=? where originator_id=? and originator_version=?",
            (_SORTED.encode(envelope), battle, position),
        )
        con.commit()
    finally:
        con.close()


_SORTED = msgspec.msgpack.Encoder(order="sorted")


def _newer_format(con: sqlite3.Connection, battle: str, position: int, envelope: Any) -> str:
    envelope["v"] = CURRENT_FORMAT + 1
    con.execute(
        "update stored_events set state=? where originator_id=? and originator_version=?",
        (_SORTED.encode(envelope), battle, position),
    )
    return f"record format {CURRENT_FORMAT + 1}"


def _newer_event_type(con: sqlite3.Connection, battle: str, position: int, envelope: Any) -> str:
    """The next record, chained after the last, of an event type no release of today has."""
    (topic,) = con.execute(
        "select topic from stored_events where originator_id=? and originator_version=?",
        (battle, position),
    ).fetchone()
    ruleset = topic.partition("/")[0]
    newer = {**envelope, "prev": envelope["hash"], "event": {"type": "BannerRaised"}}
    con.execute(
        "insert into stored_events (originator_id, originator_version, topic, state) "
        "values (?, ?, ?, ?)",
        (battle, position + 1, f"{ruleset}/BannerRaised", _SORTED.encode(newer)),
    )
    return "an event type this release lacks: BannerRaised"


def bxb_quietly(*args: str) -> tuple[int, str, str]:
    """``bxb`` run in-process, logging errors only: its exit code, standard output and error
    (no exception but its exit)."""
    from typer.testing import CliRunner

    from blowbyblow.cli.main import app

    result = CliRunner().invoke(app, ["--log-level", "error", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def demo_store_in(folder: Path) -> Path:
    """A SQLite store in ``folder`` holding the README's demo, as `bxb demo` records it."""
    path = folder / "demo.sqlite"
    code, _, err = bxb_quietly("--db", str(path), "demo")
    assert code == 0, err
    return path


def copy_store(db_path: Path, to: Path) -> None:
    """A copy of the SQLite store, its write-ahead log included."""
    source, copy = sqlite3.connect(db_path), sqlite3.connect(to)
    try:
        source.backup(copy)
    finally:
        source.close()
        copy.close()


NEWER = {"format": _newer_format, "event-type": _newer_event_type}


def written_by_a_newer_release(db_path: Path, kind: str) -> tuple[str, int, str]:
    """The SQLite store's last record made as a newer release writes it (``kind``: a record
    format above this release's, or an event type it lacks, chained after the last): the
    battle (hex), the last position this release reads, and what is too new."""
    con = sqlite3.connect(db_path)
    try:
        battle, position, state = con.execute(
            "select originator_id, originator_version, state from stored_events "
            "order by rowid desc limit 1"
        ).fetchone()
        what = NEWER[kind](con, battle, position, msgspec.msgpack.decode(state))
        con.commit()
    finally:
        con.close()
    return battle, position - 1, what


def quick_by_hand(setup: dict[str, Any], command: dict[str, Any], how: HowToExplore) -> Any:
    """The odds a Gangfight scenario file with this setup and this one action gives (what
    quick odds, with no file, must give too)."""
    data = {
        "ruleset": get_game_system("gangfight").id,
        "label": "quick odds",
        "rulings": dict(get_game_system("gangfight").demo().rulings),
        **setup,
        "actions": [command],
    }
    return scenario_odds(scenario_from_dict(data, "by hand"), 1, how)


def quick_demo_data() -> tuple[dict[str, Any], dict[str, Any]]:
    """Gangfight's demo setup and first command as plain JSON data."""
    demo = get_game_system("gangfight").demo()
    setup = msgspec.json.decode(msgspec.json.encode(demo.setup))
    return setup, msgspec.json.decode(msgspec.json.encode(demo.commands[0]))


def steps_to_first_roll(situation: Any, state: Any = None) -> list[bytes]:
    """A command's steps up to its first roll, as bytes: what its procedure yields, each rule
    step told the state it leads to (from ``state``, or the situation's)."""
    system = situation.system
    now = situation.state if state is None else state
    ctx = Context(rulings=dict(situation.rulings), command_index=situation.index)
    run = system.procedure(now, situation.command, ctx)
    steps = [next(run)]
    while type(steps[-1]).__name__ != "Roll":
        now = system.evolve(now, steps[-1])
        steps.append(run.send(now))
    return [msgspec.msgpack.encode(s) for s in steps]


def count_calls(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, real: Any) -> list[int]:
    """``module.name`` (the rules' ``real`` function) counting its calls: one 1 a call."""
    calls: list[int] = []

    def counted(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(module, name, counted)
    return calls


def store_content(db: Path) -> list[str]:
    """A SQLite store as SQL, read-only: what it holds, whatever of it still sits in the
    write-ahead log (its file's bytes change at a checkpoint, not at a write)."""
    con = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    try:
        return list(con.iterdump())
    finally:
        con.close()
