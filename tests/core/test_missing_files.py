"""A file that is not there (or is a folder) is a usage error for every command that takes one:
one `error:` line naming it, exit 2 (docs/store.md: a value that names what is not there), the
store as it was. Before, `import`, `verify --file`, `roster import` and `odds` said 1 where
`record`, `play` and the rest said 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from bxbtest import bxb_quietly, demo_store_in, store_content

SETUP = str(Path(__file__).resolve().parents[2] / "cli" / "scenarios" / "necromunda-2023.toml")

# Each command that reads a file, FILE where the file goes.
TAKING_A_FILE = [
    ["record", "FILE"],
    ["record", SETUP, "--key", "FILE"],
    ["play", "FILE"],
    ["play", SETUP, "--key", "FILE"],
    ["odds", "FILE"],
    ["import", "FILE"],
    ["verify", "--file", "FILE"],
    ["verify", "--receipt", "FILE"],
    ["verify", "--public-key", "FILE"],
    ["roster", "import", "FILE", "-t", "spring-open"],
    ["new", "--ruleset", "necromunda-2023", "--roster", "FILE", "--roster", "FILE"],
    ["check-proof", "FILE"],
    ["root", "--proof", "fc3c7f4d", "--checkpoint", "FILE"],  # the demo battle
    ["root", "--witnesses", "FILE", "--origin", "spring-open"],
    ["serve", "--key", "FILE"],
]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_store_in(tmp_path_factory.mktemp("missing-files"))


@pytest.mark.parametrize("given", ["not-there.toml", "a-folder"])
@pytest.mark.parametrize("args", TAKING_A_FILE, ids=" ".join)
def test_a_file_not_there_is_a_usage_error(
    demo: Path, tmp_path: Path, args: list[str], given: str
) -> None:
    (tmp_path / "a-folder").mkdir()
    path = str(tmp_path / given)
    before = store_content(demo)
    code, _, err = bxb_quietly("--db", str(demo), *[path if a == "FILE" else a for a in args])
    assert (code, err.count("\n"), err.startswith("error: ")) == (2, 1, True), err
    assert path in err
    assert store_content(demo) == before


def test_a_public_key_file_not_there_is_named_so(demo: Path, tmp_path: Path) -> None:
    """`--public-key ~/.config/…/judge.pub` mistyped (or the key kept elsewhere) says the file is
    not there, where it said the text was no hex key (as if the path were taken for a key)."""
    path = str(tmp_path / "keys" / "judge.pub")
    code, _, err = bxb_quietly("--db", str(demo), "verify", "--public-key", path)
    assert code == 2 and f"--public-key: {path}: no such file; expected" in err, err
