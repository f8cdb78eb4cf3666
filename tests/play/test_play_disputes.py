"""A dispute at a ``bxb play`` table, through real pseudo-terminals (docs/judging.md, Disputes):
a player flags a command at the prompt; the judge forks the battle meanwhile and the session
goes on in the child, saying so in one line; ``bxb play --battle PARENT`` in a new process goes
on in the child too; what is played there is the child's, and both battles verify."""

from __future__ import annotations

import random
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from play_helpers import Player
from test_play_live import Pilot

from blowbyblow.domain.core import CommandIssued
from blowbyblow.domain.judging import CommandFlagged, Rewound
from blowbyblow.projections.disputes import commands_played
from blowbyblow.replay.battles.fork import Judge, fork
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
