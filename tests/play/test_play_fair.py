"""``bxb play --fair`` and the receipts handed to the table, through a real pseudo-terminal: a
fair battle started with one side's value on the command line and the other's typed at the
prompt once the commitment is shown, its digital dice rolled and shown; picked up in a new
process from the table's copy of the seed, and on "another machine" (no copy) only with the
judge's key; sealed and verified with every die recomputed. Every write hands a receipt; the
receipts kept prove a later truncation. The dice follow every side's value."""

from __future__ import annotations

import random
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from play_helpers import Player, setup_file
from test_play_live import Pilot, decide
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.domain.core import CommandIssued, DiceRolled
from blowbyblow.domain.judging import ContributionGiven
from blowbyblow.replay.battles.record import seal_battle
from blowbyblow.replay.engine.dice import FairDice
from blowbyblow.replay.evidence.fairness import open_fair
from blowbyblow.replay.evidence.receipts import parse_receipts, signature_ok
from blowbyblow.replay.evidence.seals import load_private_key, new_keys, public_hex
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore

from bxbtest import first_action_only

RULESET = "wh40k-2e"  # sides: Ultramarines and Orks; a new turn can always be played
DICE_SHOWN = re.compile(r"rolled (\d+)D(\d+) for [^\n]*: ([\d ]+) \(seeded, (c\d+/\S+)\)")
RECEIPT = re.compile(r"^\s*(bxb-receipt-v1 .+)$", re.M)


def play_one(table: Player, seed: int) -> None:
    """Give the next command the rules offer, answering its questions at their defaults."""
    number, _ = decide(RULESET, table.text)
    table.type(str(number))
    assert Pilot(table, random.Random(seed), mistype=False).answer()["main"]


def bxb(db: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["--db", str(db), "--log-level", "error", *args])
    return result.exit_code, result.output


def test_a_fair_battle_at_the_table_resumed_elsewhere_sealed_and_receipted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # the table's key folder
    keys = new_keys(tmp_path / "config" / "blowbyblow" / "keys")
    db = tmp_path / "table.sqlite"
    kept = tmp_path / "receipts.txt"

    # Evening one: each side types its value once the commitment is on the screen.
    table = Player(
        db, str(setup_file(RULESET, tmp_path)), "--fair", "--receipts", str(kept),
    )  # fmt: skip
    commitment = table.wait(r"secret seed is committed: ([0-9a-f]{64})").group(1)
    table.wait(r"Ultramarines's contribution:")
    table.type("")  # nothing is no value: asked again
    table.wait(r"not accepted: contribution for Ultramarines")
    table.wait(r"Ultramarines's contribution:")
    table.type("for the emperor")
    table.wait(r"Orks's contribution:")
    table.type("waaagh")
    table.wait(r"receipt \(signed by " + public_hex(load_private_key(keys.private))[:16])
    table.wait(r"\ncommand 1>")
    play_one(table, 1)  # a charge
    play_one(table, 2)  # the fight it brings: dice
    table.child.sendeof()
    assert table.end() == 0
    [info] = BattleStore(db).battles()
    battle = info.battle
    logged = BattleStore(db).read(battle)
    assert logged[0].event.dice.commitment == commitment  # type: ignore[attr-defined]
    given = {e.event.side: e.event.value for e in logged if isinstance(e.event, ContributionGiven)}
    assert given == {"Orks": "waaagh", "Ultramarines": "for the emperor"}

    # the dice shown are the ones written, and they are the seed's mixed with both values
    rolled = [e.event for e in logged if isinstance(e.event, DiceRolled)]
    assert rolled, "the first evening rolled no dice"
    shown = {
        m.group(4): tuple(map(int, m.group(3).split())) for m in DICE_SHOWN.finditer(table.text)
    }
    assert shown == {d.key: d.values for d in rolled}
    seed = open_fair(BattleStore(db), battle, key=load_private_key(keys.private)).seed

    def dice(values: dict[str, str]) -> list[tuple[int, ...]]:
        source = FairDice(seed, values)
        return [source.roll(d.key, len(d.values), d.sides, "")[0] for d in rolled]

    assert dice(given) == [d.values for d in rolled]
    assert dice({**given, "Orks": "waaagh!"}) != [d.values for d in rolled]
    assert dice({**given, "Ultramarines": "for the emperor."}) != [d.values for d in rolled]

    # Evening two, a new process: the table's copy of the seed, the same dice for what follows
    again = Player(db, "--battle", str(battle)[:8], "--receipts", str(kept))
    again.wait(rf"fair dice: seed committed {commitment}")
    again.wait(r"\ncommand 3>")
    play_one(again, 3)
    again.child.sendeof()
    assert again.end() == 0

    # Another machine: no copy of the seed and no key folder: refused, nothing written; with the
    # judge's key the seed comes from the escrow in the store
    shutil.rmtree(db.with_suffix(".seeds"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "elsewhere"))
    version = BattleStore(db).version(battle)
    refused = Player(db, "--battle", str(battle)[:8])
    refused.wait(r"error: the seed of fair battle [^\n]* give the judge's key \(--key FILE\)")
    assert refused.end() == 1 and BattleStore(db).version(battle) == version
    judge = Player(db, "--battle", str(battle)[:8], "--key", str(keys.private))
    judge.wait(r"\ncommand 4>")
    play_one(judge, 4)
    assert RECEIPT.search(judge.text), "a receipt signed with the key given"
    judge.child.sendeof()
    assert judge.end() == 0

    # the judge seals it: every die recomputed from the revealed seed and both values
    events = BattleStore(db).read(battle)
    assert sum(isinstance(e.event, CommandIssued) for e in events) == 4
    seal_battle(BattleStore(db), battle, load_private_key(keys.private))
    report = verify_battle(BattleStore(db), battle)
    assert report.ok and report.dice_checked == sum(
        isinstance(e.event, DiceRolled) for e in events
    ), report  # every roll recomputed

    # the receipts kept: one after the start, one after each command of the first two evenings
    # (the judge's process kept none); they hold, and prove a truncation the chain cannot show
    receipts = parse_receipts(kept.read_text())
    issued = [e.position for e in events if isinstance(e.event, CommandIssued)]
    assert [r.position for r in receipts] == [p - 1 for p in issued]
    assert all(signature_ok(r) and r.battle == str(battle) for r in receipts)
    code, out = bxb(db, "verify", str(battle), "--receipt", str(kept))
    assert code == 0 and "4 of 4 receipts hold" in out, out
    with sqlite3.connect(db) as con:  # commands 2 to 4 and the seal deleted, never played
        con.execute(
            "delete from stored_events where originator_id=? and originator_version>?",
            (battle.hex, receipts[1].position),
        )
    code, out = bxb(db, "verify", "--receipt", str(kept))
    assert code == 1 and "truncated" in out and "2 of 4 receipts hold" in out, out


def test_without_a_key_the_table_is_told_once_how_to_get_receipts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "nothing"))
    db = tmp_path / "t.sqlite"
    table = Player(db, str(setup_file(RULESET, tmp_path)), "--dice", "seed:no-key")
    table.wait(r"\(no receipts: no signing key at [^\n]*`bxb keys new`\)")
    table.wait(r"\ncommand 1>")
    play_one(table, 1)
    play_one(table, 2)
    table.child.sendeof()
    assert table.end() == 0
    assert table.text.count("no receipts") == 1 and "bxb-receipt-v1" not in table.text


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--fair", "--dice", "seed:1"], 2, "--fair makes its own secret seed"),
        (["--judge-key", "x25519:00"], 2, "--judge-key and --contribution go with --fair"),
        (["--fair"], 2, "--fair: no judge's escrow key at"),
        (["--fair", "--judge-key", "abcd"], 2, "--judge-key: "),
        (["--fair", "--judge-key", "JUDGE", "--contribution", "orks"], 2, "expected SIDE=VALUE"),
        (["--fair", "--judge-key", "JUDGE", "--contribution", "eldar=x"], 1, "expected one of"),
        (["--key", "/nonexistent/judge.key"], 2, "--key: "),
    ],
)
def test_fair_options_refused_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], code: int, message: str
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "nothing"))
    escrow = new_keys(tmp_path / "judge").escrow
    db = tmp_path / "t.sqlite"
    given = [str(escrow) if a == "JUDGE" else a for a in args]
    got, out = bxb(db, "play", str(setup_file(RULESET, tmp_path)), *given)
    errors = [line for line in out.splitlines() if line.startswith("error: ")]
    assert got == code and len(errors) == 1 and message in errors[0], out
    assert "Traceback" not in out and BattleStore(db).battles() == []


def test_a_battle_keeps_its_dice_when_resumed(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    code, out = bxb(db, "play", str(setup_file(RULESET, tmp_path)), "--dice", "seed:x")
    assert code == 0, out
    [info] = BattleStore(db).battles()
    version = BattleStore(db).version(info.battle)
    for args, message in (
        (["--fair"], "--fair: battle"),
        (["--contribution", "Orks=x"], "--contribution: battle"),
        (["--judge-key", "x25519:00"], "--judge-key: a started battle keeps the escrow"),
    ):
        code, out = bxb(db, "play", "--battle", str(info.battle), *args)
        assert code == 2 and f"error: {message}" in out, out
    assert BattleStore(db).version(info.battle) == version


def test_a_fair_setup_plays_its_actions_first_and_a_walk_out_leaves_the_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    new_keys(tmp_path / "config" / "blowbyblow" / "keys")
    example = str(first_action_only(tmp_path))  # fresh dice: an action every draw plays through
    db = tmp_path / "t.sqlite"
    result = CliRunner().invoke(
        app, ["--db", str(db), "play", example, "--fair"], input="a\nb\n" + "\n" * 30
    )
    assert result.exit_code == 0, result.output
    assert "the setup's 1 action(s) first" in result.output
    [info] = BattleStore(db).battles()
    events = [e.event for e in BattleStore(db).read(info.battle)]
    assert [e.index for e in events if isinstance(e, CommandIssued)] == [1]

    # a side walks away at the prompt: the start stays, and says how to go on
    walked = tmp_path / "w.sqlite"
    code, out = bxb(walked, "play", example, "--fair")
    assert code == 1 and "is started and stays in the store" in out, out
    assert "resume it with `bxb play --battle" in out
    [started] = BattleStore(walked).battles()
    assert BattleStore(walked).version(started.battle) == 2  # the commitment and the escrow


def test_a_fair_command_is_recorded_without_a_second_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fair battle's dice are shown as the command is adjudicated: were the table then asked
    to record it, type a choice again or cancel, it could look at the dice and choose otherwise.
    Its commands are recorded as soon as they are complete. Fails on main d0d6419 (the
    "Enter: record command" prompt after the fight's questions)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    new_keys(tmp_path / "config" / "blowbyblow" / "keys")
    db = tmp_path / "table.sqlite"
    table = Player(db, str(setup_file(RULESET, tmp_path)), "--fair")
    table.wait(r"Ultramarines's contribution:")
    table.type("for the emperor")
    table.wait(r"Orks's contribution:")
    table.type("waaagh")
    table.wait(r"\ncommand 1>")
    for n in (1, 2, 3):
        play_one(table, n)
    table.child.sendeof()
    assert table.end() == 0
    logged = BattleStore(db).read(BattleStore(db).battles()[0].battle)
    assert any(type(e.event).__name__ == "ChoiceMade" for e in logged), "no choice: nothing seen"
    assert "Enter: record command" not in table.text
