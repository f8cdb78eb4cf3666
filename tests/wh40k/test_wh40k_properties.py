"""Property tests over random legal battles: random profiles and weapons, random rulings, seeded
dice, hashed choices, and a random legal command at each step."""

from __future__ import annotations

import hashlib
from decimal import Decimal
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wh40k_helpers import ALL_WEAPONS

from blowbyblow.domain.core import RuleEvent
from blowbyblow.domain.system import Scenario
from blowbyblow.domain.wh40k.commands import BreakOff, Charge, EndTurn, Fight, FollowUp, LeaveCombat
from blowbyblow.domain.wh40k.events import (
    AttackDiceRolled,
    CombatRoundBegun,
    CombatScoreCalculated,
    HitsScored,
    RoundWon,
    Stalemate,
    WoundRolled,
)
from blowbyblow.domain.wh40k.setup import ModelProfile, Wh40kSetup
from blowbyblow.domain.wh40k.state import Wh40kState
from blowbyblow.domain.wh40k.who_fights import check_end_turn
from blowbyblow.projections.battle import fold
from blowbyblow.replay.engine.codec import codec_for, encode
from blowbyblow.replay.engine.dice import SeededDice
from blowbyblow.replay.engine.driver import Table
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play

RULESET = get_game_system("wh40k-2e")


class HashedChoices:
    """A deterministic 'player': picks an option by hashing the seed and the key."""

    def __init__(self, seed: str) -> None:
        self.seed = seed

    def choose(
        self, key: str, options: tuple[str, ...], default: str, prompt: str
    ) -> tuple[str, str]:
        h = int.from_bytes(hashlib.sha256(f"{self.seed}/{key}".encode()).digest()[:4], "big")
        return options[h % len(options)], "scripted"


@st.composite
def profiles(draw: st.DrawFn, ident: str, player: str) -> ModelProfile:
    weapons = draw(st.lists(st.sampled_from([w.id for w in ALL_WEAPONS]), max_size=2, unique=True))
    return ModelProfile(
        id=ident,
        player=player,
        squad=draw(st.sampled_from(["", f"{player}-1"])),
        ws=draw(st.one_of(st.integers(0, 7), st.integers(0, 7), st.just("-"))),
        s=draw(st.integers(2, 7)),
        t=draw(st.integers(2, 7)),
        w=draw(st.integers(1, 3)),
        i=draw(st.integers(1, 6)),
        a=draw(st.integers(1, 3)),
        save=draw(st.one_of(st.none(), st.integers(2, 6))),
        weapons=weapons,
        leaves_combat=draw(st.sampled_from([None, None, "robot", "dreadnought"])),
    )


@st.composite
def battles(draw: st.DrawFn) -> tuple[Wh40kSetup, dict[str, str], str, list[int]]:
    reds = [draw(profiles(f"r{n}", "red")) for n in range(draw(st.integers(1, 3)))]
    blues = [draw(profiles(f"b{n}", "blue")) for n in range(draw(st.integers(1, 3)))]
    contacts = draw(
        st.lists(
            st.tuples(
                st.sampled_from([m.id for m in reds]), st.sampled_from([m.id for m in blues])
            ),
            max_size=3,
            unique=True,
        )
    )
    setup = Wh40kSetup(
        models=[*reds, *blues],
        weapons=list(ALL_WEAPONS),
        contacts=contacts,
        first_player=draw(st.sampled_from(["red", "blue"])),
    )
    rulings = {r.name: draw(st.sampled_from(r.choices)) for r in RULESET.rulings}
    seed = draw(st.text(alphabet="abcdefghij0123456789", min_size=1, max_size=8))
    picks = draw(st.lists(st.integers(0, 10**6), min_size=1, max_size=14))
    return setup, rulings, seed, picks


def legal_commands(state: Wh40kState, pick: int) -> list[Any]:
    found: list[Any] = []
    living = [m.id for m in state.setup.models if state.alive(m.id)]
    if state.phase == "movement":
        for m in living:
            ms = state.models[m]
            if state.profile(m).player != state.player or ms.broken or state.opponents(m):
                continue
            for t in living:
                if state.profile(t).player != state.player:
                    found.append(Charge(model=m, target=t))
        for m in living:
            mine = state.profile(m)
            them = state.opponents(m)
            alike = any(state.profile(o).leaves_combat for o in them)
            if mine.player == state.player and mine.leaves_combat and them and not alike:
                found.append(LeaveCombat(model=m))
    for m in living:
        if state.unfought_opponents(m):
            found.append(Fight(model=m))
            if m not in state.breaking_off and not any(m in p for p in state.fought):
                found.append(BreakOff(model=m))
    for m in state.follow_up:
        enemies = [t for t in living if state.profile(t).player != state.profile(m).player]
        engage = (enemies[pick % len(enemies)],) if enemies and pick % 3 == 0 else ()
        found.append(FollowUp(model=m, inches=Decimal(pick % 5) / 2, engage=engage))
    try:
        check_end_turn(state)
        found.append(EndTurn())
    except Exception:
        pass
    return found


def build(setup: Wh40kSetup, rulings: dict[str, str], seed: str, picks: list[int]) -> list[Any]:
    """Choose a legal command at each step, adjudicating as we go (same dice, same choices)."""
    resolved = RULESET.resolve_rulings(rulings)
    state = RULESET.initial_state(setup)
    commands: list[Any] = []
    for pick in picks:
        options = legal_commands(state, pick)
        if not options:
            break
        command = options[pick % len(options)]
        result = Table(
            system=RULESET,
            rulings=resolved,
            dice=SeededDice(seed),
            choices=HashedChoices(seed),
            quiet=True,
        ).adjudicate(state, command, len(commands) + 1)
        state = result.state
        commands.append(command)
    return commands


def check_round(events: list[Any]) -> None:
    """One Combat Round's events: the score arithmetic and hits == score difference."""
    scores = [e for e in events if isinstance(e, CombatScoreCalculated)]
    assert len(scores) == 2
    begun = next(e for e in events if isinstance(e, CombatRoundBegun))
    for s in scores:
        assert s.highest == max(s.dice)
        assert s.score == s.highest + s.ws + sum(m.value for m in s.modifiers)
        assert s.ws == (0 if s.model in begun.breaking_off else s.profile_ws)
    by_model = {s.model: s.score for s in scores}
    won = [e for e in events if isinstance(e, RoundWon)]
    stalemate = [e for e in events if isinstance(e, Stalemate)]
    assert len(won) + len(stalemate) == 1
    hits = [e for e in events if isinstance(e, HitsScored)]
    wounds = [e for e in events if isinstance(e, WoundRolled)]
    if won:
        w = won[0]
        assert (w.winner_score, w.loser_score) == (by_model[w.winner], by_model[w.loser])
        if w.by_initiative:
            assert w.winner_score == w.loser_score and w.hits == 1
            assert w.winner_initiative > w.loser_initiative
        else:
            assert w.hits == w.winner_score - w.loser_score > 0
        assert [h.hits for h in hits] == [w.hits]
        assert 1 <= len(wounds) <= w.hits
    else:
        assert len(set(by_model.values())) == 1 and not hits and not wounds
    for d in (e for e in events if isinstance(e, AttackDiceRolled)):
        assert d.count == d.attacks + sum(m.value for m in d.modifiers) == len(d.dice)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(battles())
def test_random_battles_replay_and_keep_the_combat_arithmetic(
    battle: tuple[Wh40kSetup, dict[str, str], str, list[int]],
) -> None:
    setup, rulings, seed, picks = battle
    RULESET.validate_setup(setup)
    commands = build(setup, rulings, seed, picks)
    scenario = Scenario(
        ruleset=RULESET.id,
        label="property",
        rulings=rulings,
        setup=setup,
        commands=commands,
        seed=seed,
    )
    played = play(scenario, choices=HashedChoices(seed))

    # folding the log from the initial state gives the live state, byte for byte
    folded = fold(RULESET, RULESET.initial_state(setup), played.events[1:])
    assert folded == played.state
    assert encode(folded) == encode(played.state)

    # the same inputs give the same log
    again = play(scenario, choices=HashedChoices(seed))
    assert [encode(e) for e in again.events] == [encode(e) for e in played.events]

    # every event survives the store's binary encoding
    codec = codec_for(RULESET.id)
    for e in played.events:
        assert codec.decode(encode(e)) == e
        if isinstance(e, RuleEvent):
            assert e.rule.startswith("40K2")
            assert type(e) in RULESET.event_types

    # each Combat Round: score arithmetic, hits == score difference
    rounds: list[list[Any]] = []
    for e in played.events:
        if isinstance(e, CombatRoundBegun):
            rounds.append([])
        if rounds:
            rounds[-1].append(e)
    for r in rounds:
        end = next((i for i, e in enumerate(r) if i and isinstance(e, CombatRoundBegun)), len(r))
        check_round(r[:end])

    # model status hangs together
    state = played.state
    for m in state.setup.models:
        ms = state.models[m.id]
        assert 0 <= ms.wounds <= m.w
        assert ms.slain == (ms.wounds == 0)
    for a, b in state.contacts:
        assert state.alive(a) and state.alive(b)
        assert state.profile(a).player != state.profile(b).player
    assert msgspec.msgpack.decode(encode(state), type=type(state)) == state
