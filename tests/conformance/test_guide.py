"""docs/adding-a-game-system.md stays true of the template: each code block that names a file is
an excerpt of it (``...`` standing for lines left out), the Python example runs against the
installed template, and every ``bxb`` command it shows exists."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conformance_helpers import REPO

GUIDE = (REPO / "docs" / "adding-a-game-system.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```(\w+)\n(.*?)^```$", GUIDE, re.S | re.M)
NAMED = [
    (m.group(1), body[m.end() :])
    for lang, body in BLOCKS
    if lang in ("python", "toml") and (m := re.match(r"# (\S+\.(?:py|toml))\n", body))
]


def test_the_guide_shows_the_template() -> None:
    assert len(NAMED) >= 15
    assert {path.split("/")[-1] for path, _ in NAMED} >= {
        "setup.py",
        "state.py",
        "events.py",
        "rulebook.py",
        "rulings.py",
        "procedure.py",
        "strike.py",
        "projection.py",
        "legal.py",
        "narration.py",
        "demo.py",
        "system.py",
        "pyproject.toml",
        "duel.toml",
    }


@pytest.mark.parametrize(("path", "excerpt"), NAMED, ids=[p for p, _ in NAMED])
def test_each_named_block_is_an_excerpt_of_its_file(path: str, excerpt: str) -> None:
    text = (REPO / path).read_text(encoding="utf-8")
    at = 0
    for chunk in re.split(r"^\.\.\.\n", excerpt, flags=re.M):
        found = text.find(chunk.strip("\n"), at)
        assert found >= 0, f"not in {path} (after offset {at}):\n{chunk}"
        at = found + len(chunk.strip("\n"))


def test_the_python_example_runs(template_on_path: Path) -> None:
    (example,) = [body for lang, body in BLOCKS if lang == "python" and not body.startswith("# ")]
    exec(compile(example, "adding-a-game-system.md", "exec"), {})


def test_every_bxb_command_shown_exists() -> None:
    shown = set(re.findall(r"\bbxb ([a-z]+)", GUIDE))
    assert shown >= {"demo", "rulesets", "record", "whatif", "at"}
    help_text = subprocess.run(
        [sys.executable, "-m", "blowbyblow.cli.main", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    listed = set(re.findall(r"^│ ([a-z]+) ", help_text, re.M))  # the Commands table
    assert shown <= listed, shown - listed
