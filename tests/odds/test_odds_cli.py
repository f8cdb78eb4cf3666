"""``bxb odds`` and ``bxb luck`` as a user runs them: every game system's example scenario, a
recorded battle, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.replay.store.log import BattleStore

runner = CliRunner()
SCENARIOS = Path(__file__).resolve().parents[2] / "cli" / "scenarios"
FAST = ("--budget", "400", "--samples", "150")


def bxb(db: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--db", str(db), "--log-level", "warning", *args])
    return result.exit_code, result.output


def demo(db: Path, ruleset: str) -> str:
    """Record the system's demo; its battle id."""
    assert bxb(db, "demo", "--ruleset", ruleset)[0] == 0
    return str(json.loads(bxb(db, "battles", "--json")[1].splitlines()[-1])["battle"])


@pytest.mark.parametrize("name", sorted(p.name for p in SCENARIOS.glob("*.toml")))
def test_odds_of_every_systems_example_name_their_method(tmp_path: Path, name: str) -> None:
    code, out = bxb(tmp_path / "b.sqlite", "odds", str(SCENARIOS / name), *FAST, "--json")
    assert code == 0, out
    odds = json.loads(out)
    assert odds["method"] in ("exact", "monte-carlo")
    if odds["method"] == "monte-carlo":
        assert odds["samples"] == 150 and odds["seed"] and "400 runs" in odds["note"]
    assert odds["units"] and odds["sides"]
    for unit in odds["units"]:
        assert abs(sum(s["p"]["value"] for s in unit["status"]) - 1) < 1e-9
    code, text = bxb(tmp_path / "b.sqlite", "odds", str(SCENARIOS / name), *FAST)
    assert code == 0, text
    assert ("exact:" if odds["method"] == "exact" else "Monte Carlo:") in text
    assert "fighters and units" in text and "█" in text


def test_odds_of_a_recorded_command_and_the_luck_of_its_battle(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    battle = demo(db, "asl")
    code, out = bxb(db, "odds", "--battle", battle, "--position", "40", "--json")
    assert code == 0, out
    odds = json.loads(out)
    assert odds["command"] == 2 and odds["method"] == "exact" and odds["policy"] == "recorded"
    assert {s["side"] for s in odds["happened"]["sides"]} == {"German", "Russian"}
    code, out = bxb(
        db, "odds", "--battle", battle, "--position", "45", "--policy", "best-for:German"
    )
    assert code == 0 and "choices: best-for:German" in out and "what the dice gave" in out
    code, out = bxb(db, "luck", "--rolls", "--budget", "100", "--samples", "4")
    assert code == 0, out
    assert "luck percentile" in out and "CC DR of attack 1" in out and "~" in out
    code, out = bxb(db, "luck", "--all", "--json", "--budget", "100", "--samples", "4")
    luck = json.loads(out)
    assert {s["side"] for s in luck["sides"]} == {"German", "Russian"}


def test_odds_of_a_live_battles_next_command(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    battle = demo(db, "gangfight")
    nxt = '{"type": "power-attack", "attacker": "regular", "target": "brave"}'
    code, out = bxb(db, "odds", "--battle", battle, "--next", nxt, "--json")
    assert code == 1 and out.startswith("error: ")  # the brave is Incapacitated by now...
    code, out = bxb(db, "odds", "--battle", battle, "--next", '{"type": "new-turn"}', "--json")
    assert code == 0, out
    assert json.loads(out)["command"] == 8


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        ((), 2, "give a scenario FILE, --battle ID or --ruleset ID"),
        (("FILE", "--position", "3"), 2, "--position goes with --battle"),
        (("FILE", "--next", "{}"), 2, "--next with --battle or --ruleset"),
        (("FILE", "--set", "a=1"), 2, "--set goes with --ruleset"),
        (("--battle", "x"), 2, "give --position N"),
        (("FILE", "--budget", "0"), 2, "--budget must be 1 to 1,000,000"),
        (("FILE", "--budget", str(2**64)), 2, "--budget must be 1 to 1,000,000"),  # for ever
        (("FILE", "--samples", "9" * 30), 2, "--samples 0 to 1,000,000"),
        (("FILE", "--command", "9"), 1, "actions 1 to 1, not 9"),
        (("FILE", "--policy", "kindest"), 1, "policy 'kindest'"),
        (("FILE", "--policy", "best-for:elves"), 1, "no side 'elves'"),
        (("FILE", "--until", "Lunch"), 1, "Lunch is not an event of asl"),
        (("nowhere.toml",), 2, "cannot read"),  # a file not there: a usage error
        (("--battle", "nope", "--position", "2"), 2, "no battle"),
        (("--battle", "BATTLE", "--position", "999"), 2, "has events 1 to"),
        (("--battle", "BATTLE", "--next", "{"), 1, "--next: not a gangfight command"),
    ],
)
def test_bad_input_gets_one_error_line(
    tmp_path: Path, args: tuple[str, ...], code: int, says: str
) -> None:
    db = tmp_path / "b.sqlite"
    battle = demo(db, "gangfight")
    scenario = tmp_path / "one.toml"
    scenario.write_text(
        (SCENARIOS / "asl.toml").read_text().split("[[actions]]")[0]
        + "[[actions]]"
        + (SCENARIOS / "asl.toml").read_text().split("[[actions]]")[1]
    )
    real = [str(scenario) if a == "FILE" else battle if a == "BATTLE" else a for a in args]
    got, out = bxb(db, "odds", *real)
    assert got == code, out
    assert out.startswith("error: ") and says in out and out.count("\n") == 1


def test_luck_refuses_what_it_cannot_weigh(tmp_path: Path) -> None:
    db = tmp_path / "empty.sqlite"
    code, out = bxb(db, "luck", "--all")  # no store there: named, and not made
    assert code == 1 and "no store at" in out and not db.exists()
    BattleStore(db)  # an empty store
    code, out = bxb(db, "luck", "--all")
    assert code == 1 and out.startswith("error: ") and "no battles" in out
    code, out = bxb(db, "luck")
    assert code == 2 and out.startswith("error: ")
    code, out = bxb(db, "luck", "--samples", "0")
    assert code == 2 and "--samples" in out
    for huge in (("--samples", "10001"), ("--budget", str(2**64))):  # would run for ever
        code, out = bxb(db, "luck", *huge)
        assert code == 2 and "--samples 1 to 10,000" in out, out
