"""``bxb play`` at a table, through real pseudo-terminals: two sessions on one battle, Ctrl-C and
a closed terminal in the middle of a command, completion, seeded dice shown."""

from __future__ import annotations

import itertools
import random
import re
import sys
from pathlib import Path
from uuid import UUID

from play_helpers import SCENARIOS, Player, setup_file
from test_play_live import Pilot, decide, fingerprint

from blowbyblow.domain.core import CommandIssued, DiceRolled
from blowbyblow.replay.battles.record import record
from blowbyblow.replay.engine.dice import ListedDice, seeded_roll
from blowbyblow.replay.engine.scenario import load_scenario
from blowbyblow.replay.engine.typed import format_command
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore

RULESET = "necromunda-2023"


def new_battle(db: Path, folder: Path) -> UUID:
    """A physical-dice battle with no command yet, from the example's setup."""
    scenario = load_scenario(setup_file(RULESET, folder), needs_actions=False)
    return record(BattleStore(db), scenario, dice=ListedDice([]), quiet=True).battle


def first_command() -> str:
    return format_command(load_scenario(SCENARIOS / f"{RULESET}.toml").commands[0])


def test_two_sessions_one_command_lands_the_other_is_told_and_rereads(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    battle = new_battle(db, tmp_path)
    sessions = [Player(db, "--battle", str(battle)) for _ in range(2)]
    pilots = [Pilot(s, random.Random(n), mistype=False) for n, s in enumerate(sessions)]
    for session, pilot in zip(sessions, pilots, strict=True):
        session.wait(r"\ncommand 1>")
        session.type(first_command())
        while True:  # every die typed, up to the last check before writing
            m = pilot.until_prompt()
            if m["confirm"]:
                break
            if m["dice"]:
                pilot.roll(m, take_voided=False)
            else:
                session.type("")
    for session in sessions:  # both press Enter at once
        session.child.sendline("")
    outcomes = [
        s.wait(r"recorded command 1|not written: another session recorded").group(0)
        for s in sessions
    ]
    assert sorted(outcomes) == ["not written: another session recorded", "recorded command 1"]
    stale = sessions[outcomes.index("not written: another session recorded")]
    winner = sessions[outcomes.index("recorded command 1")]
    stale.wait(r"recorded meanwhile by another session")
    stale.wait(r"Command 1: charge")  # it shows what the other played
    stale.wait(r"1 command\(s\) played")
    stale.wait(r"\ncommand 2>")
    events = [e.event for e in BattleStore(db).read(battle)]
    assert sum(isinstance(e, CommandIssued) for e in events) == 1, "nothing doubled"
    typed = [e.values for e in events if isinstance(e, DiceRolled)]
    winner_text = winner.text
    assert all(" ".join(map(str, v)) in winner_text for v in typed), "the winner's dice landed"

    # the stale session goes on from what it re-read: its next command lands as command 2
    number, _ = decide(RULESET, stale.text)
    stale.type(str(number))
    assert pilots[sessions.index(stale)].answer()["next"] == "3"
    events = [e.event for e in BattleStore(db).read(battle)]
    assert [e.index for e in events if isinstance(e, CommandIssued)] == [1, 2]
    assert verify_battle(BattleStore(db), battle).ok
    winner.wait(r"\ncommand 2>")  # each at its prompt, then Ctrl-D
    for session in sessions:
        session.child.sendeof()
        assert session.end() == 0


def test_ctrl_c_or_a_closed_terminal_in_a_command_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    battle = new_battle(db, tmp_path)
    before = fingerprint(db, battle)
    table = Player(db, "--battle", str(battle))
    pilot = Pilot(table, random.Random(1), mistype=False)
    table.wait(r"\ncommand 1>")
    table.type(first_command())
    m = pilot.answer(stop_at_input=True)
    assert m["dice"], m.group(0)
    pilot.roll(m, take_voided=False)  # one roll typed, then Ctrl-C at the next
    assert pilot.answer(stop_at_input=True)["dice"]
    table.interrupt()
    table.wait("command abandoned: nothing of it was written")
    table.wait(r"\ncommand 1>")
    assert fingerprint(db, battle) == before
    table.type(first_command())
    assert pilot.answer(stop_at_input=True)["dice"]
    table.hang_up()  # the terminal closes (SIGHUP) in the middle of the command
    assert not table.child.isalive()
    assert fingerprint(db, battle) == before


def test_completion_offers_commands_fields_and_the_values_the_rules_allow(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    battle = new_battle(db, tmp_path)
    table = Player(db, "--battle", str(battle))
    table.wait(r"\ncommand 1>")
    table.child.send("cha\t")
    table.wait(r"charge")
    table.child.send(" att\t")
    table.wait(r"attacker=")
    table.child.send("gr\t")
    table.wait(r"ax")
    table.child.send(" targets=\t")  # two targets allowed: the menu shows both
    table.wait(r"nyx[\s\S]*sera|sera[\s\S]*nyx")
    table.child.sendline("sera")
    # the line completed is the command given: "charge attacker=grax targets=sera"
    table.wait(r"Command 1: charge attacker=grax targets=sera\n")
    table.wait(r"type \d values? 1-6")
    table.interrupt()
    table.wait("nothing of it was written")
    table.wait(r"\ncommand 1>")
    table.child.sendeof()
    assert table.end() == 0


def test_seeded_dice_are_rolled_and_shown(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    table = Player(db, str(setup_file(RULESET, tmp_path)), "--dice", "seed:table-7")
    table.wait(r"\ncommand 1>")
    table.type(first_command())
    shown = table.wait(r"rolled (\d)D6 for [^\n]*: ([\d ]+) \(seeded, (c1/\S+)\)")
    while True:  # no die is asked for; a question (if any) at its default
        m = table.wait(r"recorded command 1|Enter: record command 1[^\n]*>|\(Enter: [^)\n]*\):")
        if m.group(0) == "recorded command 1":
            break
        table.type("")
    [info] = BattleStore(db).battles()
    report = verify_battle(BattleStore(db), info.battle)
    assert report.ok and report.dice_checked > 0
    values = tuple(int(v) for v in shown.group(2).split())
    assert values == seeded_roll("table-7", shown.group(3), int(shown.group(1)), 6)
    table.wait(r"\ncommand 2>")
    table.child.sendeof()
    assert table.end() == 0
    assert re.search(r"1 command\(s\) played", table.text)


def test_the_readmes_first_play_command(tmp_path: Path) -> None:
    """`bxb play cli/scenarios/necromunda-2023.toml --dice physical`, as the README's tour gives
    it: the file's two actions are played first (their dice typed), then the prompt."""
    readme = (SCENARIOS.parents[1] / "README.md").read_text()
    line = re.search(r"^bxb play (cli/scenarios/\S+) --dice physical", readme, re.M)
    assert line is not None
    table = Player(
        tmp_path / "t.sqlite", str(SCENARIOS.parents[1] / line.group(1)), "--dice", "physical"
    )
    pilot = Pilot(table, random.Random(3), mistype=False)
    assert pilot.answer()["next"] == "3"
    assert "Command 2: charge attacker=sera targets=grax weapons=whip" in table.text
    table.child.sendeof()
    assert table.end() == 0


def test_bxb_log_strikes_a_voided_command_through_on_a_terminal(tmp_path: Path) -> None:
    import pexpect

    from blowbyblow.replay.battles.record import void_command
    from blowbyblow.replay.store.log import BattleStore as Store

    db = tmp_path / "t.sqlite"
    scenario = load_scenario(SCENARIOS / f"{RULESET}.toml")
    battle = record(Store(db), scenario, quiet=True).battle
    void_command(Store(db), battle, command=2, by="judge", reason="wrong charge")
    shown = pexpect.run(
        f"{Path(sys.executable).parent / 'bxb'} --db {db} log", encoding="utf-8", timeout=20
    )
    assert isinstance(shown, str)
    struck = [line for line in shown.splitlines() if "\x1b[9m" in line]  # SGR 9: strike
    assert struck and all("[voided]" not in line for line in struck)
    lines = shown.splitlines()
    first = lines.index(struck[0])
    entry = [
        lines[first],
        *itertools.takewhile(lambda x: x.startswith(" " * 7), lines[first + 1 :]),
    ]
    said = " ".join(" ".join(entry).split())  # the entry, wrapped at the terminal's width
    assert "voided at" in said and "wrong charge" in said
    assert "Command 2 (position" in shown and "voided by judge: wrong charge" in shown
