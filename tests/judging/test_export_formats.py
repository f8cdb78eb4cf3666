"""Portable records: export -> import -> export is byte-identical; import verifies before
writing; a log in the previous record format still replays and verifies."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.core import DiceRolled
from blowbyblow.replay.engine.formats import upcast
from blowbyblow.replay.evidence.export import ExportError, export_battle, import_battle, read_export
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
