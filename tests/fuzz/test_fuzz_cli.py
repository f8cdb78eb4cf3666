"""Every `bxb` command with bad arguments (tests/fuzz/cli_args.py): each accepted, or refused with
one `error:` line and nothing written; none raises, none hangs.

In the suite: a spread of the cases, the same every run (every Nth, a few seconds). By hand:
`python benchmarks/fuzz.py --cli` runs all of them (BXB_FUZZ_EXAMPLES at least their number)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_args import cases, make_workspace, run_case
from fuzz_helpers import Tally
from test_fuzz import _check

EXAMPLES = int(os.environ.get("BXB_FUZZ_EXAMPLES", "0")) or 30


def test_bad_arguments_to_every_command_are_refused_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = make_workspace(tmp_path)
    monkeypatch.chdir(tmp_path)  # a relative path a command writes lands where it is seen
    every = list(cases(ws))
    stride = max(1, len(every) // EXAMPLES)
    tally = Tally()
    for case in every[::stride]:
        run_case(case, ws, tally)
    _check("cli arguments", tally)
