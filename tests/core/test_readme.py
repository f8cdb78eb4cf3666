"""The README's commands and example are what CI and a newcomer run: keep them true."""

from __future__ import annotations

import re
from pathlib import Path

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()
CI = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text()


def test_the_python_example_runs(capsys: object) -> None:
    block = re.search(r"```python\n(.*?)```", README, re.S)
    assert block is not None
    exec(compile(block.group(1), "README.md", "exec"), {})


def test_ci_runs_exactly_the_readme_test_command() -> None:
    first_screen = "\n".join(README.splitlines()[:20])
    commands = re.findall(r"^    (python3 -m venv .*)$", first_screen, re.M)
    assert len(commands) == 2, commands
    demo, tests = commands
    assert demo.endswith("bxb demo")
    assert tests in CI.splitlines()
