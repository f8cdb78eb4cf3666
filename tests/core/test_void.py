"""Corrections without rewriting history: ``CommandVoided``, ``void_command``, and every read-back
(the fold, ``bxb at``, verify, export and import, what-if, diff, ``bxb log``, ``bxb battles``)
treating a voided command as not played."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from uuid import UUID

import msgspec
import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.core import CommandIssued, CommandVoided, DiceRolled, Event
from blowbyblow.projections.battle import fold_battle, standing, voided_commands
from blowbyblow.replay.battles.battle import Battle
from blowbyblow.replay.battles.record import (
    VoidRefused,
    import_battle,
    record,
    seal_battle,
    void_command,
)
from blowbyblow.replay.battles.whatif import what_if
from blowbyblow.replay.engine.codec import encode
from blowbyblow.replay.engine.dice import RecordedChoices, RecordedDice, SeededDice, recorded_inputs
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.evidence.export import export_battle
from blowbyblow.replay.evidence.seals import new_keys
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore, StaleVersion

from bxbtest import RULESET_IDS, record_demo

runner = CliRunner()
SEEDED = "necromunda-2023"  # its demo rolls seeded dice


def bxb(db: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--db", str(db), "--log-level", "warning", *args])
    return result.exit_code, result.output


def plain(store: BattleStore, battle: UUID) -> list[Event]:
    return [e.event for e in store.read(battle)]


def issued(events: list[Event]) -> list[CommandIssued[Any]]:
    return [e for e in events if isinstance(e, CommandIssued)]


def replay_last_voided(store: BattleStore, battle: UUID) -> None:
    """Play the last voided command again, answering from its own recorded dice and choices."""
    events = plain(store, battle)
    void = voided_commands(events)[-1]
    part = events[void.first - 1 : void.last]
    first = part[0]
    assert isinstance(first, CommandIssued)
    dice, choices = recorded_inputs(part)
    Battle(store).play(
        battle, first.command, dice=RecordedDice(dice), choices=RecordedChoices(choices)
    )


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_voided_command_is_not_played_and_can_be_played_again(
    tmp_path: Path, ruleset_id: str
) -> None:
    store = BattleStore(tmp_path / "b.sqlite")
    rec = record_demo(store, ruleset_id)
    system = get_game_system(ruleset_id)
    events = plain(store, rec.battle)
    last = issued(events)[-1]
    before_last = events[: events.index(last)]
    logged = void_command(store, rec.battle, command=last.index, by="judge", reason="die typo")
    assert isinstance(logged.event, CommandVoided)
    assert (logged.event.index, logged.event.position) == (last.index, events.index(last) + 1)
    after = plain(store, rec.battle)
    assert len(after) == len(events) + 1, "nothing deleted, one event added"
    assert encode(fold_battle(system, after)) == encode(fold_battle(system, before_last))
    assert Battle(store).read(rec.battle).commands == last.index - 1, (
        "the next command takes the voided one's number"
    )

    replay_last_voided(store, rec.battle)
    again = plain(store, rec.battle)
    assert [c.index for c in issued([e for _, e in standing(again)])] == [
        c.index for c in issued(events)
    ]
    assert encode(fold_battle(system, again)) == encode(rec.state)
    report = verify_battle(store, rec.battle)
    assert report.ok, report.problem and report.problem.describe()
    assert (report.voided, report.commands) == (1, len(issued(events)) + 1)


def test_voiding_a_seeded_command_is_no_reroll(tmp_path: Path) -> None:
    """With digital dice, the command played again after a void gets the same dice for the same
    rolls: its number (and so every roll's key) is the voided one's."""
    store = BattleStore(tmp_path / "b.sqlite")
    rec = record_demo(store, SEEDED)
    events = plain(store, rec.battle)
    last = issued(events)[-1]
    void_command(store, rec.battle, command=last.index, by="p1", reason="misapplied")
    seed = rec.events[0].event.dice.seed  # type: ignore[attr-defined]
    Battle(store).play(rec.battle, last.command, dice=SeededDice(seed), choices=RecordedChoices({}))
    dice = [e for e in plain(store, rec.battle) if isinstance(e, DiceRolled)]
    first_time = [(e.key, e.values) for e in dice if e.key.startswith(f"c{last.index}/")]
    half = len(first_time) // 2
    assert first_time[:half] == first_time[half:] and half


def test_only_the_last_standing_command_may_be_voided_and_nothing_is_written_otherwise(
    tmp_path: Path,
) -> None:
    store = BattleStore(tmp_path / "b.sqlite")
    rec = record_demo(store, "gangfight")  # seven commands
    version = store.version(rec.battle)
    with pytest.raises(VoidRefused, match=r"command 3 cannot be voided.*void 7, 6, 5, 4 first"):
        void_command(store, rec.battle, command=3, by="judge", reason="wrong")
    with pytest.raises(VoidRefused, match="no command 9"):
        void_command(store, rec.battle, command=9, by="judge", reason="wrong")
    with pytest.raises(VoidRefused, match="who"):
        void_command(store, rec.battle, command=7, by=" ", reason="wrong")
    with pytest.raises(VoidRefused, match="why"):
        void_command(store, rec.battle, command=7, by="judge", reason="")
    assert store.version(rec.battle) == version
    for n in (7, 6, 5):  # newest first: each is the last standing in its turn
        void_command(store, rec.battle, command=n, by="judge", reason=f"undo {n}")
    assert Battle(store).read(rec.battle).commands == 4
    with pytest.raises(VoidRefused, match="no command 5"):
        void_command(store, rec.battle, command=5, by="judge", reason="again")
    assert verify_battle(store, rec.battle).ok


def test_a_sealed_battle_cannot_be_voided_and_a_stale_session_cannot_void(tmp_path: Path) -> None:
    store = BattleStore(tmp_path / "b.sqlite")
    rec = record_demo(store, "asl")
    last = sum(isinstance(e.event, CommandIssued) for e in rec.events)
    stale = Battle(store).read(rec.battle)
    Battle(store).void(rec.battle, last, by="a", reason="typo")
    with pytest.raises(StaleVersion):
        Battle(store).void(rec.battle, last, by="b", reason="typo too", version=stale.version)
    replay_last_voided(store, rec.battle)
    private = new_keys(tmp_path / "keys").private
    from blowbyblow.replay.evidence.seals import load_private_key

    seal_battle(store, rec.battle, load_private_key(private))
    with pytest.raises(VoidRefused, match="sealed"):
        void_command(store, rec.battle, command=last, by="a", reason="after the seal")


def test_verify_checks_what_a_void_names_and_what_was_voided(tmp_path: Path) -> None:
    store = BattleStore(tmp_path / "b.sqlite")
    rec = record_demo(store, "gangfight")
    events = plain(store, rec.battle)
    third = issued(events)[2]
    # a void forged past the rule (naming command 3 while 4 to 7 stand) is caught
    forged = CommandVoided(index=3, position=events.index(third) + 1, by="x", reason="y")
    store.append(rec.battle, "gangfight", len(events), [forged])
    report = verify_battle(store, rec.battle)
    assert not report.ok and report.problem is not None
    assert report.problem.kind == "void" and "only the last command" in report.problem.message

    # a voided command is re-adjudicated as it was played: a forged one is caught even so
    other = BattleStore(tmp_path / "c.sqlite")
    rec = record_demo(other, "gangfight")
    events = plain(other, rec.battle)
    last = issued(events)[-1]
    part = events[events.index(last) :]
    first_roll = next(i for i, e in enumerate(part) if isinstance(e, DiceRolled))
    roll = part[first_roll]
    assert isinstance(roll, DiceRolled)
    other_faces = tuple(roll.sides + 1 - v if v * 2 != roll.sides + 1 else 1 for v in roll.values)
    assert other_faces != roll.values
    # its rule steps kept, one of its dice changed: those steps do not follow from these dice
    forged_events = [*part[:first_roll], msgspec.structs.replace(roll, values=other_faces)]
    forged_events += part[first_roll + 1 :]
    void_command(other, rec.battle, command=last.index, by="j", reason="r")
    version = other.version(rec.battle)
    other.append(rec.battle, "gangfight", version, forged_events)
    void_command(other, rec.battle, command=last.index, by="j", reason="r again")
    report = verify_battle(other, rec.battle)
    assert not report.ok and report.problem is not None
    assert report.problem.kind == "differs", report.problem.describe()


def test_export_import_whatif_and_fold_leave_the_voided_command_out(tmp_path: Path) -> None:
    store = BattleStore(tmp_path / "b.sqlite")
    rec = record_demo(store, SEEDED)
    system = get_game_system(SEEDED)
    last = issued(plain(store, rec.battle))[-1]
    void_command(store, rec.battle, command=last.index, by="j", reason="misapplied")
    events = plain(store, rec.battle)
    exported = export_battle(store, rec.battle)
    elsewhere = BattleStore(tmp_path / "other.sqlite")
    read = import_battle(elsewhere, exported)
    assert read.report.ok and read.report.voided == 1
    assert export_battle(elsewhere, rec.battle) == exported
    there = plain(elsewhere, rec.battle)
    assert encode(fold_battle(system, there)) == encode(fold_battle(system, events))
    wi = what_if(store.read(rec.battle), {})
    assert wi.divergence is None and not wi.stopped
    assert [encode(e) for e in wi.original] == [encode(e) for _, e in standing(events)]
    assert issued(wi.alternative)[-1].index == last.index - 1
    assert wi.log_position(len(wi.original)) < len(events)


def test_log_at_battles_void_and_diff_on_the_command_line(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    code, _ = bxb(db, "demo", "--ruleset", SEEDED)
    assert code == 0
    code, out = bxb(db, "void", "1", "--reason", "too early")
    assert code == 1 and "command 1 cannot be voided while later commands stand" in out
    code, out = bxb(db, "void", "2", "--reason", "wrong target", "--by", "judge")
    assert code == 0 and "Command 2" in out and "voided by judge: wrong target" in out
    store = BattleStore(db)
    [info] = store.battles()
    events = plain(store, info.battle)
    [void] = voided_commands(events)

    code, out = bxb(db, "log")
    lines = out.splitlines()
    struck = [line for line in lines if "[voided]" in line]
    assert len(struck) == void.last - void.first + 1  # not a terminal: a plain mark
    first = lines.index(struck[0])  # the first voided event, with its wrapped lines
    entry = " ".join(" ".join(lines[first : first + 3]).split())
    assert "(voided at" in entry and "wrong target" in entry
    code, out = bxb(db, "log", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["position"] for r in rows if "voided_at" in r] == list(
        range(void.first, void.last + 1)
    )

    code, out = bxb(db, "at", str(void.last))
    assert code == 0 and "it is not played" in " ".join(out.split())  # (wrapped at 80)
    code, inside = bxb(db, "at", str(void.last), "--json")
    code, before = bxb(db, "at", str(void.first - 1), "--json")
    assert json.loads(inside)["state"] == json.loads(before)["state"]
    assert json.loads(inside)["voided"] is True

    code, out = bxb(db, "battles", "--json")
    row = json.loads(out)
    assert (row["status"], row["commands"], row["voided"]) == ("started", 1, 1)
    code, out = bxb(db, "battles", "--json", "--abandoned-after", "0")
    assert json.loads(out)["status"] == "abandoned"
    code, out = bxb(db, "battles")
    assert "started" in out and "1 voided" in out

    code, out = bxb(db, "diff", str(info.battle), str(info.battle))
    assert code == 0 and "play: identical" in out and "voided commands" in out
    code, out = bxb(db, "verify")
    assert code == 0 and "1 voided command(s)" in out


def test_a_sealed_battle_shows_as_sealed(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    bxb(db, "demo", "--ruleset", "asl")
    code, out = bxb(db, "keys", "new", "--dir", str(tmp_path / "k"))
    assert code == 0
    code, out = bxb(db, "seal", "--key", str(tmp_path / "k" / "judge.key"))
    assert code == 0, out
    code, out = bxb(db, "battles", "--json")
    assert json.loads(out)["status"] == "sealed"


def test_a_battle_with_no_command_yet_is_started(tmp_path: Path) -> None:
    from blowbyblow.replay.engine.dice import ListedDice
    from blowbyblow.replay.engine.scenario import load_scenario

    setup = Path(__file__).resolve().parents[2] / "cli" / "scenarios" / "asl.toml"
    scenario = load_scenario(setup)
    scenario = type(scenario)(
        ruleset=scenario.ruleset, label="empty", setup=scenario.setup, commands=[]
    )
    db = tmp_path / "b.sqlite"
    record(BattleStore(db), scenario, dice=ListedDice([]), quiet=True)
    code, out = bxb(db, "battles", "--json")
    row = json.loads(out)
    assert code == 0 and (row["status"], row["commands"], row["events"]) == ("started", 0, 1)
