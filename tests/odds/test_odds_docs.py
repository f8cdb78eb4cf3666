"""docs/odds.md's Python example runs as written."""

from __future__ import annotations

import re
import subprocess
import sys
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


SCRIPT = re.compile(r"cat > /tmp/(\w+)\.py <<'PY'\n(.*?)\nPY\n", re.S)
SMALL = {  # each script's arguments for a small command (seconds, not minutes)
    "steps": ["gangfight", "1"],
    "vone": ["gangfight", "1", "1"],
    "sone": ["gangfight", "1", "1"],
    "firstone": ["gangfight", "1", "1"],
}


def test_every_script_the_doc_names_is_written_out_in_it_and_runs(tmp_path: Path) -> None:
    """A note that says "``/tmp/sone.py``" gives the script on this page (a ``cat >`` block a
    reader pastes): each named is there, and runs on today's code (``hash.py``, all 22 demo
    commands twice, only has its imports run)."""
    scripts = dict(SCRIPT.findall(DOC))
    named = set(re.findall(r"/tmp/(\w+)\.py", DOC)) - {"NAME"}
    assert named and named <= set(scripts), named - set(scripts)
    for name, text in scripts.items():
        if name not in SMALL:
            imports = "\n".join(line for line in text.splitlines() if line.startswith("from "))
            exec(compile(imports, f"/tmp/{name}.py", "exec"), {})
            continue
        (tmp_path / f"{name}.py").write_text(text)
        ran = subprocess.run(
            [sys.executable, str(tmp_path / f"{name}.py"), *SMALL[name]],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert ran.returncode == 0, (name, ran.stderr[-2000:])
