"""The recorded bytes of every demo do not change when the code is reorganised.

``tests/fixtures/ID-format2.jsonl`` are exports of each game system's demo as format 2 recorded
them. Re-recording the demo today must give, position by position, the bytes the format-2 record
upcasts to; and the format-2 record itself still imports and verifies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from blowbyblow.domain.core import BattleStarted
from blowbyblow.replay.engine.codec import encode, to_builtins
from blowbyblow.replay.engine.formats import CURRENT_FORMAT, upcast
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play
from blowbyblow.replay.evidence.export import read_export

from bxbtest import RULESET_IDS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _comparable(event: dict[str, Any]) -> bytes:
    # BattleStarted says which format it was recorded in: the one field that must differ.
    return encode({k: v for k, v in event.items() if k != "format_version"})


def _format2_events(ruleset_id: str) -> list[bytes]:
    lines = (FIXTURES / f"{ruleset_id}-format2.jsonl").read_text().splitlines()
    out = []
    for raw in lines[1:]:
        line = json.loads(raw)
        assert line["v"] == 2
        out.append(_comparable(upcast(line["event"], 2)))
    return out


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_demo_records_the_same_bytes_as_format_2_upcast(ruleset_id: str) -> None:
    """Unless the game system's version has moved on: then its rules changed on purpose, the
    fixture's version must be one it still re-adjudicates, and the next test checks that the old
    record re-adjudicates exactly."""
    system = get_game_system(ruleset_id)
    header = json.loads((FIXTURES / f"{ruleset_id}-format2.jsonl").read_text().splitlines()[1])
    recorded_version = str(upcast(header["event"], 2)["ruleset_version"])
    if recorded_version != system.version:
        assert recorded_version in system.reads_versions
        return
    expected = _format2_events(ruleset_id)
    played = play(get_game_system(ruleset_id).demo())
    first = played.events[0]
    assert isinstance(first, BattleStarted) and first.format_version == CURRENT_FORMAT
    got = [_comparable(to_builtins(e)) for e in played.events]
    assert len(got) == len(expected)
    for position, (mine, theirs) in enumerate(zip(got, expected, strict=True), start=1):
        assert mine == theirs, f"{ruleset_id}: position {position} differs"


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_format_2_demo_record_still_verifies(ruleset_id: str) -> None:
    read = read_export((FIXTURES / f"{ruleset_id}-format2.jsonl").read_bytes())
    assert read.report.ok, read.report.problem and read.report.problem.describe()
    assert read.report.commands > 0
