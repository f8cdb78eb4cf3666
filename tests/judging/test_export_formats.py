"""Portable records: export -> import -> export is byte-identical; import verifies before
writing; a log in the previous record format still replays and verifies."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.core import DiceRolled
from blowbyblow.replay.battles.record import import_battle
from blowbyblow.replay.engine.formats import upcast
from blowbyblow.replay.evidence.export import ExportError, export_battle, read_export
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore

from bxbtest import RULESET_IDS, record_demo

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "necromunda-2023-format1.jsonl"
runner = CliRunner()


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_export_import_export_is_byte_identical(ruleset_id: str) -> None:
    a = BattleStore(":memory:")
    rec = record_demo(a, ruleset_id)
    first = export_battle(a, rec.battle)
    b = BattleStore(":memory:")
    read = import_battle(b, first)
    assert read.battle == rec.battle
    assert export_battle(b, rec.battle) == first
    assert verify_battle(b, rec.battle).ok


def test_import_refuses_a_bad_file_and_writes_nothing(tmp_path: Path) -> None:
    a = BattleStore(":memory:")
    rec = record_demo(a, RULESET_IDS[0])
    text = export_battle(a, rec.battle).decode()
    lines = text.splitlines()
    b = BattleStore(tmp_path / "b.sqlite")
    broken = "\n".join(lines[:3] + lines[4:]) + "\n"
    with pytest.raises(ExportError, match="refused: position 3"):
        import_battle(b, broken)
    with pytest.raises(ExportError, match="header"):
        import_battle(b, "{}\n" + "\n".join(lines[1:]))
    with pytest.raises(ExportError, match="empty"):
        import_battle(b, "")
    assert b.battles() == []
    import_battle(b, text)
    with pytest.raises(ExportError, match="already holds"):
        import_battle(b, text)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(broken)
    out = runner.invoke(
        app, ["--db", str(tmp_path / "c.sqlite"), "--log-level", "warning", "import", str(bad)]
    )
    assert out.exit_code == 1 and "refused" in out.output
    assert BattleStore(tmp_path / "c.sqlite").battles() == []


def test_a_format_1_log_still_replays_and_verifies(tmp_path: Path) -> None:
    text = FIXTURE.read_bytes()
    assert b'"version":1' in text and b'"source":"digital"' in text
    read = read_export(text)
    assert read.report.ok, read.report.problem
    assert read.report.dice_checked > 0  # every "digital" die recomputed from the seed
    dice = [e.event for e in read.events if isinstance(e.event, DiceRolled)]
    assert dice and all(d.source == "seeded" for d in dice)  # upcast on reading
    store = BattleStore(tmp_path / "b.sqlite")
    import_battle(store, text)
    assert verify_battle(store, read.battle).ok
    stored = store.read(read.battle)
    assert {e.format for e in stored} == {1}
    assert (
        export_battle(store, read.battle).splitlines()[1:] != text.splitlines()[1:]
    )  # now carries "v"
    again = BattleStore(":memory:")
    import_battle(again, export_battle(store, read.battle))
    assert verify_battle(again, read.battle).ok


def test_upcasting_refuses_what_format_1_could_not_hold() -> None:
    assert upcast({"type": "DiceRolled", "source": "digital"}, 1)["source"] == "seeded"
    with pytest.raises(ValueError, match="did not exist in format 1"):
        upcast({"type": "DiceRolled", "source": "seeded"}, 1)
    with pytest.raises(ValueError, match="newer"):
        upcast({"type": "DiceRolled"}, 99)


def _edited(text: str, line: int, edit: Callable[[dict[str, Any]], None]) -> str:
    lines = text.splitlines()
    fields = json.loads(lines[line])
    edit(fields)
    lines[line] = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    return "\n".join(lines) + "\n"


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda fields: fields.__setitem__(key, value)


def _upper(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda fields: fields.__setitem__(key, fields[key].upper())


@pytest.mark.parametrize(
    ("line", "edit", "named"),
    [
        (2, _set("position", 2.0), "position: expected a whole number"),
        (2, _set("position", "2"), "position: expected a whole number"),
        (2, _set("v", 2.0), "v: expected a whole number"),
        (2, _set("v", True), "v: expected a whole number"),
        (0, _set("events", "LEN"), "events: expected a whole number"),
        (0, _set("version", "2"), "version: expected a whole number"),
        (2, _upper("hash"), "hash: expected 64 lower-case hex digits"),
        (2, _upper("prev"), "prev: expected 64 lower-case hex digits"),
        (0, _upper("last_hash"), "last_hash: expected 64 lower-case hex digits"),
        (0, _upper("battle"), "battle: expected a battle id"),
        (2, _set("at", 0), "at: expected a string"),
    ],
)
def test_reading_an_export_is_strict_about_numbers_and_hashes(
    tmp_path: Path, line: int, edit: Callable[[dict[str, Any]], None], named: str
) -> None:
    """Issue 26, hole 7: positions given as 2.0 or "2" and hashes in upper case were read as
    the export's own (docs/store.md says reading is strict): one battle had several exports."""
    a = BattleStore(":memory:")
    rec = record_demo(a, RULESET_IDS[0])
    text = export_battle(a, rec.battle).decode()
    if named.startswith("events"):  # the count stands for the file's real one
        edit = _set("events", str(len(text.splitlines()) - 1))
    changed = _edited(text, line, edit)
    assert changed != text
    read = read_export(changed)
    assert read.report.problem is not None and named in read.report.problem.message, (
        read.report.problem
    )
    b = BattleStore(tmp_path / "b.sqlite")
    with pytest.raises(ExportError, match="refused"):
        import_battle(b, changed)
    assert b.battles() == []
