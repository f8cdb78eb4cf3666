"""A dispute at a ``bxb play`` table, through real pseudo-terminals (docs/judging.md, Disputes):
a player flags a command at the prompt; the judge forks the battle meanwhile and the session
goes on in the child, saying so in one line; ``bxb play --battle PARENT`` in a new process goes
on in the child too; what is played there is the child's, and both battles verify."""

from __future__ import annotations

import random
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from play_helpers import Player, live_at
from test_play_live import Pilot

from blowbyblow.domain.core import CommandIssued
from blowbyblow.domain.judging import CommandFlagged, Rewound
from blowbyblow.projections.disputes import commands_played
from blowbyblow.replay.battles.battle import Battle
from blowbyblow.replay.battles.fair_start import contribute, start_fair
from blowbyblow.replay.battles.fork import Judge, fork
from blowbyblow.replay.engine.dice import ScriptedChoices
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.evidence.fairness import FairTerms
from blowbyblow.replay.evidence.seals import escrow_key, escrow_public_text
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore

from bxbtest import record_demo


def test_a_flag_at_the_prompt_and_the_table_goes_on_in_the_child(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    store = BattleStore(db)
    parent = record_demo(store, "gangfight").battle  # seeded dice: nothing to type
    player = Player(db, "--battle", str(parent), "--by", "the ogres")
    pilot = Pilot(player, random.Random(1), mistype=False)
    player.wait(r"\ncommand \d+>")
    player.type("flag 3 the orc was out of reach")
    player.wait(r"flagged command 3 at position \d+: a judge is called")
    [flagged] = [e.event for e in store.read(parent) if isinstance(e.event, CommandFlagged)]
    assert (flagged.index, flagged.by, flagged.reason) == (
        3,
        "the ogres",
        "the orc was out of reach",
    )
    player.type("flag 99 no such command")
    player.wait(r"not flagged: command: expected a command that stands, 1 to \d+, not 99")

    # The judge rewinds the battle to just before command 4 while the table waits at its prompt.
    written = store.version(parent)
    before = commands_played([e.event for e in store.read(parent)])[3].first - 1
    forked = fork(
        store,
        parent,
        position=before,
        change=Rewound(),
        judge=Judge("Ana", Ed25519PrivateKey.generate()),
        reason="the orc was out of reach: play again from command 4",
    )
    player.type("state")
    player.wait(
        rf"battle {parent} was superseded by battle {forked.child} \(a judge forked it\): "
        "going on there"
    )
    player.wait(r"\ncommand 4>")
    player.type("1")
    pilot.answer()
    child = [e.event for e in store.read(forked.child)]
    assert sum(isinstance(e, CommandIssued) for e in child) == 4, "command 4 played in the child"
    assert store.version(parent) == written + 1, "the parent holds the ruling, nothing played"
    player.type("quit")
    assert player.end() == 0

    # A new session on the parent goes on in the child, saying so once.
    again = Player(db, "--battle", str(parent))
    again.wait(
        rf"battle {parent} was superseded by battle {forked.child} \(a judge forked it\): "
        "going on there"
    )
    again.wait(rf"resuming battle {forked.child}")
    again.wait(r"\ncommand 5>")
    again.type("quit")
    assert again.end() == 0
    assert verify_battle(store, parent).ok
    report = verify_battle(store, forked.child)
    assert report.ok, report.problem and report.problem.describe()


class Told:
    """A screen that keeps what the session says and leaves at its first prompt."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def say(self, text: str = "") -> None:
        self.lines.append(text)

    def ask(self, message: str, completer: object = None) -> str:
        raise EOFError

    def choose(self, message: str, words: object) -> str:
        raise EOFError


def test_a_session_on_a_fair_battle_forked_sends_the_table_to_give_values(
    tmp_path: Path,
) -> None:
    """A fair battle's child rolls dice of its own, mixed with values its sides give after the
    fork: a session open on the parent names the child and ends, rather than rolling the
    parent's dice in it."""
    store = BattleStore(tmp_path / "f.sqlite")
    key = Ed25519PrivateKey.generate()
    system = get_game_system("wh40k-2e")
    demo = system.demo()
    escrow = escrow_public_text(escrow_key(key))
    battle = start_fair(store, demo, FairTerms(judge_keys=[escrow])).battle
    sides = list(system.view(system.initial_state(demo.setup)).sides)
    contribute(store, battle, {side: f"value of {side}" for side in sides})
    door = Battle(store, key=key)
    for command in demo.commands[:2]:
        door.play(battle, command, dice=None, choices=ScriptedChoices(demo.choices))
    screen = Told()
    live = live_at(door, battle, screen)
    forked = fork(store, battle, position=1, change=Rewound(), judge=Judge("Ana", key), reason="r")
    live.run()
    said = " ".join(" ".join(screen.lines).split())
    assert f"superseded by battle {forked.child}" in said
    assert "its sides give values for its dice first" in said
    assert live.head.id == battle and store.version(forked.child) == len(store.read(forked.child))
