"""`bxb roster import|list|export|edit|history` and `bxb new --roster`: what an organiser and
two players type, with one clear error line for what is wrong, and a setup `bxb play` starts
from with no command played."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.replay.engine.scenario import load_scenario
from blowbyblow.replay.rosters.files import load_roster, write_roster

from bxbtest import store_content
from roster_helpers import shipped_rosters

runner = CliRunner()


def bxb(db: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--db", str(db), *args])
    return result.exit_code, result.stdout, result.stderr


def _spring(db: Path) -> Path:
    """``db`` with the tournament the rosters are kept for (`roster import` refuses one the
    store lacks)."""
    assert bxb(db, "tournament", "new", "spring")[0] == 0
    return db


def _files(tmp_path: Path, ruleset: str) -> list[Path]:
    paths = []
    for n, roster in enumerate(shipped_rosters(ruleset)):
        path = tmp_path / f"roster{n}.{'json' if n else 'toml'}"
        path.write_text(write_roster(roster, "json" if n else "toml"))
        paths.append(path)
    return paths


def test_an_organiser_imports_lists_edits_and_exports(tmp_path: Path) -> None:
    db = _spring(tmp_path / "store.sqlite")
    first, second = _files(tmp_path, "necromunda-2023")
    code, out, err = bxb(db, "roster", "import", str(first), "-t", "spring", "--player", "Cy")
    assert code == 0, err
    assert out == "kept 'House Goliath' (Cy) for spring, version 1: 1 fighters (necromunda-2023)\n"
    assert bxb(db, "roster", "import", str(second), "-t", "spring")[0] == 0
    code, out, _ = bxb(db, "roster", "list", "-t", "spring")
    assert out.splitlines() == [
        "spring  Bo  'House Escher'  necromunda-2023  v1  2 fighters",
        "spring  Cy  'House Goliath'  necromunda-2023  v1  1 fighters",
    ]
    edit = ["roster", "edit", "-t", "spring", "-p", "Cy", "-n", "House Goliath"]
    code, out, err = bxb(
        db,
        *edit,
        "--set",
        "grax.ws=5",
        "--set",
        "grax.name=Grax One-Eye",
        "--reason",
        "Old Battle Wound",
        "--round",
        "1",
    )
    assert code == 0, err
    code, _, err = bxb(db, *edit, "--set", "grax.t=99")
    assert code == 1 and err == "error: edit 1 (set): fighters[0].t: Expected `int` <= 20\n"
    code, _, err = bxb(db, *edit, "--set", "grax")
    assert code == 2 and "expected ID.FIELD=VALUE" in err
    code, out, _ = bxb(db, "roster", "history", "-t", "spring", "-p", "Cy", "-n", "House Goliath")
    lines = out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("v1 ") and lines[0].endswith(": imported")
    assert lines[1].endswith(
        "after round 1: set grax.ws = 5; set grax.name = 'Grax One-Eye' (Old Battle Wound)"
    )
    out_file = tmp_path / "now.json"
    code, _, err = bxb(
        db,
        "roster",
        "export",
        "-t",
        "spring",
        "-p",
        "Cy",
        "-n",
        "House Goliath",
        "-o",
        str(out_file),
    )
    assert code == 0, err
    now = load_roster(out_file)
    assert now.player == "Cy" and now.forces["fighters"][0]["ws"] == 5
    assert now.forces["fighters"][0]["name"] == "Grax One-Eye"


def test_a_bad_roster_file_is_one_error_and_nothing_kept(tmp_path: Path) -> None:
    db = tmp_path / "store.sqlite"
    bad = tmp_path / "bad.toml"
    bad.write_text('ruleset = "wh40k-2e"\nname = "A"\nplayer = "B"\n[[models]]\nid = "x"\n')
    code, _, err = bxb(db, "roster", "import", str(bad), "-t", "spring")
    assert code == 1
    assert err == "error: bad.toml: models[0]: Object missing required field `ws`\n".replace(
        "bad.toml", str(bad)
    )
    assert bxb(db, "roster", "list")[1] == ""


def test_new_makes_a_setup_from_rosters_and_play_starts_it_with_no_command(
    tmp_path: Path,
) -> None:
    first, second = _files(tmp_path, "wh40k-2e")
    setup = tmp_path / "table.toml"
    code, _, err = bxb(
        tmp_path / "s.sqlite",
        "new",
        "--ruleset",
        "wh40k-2e",
        "--roster",
        str(first),
        "--roster",
        str(second),
        "-o",
        str(setup),
    )
    assert code == 0 and err == f"wrote {setup}: edit it, then `bxb play {setup}`\n"
    scenario = load_scenario(setup, needs_actions=False)
    assert scenario.commands == []
    assert {m.player for m in scenario.setup.models} == {"ultramarines", "orks"}
    played = subprocess.run(
        [
            str(Path(sys.executable).parent / "bxb"),
            "--db",
            str(tmp_path / "s.sqlite"),
            "play",
            str(setup),
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    said = " ".join(played.stdout.split())  # the table's lines are wrapped at 80 columns
    assert "Ultramarines (Ana) v Orks (Bo)" in said, played.stdout + played.stderr
    assert "· 0 command(s) played ==" in said
    assert "has 0 command(s) played" in said
    code, _, err = bxb(
        tmp_path / "s.sqlite",
        "new",
        "--ruleset",
        "asl",
        "--roster",
        str(first),
        "-o",
        str(tmp_path / "x.toml"),
    )
    assert code == 1 and "the roster is for wh40k-2e, not --ruleset asl" in err
    code, _, err = bxb(tmp_path / "s.sqlite", "new", "--ruleset", "wh40k-2e", "--only", "x")
    assert code == 2 and "--only: name the rosters too" in err


def test_reading_a_store_that_is_not_there_makes_none(tmp_path: Path) -> None:
    missing = tmp_path / "typo" / "store.sqlite"
    for args in (
        ["roster", "list"],
        ["roster", "history", "-t", "spring", "-p", "Ana", "-n", "A"],
        ["roster", "export", "-t", "spring", "-p", "Ana", "-n", "A"],
        ["roster", "edit", "-t", "spring", "-p", "Ana", "-n", "A", "--remove", "x"],
    ):
        code, _, err = bxb(missing, *args)
        assert code == 1 and err.startswith(f"error: no store at {missing}"), err
    assert not missing.parent.exists()


def test_new_takes_the_rosters_kept_for_a_tournament(tmp_path: Path) -> None:
    db = _spring(tmp_path / "store.sqlite")
    for path in _files(tmp_path, "gangfight"):
        assert bxb(db, "roster", "import", str(path), "-t", "spring")[0] == 0
    humans, orcs = shipped_rosters("gangfight")
    member = humans.forces["fighters"][0]["id"]
    edit = ["roster", "edit", "-t", "spring", "-p", humans.player, "-n", humans.name]
    assert bxb(db, *edit, "--set", f"{member}.name=Sir Changed")[0] == 0
    setup = tmp_path / "table.toml"
    code, _, err = bxb(
        db,
        "new",
        "--ruleset",
        "gangfight",
        "-t",
        "spring",
        "--roster",
        f"{humans.player}/{humans.name}",
        "--roster",
        f"{orcs.player}/{orcs.name}",
        "-o",
        str(setup),
    )
    assert code == 0, err
    loaded = load_scenario(setup, needs_actions=False)
    assert next(f.name for f in loaded.setup.fighters if f.id == member) == "Sir Changed"
    code, _, err = bxb(
        db,
        "new",
        "--ruleset",
        "gangfight",
        "-t",
        "spring",
        "--roster",
        "nobody",
        "-o",
        str(tmp_path / "x.toml"),
    )
    assert code == 2 and "expected PLAYER/NAME" in err
    code, _, err = bxb(
        db,
        "new",
        "--ruleset",
        "gangfight",
        "-t",
        "spring",
        "--roster",
        "Ana/none",
        "-o",
        str(tmp_path / "x.toml"),
    )
    assert code == 1 and "no roster 'none' of player 'Ana'" in err


def test_a_player_named_beyond_a_files_bounds_is_refused(tmp_path: Path) -> None:
    """`--player` of 300 characters was kept, and every later read of the register (`roster
    list`, `new --roster`) then ended in "bxb failed unexpectedly (ValidationError)"."""
    db = _spring(tmp_path / "store.sqlite")
    first, second = _files(tmp_path, "necromunda-2023")
    assert bxb(db, "roster", "import", str(second), "-t", "spring")[0] == 0
    code, _, err = bxb(db, "roster", "import", str(first), "-t", "spring", "--player", "x" * 300)
    assert code == 1 and err.startswith("error: roster:") and "$.player" in err, err
    code, out, err = bxb(db, "roster", "list")
    assert code == 0 and out == "spring  Bo  'House Escher'  necromunda-2023  v1  2 fighters\n"


def test_a_roster_from_standard_input_is_named_so_in_its_refusals(tmp_path: Path) -> None:
    """`bxb roster import -` says "standard input:" as `bxb record -` does, not "-:"."""
    db = tmp_path / "r.sqlite"
    result = runner.invoke(
        app, ["--db", str(db), "roster", "import", "-", "-t", "spring"], input="name = 'x'\n"
    )
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: standard input: roster: "), result.stderr


def test_a_roster_for_a_tournament_the_store_lacks_is_refused(tmp_path: Path) -> None:
    """`-t nope` kept the roster under a tournament no one made: on no tournament's rosters
    page, and a mistyped id kept it there unseen. Now refused in one line naming the id and how
    to list or make one; no store is made, and a store's bytes are left as they were."""
    first, _ = _files(tmp_path, "necromunda-2023")
    missing = tmp_path / "none" / "store.sqlite"
    code, out, err = bxb(missing, "roster", "import", str(first), "-t", "nope")
    assert (code, out) == (2, "")
    assert err == (
        "error: --tournament: no tournament 'nope' in this store; `bxb tournament list` lists "
        "them, `bxb tournament new nope` makes one\n"
    )
    assert not missing.parent.exists()
    db = _spring(tmp_path / "store.sqlite")
    before = store_content(db)
    assert bxb(db, "roster", "import", str(first), "-t", "sprnig")[0] == 2
    assert store_content(db) == before
    assert bxb(db, "roster", "import", str(first), "-t", "spring")[0] == 0
