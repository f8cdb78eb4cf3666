"""Quick odds, "this profile against that one" with no scenario file (replay/odds/quick.py):
``bxb odds --ruleset ID --set PATH=VALUE`` weighs what a scenario file with the same setup and
command weighs; a changed profile changes the odds; a bad path or value is one line naming it.
The server's quick odds: tests/web/test_quick_odds.py."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from test_odds_cli import bxb

from blowbyblow.replay.engine.codec import encode_json
from blowbyblow.replay.odds.explore import HowToExplore, Policy

from bxbtest import quick_by_hand, quick_demo_data

FAST = ["--budget", "300", "--samples", "400"]


def test_a_profile_changed_on_the_command_line_is_the_scenario_files(tmp_path: Path) -> None:
    setup, command = quick_demo_data()
    weak = copy.deepcopy(setup)
    weak["fighters"][0]["profile"]["att"] = 1
    expected = quick_by_hand(
        weak, command, HowToExplore(budget=300, samples=400, policy=Policy(name="scripted"))
    )
    code, out = bxb(
        tmp_path / "b.sqlite", "odds", "--ruleset", "gangfight",
        "--set", "fighters[0].profile.att=1", *FAST, "--json",
    )  # fmt: skip
    assert code == 0, out
    assert json.loads(out) == json.loads(encode_json(expected))
    # ... and the profile matters: the demo's own attacks give other odds
    code, stock = bxb(tmp_path / "b.sqlite", "odds", "--ruleset", "gangfight", *FAST, "--json")
    assert code == 0, stock
    hits = {
        o: next(t for t in json.loads(o)["tallies"] if t["name"] == "hits") for o in (out, stock)
    }
    assert hits[out]["expected"]["value"] < hits[stock]["expected"]["value"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--set", "fighters[9].profile.att=1"], "fighters[9].profile.att: [9] is past the 3"),
        (["--set", 'fighters[0].profile.att="x"'], "fighters[0].profile.att: Expected `int`"),
        (["--set", "fighters..ws=1"], "expected a field path"),
        (["--set", "nothing"], "expected PATH=VALUE"),
        (["--next", "{not json"], "--next: not JSON"),
        (["--command", "99"], "--command: the gangfight demo has actions 1 to"),
    ],
)
def test_a_bad_quick_odds_argument_is_one_line(tmp_path: Path, args: list[str], said: str) -> None:
    code, out = bxb(tmp_path / "b.sqlite", "odds", "--ruleset", "gangfight", *args, *FAST)
    assert code != 0
    assert out.strip().count("\n") == 0 and said in out, out
