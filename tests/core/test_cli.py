"""The bxb command line, as a user runs it, on a SQLite file."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.core import DiceRolled
from blowbyblow.replay.store.log import BattleStore

from bxbtest import RULESET_IDS, tamper

runner = CliRunner()
SCENARIOS = Path(__file__).resolve().parents[2] / "cli" / "scenarios"


def bxb(db: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--db", str(db), "--log-level", "warning", *args])
    return result.exit_code, result.output


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_demo_log_at_and_verify(tmp_path: Path, ruleset_id: str) -> None:
    db = tmp_path / "b.sqlite"
    code, out = bxb(db, "demo", "--ruleset", ruleset_id)
    assert code == 0, out
    assert "verify OK" in out
    code, out = bxb(db, "log", "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["position"] for line in lines] == list(range(1, len(lines) + 1))
    assert lines[0]["type"] == "BattleStarted"
    rule_steps = [line for line in lines if "rule" in line]
    assert rule_steps and all(line["rule"] for line in rule_steps)
    assert {line["type"] for line in lines} >= {"CommandIssued"}
    code, out = bxb(db, "at", str(len(lines) // 2), "--json")
    assert code == 0 and json.loads(out)["position"] == len(lines) // 2
    code, out = bxb(db, "at", str(len(lines) + 1))
    assert code == 2 and f"events 1 to {len(lines)}" in out
    code, out = bxb(db, "verify")
    assert code == 0 and "verify OK" in out


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_demo_tells_the_battle_as_log_reads_it_back(tmp_path: Path, ruleset_id: str) -> None:
    """The account printed live is the account read back: the same lines, rulings and all."""
    db = tmp_path / "b.sqlite"
    code, live = bxb(db, "demo", "--ruleset", ruleset_id)
    assert code == 0, live
    code, read_back = bxb(db, "log")
    assert code == 0, read_back
    told = read_back.strip().splitlines()
    assert len(told) > 10 and live.strip().splitlines()[: len(told)] == told


def test_verify_checks_every_battle_and_names_the_edited_event(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    for ruleset_id in RULESET_IDS:
        assert bxb(db, "demo", "--ruleset", ruleset_id)[0] == 0
    code, out = bxb(db, "verify")
    assert code == 0 and f"{len(RULESET_IDS)} of {len(RULESET_IDS)} battles verified" in out
    store = BattleStore(db)
    battle = store.battles()[0].battle
    target = next(e for e in store.read(battle) if isinstance(e.event, DiceRolled))
    tamper(str(db), str(battle), target.position, lambda ev: ev.__setitem__("values", ["six"]))
    code, out = bxb(db, "verify")
    assert code == 1
    assert f"position {target.position}: cannot be read" in out
    assert f"{len(RULESET_IDS) - 1} of {len(RULESET_IDS)} battles verified" in out


def test_record_refuses_a_bad_file_naming_the_field_and_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    for ruleset_id in RULESET_IDS:
        data = tomllib.loads((SCENARIOS / f"{ruleset_id}.toml").read_text())
        bad = tmp_path / f"{ruleset_id}-bad.toml"
        text = (SCENARIOS / f"{ruleset_id}.toml").read_text()
        bad.write_text(text + '\n[[actions]]\ntype = "no-such-command"\n')
        code, out = bxb(db, "record", str(bad))
        assert code == 2
        assert f"actions[{len(data['actions'])}]" in out and "no-such-command" in out
        bad.write_text("fightrs = 3\n" + text)
        code, out = bxb(db, "record", str(bad))
        assert code == 2 and "fightrs" in out
    assert BattleStore(db).battles() == []


def test_record_a_scenario_file_with_seeded_dice(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    ruleset_id = RULESET_IDS[0]
    code, out = bxb(db, "record", str(SCENARIOS / f"{ruleset_id}.toml"), "--quiet")
    assert code == 0, out
    code, out = bxb(db, "battles", "--json")
    assert json.loads(out.splitlines()[0])["ruleset"] == ruleset_id
    code, out = bxb(db, "rulesets", "--json")
    assert {r["id"] for r in json.loads(out)} == set(RULESET_IDS)


def test_every_rule_step_is_logged_as_json_when_asked(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "--db",
            str(tmp_path / "b.sqlite"),
            "--log-json",
            "--log-level",
            "info",
            "demo",
            "--ruleset",
            RULESET_IDS[0],
        ],
    )
    assert result.exit_code == 0
    logged = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
    rule_steps = [entry for entry in logged if "rule" in entry]
    code, out = bxb(tmp_path / "b.sqlite", "log", "--json")
    assert code == 0
    in_log = [json.loads(line) for line in out.splitlines()]
    # Every event after the first, and every rule step with its rule, was logged as adjudicated.
    assert [e["position"] for e in logged] == [e["position"] for e in in_log[1:]]
    assert [e["rule"] for e in rule_steps] == [e["rule"] for e in in_log if "rule" in e]
    assert all(e["level"] == "info" and e["event"] for e in logged)


def test_an_illegal_action_anywhere_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    bad = tmp_path / "illegal.toml"
    text = (SCENARIOS / "necromunda-2023.toml").read_text()
    bad.write_text(
        text + '\n[[actions]]\ntype = "fight"\nattacker = "nobody"\ntargets = ["krug"]\n'
    )
    code, out = bxb(db, "record", str(bad))
    assert code == 2 and "nobody" in out and "N23" in out
    assert BattleStore(db).battles() == []


def test_log_and_export_say_in_one_line_that_a_tampered_battle_does_not_verify(
    tmp_path: Path,
) -> None:
    db = tmp_path / "b.sqlite"
    assert bxb(db, "demo")[0] == 0
    store = BattleStore(str(db))
    battle = store.battles()[-1].battle
    clean = runner.invoke(app, ["--db", str(db), "-q", "log"])
    assert clean.exit_code == 0 and "does not verify" not in clean.stderr
    target = next(e for e in store.read(battle) if isinstance(e.event, DiceRolled))
    tamper(
        str(db),
        str(battle),
        target.position,
        lambda ev: ev.__setitem__("values", [v % 6 + 1 for v in ev["values"]]),
    )
    for command in (["log"], ["export"]):
        result = runner.invoke(app, ["--db", str(db), "-q", *command])
        assert result.exit_code == 0, result.output
        warnings = [ln for ln in result.stderr.splitlines() if "does not verify" in ln]
        assert len(warnings) == 1 and f"position {target.position}" in warnings[0]
    logged = runner.invoke(app, ["--db", str(db), "-q", "log"]).stdout.splitlines()
    marked = [ln for ln in logged if ln[5:7] == "!!"]
    assert [int(ln[:5]) for ln in marked] == [target.position]


@pytest.mark.parametrize("hours", ["-5", "nan"])
def test_battles_refuses_hours_that_are_no_duration(tmp_path: Path, hours: str) -> None:
    """A negative --abandoned-after (or nan) was taken: a battle played a minute ago was listed
    as abandoned, a typo's answer given as the store's."""
    db = tmp_path / "b.sqlite"
    bxb(db, "demo")
    result = runner.invoke(app, ["--db", str(db), "battles", "--abandoned-after", hours])
    assert result.exit_code == 2, result.output
    assert "error: --abandoned-after: expected hours, 0 or more" in result.output
    assert "abandoned" not in result.output.replace("--abandoned-after", "")
    code, out = bxb(db, "battles", "--json", "--abandoned-after", "0")
    assert code == 0 and json.loads(out)["status"] == "abandoned"  # 0: at once, as before
