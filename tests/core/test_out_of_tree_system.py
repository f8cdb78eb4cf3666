"""A game system from another distribution plugs in without touching this one.

The template game system (docs/game-system-template, distribution ``bxb-duel-template``) is
installed as any other distribution would be, into a folder of its own, and the ``bxb`` command,
run with that folder on its path, finds it by entry point: it lists it, records its demo and a
scenario file, verifies them, exports one and re-checks and imports the export."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "docs" / "game-system-template"
SCENARIO = TEMPLATE / "scenarios" / "duel.toml"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The template installed with pip into a fresh folder (built from a copy, so the build
    leaves nothing in the repository)."""
    tmp = tmp_path_factory.mktemp("out-of-tree")
    source = tmp / "source"
    shutil.copytree(
        TEMPLATE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    )
    target = tmp / "site"
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"]
    done = subprocess.run(
        [*pip, "--target", str(target), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return target


def bxb(site: Path, db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the ``bxb`` command in a new process that has the installed template on its path."""
    env = {k: v for k, v in os.environ.items() if k != "BXB_DB"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    command = [
        sys.executable,
        "-m",
        "blowbyblow.cli.main",
        "--db",
        str(db),
        "--log-level",
        "warning",
    ]
    return subprocess.run(
        [*command, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_the_installed_distribution_registers_the_system(site: Path) -> None:
    (dist,) = site.glob("bxb_duel_template-*.dist-info")
    assert "[blowbyblow.game_systems]\nduel = bxb_duel.system:GAME_SYSTEM" in (
        dist / "entry_points.txt"
    ).read_text(encoding="utf-8")
    assert (site / "bxb_duel" / "system.py").is_file()


def test_bxb_rulesets_lists_it(site: Path, tmp_path: Path) -> None:
    shown = bxb(site, tmp_path / "b.sqlite", "rulesets")
    assert shown.returncode == 0, shown.stderr
    said = " ".join(shown.stdout.split())  # wrapped at 80 columns: compare the words
    assert "duel 1.0: Duel: a two-fighter melee (the template game system)" in said
    assert "ties = defender [defender | attacker]" in said
    assert "Duel: rules for two fighters (1st edition), section D2.1 (The to-hit roll)" in said
    assert "necromunda-2023 " in said  # the shipped systems are still there
    listed = json.loads(bxb(site, tmp_path / "b.sqlite", "rulesets", "--json").stdout)
    (duel,) = [r for r in listed if r["id"] == "duel"]
    assert duel["game"] == "duel"
    assert [r["name"] for r in duel["rulings"]] == ["ties", "short-guard"]


def test_bxb_records_verifies_and_exports_its_battles(site: Path, tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    demo = bxb(site, db, "demo", "--ruleset", "duel")
    assert demo.returncode == 0, demo.stderr
    said = " ".join(demo.stdout.split())  # wrapped at 80 columns: compare the words
    assert (
        "begins under duel 1.0; dice: physical; rulings: short-guard=off, ties=defender" in said
    )  # sorted
    assert "a tie, which goes to the defender, a miss [D2.1]" in said
    assert "mira is out of action: aldric wins the duel [D4.1]" in said
    assert "34 events, 7 commands re-adjudicated, hash chain intact" in said

    recorded = bxb(site, db, "record", str(SCENARIO), "--quiet")
    assert recorded.returncode == 0, recorded.stderr
    match = re.search(r"recorded battle ([0-9a-f-]{36}) \('Brand against Cole", recorded.stdout)
    assert match, recorded.stdout
    battle = match.group(1)

    verified = bxb(site, db, "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "2 of 2 battles verified" in verified.stdout

    export = tmp_path / "duel.jsonl"
    exported = bxb(site, db, "export", battle, "-o", str(export))
    assert exported.returncode == 0, exported.stderr
    header, *lines = (json.loads(line) for line in export.read_text().splitlines())
    assert (header["ruleset"], header["ruleset_version"]) == ("duel", "1.0")
    assert header["events"] == len(lines)
    assert lines[0]["event"]["rulings"] == {"short-guard": "on", "ties": "attacker"}
    steps = [(line["type"], line.get("rule")) for line in lines]
    assert ("HitRolled", "D2.3") in steps  # Brand's natural 1
    assert ("GuardLowered", "D2.5") in steps  # Short Guard: a strike lowers the Guard
    assert steps[-1] == ("OutOfAction", "D4.1")

    rechecked = bxb(site, tmp_path / "empty.sqlite", "verify", "--file", str(export))
    assert rechecked.returncode == 0, rechecked.stdout + rechecked.stderr
    assert rechecked.stdout.startswith("verify OK")
    imported = bxb(site, tmp_path / "other.sqlite", "import", str(export))
    assert imported.returncode == 0, imported.stderr
    assert f"imported battle {battle} ('Brand against Cole (Duel scenario file)'" in (
        imported.stdout
    )

    # A die changed in the file, its hash left as it was: caught.
    rolled = next(line for line in lines if line["type"] == "DiceRolled")
    face = rolled["event"]["values"][0]
    rolled["event"]["values"][0] = face % 6 + 1
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text(
        "\n".join(json.dumps(x, sort_keys=True) for x in [header, *lines]) + "\n",
        encoding="utf-8",
    )
    refused = bxb(site, tmp_path / "empty.sqlite", "verify", "--file", str(tampered))
    assert refused.returncode == 1
    assert "verify FAILED" in refused.stdout
    assert f"position {rolled['position']}: hash chain broken" in refused.stdout
