"""`bxb new` writes a template a newcomer can record at once, every field explained; `bxb examples`
reaches the example scenarios the package ships, also from an installed wheel."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.cli.newcomer import scenario_template
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.scenario import load_scenario

from bxbtest import RULESET_IDS
from newcomer_helpers import REPO, SCENARIOS, environment

runner = CliRunner()


def bxb(db: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--db", str(db), *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_the_template_is_the_demo_and_records_as_it_stands(tmp_path: Path, ruleset_id: str) -> None:
    system = get_game_system(ruleset_id)
    path = tmp_path / "mine.toml"
    code, _, said = bxb(
        tmp_path / "b.sqlite", "new", "--ruleset", ruleset_id, "--actions", "-o", str(path)
    )
    assert code == 0 and said == f"wrote {path}: edit it, then `bxb record {path}`\n"
    loaded, demo = load_scenario(path), system.demo()
    assert loaded.setup == demo.setup
    assert loaded.commands == demo.commands
    assert (loaded.seed, loaded.dice, loaded.label) == (demo.seed, demo.dice, demo.label)
    assert system.resolve_rulings(loaded.rulings) == system.resolve_rulings(demo.rulings)
    assert loaded.choices == demo.choices
    code, out, said = bxb(tmp_path / "b.sqlite", "record", str(path), "-q")
    assert code == 0, said
    code, out, _ = bxb(tmp_path / "b.sqlite", "verify")
    assert code == 0 and "verify OK" in out


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_new_setup_has_no_actions_and_plays_from_its_start(
    tmp_path: Path, ruleset_id: str
) -> None:
    """`bxb new` without --actions: the demo's setup with no action (its actions only shown as
    comments), so `bxb play` starts from the setup itself; `bxb record` refuses it."""
    system = get_game_system(ruleset_id)
    path = tmp_path / "mine.toml"
    code, _, said = bxb(tmp_path / "b.sqlite", "new", "--ruleset", ruleset_id, "-o", str(path))
    assert code == 0 and said == f"wrote {path}: edit it, then `bxb play {path}`\n"
    loaded = load_scenario(path, needs_actions=False)
    assert loaded.commands == [] and loaded.setup == system.demo().setup
    text = path.read_text()
    assert "# [[actions]]" in text  # the demo's, as examples
    # the header sends the reader to `bxb play`, not to the `bxb record` that refuses it
    header = " ".join(w for w in text.split("\n\n", 1)[0].split() if w != "#")
    assert header.startswith("A setup for `bxb play`") and "then `bxb play FILE`" in header
    code, _, said = bxb(tmp_path / "b.sqlite", "record", str(path), "-q")
    assert code != 0 and "actions" in said
    # and `bxb play` does start it: no die listed for actions it does not have
    played = subprocess.run(
        [str(Path(sys.executable).parent / "bxb"), "--db", str(tmp_path / "p.sqlite"),
         "play", str(path)],
        input="", capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    said = " ".join(played.stdout.split())
    assert played.returncode == 0 and "0 command(s) played" in said, played.stdout + played.stderr


def _schema_fields(schema: dict[str, object]) -> set[tuple[str, str]]:
    defs = schema.get("$defs", {})
    assert isinstance(defs, dict)
    return {(name, field) for name, node in defs.items() for field in node.get("properties", {})}


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_setup_field_action_and_ruling_is_explained(ruleset_id: str) -> None:
    system = get_game_system(ruleset_id)
    text = scenario_template(system)
    comments = [line for line in text.splitlines() if line.startswith("#")]
    said = "\n".join(comments)
    for struct, field in _schema_fields(system.setup_schema()) | _schema_fields(
        system.command_schema()
    ):
        # each struct once, introduced by name (or by its action type), then its fields
        assert re.search(rf"^#\s+{re.escape(field)}: ", said, re.M), (struct, field)
    for command in system.command_types:
        tag = command.__struct_config__.tag
        assert f'# type = "{tag}"' in said, tag
    for ruling in system.rulings:
        assert f"Choices: {' | '.join(ruling.choices)}; default {ruling.default}" in " ".join(
            line.lstrip("# ") for line in comments
        ).replace("  ", " "), ruling.name
    assert all(len(line) <= 80 for line in comments), max(comments, key=len)


def test_new_never_replaces_a_file_and_names_what_is_wrong(tmp_path: Path) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text("my own work\n")
    code, out, said = bxb(tmp_path / "b.sqlite", "new", "--ruleset", "asl", "-o", str(mine))
    assert (code, out) == (1, "")
    assert said == f"error: {mine} already exists: name another file (or remove it first)\n"
    assert mine.read_text() == "my own work\n"
    code, out, said = bxb(tmp_path / "b.sqlite", "new", "--ruleset", "chess")
    assert (code, out) == (2, "")
    assert said.startswith("error: --ruleset: unknown ruleset 'chess'; known: asl, ")


def test_examples_lists_and_copies_the_shipped_scenarios(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    shipped = sorted(p.stem for p in SCENARIOS.glob("*.toml"))
    code, out, _ = bxb(db, "examples")
    assert code == 0
    lines = out.splitlines()
    assert [line.split()[0] for line in lines if not line.startswith(" ")] == shipped
    assert all(len(line) <= 80 for line in lines)  # wrapped to the (default) 80 columns
    words = " ".join(out.split())
    for name in shipped:
        label = tomllib.loads((SCENARIOS / f"{name}.toml").read_text())["label"]
        assert f"{name} {label}" in words
    code, out, _ = bxb(db, "examples", "asl", "-o", "-")
    assert code == 0 and out == (SCENARIOS / "asl.toml").read_text()
    code, _, said = bxb(db, "examples", "wh40k-2e", "-o", str(tmp_path))
    copied = tmp_path / "wh40k-2e.toml"
    assert code == 0 and copied.read_bytes() == (SCENARIOS / "wh40k-2e.toml").read_bytes()
    code, _, said = bxb(db, "examples", "wh40k-2e", "-o", str(copied))
    assert code == 1 and "already exists" in said
    code, _, said = bxb(db, "examples", "chess")
    assert code == 2 and said.startswith("error: no example 'chess'; the examples are: asl, ")


def test_an_installed_wheel_has_python_m_blowbyblow_and_the_examples(tmp_path: Path) -> None:
    """Built and installed as a user's pip would (from a copy: the build leaves nothing here),
    then run without this checkout's editable install on the path."""
    source = tmp_path / "source"
    shutil.copytree(
        REPO,
        source,
        ignore=shutil.ignore_patterns(
            ".venv", ".git", "build", "*.egg-info", "__pycache__", "site", "*.sqlite"
        ),
    )
    site = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"]
    built = subprocess.run(
        [*pip, "--target", str(site), str(source)], capture_output=True, text=True
    )
    assert built.returncode == 0, built.stderr
    top = sorted(p.name for p in (site / "blowbyblow").iterdir() if p.name != "__pycache__")
    assert top == ["__main__.py", "cli", "domain", "projections", "replay", "web"]
    assert not (site / "blowbyblow" / "cli" / "_top").exists()
    # -S: no site-packages processing, so no editable finder; the dependencies come from here.
    path = os.pathsep.join([str(site), sysconfig.get_paths()["purelib"]])
    done = subprocess.run(
        [sys.executable, "-S", "-m", "blowbyblow", "examples", "gangfight", "-o", "-"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment(PYTHONPATH=path),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (SCENARIOS / "gangfight.toml").read_text()
