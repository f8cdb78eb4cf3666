"""`-` is standard input or output for every command that takes a file, where that makes sense:
a scenario (record, odds), an export (export -o, verify --file, import), receipts (verify
--receipt), a published root (root --since), a proof (check-proof), a template or an example (new,
examples). Where standard input is the table's prompt (play's setup, record --dice physical) or
standard output the table's screen (play --receipts), `-` is refused in one line. When standard
output carries the data, nothing else is printed on it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from blowbyblow.cli.main import app

from newcomer_helpers import BXB, SCENARIOS, environment

ASL = SCENARIOS / "asl.toml"


class Bxb:
    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.db = str(tmp_path / "b.sqlite")

    def __call__(self, *args: str, stdin: str | bytes = "", code: int = 0) -> Result:
        result = CliRunner().invoke(app, ["--db", self.db, *args], input=stdin)
        assert result.exit_code == code, (args, result.output)
        return result


@pytest.fixture
def bxb(tmp_path: Path) -> Bxb:
    return Bxb(tmp_path)


def test_record_and_odds_read_a_scenario_from_standard_input(bxb: Bxb) -> None:
    recorded = bxb("record", "-", stdin=ASL.read_bytes())
    assert "X3: Ambush" in recorded.stdout
    from_file = bxb("odds", str(ASL))
    assert bxb("odds", "-", stdin=ASL.read_bytes()).stdout == from_file.stdout
    bad = bxb("record", "-", stdin="ruleset = [", code=2)
    assert bad.stderr.startswith("error: standard input: not valid TOML")


def test_export_to_standard_output_verify_and_import_from_standard_input(bxb: Bxb) -> None:
    bxb("demo")
    exported = bxb("export", "-o", "-")
    assert exported.stderr == ""  # the data alone; no "exported ... to" line
    assert exported.stdout == bxb("export").stdout
    assert json.loads(exported.stdout.splitlines()[0])
    assert not (Path.cwd() / "-").exists()  # once a file named "-" was written
    verified = bxb("verify", "--file", "-", stdin=exported.stdout)
    assert verified.stdout.startswith("verify OK:")
    other = str(bxb.tmp / "other.sqlite")
    imported = CliRunner().invoke(app, ["--db", other, "import", "-"], input=exported.stdout)
    assert imported.exit_code == 0 and imported.stdout.startswith("imported battle")
    tampered = exported.stdout.replace('"hit"', '"HIT"', 1)
    refused = CliRunner().invoke(app, ["--db", other, "verify", "--file", "-"], input=tampered)
    assert refused.exit_code == 1


def test_export_piped_into_verify_through_the_console_script(tmp_path: Path) -> None:
    """The same through real pipes: `bxb export -o - | bxb verify --file -`."""
    env = environment(BXB_DB=str(tmp_path / "b.sqlite"))
    subprocess.run([BXB, "-q", "demo"], env=env, check=True, capture_output=True)
    exported = subprocess.run([BXB, "export", "-o", "-"], env=env, capture_output=True, check=True)
    verified = subprocess.run(
        [BXB, "verify", "--file", "-"],
        input=exported.stdout,
        env=environment(BXB_DB=str(tmp_path / "empty.sqlite")),
        capture_output=True,
    )
    assert verified.returncode == 0, verified.stderr
    assert verified.stdout.startswith(b"verify OK:")


def test_receipts_roots_and_proofs_from_standard_input(bxb: Bxb) -> None:
    bxb("demo")
    key = bxb.tmp / "keys" / "judge.key"
    bxb("keys", "new", "--dir", str(key.parent))
    receipt = bxb("receipt", "--key", str(key)).stdout
    held = bxb("verify", "--receipt", "-", stdin=receipt)
    assert "receipt" in held.stdout and "OK" in held.stdout
    forged = receipt.replace(receipt.split()[3], "0" * 64, 1)
    assert bxb("verify", "--receipt", "-", stdin=forged, code=1).exit_code == 1
    published = bxb("root", "--json").stdout
    since = bxb("root", "--since", "-", stdin=published)
    assert json.loads(since.stdout)["kind"] == "consistency"
    battle = json.loads(bxb("battles", "--json").stdout.splitlines()[0])["battle"]
    proof = bxb("root", "--proof", battle).stdout
    checked = bxb("check-proof", "-", stdin=proof)
    assert checked.stdout.startswith("proof OK")
    assert bxb("check-proof", "-", stdin="nonsense", code=1).stdout.startswith("proof FAILED")


def test_new_and_examples_write_to_standard_output(bxb: Bxb) -> None:
    template = bxb("new", "--ruleset", "asl", "-o", "-")
    assert template.stdout.startswith("#") and template.stderr == ""
    example = bxb("examples", "asl", "-o", "-")
    assert example.stdout == ASL.read_text() and example.stderr == ""


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["play", "-"],
            "error: setup -: the table's commands and dice are typed on standard input",
        ),
        (
            ["play", str(ASL), "--receipts", "-"],
            "error: --receipts -: the receipts are shown on standard output already",
        ),
        (
            ["record", "-", "--dice", "physical"],
            "error: scenario -: the dice are typed on standard input",
        ),
    ],
)
def test_dash_is_refused_where_standard_input_is_the_prompt(
    bxb: Bxb, args: list[str], said: str
) -> None:
    refused = bxb(*args, stdin=ASL.read_bytes(), code=2)
    assert refused.stderr == f"{said}; name a file\n"
    assert not Path(bxb.db).exists()  # nothing written, not even the store
