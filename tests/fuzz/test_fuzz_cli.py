"""Every `bxb` command with bad arguments (tests/fuzz/cli_args.py): each accepted, or refused with
one `error:` line and nothing written; none raises, none hangs.

In the suite: every argument and option of every command, each given one bad value, the bad
values taken in turn (cli_args.sample): the same cases every run, so the suite's verdict is the
code's, never the draw's. By hand: `python benchmarks/fuzz.py --cli N` runs N cases (every
case when N is at least their number)."""

from __future__ import annotations

import os

import pytest
from cli_args import (
    SKIPPED,
    Workspace,
    cases,
    commands,
    good_arguments,
    make_workspace,
    run_case,
    sample,
)
from fuzz_helpers import Tally
from test_fuzz import _check

EXAMPLES = int(os.environ.get("BXB_FUZZ_EXAMPLES", "0"))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    return make_workspace(tmp_path_factory.mktemp("cli-fuzz"))


def test_every_command_is_fuzzed(workspace: Workspace) -> None:
    """A command added to `bxb` without a good line in cli_args.good_arguments would never be
    fuzzed: each one has a line (but the servers', which serve until stopped)."""
    fuzzed = {name.split(" -")[0] for name in good_arguments(workspace)}
    assert sorted(set(commands()) - set(SKIPPED) - fuzzed) == []


def test_bad_arguments_to_every_command_are_refused_cleanly(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = workspace
    monkeypatch.chdir(ws.folder)  # a relative path a command writes lands where it is seen
    every = list(cases(ws))
    slots = len({case.slot for case in every})
    picked = every if len(every) <= EXAMPLES else sample(every, max(1, EXAMPLES // slots))
    tally = Tally()
    for case in picked:
        run_case(case, ws, tally)
    _check("cli arguments", tally)
