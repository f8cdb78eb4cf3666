"""A reader that closes ``bxb``'s output (`bxb log | head`) ends the command as it ends `git log`:
killed by SIGPIPE (the shell's status 141), nothing on standard error, the store as it was. Before,
it ended with exit 1 (click's and Rich's own handling), which a script reads as a failure."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bxbtest import demo_store_in, store_content

BXB = str(Path(sys.executable).with_name("bxb"))

STREAMING = [
    ["log"],
    ["log", "--json"],
    ["export"],
    ["battles"],
    ["battles", "--json"],
    ["at", "3"],  # the quick path
    ["at", "3", "--json"],
    ["verify"],
    ["rulesets"],
    ["examples"],
]


def run_into_a_closed_pipe(*args: str) -> subprocess.CompletedProcess[bytes]:
    """``bxb ARGS`` with its standard output a pipe whose reader has gone already."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [BXB, *args], stdout=write, stderr=subprocess.PIPE, timeout=120, check=False
        )
    finally:
        os.close(write)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_store_in(tmp_path_factory.mktemp("reader-gone"))


@pytest.mark.parametrize("args", STREAMING, ids=" ".join)
def test_a_reader_gone_ends_as_a_pipe_ends(demo: Path, args: list[str]) -> None:
    before = store_content(demo)
    done = run_into_a_closed_pipe("--db", str(demo), *args)
    assert (done.returncode, done.stderr.decode()) == (-signal.SIGPIPE, "")
    assert store_content(demo) == before


def test_an_error_said_to_a_reader_gone_still_says_it(demo: Path) -> None:
    """The pipe's end is not taken for the command's: a refusal still says its line and exits
    with its code."""
    done = run_into_a_closed_pipe("--db", str(demo), "at", "999999")
    assert done.returncode == 2
    assert done.stderr.decode().startswith("error: ")
