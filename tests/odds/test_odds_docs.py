"""docs/odds.md's Python example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

DOC = (Path(__file__).resolve().parents[2] / "docs" / "odds.md").read_text()


def test_the_python_example_runs() -> None:
    block = re.search(r"```python\n(.*?)```", DOC, re.S)
    assert block is not None
    exec(compile(block.group(1), "docs/odds.md", "exec"), {})


def test_the_cli_options_the_doc_names_exist() -> None:
    from typer.testing import CliRunner

    from blowbyblow.cli.main import app

    helps = (
        CliRunner().invoke(app, ["odds", "--help"]).output
        + CliRunner().invoke(app, ["luck", "--help"]).output
    )
    for option in set(re.findall(r"`(--[a-z-]+)", DOC)):
        assert option in helps, option
