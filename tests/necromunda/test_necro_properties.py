"""Property tests: random legal battles under random rulings. The state folded from the log
equals the live state (byte for byte once encoded), the whole battle replays to the same
events, and the state always hangs together."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from necromunda.necro_helpers import (
    AXE,
    CLUB,
    KNIFE,
    MAUL,
    PISTOL,
    PISTOL2,
    VEHICLE,
    WHIP,
    fighter,
)

from blowbyblow.domain.core import CommandIssued, Context, RuleViolation
from blowbyblow.domain.necromunda.commands import Allocation, Charge, CoupDeGraceAction, Fight
from blowbyblow.domain.necromunda.model import (
    OUT_OF_ACTION,
    SERIOUSLY_INJURED,
    Barricade,
    Engagement,
    Gang,
    NecromundaSetup,
    NecromundaState,
    secondary_statuses,
)
from blowbyblow.domain.system import AnyGameSystem, Scenario
from blowbyblow.replay.dice import ScriptedChoices
from blowbyblow.replay.driver import adjudicate, fold
from blowbyblow.replay.registry import get_game_system
from blowbyblow.replay.session import dice_for, play, start_event

WEAPONS = [KNIFE, AXE, CLUB, PISTOL, PISTOL2, MAUL, WHIP]
GANGS = ["g", "e", "z"]


@st.composite
def battles(draw: st.DrawFn, ruleset_id: str = "necromunda-2023") -> tuple[Scenario, list[Any]]:
    rs = get_game_system(ruleset_id)
    n = draw(st.integers(2, 6))
    ids = [f"f{i}" for i in range(n)]
    gangs = [GANGS[i % 2] if i < 2 else draw(st.sampled_from(GANGS)) for i in range(n)]
    fighters = []
    for fid, gang in zip(ids, gangs, strict=True):
        weapons = draw(st.lists(st.sampled_from(WEAPONS), max_size=3, unique_by=lambda w: w.id))
        fighters.append(
            fighter(
                fid,
                gang,
                ws=draw(st.integers(2, 5)),
                s=draw(st.integers(2, 5)),
                t=draw(st.integers(2, 5)),
                w=draw(st.integers(1, 3)),
                a=draw(st.integers(1, 3)),
                cl=draw(st.integers(5, 9)),
                save=draw(st.sampled_from([None, 4, 5, 6])),
                broken=draw(st.booleans()) and draw(st.booleans()),
                weapons=weapons,
                vision=ids
                if draw(st.booleans())
                else draw(st.lists(st.sampled_from(ids), unique=True)),
            )
        )
    pairs = [
        (a, b) for i, a in enumerate(ids) for b in ids[i + 1 :] if gangs[i] != gangs[ids.index(b)]
    ]
    engaged = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    near = [
        (a, b) for i, a in enumerate(ids) for b in ids[i + 1 :] if gangs[i] == gangs[ids.index(b)]
    ]
    within = draw(st.lists(st.sampled_from(near), unique=True)) if near else []
    # the last fighter may be a vehicle; links may cross a low or a wide barricade
    vehicle = n >= 3 and draw(st.booleans())
    if vehicle:
        fighters[-1] = msgspec.structs.replace(
            fighters[-1], weapons=[], vehicle=VEHICLE, save=draw(st.sampled_from([None, 4]))
        )
    linked = {x for pair in engaged for x in pair}
    for k, f in enumerate(fighters):
        if f.vehicle is None and not f.broken:
            status = draw(
                st.sampled_from(
                    ["Standing & Active"] * 4 + ["Prone & Pinned", "Prone & Seriously Injured"]
                )
            )
            if status == "Prone & Pinned" and f.id in linked:
                status = "Standing & Active"
            fighters[k] = msgspec.structs.replace(f, status=status)
    engagements = []
    for a, b in engaged:
        is_vehicle = vehicle and ids[-1] in (a, b)
        engagements.append(
            Engagement(
                a=a,
                b=b,
                across=None if is_vehicle else draw(st.sampled_from([None, None, "low", "wall"])),
                facing=draw(st.sampled_from(["front", "side", "rear", "on"]))
                if is_vehicle
                else None,
            )
        )
    setup = NecromundaSetup(
        gangs=[Gang(id=g) for g in dict.fromkeys(gangs)],
        fighters=fighters,
        engagements=engagements,
        barricades=[Barricade(id="low", width=0.5), Barricade(id="wall", width=1.5)],
        within_3=[list(p) for p in within],
    )
    rulings = {r.name: draw(st.sampled_from(r.choices)) for r in rs.rulings if r.choices}
    intents: list[Any] = []
    own = {f.id: [w.id for w in f.weapons] for f in fighters}
    for _ in range(draw(st.integers(1, 10))):
        attacker = draw(st.sampled_from(ids))
        foes = [x for x, g in zip(ids, gangs, strict=True) if g != gangs[ids.index(attacker)]]
        target = draw(st.sampled_from(foes or ids))
        kind = draw(st.sampled_from(["fight", "fight", "charge", "cdg", "split"]))
        mine = own[attacker]
        chosen = (
            tuple(draw(st.lists(st.sampled_from(mine), max_size=2, unique=True))) if mine else ()
        )
        turn = draw(st.booleans())
        if kind == "fight":
            intents.append(
                Fight(
                    attacker=attacker,
                    weapons=chosen,
                    targets=(target,),
                    turn_to_face=(target,) if turn else None,
                )
            )
        elif kind == "charge":
            intents.append(
                Charge(
                    attacker=attacker,
                    targets=(target,),
                    weapons=chosen,
                    out_of_sight=(target,) if turn else (),
                )
            )
        elif kind == "cdg":
            intents.append(CoupDeGraceAction(attacker=attacker, target=target))
        else:
            other = draw(st.sampled_from(foes or ids))
            weapon = chosen[0] if chosen else "unarmed"
            intents.append(
                Fight(
                    attacker=attacker,
                    weapons=chosen[:1],
                    allocation=(
                        Allocation(weapon=weapon, target=target, dice=1),
                        Allocation(weapon=weapon, target=other, dice=1),
                    ),
                )
            )
    seed = draw(st.text(alphabet="abcdef0123456789", min_size=1, max_size=8))
    scenario = Scenario(
        ruleset=ruleset_id, label="random", rulings=rulings, setup=setup, commands=[], seed=seed
    )
    return scenario, intents


def legal_commands(rs: AnyGameSystem, scenario: Scenario, intents: list[Any]) -> list[Any]:
    """Keep the intents the rules allow, in order (an illegal one writes nothing)."""
    dice, spec = dice_for(scenario)
    started = start_event(rs, scenario, spec)
    state = rs.initial_state(scenario.setup)
    kept: list[Any] = []
    for cmd in intents:
        index = len(kept) + 1
        # an illegal command is refused before the procedure yields anything
        probe = rs.procedure(
            rs.evolve(state, CommandIssued(index=index, command=cmd)),
            cmd,
            Context(rulings=started.rulings, command_index=index),
        )
        try:
            next(probe)
        except RuleViolation:
            continue
        finally:
            probe.close()
        result = adjudicate(
            rs,
            state,
            cmd,
            index=index,
            rulings=started.rulings,
            dice=dice,
            choices=ScriptedChoices(),
            quiet=True,
        )
        kept.append(cmd)
        state = result.state
    return kept


def check_invariants(state: NecromundaState) -> None:
    assert secondary_statuses(state) == {}  # Active/Engaged always matches the graph
    for f in state.fighters.values():
        assert f.wounds >= 0
        if f.status != OUT_OF_ACTION and not f.is_vehicle:
            assert f.toughness >= 1
        if f.status == OUT_OF_ACTION:
            assert not state.linked(f.id)
        if f.status in (SERIOUSLY_INJURED, OUT_OF_ACTION):
            assert not f.counts_as_turned or f.status == SERIOUSLY_INJURED
    for link in state.links:
        assert state.fighters[link.a].gang != state.fighters[link.b].gang


def _check(ruleset_id: str, data: tuple[Scenario, list[Any]]) -> None:
    rs = get_game_system(ruleset_id)
    scenario, intents = data
    commands = legal_commands(rs, scenario, intents)
    played = play(msgspec.structs.replace(scenario, commands=commands))
    replayed = fold(rs, rs.initial_state(scenario.setup), played.events)
    assert msgspec.msgpack.encode(replayed) == msgspec.msgpack.encode(played.state)
    again = play(msgspec.structs.replace(scenario, commands=commands))
    assert msgspec.msgpack.encode(again.events) == msgspec.msgpack.encode(played.events)
    check_invariants(played.state)
    # every intermediate state too (time travel)
    state = rs.initial_state(scenario.setup)
    for e in played.events:
        state = rs.evolve(state, e)
        if type(e).__name__ == "CommandIssued":
            check_invariants(state)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(battles())
def test_random_battles_replay_to_the_live_state(data: tuple[Scenario, list[Any]]) -> None:
    _check("necromunda-2023", data)


_CHILD = """
import hashlib, sys, msgspec
from blowbyblow.domain.system import Scenario
from blowbyblow.replay.registry import get_game_system
from blowbyblow.replay.session import play
raw = msgspec.msgpack.decode(sys.stdin.buffer.read())
for item in raw:
    rs = get_game_system(item["ruleset"])
    union = rs.command_types[0] | rs.command_types[1] | rs.command_types[2]
    scenario = Scenario(
        ruleset=item["ruleset"], label=item["label"], rulings=item["rulings"],
        setup=msgspec.convert(item["setup"], rs.setup_type),
        commands=[msgspec.convert(c, union) for c in item["commands"]], seed=item["seed"],
    )
    print(hashlib.sha256(msgspec.msgpack.encode(play(scenario).state)).hexdigest())
"""

_BATCH: list[tuple[Scenario, str]] = []


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(battles(), st.sampled_from(["necromunda-2023", "necromunda-legacy"]))
def test_collect_random_battles(data: tuple[Scenario, list[Any]], ruleset_id: str) -> None:
    scenario, intents = data
    scenario = msgspec.structs.replace(scenario, ruleset=ruleset_id, rulings={})
    commands = legal_commands(get_game_system(ruleset_id), scenario, intents)
    scenario = msgspec.structs.replace(scenario, commands=commands)
    digest = hashlib.sha256(msgspec.msgpack.encode(play(scenario).state)).hexdigest()
    _BATCH.append((scenario, digest))


def test_random_battles_replay_byte_identical_in_a_fresh_process() -> None:
    if not _BATCH:
        test_collect_random_battles()
    payload = msgspec.msgpack.encode([s for s, _ in _BATCH])
    out = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=payload,
        capture_output=True,
        check=True,
        env={"PYTHONHASHSEED": "4242", "PATH": ""},
    )
    assert out.stdout.decode().split() == [d for _, d in _BATCH]
