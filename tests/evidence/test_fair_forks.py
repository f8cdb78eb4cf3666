"""A judge's fork of a fair battle (issue 26): no way to re-roll, and its new dice as fair as its
parent's. The child takes every die its parent recorded (a command replayed under another
number keeps its own dice; after the hand-over the same roll gives the parent's values again),
rolls anew only from a seed of its own mixed with values its sides give once the fork is
written, can be sealed, and verify then recomputes every die it drew anew; the parent is sealed
only after its child. Dice worked out here from docs/dice.md's words, not from the code."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from unittest import mock
from uuid import UUID

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from blowbyblow.domain.core import DiceRolled, Event
from blowbyblow.domain.judging import BattleForked, CommandDropped, Rewound
from blowbyblow.projections.disputes import PlayedCommand, commands_played
from blowbyblow.replay.battles import fair_start
from blowbyblow.replay.battles.battle import Battle
from blowbyblow.replay.battles.fork import Judge, fork, live_dice, preview_fork
from blowbyblow.replay.battles.refusals import Refused
from blowbyblow.replay.engine.dice import ScriptedChoices, seeded_roll
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.evidence.fairness import FairTerms
from blowbyblow.replay.evidence.seals import JudgingError, escrow_key, escrow_public_text
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import BattleStore

from evidence_helpers import rewrite

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
JUDGE = Judge("Ana", KEY)
SEED = "ab" * 32  # the table's secret seed, fixed so that every run plays the same battle
VALUES = {"Orks": "waaagh", "Ultramarines": "guilliman"}


def documented_fair_seed(seed: str, contributions: Mapping[str, str]) -> str:
    """bxb-fair-v2 as docs/dice.md writes it."""

    def framed(text: str) -> bytes:
        return len(text.encode()).to_bytes(4, "big") + text.encode()

    m = b"bxb-fair-v2\x00" + framed(seed) + len(contributions).to_bytes(4, "big")
    for side in sorted(contributions, key=str.encode):
        m += framed(side) + framed(contributions[side])
    return hashlib.sha256(m).hexdigest()


def documented_child_seed(parent_dice_seed: str, child: UUID, values: Mapping[str, str]) -> str:
    """docs/dice.md, Fair dice in a fork: the child's secret, mixed as a fair battle's."""
    secret = hashlib.sha256(f"bxb-fork-v1\x00{parent_dice_seed}\x00{child}".encode()).hexdigest()
    return documented_fair_seed(secret, values)


@pytest.fixture
def played(tmp_path: Path) -> Iterator[tuple[BattleStore, UUID, list[PlayedCommand]]]:
    """A fair 40K battle of six commands (thirteen dice), its seed fixed."""
    store = BattleStore(tmp_path / "b.sqlite")
    demo = get_game_system("wh40k-2e").demo()
    escrow = escrow_public_text(escrow_key(KEY))
    with mock.patch.object(fair_start, "new_fair_seed", lambda: SEED):
        battle = fair_start.start_fair(store, demo, FairTerms(judge_keys=[escrow])).battle
    sides = get_game_system("wh40k-2e").view(get_game_system("wh40k-2e").initial_state(demo.setup))
    assert set(sides.sides) == set(VALUES)
    fair_start.contribute(store, battle, VALUES)
    door = Battle(store, key=KEY)
    for command in demo.commands[:6]:
        door.play(battle, command, dice=None, choices=ScriptedChoices(demo.choices))
    yield store, battle, commands_played(events(store, battle))


def events(store: BattleStore, battle: UUID) -> list[Event]:
    return [e.event for e in store.read(battle)]


def dice_of(command: PlayedCommand) -> list[DiceRolled]:
    return [e for e in command.events if isinstance(e, DiceRolled)]


def parent_dice_seed() -> str:
    return documented_fair_seed(SEED, VALUES)


def test_a_fork_that_voids_a_command_keeps_the_later_commands_dice(
    played: tuple[BattleStore, UUID, list[PlayedCommand]],
) -> None:
    """Before: the later commands, replayed each under the number before its own, drew other
    dice by their new keys (a re-roll the judge could choose, fork after fork)."""
    store, parent, commands = played
    rolled = [c for c in commands if dice_of(c)]
    dropped = rolled[0].index
    seen = preview_fork(
        store, parent, position=rolled[0].first - 1, change=CommandDropped(index=dropped)
    )
    # Worked out before anything is written, a fork shows no die its parent did not roll.
    theirs = {d.key: d.values for c in commands for d in dice_of(c)}
    assert {e.values for e in seen.commands if isinstance(e, DiceRolled)} <= set(theirs.values())
    forked = fork(
        store,
        parent,
        position=rolled[0].first - 1,
        change=CommandDropped(index=dropped),
        judge=JUDGE,
        reason="command played out of turn",
        dice=live_dice(store, parent, key=KEY),
    )
    child = commands_played(events(store, forked.child))
    assert forked.replayed >= 1
    compared = 0
    for command in child:
        for die in dice_of(command):
            n = int(die.key.split("/")[0][1:])
            parent_key = f"c{n + 1 if n >= dropped else n}/{die.key.split('/', 1)[1]}"
            assert die.values == theirs[parent_key], die.key
            compared += 1
    assert compared, "the replay kept no die to compare"
    link = events(store, forked.child)[1]
    assert isinstance(link, BattleForked)
    assert (
        link.link.dice
        == hashlib.sha256(f"bxb-commit-v1\x00{parent_dice_seed()}".encode()).hexdigest()
    )
    assert verify_battle(store, forked.child).ok


def test_a_fork_rolls_anew_only_after_its_sides_new_values_and_seals_and_verifies(
    played: tuple[BattleStore, UUID, list[PlayedCommand]],
) -> None:
    """Rewound before the next-to-last combat, the table fights the last one first: rolls the
    parent never made, drawn from the child's own seed and values, recomputed once sealed."""
    store, parent, commands = played
    rolled = [c for c in commands if dice_of(c)]
    before, other = rolled[-2], rolled[-1]
    forked = fork(
        store,
        parent,
        position=before.first - 1,
        change=Rewound(),
        judge=JUDGE,
        reason="rewind before the disputed combat",
        dice=live_dice(store, parent, key=KEY),
    )
    child = forked.child
    door = Battle(store, key=KEY)
    choices = ScriptedChoices(get_game_system("wh40k-2e").demo().choices)
    with pytest.raises(Refused, match="contribution"):  # no dice before the sides' new values
        door.play(child, other.issued.command, dice=None, choices=choices)
    values = {"Orks": "mork", "Ultramarines": "gork"}
    fair_start.contribute(store, child, values)
    door.play(child, other.issued.command, dice=None, choices=choices)
    own = documented_child_seed(parent_dice_seed(), child, values)
    dice = live_dice(store, child, key=KEY)
    assert dice is not None and dice.roll("c99/x", 3, 6, "") == (
        seeded_roll(own, "c99/x", 3, 6),
        "seeded",
    )
    live = commands_played(events(store, child))[-1]
    fresh = [d for d in dice_of(live) if d.source == "seeded"]
    assert fresh, "the combat fought first rolled nothing anew"
    for die in fresh:
        assert die.values == seeded_roll(own, die.key, len(die.values), die.sides)
    with pytest.raises(JudgingError, match=r"seal .* first"):  # the parent waits for its child
        door.seal(parent, KEY)
    sealed = door.seal(child, KEY)
    assert sealed.event.checkpoint.seed == parent_dice_seed()  # type: ignore[attr-defined]
    report = verify_battle(store, child)
    assert report.ok, report.problem
    assert report.dice_checked >= len(fresh)
    door.seal(parent, KEY)  # now the parent's seed may be revealed
    assert verify_battle(store, parent).ok


def test_a_die_of_a_sealed_fork_changed_is_caught(
    played: tuple[BattleStore, UUID, list[PlayedCommand]], tmp_path: Path
) -> None:
    """Every hash recomputed: a die taken from the parent, or one drawn anew, changed."""
    store, parent, commands = played
    db = tmp_path / "b.sqlite"
    rolled = [c for c in commands if dice_of(c)]
    forked = fork(
        store,
        parent,
        position=rolled[-1].first - 1,
        change=Rewound(),
        judge=JUDGE,
        reason="rewind",
        dice=live_dice(store, parent, key=KEY),
    )
    child = forked.child
    fair_start.contribute(store, child, {"Orks": "a", "Ultramarines": "b"})
    door = Battle(store, key=KEY)
    demo = get_game_system("wh40k-2e").demo()
    door.play(child, rolled[-1].issued.command, dice=None, choices=ScriptedChoices(demo.choices))
    # The same command played again gets the parent's dice again: a fork is no re-roll.
    again = commands_played(events(store, child))[-1]
    assert [(d.key, d.values) for d in dice_of(again)] == [
        (d.key, d.values) for d in dice_of(rolled[-1])
    ]
    assert {d.source for d in dice_of(again)} == {"inherited"}
    door.seal(child, KEY)
    assert verify_battle(store, child).ok
    logged = store.read(child)
    original = [e.event for e in logged]
    times = [e.recorded_at for e in logged]
    for i, event in enumerate(original):
        if not isinstance(event, DiceRolled):
            continue
        changed = list(original)
        face = event.values[0] % event.sides + 1
        changed[i] = msgspec.structs.replace(event, values=(face, *event.values[1:]))
        rewrite(db, child, changed, times)
        report = verify_battle(BattleStore(db), child)
        assert not report.ok, f"die {event.key} changed went unseen"
    rewrite(db, child, original, times)


def test_the_parent_changed_after_the_fork_position_is_caught_from_the_fork(
    played: tuple[BattleStore, UUID, list[PlayedCommand]], tmp_path: Path
) -> None:
    """The commands a fork replayed are its parent's between the fork position (which the link
    pins by its hash) and the judge's ruling: a forger who changes one there in the parent and
    in the child alike (a die, re-adjudicated; here its recording time) keeps the child matching
    its parent, but the ruling signed the parent's log as it was, and the child's verify now
    reads that ruling's hash."""
    store, parent, commands = played
    db = tmp_path / "b.sqlite"
    rolled = [c for c in commands if dice_of(c)]
    forked = fork(
        store,
        parent,
        position=rolled[0].first - 1,
        change=CommandDropped(index=rolled[0].index),
        judge=JUDGE,
        reason="command played out of turn",
        dice=live_dice(store, parent, key=KEY),
    )
    assert verify_battle(store, forked.child).ok
    logged = store.read(parent)
    times = [e.recorded_at for e in logged]
    times[rolled[-1].first - 1] = "2020-01-01T00:00:00.000+00:00"  # after the fork position
    rewrite(db, parent, [e.event for e in logged], times)
    report = verify_battle(BattleStore(db), forked.child)
    assert not report.ok and "signed over another log" in str(report.problem), report.problem
