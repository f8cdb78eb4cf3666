"""Attacks 1 and 3 of the audit: a die relabelled ``physical`` with better values in a seeded or
fair battle, re-adjudicated and re-chained, passed verify and was sealed; a battle whose first
event was edited in place, or copied under another id, passed verify and import. Each forgery
below is complete (every later event re-adjudicated, every hash recomputed) and must now fail."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

import msgspec
import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.core import BattleStarted, BlowByBlowError, CommandIssued, DiceRolled, Event
from blowbyblow.replay.battles.record import Recorded, import_battle, record, seal_battle
from blowbyblow.replay.engine.dice import RecordedChoices, recorded_inputs
from blowbyblow.replay.engine.driver import Table
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import adjudicate_all
from blowbyblow.replay.evidence.export import ExportError, export_battle, read_export
from blowbyblow.replay.evidence.fairness import FairTerms
from blowbyblow.replay.evidence.seals import JudgingError, KeyFiles, load_private_key, new_keys
from blowbyblow.replay.evidence.verify import battle_id_of, verify_battle
from blowbyblow.replay.store.log import BattleStore, LoggedEvent, battle_id_for

from bxbtest import record_demo
from evidence_helpers import rewrite

runner = CliRunner()


class _Forging:
    """The dice a forger re-adjudicates with: the recorded ones, except the ``target``-th roll,
    which shows its best faces and is labelled as typed in from physical dice."""

    source = "physical"

    def __init__(self, recorded: dict[str, tuple[tuple[int, ...], str]], target: int) -> None:
        self.recorded = recorded
        self.target = target
        self.rolls = 0

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        self.rolls += 1
        found = self.recorded.get(key)
        if self.rolls == self.target or found is None or len(found[0]) != n:
            return (sides,) * n, "physical"
        return found


def _forge_a_die(events: list[LoggedEvent]) -> list[Event]:
    """Re-adjudicate the battle from its own first event and commands with one die relabelled
    physical and made better; the first such forgery the rules accept that changes the log."""
    started = events[0].event
    assert isinstance(started, BattleStarted)
    system = get_game_system(started.ruleset)
    commands = [e.event.command for e in events if isinstance(e.event, CommandIssued)]
    dice, choices = recorded_inputs(e.event for e in events)
    original = [e.event for e in events]
    for target in range(1, 40):
        table = Table(
            system=system,
            rulings=system.rulings_in_force(started.ruleset_version, started.rulings),
            dice=_Forging(dice, target),
            choices=RecordedChoices(choices),
            quiet=True,
        )
        try:
            batches, _ = adjudicate_all(table, started, commands)
        except BlowByBlowError:
            continue
        forged = [e for batch in batches for e in batch]
        if forged != original:
            return forged
    raise AssertionError("no die could be forged")


def _relabelled(forged: list[Event]) -> list[DiceRolled]:
    return [e for e in forged if isinstance(e, DiceRolled) and e.source == "physical"]


def _fair_battle(store: BattleStore, keys: KeyFiles) -> Recorded:
    system = get_game_system("necromunda-2023")
    demo = system.demo()
    sides = system.view(system.initial_state(demo.setup)).sides
    for n in range(100):  # players' values under which the demo's commands all stay legal
        terms = FairTerms(
            judge_keys=[keys.escrow.read_text()],
            ask=lambda fair, n=n: {side: f"{side} {n}" for side in sides},  # type: ignore[misc]
        )
        try:
            return record(
                store, msgspec.structs.replace(demo, label=f"fair {n}"), quiet=True, fair=terms
            )
        except BlowByBlowError:
            continue
    raise AssertionError("no fair seed plays the demo through")


def test_a_seeded_battle_with_a_die_relabelled_physical_fails_verify_seal_and_import(
    tmp_path: Path,
) -> None:
    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    rec = record_demo(store, "necromunda-2023")
    forged = _forge_a_die(rec.events)
    assert _relabelled(forged), "the forgery relabels a die"
    rewrite(db, rec.battle, forged, [e.recorded_at for e in rec.events[:1]] * len(forged))

    report = verify_battle(BattleStore(db), rec.battle)
    assert report.problem is not None and report.problem.kind == "dice", report.problem
    assert "labelled 'physical'" in report.problem.message
    assert "seeded battle" in report.problem.message

    key = load_private_key(new_keys(tmp_path / "keys")[0])
    with pytest.raises(JudgingError, match="fails verification"):
        seal_battle(BattleStore(db), rec.battle, key)

    exported = export_battle(BattleStore(db), rec.battle)
    assert not read_export(exported).report.ok
    with pytest.raises(ExportError, match="labelled 'physical'"):
        import_battle(BattleStore(tmp_path / "other.sqlite"), exported)


def test_a_fair_battle_with_a_die_relabelled_physical_fails_before_and_after_the_seal(
    tmp_path: Path,
) -> None:
    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    keys = new_keys(tmp_path / "keys")
    rec = _fair_battle(store, keys)
    forged = _forge_a_die(rec.events)
    assert _relabelled(forged)
    rewrite(db, rec.battle, forged, [""] * len(forged))
    # Before the seal the seed is secret, so no digital die can be recomputed; the label alone
    # already gives the forgery away.
    report = verify_battle(BattleStore(db), rec.battle)
    assert report.problem is not None and report.problem.kind == "dice", report.problem
    assert "fair battle" in report.problem.message
    key = load_private_key(keys.private)
    with pytest.raises(JudgingError, match="fails verification"):
        seal_battle(BattleStore(db), rec.battle, key)


def test_a_physical_battle_has_only_physical_dice(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    store = BattleStore(db)
    rec = record_demo(store, "wh40k-2e")
    first = rec.events[0].event
    assert isinstance(first, BattleStarted) and first.dice.mode == "physical"
    assert verify_battle(store, rec.battle).ok
    events = [e.event for e in rec.events]
    k = next(i for i, e in enumerate(events) if isinstance(e, DiceRolled))
    die = events[k]
    assert isinstance(die, DiceRolled)
    events[k] = msgspec.structs.replace(die, source="seeded")  # a claim nobody can check
    rewrite(db, rec.battle, events, [e.recorded_at for e in rec.events])
    report = verify_battle(BattleStore(db), rec.battle)
    assert report.problem is not None and report.problem.kind == "dice", report.problem
    assert report.problem.position == k + 1


def _edit_rulings(started: BattleStarted[Any]) -> BattleStarted[Any]:
    system = get_game_system(started.ruleset)
    for ruling in system.rulings:
        for value in ruling.choices:
            if value != started.rulings[ruling.name]:
                return msgspec.structs.replace(
                    started, rulings={**started.rulings, ruling.name: value}
                )
    raise AssertionError("the system has no ruling to change")


def test_a_battle_whose_first_event_was_edited_in_place_fails_verify(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    rec = record_demo(BattleStore(db), "necromunda-2023")
    started = rec.events[0].event
    assert isinstance(started, BattleStarted)
    events = [_edit_rulings(started), *(e.event for e in rec.events[1:])]
    rewrite(db, rec.battle, events, [e.recorded_at for e in rec.events])
    report = verify_battle(BattleStore(db), rec.battle)
    assert report.problem is not None and report.problem.kind == "identity", report.problem
    assert report.problem.position == 1


def test_a_copy_under_another_id_fails_verify_and_import(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    rec = record_demo(BattleStore(db), "necromunda-2023")
    other = UUID("00000000-0000-5000-8000-000000000001")
    rewrite(
        db,
        rec.battle,
        [e.event for e in rec.events],
        [e.recorded_at for e in rec.events],
        as_battle=other,
    )
    store = BattleStore(db)
    report = verify_battle(store, other)
    assert report.problem is not None and report.problem.kind == "identity", report.problem
    exported = tmp_path / "copy.jsonl"
    exported.write_bytes(export_battle(store, other))
    empty = tmp_path / "empty.sqlite"
    result = runner.invoke(
        app, ["--db", str(empty), "--log-level", "warning", "import", str(exported)]
    )
    assert result.exit_code == 1 and "first event names battle" in result.output, result.output
    assert BattleStore(empty).battles() == []
    result = runner.invoke(app, ["--db", str(empty), "verify", "--file", str(exported)])
    assert result.exit_code == 1 and "identity" not in result.output
    assert "first event names battle" in result.output


@pytest.mark.parametrize(
    "fixture", sorted((Path(__file__).parents[1] / "fixtures").glob("*.jsonl"))
)
def test_the_ids_of_older_formats_are_their_first_events_stored_bytes(fixture: Path) -> None:
    """Records upcast from older formats keep their ids: the id is the hash of the first
    event's bytes as stored, not of the event as upcast today."""
    read = read_export(fixture.read_bytes())
    assert read.report.ok, read.report.problem
    assert battle_id_of(read.events[0]) == read.battle
    if read.events[0].format < 3:  # today's encoding of the upcast event names another battle
        first = read.events[0].event
        assert isinstance(first, BattleStarted)
        if first.ruleset in ("asl", "wh40k-2e", "gangfight"):
            assert battle_id_for(first) != read.battle
