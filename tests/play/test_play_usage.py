"""``bxb play`` refusing what it cannot do: one ``error:`` line, nothing written. Run without a
terminal (standard input a pipe), as a script would run it."""

from __future__ import annotations

from pathlib import Path

from play_helpers import SCENARIOS, setup_file
from typer.testing import CliRunner

from blowbyblow.cli.main import app
from blowbyblow.replay.battles.record import record, seal_battle
from blowbyblow.replay.engine.dice import ListedDice
from blowbyblow.replay.engine.scenario import load_scenario
from blowbyblow.replay.evidence.seals import load_private_key, new_keys
from blowbyblow.replay.store.log import BattleStore


def bxb(db: Path, *args: str, given: str = "") -> tuple[int, str]:
    result = CliRunner().invoke(app, ["--db", str(db), *args], input=given)
    return result.exit_code, result.output


def one_error(out: str) -> str:
    errors = [line for line in out.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "Traceback" not in out, out
    return errors[0]


def test_a_setup_or_a_battle_not_both_nor_neither(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    code, out = bxb(db, "play")  # neither: not told "not both"
    said = one_error(out)
    assert code == 2 and said.endswith(
        "give a setup file to start a battle, or --battle ID to resume one"
    )
    code, out = bxb(db, "play", str(SCENARIOS / "asl.toml"), "--battle", "x")
    assert code == 2 and "(not both)" in one_error(out)
    code, out = bxb(db, "play", str(tmp_path / "missing.toml"))
    assert code == 2 and "cannot read" in one_error(out)
    code, out = bxb(db, "play", str(SCENARIOS / "asl.toml"), "--dice", "values:1,2")
    assert code == 2 and "--dice: expected physical or seed:TEXT" in one_error(out)
    assert BattleStore(db).battles() == []


def test_a_battle_keeps_its_dice_and_a_sealed_one_takes_no_command(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite"
    scenario = load_scenario(setup_file("wh40k-2e", tmp_path), needs_actions=False)
    battle = record(BattleStore(db), scenario, dice=ListedDice([]), quiet=True).battle
    code, out = bxb(db, "play", "--battle", str(battle), "--dice", "seed:7")
    assert code == 2 and "was started with physical dice" in one_error(out)
    version = BattleStore(db).version(battle)
    private = new_keys(tmp_path / "keys").private
    seal_battle(BattleStore(db), battle, load_private_key(private))
    code, out = bxb(db, "play", "--battle", str(battle))
    assert code == 1 and "is sealed" in one_error(out)
    assert BattleStore(db).version(battle) == version + 1  # the seal alone


def test_commands_from_a_pipe(tmp_path: Path) -> None:
    """Without a terminal the prompts read plain lines: a script can play a battle."""
    db = tmp_path / "b.sqlite"
    setup = setup_file("wh40k-2e", tmp_path)
    code, out = bxb(
        db,
        "play",
        str(setup),
        "--dice",
        "physical",
        given="charge model=gorg target=varro\ncharge model=snagga target=varro\n",
    )
    assert code == 0, out
    assert "recorded command 1" in out and "recorded command 2" in out
    assert "2 command(s) played" in out


def test_an_opening_abandoned_leaves_no_store_it_made(tmp_path: Path) -> None:
    """`bxb play SETUP --db NEW` whose opening is abandoned (its input ends at a question of the
    setup's actions): nothing written, and the store it made on the way is gone again; a store
    that was there before stays."""
    new = tmp_path / "new.sqlite"
    code, out = bxb(new, "play", str(SCENARIOS / "necromunda-2023.toml"), "--dice", "seed:p")
    assert code == 1 and "abandoned: nothing of the opening was written" in one_error(out)
    assert not new.exists() and list(tmp_path.iterdir()) == []
    kept = tmp_path / "kept.sqlite"
    BattleStore(kept)
    code, out = bxb(kept, "play", str(SCENARIOS / "necromunda-2023.toml"), "--dice", "seed:p")
    assert code == 1 and kept.exists() and BattleStore(kept).battles() == []


def test_a_negative_number_at_the_prompt_is_a_number_refused(tmp_path: Path) -> None:
    """`-1` at the prompt is a command's number, told what the table offers (as `0` and `99`
    are), not a command type the game lacks; `flag -1` goes to the door, which names it."""
    db = tmp_path / "b.sqlite"
    setup = setup_file("wh40k-2e", tmp_path)
    code, out = bxb(db, "play", str(setup), "--dice", "physical", given="-1\nflag -1 r\n0\n")
    assert code == 0, out
    assert "no command -1: choose 1 to " in out and "no command 0: choose 1 to " in out
    assert "is not a command of" not in out and "flag which command?" not in out
    assert "not flagged: command: " in out


def test_a_flag_of_no_such_command_is_refused_before_why_is_asked(tmp_path: Path) -> None:
    """`flag N` with no reason names a command that does not stand: refused at once, without
    asking why first (the answer would be thrown away)."""
    db = tmp_path / "b.sqlite"
    setup = setup_file("wh40k-2e", tmp_path)
    code, out = bxb(db, "play", str(setup), "--dice", "physical", given="flag 1\nflag 99\n")
    assert code == 0, out
    assert "why?" not in out, out
    assert out.count("not flagged: command: the battle has no command yet") == 2, out
