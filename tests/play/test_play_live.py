"""``bxb play`` through a real pseudo-terminal, for every game system: a battle played live with
physical dice typed at the prompt, one command at a time, the next one decided from what the
screen shows; a mistyped die typed again before the command is written; the battle picked up
in a new process; a command voided and played again with its dice; a kill -9 in the middle of a
command; then the battle read back (verify, export, import, fold) to the same state."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from uuid import UUID

import pytest
from play_helpers import SCENARIOS, Player, setup_file

from blowbyblow.domain.core import CommandIssued, CommandVoided, DiceRolled
from blowbyblow.projections.battle import fold_battle, standing, voided_commands
from blowbyblow.replay.battles.record import import_battle
from blowbyblow.replay.engine.codec import encode
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.scenario import load_scenario
from blowbyblow.replay.engine.typed import format_command
from blowbyblow.replay.evidence.export import export_battle
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore

SYSTEMS = ["necromunda-2023", "necromunda-legacy", "wh40k-2e", "gangfight", "asl"]

# What each side would rather do, in order, among the commands the rules offer: the choice is
# made from the list the screen shows after the last command, so it follows what happened.
PREFERENCE = {
    "necromunda-2023": ["coup-de-grace", "fight", "charge"],
    "necromunda-legacy": ["coup-de-grace", "fight", "charge"],
    "wh40k-2e": ["fight", "followup", "charge", "breakoff", "endturn"],
    "gangfight": ["stand-up", "fight", "slam", "trample", "power-attack", "move", "new-turn"],
    "asl": ["closecombat"],
}

PROMPT = re.compile(
    r"(?P<dice>(?P<key>c\d+/\S+): [^\n]*?: type (?P<n>\d+) values? 1-(?P<sides>\d+)"
    r"(?: \(Enter: (?P<again>[\d ]+), as in the voided command\))?(?: \(typed before: [\d ]+\))?:)"
    r"|(?P<confirm>Enter: record command (?P<index>\d+) [^\n]*>)"
    r"|(?P<choice>c\d+/\S+: [^\n]*\(Enter: [^)\n]*\):)"
    r"|(?P<pick>(?<=\n)  [\w.]+ \[[^\n]*\] \(Enter: [^)\n]*\):)"
    r"|(?P<main>(?<=\n)command (?P<next>\d+)>)"
    r"|(?P<refused>not allowed: [^\n]*)"
)


@dataclass
class Pilot:
    """Answers a command's prompts as the players at the table would: dice rolled (from a
    seeded generator, so the test is repeatable), each choice at its default."""

    player: Player
    rng: random.Random
    mistype: bool = True  # the first roll of the session is typed wrong once, then corrected
    corrected: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def until_prompt(self) -> re.Match[str]:
        return self.player.wait(PROMPT.pattern)

    def answer(self, *, take_voided: bool = False, stop_at_input: bool = False) -> re.Match[str]:
        """Answer prompts until the main prompt comes back (returned); with ``stop_at_input``,
        return at the first dice or choice prompt instead."""
        while True:
            m = self.until_prompt()
            if m["main"] or m["refused"]:
                return m
            if stop_at_input and (m["dice"] or m["choice"]):
                return m
            if m["dice"]:
                self.roll(m, take_voided)
            elif m["confirm"]:
                self.confirm()
            else:  # a choice or a pick: the default
                self.player.type("")

    def roll(self, m: re.Match[str], take_voided: bool) -> None:
        n, sides = int(m["n"]), int(m["sides"])
        if take_voided and m["again"]:
            self.player.type("")  # Enter: the voided command's dice again
            return
        values = tuple(self.rng.randint(1, sides) for _ in range(n))
        if self.mistype:
            self.mistype = False
            self.player.type(" ".join([str(sides + 1)] * n))  # not a face: refused at once
            self.player.wait("not accepted")
            self.until_prompt()
            wrong = tuple(sides + 1 - v for v in values)  # faces, but not what was rolled
            self.player.type(" ".join(map(str, wrong if wrong != values else values)))
            self.corrected[m["key"]] = values
            return
        self.player.type(" ".join(map(str, values)))

    def confirm(self) -> None:
        if self.corrected and not getattr(self, "_fixed", False):
            self._fixed = True
            shown = self.player.text[: self.player.mark]
            listing = shown[shown.rindex("what was typed for command") :]
            key = next(iter(self.corrected))
            number = re.search(rf"\n\s+(\d+)\. {re.escape(key)} ", listing)
            assert number, listing
            self.player.type(number.group(1))  # type that roll again
            m = self.until_prompt()
            assert m["dice"] and m["key"] == key, m.group(0)
            assert "(typed before: " in m.group(0), "the prompt shows what was typed before"
            self.player.type(" ".join(map(str, self.corrected[key])))
            return
        self.player.type("")  # Enter: record it


def offered(screen: str) -> list[tuple[int, str]]:
    """The commands the last listing on the screen offers: (number, type)."""
    last = max(screen.rfind("commands the rules allow now"), screen.rfind("the rules offer no"))
    listing = screen[last:]
    return [(int(n), kind) for n, kind in re.findall(r"\n\s+(\d+)\. \[[^\]]*\] (\S+)", listing)]


def decide(ruleset: str, screen: str) -> tuple[int, str]:
    """The command to give next, from what the screen shows now."""
    options = offered(screen)
    assert options, f"the rules offer nothing:\n{screen[-2000:]}"
    for wanted in PREFERENCE[ruleset]:
        for number, kind in options:
            if kind == wanted:
                return number, kind
    return options[0]


def fingerprint(db: Path, battle: UUID) -> tuple[int, str]:
    events = BattleStore(db).read(battle)
    return len(events), events[-1].hash.hex()


@pytest.mark.parametrize("ruleset", SYSTEMS)
def test_a_battle_played_live_resumed_corrected_and_read_back(ruleset: str, tmp_path: Path) -> None:
    db = tmp_path / "table.sqlite"
    setup = setup_file(ruleset, tmp_path)
    first = format_command(load_scenario(SCENARIOS / f"{ruleset}.toml").commands[0])
    rng = random.Random(f"table/{ruleset}")

    # Evening one: the first command typed in the syntax, the next decided from the screen.
    table = Player(db, str(setup), "--dice", "physical", "--by", "referee")
    pilot = Pilot(table, rng)
    table.wait(r"\ncommand 1>")
    table.type(first)
    m = pilot.answer()
    assert m["next"] == "2", table.since()
    while pilot.mistype:  # until a command has rolled dice (and a die was typed wrong once)
        number, _ = decide(ruleset, table.text)
        table.type(str(number))
        m = pilot.answer()
        assert m["main"], m.group(0)
    played = int(m["next"]) - 1
    table.child.sendeof()
    assert table.end() == 0
    assert "resume with `bxb play --battle" in table.text
    store = BattleStore(db)
    [info] = store.battles()
    battle = info.battle
    events = [e.event for e in store.read(battle)]
    assert sum(isinstance(e, CommandIssued) for e in events) == played
    # the mistyped roll was typed again before the command was written: only the right one is
    for key, values in pilot.corrected.items():
        assert [e.values for e in events if isinstance(e, DiceRolled) and e.key == key] == [values]

    # Another evening, a new process: a command is started, and the process killed in the middle
    # of it (at its first roll or question): the battle is exactly as it was before it.
    before = fingerprint(db, battle)
    killed = Player(db, "--battle", str(battle)[:8])
    pilot = Pilot(killed, random.Random(f"killed/{ruleset}"), mistype=False)
    killed.wait(r"\ncommand \d+>")
    for _ in range(6):
        number, _ = decide(ruleset, killed.text)
        killed.type(str(number))
        m = pilot.answer(stop_at_input=True)
        if m["dice"] or m["choice"]:
            break
        assert m["main"], f"{m.group(0)}\n{killed.text[-3000:]}"
        before = fingerprint(db, battle)  # it asked nothing, so it was written; try the next
    else:
        pytest.fail(f"no command asked for dice or a choice:\n{killed.text[-3000:]}")
    killed.kill9()
    assert fingerprint(db, battle) == before, "a killed command writes nothing"
    played = sum(isinstance(e.event, CommandIssued) for e in BattleStore(db).read(battle))

    # A third process: a command decided from the screen, voided, and given again with its dice.
    again = Player(db, "--battle", str(battle)[:8], "--by", "referee")
    pilot = Pilot(again, random.Random(f"again/{ruleset}"), mistype=False)
    again.wait(rf"{played} command\(s\) played")
    again.wait(rf"\ncommand {played + 1}>")
    number, kind = decide(ruleset, again.text)
    again.type(str(number))
    assert pilot.answer()["next"] == str(played + 2)
    again.type("undo the wrong unit was moved")
    again.wait(rf"voided command {played + 1} \(the wrong unit was moved\)")
    again.wait(rf"\ncommand {played + 1}>")
    assert decide(ruleset, again.text) == (number, kind), "the same state, the same choice"
    again.type(str(number))
    assert pilot.answer(take_voided=True)["next"] == str(played + 2)
    again.child.sendeof()
    assert again.end() == 0

    # Read back: verify, export, import elsewhere, fold: the battle as played.
    logged = BattleStore(db).read(battle)
    events = [e.event for e in logged]
    [void] = voided_commands(events)
    assert void.by == "referee" and void.reason == "the wrong unit was moved"
    assert isinstance(events[void.voided_at - 1], CommandVoided)
    voided_part = [encode(e) for e in events[void.first - 1 : void.last]]
    replayed_part = [encode(e) for e in events[void.voided_at : void.voided_at + len(voided_part)]]
    assert replayed_part == voided_part, "the same command with the same dice, the same events"
    report = verify_battle(BattleStore(db), battle)
    assert report.ok, report.problem and report.problem.describe()
    assert report.voided == 1 and report.commands == len(
        [e for e in events if isinstance(e, CommandIssued)]
    )
    system = get_game_system(ruleset)
    elsewhere = BattleStore(tmp_path / "elsewhere.sqlite")
    imported = import_battle(elsewhere, export_battle(BattleStore(db), battle))
    assert imported.report.ok and imported.report.voided == 1
    state_here = fold_battle(system, events)
    state_there = fold_battle(system, [e.event for e in elsewhere.read(battle)])
    assert encode(state_here) == encode(state_there)
    without_void = [e for _, e in standing(events)]
    assert encode(fold_battle(system, without_void)) == encode(state_here)
