"""Yaktribe gang exports (replay/rosters/yaktribe.py): a real export from a public repository
(tests/rosters/files/yaktribe/README.md) mapped onto a Necromunda roster, what it cannot give
named one line each, and bad input of every kind refused in one line, nothing kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.roster import RosterError, setup_from_rosters
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.rosters.yaktribe import MAX_BYTES, import_yaktribe

from roster_helpers import shipped_rosters

REAL = Path(__file__).resolve().parent / "files" / "yaktribe" / "maxs-marauders-157849.json"
runner = CliRunner()


def _gang(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(REAL.read_text())
    data["gang"].update(changes)
    return data


def _raw(data: Any) -> bytes:
    return json.dumps(data).encode()


def test_a_real_yaktribe_gang_maps_each_living_ganger_and_names_the_rest() -> None:
    imported = import_yaktribe(REAL.read_bytes(), REAL.name, "necromunda-2023", "Max")
    roster = imported.roster
    assert (roster.name, roster.player, roster.ruleset) == (
        "Max's Marauders",
        "Max",
        "necromunda-2023",
    )
    fighters = roster.forces["fighters"]
    assert len(fighters) == 14  # 18 gangers: 3 dead, 1 in recovery
    leader = fighters[0]
    assert leader == {
        "id": "maxath-ja", "name": "Maxath-Ja",
        "m": 6, "ws": 3, "bs": 3, "s": 4, "t": 4, "w": 2, "i": 3, "a": 2,
        "ld": 3, "cl": 5, "wil": 5, "int": 4, "skills": ["Gunfighter"],
    }  # fmt: skip
    lines = imported.unmapped
    assert (
        "Maxath-Ja: 'Plasma Pistol' x2 (equipment): the export gives its name, not its profile"
        in lines
    )
    assert "Nesh-Tei: 'Eye Injury' (lasting injury): its effect is in the figures" in lines
    assert "Waku-Tah: status 'Recovery': left out of the roster (not Alive)" in lines
    assert "Cherub Alpha: status 'Dead': left out of the roster (not Alive)" in lines
    assert any(line.startswith("Cherub Beta: BS '-'") for line in lines)
    assert list(roster.notes[1:]) == list(lines)  # kept with the roster: nothing dropped
    # and it plays: it meets another gang at a table
    other = shipped_rosters("necromunda-2023")[1]
    system = get_game_system("necromunda-2023")
    theirs = [f["id"] for f in other.forces["fighters"] if not f.get("vision")]
    setup = setup_from_rosters(system, [roster, other], ["maxath-ja", *theirs])
    assert [f.id for f in setup.fighters] == ["maxath-ja", *theirs]


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (b"{ not json", "not JSON"),
        (b"[1, 2]", 'no "gang" object'),
        (_raw({"gang": {"gangers": "many"}}), "gang.gangers: expected a list"),
        (_raw({"gang": {"gangers": [1]}}), r"gang.gangers\[0\]: expected a ganger"),
        (_raw(_gang(gangers=[])), "no ganger of the gang is Alive"),
        (_raw(_gang(gangers=[{"name": "X", "m": 4}])), "X: no 'ws'"),
        (_raw(_gang(gang_name="n" * 201)), "gang.gang_name: 201 characters"),
        (b" " * (MAX_BYTES + 1), "larger than 1 MiB"),
    ],
)
def test_bad_input_is_one_line_naming_the_element(raw: bytes, says: str) -> None:
    with pytest.raises(RosterError, match=says):
        import_yaktribe(raw, "gang.json", "necromunda-2023", "Max")


def test_a_characteristic_out_of_bounds_names_the_ganger_and_field() -> None:
    data = _gang()
    data["gang"]["gangers"][0]["ws"] = 13
    with pytest.raises(RosterError, match=r"fighters\[0\]\.ws: Expected `int` <= 12"):
        import_yaktribe(_raw(data), "gang.json", "necromunda-2023", "Max")
    data["gang"]["gangers"][0]["ws"] = "three"
    with pytest.raises(RosterError, match=r"Maxath-Ja\.ws: 'three' is not a characteristic"):
        import_yaktribe(_raw(data), "gang.json", "necromunda-2023", "Max")
    data["gang"]["gangers"][0]["ws"] = 0  # WS "-": close combat needs it
    with pytest.raises(RosterError, match=r"Maxath-Ja\.ws: '-' \(0\)"):
        import_yaktribe(_raw(data), "gang.json", "necromunda-2023", "Max")


def test_another_game_is_refused() -> None:
    with pytest.raises(RosterError, match="a Yaktribe gang is a Necromunda gang"):
        import_yaktribe(REAL.read_bytes(), REAL.name, "wh40k-2e", "Max")


def test_bxb_roster_import_takes_a_yaktribe_export(tmp_path: Path) -> None:
    db = str(tmp_path / "db.sqlite")
    assert runner.invoke(app, ["--db", db, "tournament", "new", "spring"]).exit_code == 0
    base = ["--db", db, "roster", "import", str(REAL), "-t", "spring"]
    found = runner.invoke(app, base)
    assert found.exit_code != 0 and "needs --ruleset" in found.output
    found = runner.invoke(app, [*base, "--ruleset", "necromunda-2023", "--player", "Max"])
    assert found.exit_code == 0, found.output
    assert """kept "Max's Marauders" (Max) for spring, version 1: 14 fighters""" in found.output
    assert "not mapped: Waku-Tah: status 'Recovery'" in found.output
