"""Numbers written as text where ``str.isdigit`` says yes and ``int`` says no: a superscript digit
(``²``) and more digits than ``int`` reads (5000). Each once ended `bxb` with "bxb failed
unexpectedly (ValueError ...)", exit 70 (found by typing ``flag ² why`` at `bxb play`'s prompt).
Each is refused with one error line and nothing written, or read as no number at all."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from fuzz_helpers import bxb, stored_events
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.replay.engine.numbers import whole_number

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "cli" / "scenarios" / "necromunda-2023.toml"
NOT_INT = ("²", "9" * 5000)


def test_whole_number_reads_plain_digits_only() -> None:
    assert [whole_number(t) for t in ("0", " 42 ", "007", "9" * 18)] == [0, 42, 7, int("9" * 18)]
    assert [whole_number(t) for t in ("", "-1", "1.0", "²", "١", "１", "9" * 19, "9" * 5000)] == [
        None
    ] * 8
    assert whole_number("-12", signed=True) == -12 and whole_number("--1", signed=True) is None


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("digits")
    ran = bxb("--db", str(folder / "b.sqlite"), "-q", "record", str(SCENARIO), "--label", "one")
    assert ran.code == 0, ran.err
    assert bxb("keys", "new", "--dir", str(folder / "keys")).code == 0
    receipt = bxb(
        "--db",
        str(folder / "b.sqlite"),
        "receipt",
        "one",
        "--json",
        "--key",
        str(folder / "keys/judge.key"),
    )
    assert receipt.code == 0, receipt.err
    (folder / "receipt.json").write_text(receipt.out)
    return folder


def _refused_cleanly(folder: Path, *args: str, env: dict[str, str] | None = None) -> str:
    before = stored_events(folder / "b.sqlite")
    result = CliRunner(env=env).invoke(app, ["--db", str(folder / "b.sqlite"), *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code in (1, 2), result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    assert stored_events(folder / "b.sqlite") == before
    return errors[0]


@pytest.mark.parametrize("text", NOT_INT, ids=["superscript", "5000 digits"])
def test_command_line_numbers_that_int_refuses(recorded: Path, text: str) -> None:
    said = _refused_cleanly(recorded, "whatif", "one", "--die", f"c2/injury/1={text}")
    assert "--die" in said
    said = _refused_cleanly(recorded, "root", "--since", f"bxb-root-v1 {text} {'0' * 64}")
    assert "SIZE ROOT" in said or "File name too long" in said
    receipt = json.loads((recorded / "receipt.json").read_text())
    (recorded / "bad.json").write_text(json.dumps({**receipt, "position": text}))
    assert "position" in _refused_cleanly(
        recorded, "verify", "one", "--receipt", str(recorded / "bad.json")
    )
    said = _refused_cleanly(
        recorded,
        "fork",
        "--battle",
        "one",
        "--before",
        "2",
        "--die",
        f"c{text}/hit=1",
        "--reason",
        "x",
        "--key",
        str(recorded / "keys/judge.key"),
    )
    assert "key" in said
    assert "TABLE" in _refused_cleanly(recorded, "tables", "revoke", "spring", text)
    said = _refused_cleanly(recorded, "battles", env={"BXB_BUSY_TIMEOUT": text})
    assert "BXB_BUSY_TIMEOUT" in said


@pytest.mark.parametrize("text", NOT_INT, ids=["superscript", "5000 digits"])
def test_a_width_int_refuses_is_no_width(recorded: Path, text: str) -> None:
    result = CliRunner(env={"COLUMNS": text}).invoke(
        app, ["--db", str(recorded / "b.sqlite"), "battles"]
    )
    assert result.exit_code == 0, result.stderr
    assert max(len(line) for line in result.stdout.splitlines()) <= 80


@pytest.mark.parametrize("text", NOT_INT, ids=["superscript", "5000 digits"])
def test_typed_at_the_prompt(recorded: Path, text: str, tmp_path: Path) -> None:
    """An offered command's number and `flag N` at `bxb play`'s prompt: not a number, said so, and
    the session goes on to `quit`."""
    setup = tmp_path / "setup.toml"
    ran = bxb("new", "--ruleset", "necromunda-2023", "-o", str(setup))
    assert ran.code == 0, ran.err
    db = tmp_path / "p.sqlite"
    typed = f"{text}\nflag {text} why\n{text} weapons=axe\nquit\n"
    result = CliRunner().invoke(
        app, ["--db", str(db), "-q", "play", str(setup), "--dice", "seed:x"], input=typed
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "flag which command?" in result.stdout
    assert stored_events(db) == 1  # the battle's start, nothing more


def test_rosters_whose_numbers_int_refuses(tmp_path: Path) -> None:
    """A Yaktribe characteristic and a BattleScribe selection's number: one error line each."""
    yak = json.loads((REPO / "tests/rosters/files/yaktribe/maxs-marauders-157849.json").read_text())
    ganger = next(g for g in yak["gang"]["gangers"] if g["status"] == "Alive")
    for text in NOT_INT:
        ganger["ws"] = text
        (tmp_path / "gang.json").write_text(json.dumps(yak))
        said = _refused_cleanly(
            tmp_path,
            "roster",
            "import",
            str(tmp_path / "gang.json"),
            "--ruleset",
            "necromunda-2023",
            "--tournament",
            "t",
        )
        assert "ws" in said
    with zipfile.ZipFile(REPO / "docs/rosters/iron-fists-battlescribe.rosz") as z:
        (name,) = z.namelist()
        xml = z.read(name).decode()
    for text in NOT_INT:
        (tmp_path / "gang.ros").write_text(
            xml.replace('number="1" type="model"', f'number="{text}" type="model"', 1)
        )
        said = _refused_cleanly(
            tmp_path,
            "roster",
            "import",
            str(tmp_path / "gang.ros"),
            "--ruleset",
            "necromunda-2023",
            "--player",
            "p",
            "--tournament",
            "t",
        )
        assert "number" in said or "model" in said
