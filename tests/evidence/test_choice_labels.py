"""Issue 26, hole 7: a choice's label is checked as a die's is. A forger who changes a choice the
rules made by default (a reaction declined that was taken, a weapon swapped), re-adjudicates and
re-chains the log, must not pass verify by keeping the label ``default``; nor may a choice carry a
label no choice source makes."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from blowbyblow.domain.core import (
    BattleStarted,
    BlowByBlowError,
    ChoiceMade,
    CommandIssued,
    Event,
)
from blowbyblow.replay.engine.dice import RecordedChoices, RecordedDice, recorded_inputs
from blowbyblow.replay.engine.driver import Table
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import adjudicate_all
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore, LoggedEvent

from bxbtest import record_demo
from evidence_helpers import rewrite


def _readjudicated(
    events: list[LoggedEvent], choices: dict[str, tuple[str, str]]
) -> list[Event] | None:
    """The battle re-adjudicated from its own dice with ``choices``: the log a forger writes."""
    started = events[0].event
    assert isinstance(started, BattleStarted)
    system = get_game_system(started.ruleset)
    dice, _ = recorded_inputs(e.event for e in events)
    table = Table(
        system=system,
        rulings=system.rulings_in_force(started.ruleset_version, started.rulings),
        dice=RecordedDice(dice),
        choices=RecordedChoices(choices),
        quiet=True,
    )
    commands = [e.event.command for e in events if isinstance(e.event, CommandIssued)]
    try:
        batches, _ = adjudicate_all(table, started, commands)
    except BlowByBlowError:
        return None
    return [e for batch in batches for e in batch]


def _a_default_choice_changed(events: list[LoggedEvent]) -> tuple[list[Event], ChoiceMade]:
    """The first default choice answered otherwise, still labelled ``default``, that the rules
    accept all the way through (a forger tries until one does)."""
    _, recorded = recorded_inputs(e.event for e in events)
    for logged in events:
        made = logged.event
        if not isinstance(made, ChoiceMade) or made.source != "default":
            continue
        for other in made.options:
            if other == made.answer:
                continue
            forged = _readjudicated(events, {**recorded, made.key: (other, "default")})
            if forged is not None:
                return forged, made
    raise AssertionError("no default choice could be changed")


@pytest.mark.parametrize("system", ["necromunda-2023", "wh40k-2e"])
def test_a_default_choice_answered_otherwise_fails_verify(tmp_path: Path, system: str) -> None:
    db = tmp_path / "b.sqlite"
    rec = record_demo(BattleStore(db), system)
    assert verify_battle(BattleStore(db), rec.battle).ok
    forged, made = _a_default_choice_changed(rec.events)
    changed = next(e for e in forged if isinstance(e, ChoiceMade) and e.key == made.key)
    assert changed.answer != made.answer and changed.source == "default"
    rewrite(db, rec.battle, forged, [e.recorded_at for e in rec.events[:1]] * len(forged))

    report = verify_battle(BattleStore(db), rec.battle)
    assert report.problem is not None and report.problem.kind == "choice", report.problem
    assert f"choice {made.key} is labelled 'default'" in report.problem.message
    assert report.problem.position == forged.index(changed) + 1


@pytest.mark.parametrize("label", ["physical", "seeded", "judge", ""])
def test_a_choice_with_a_label_no_source_makes_fails_verify(tmp_path: Path, label: str) -> None:
    db = tmp_path / "b.sqlite"
    rec = record_demo(BattleStore(db), "necromunda-2023")
    events = [e.event for e in rec.events]
    k = next(i for i, e in enumerate(events) if isinstance(e, ChoiceMade))
    made = events[k]
    assert isinstance(made, ChoiceMade)
    events[k] = msgspec.structs.replace(made, source=label)
    rewrite(db, rec.battle, events, [e.recorded_at for e in rec.events])

    report = verify_battle(BattleStore(db), rec.battle)
    assert report.problem is not None and report.problem.kind == "choice", report.problem
    assert report.problem.position == k + 1
    assert f"labelled {label!r}" in report.problem.message


def test_every_label_the_choice_sources_make_verifies(tmp_path: Path) -> None:
    """The same choices labelled scripted or interactive (a scenario's answers, a prompt) are
    what the table's sources make: they verify."""
    db = tmp_path / "b.sqlite"
    rec = record_demo(BattleStore(db), "necromunda-2023")
    for label in ("scripted", "interactive"):
        events = [
            msgspec.structs.replace(e.event, source=label)
            if isinstance(e.event, ChoiceMade)
            else e.event
            for e in rec.events
        ]
        rewrite(db, rec.battle, events, [e.recorded_at for e in rec.events])
        assert verify_battle(BattleStore(db), rec.battle).ok, label
