"""Random Necromunda battles for the property tests: a hypothesis strategy for a setup, rulings
and intended commands, the filter that keeps the commands the rules allow, and the checks every
battle must pass."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from hypothesis import strategies as st
from necro_helpers import (
    AXE,
    CLUB,
    KNIFE,
    MAUL,
    PISTOL,
    PISTOL2,
    VEHICLE,
    WHIP,
    NecroScenario,
    fighter,
)

from blowbyblow.domain.core import CommandIssued, Context, RuleViolation
from blowbyblow.domain.necromunda.commands import (
    Allocation,
    Charge,
    CoupDeGraceAction,
    Fight,
    GrantedAttack,
    LeaveEngagement,
    NecromundaCommand,
)
from blowbyblow.domain.necromunda.setup import (
    Barricade,
    Engagement,
    Fighter,
    Gang,
    NecromundaSetup,
)
from blowbyblow.domain.necromunda.state import (
    FACINGS,
    OUT_OF_ACTION,
    SERIOUSLY_INJURED,
    STANDING_ACTIVE,
    FighterStatus,
    NecromundaState,
    secondary_statuses,
)
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.projections.battle import fold
from blowbyblow.replay.engine.dice import ScriptedChoices
from blowbyblow.replay.engine.driver import Table
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import dice_for, play, start_event

WEAPONS = [KNIFE, AXE, CLUB, PISTOL, PISTOL2, MAUL, WHIP]
GANGS = ["g", "e", "z"]
STATUSES: tuple[FighterStatus, ...] = (
    *(STANDING_ACTIVE,) * 4,
    "Prone & Pinned",
    "Prone & Seriously Injured",
)
Battle = tuple[NecroScenario, list[NecromundaCommand]]


def _fighters(draw: st.DrawFn, ids: list[str], gangs: list[str]) -> list[Fighter]:
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
                skills=["Counter-attack"] if draw(st.booleans()) else [],
                mounted=draw(st.booleans()),
            )
        )
    return fighters


def _pairs(ids: list[str], gangs: list[str], *, friends: bool) -> list[tuple[str, str]]:
    return [
        (a, b)
        for i, a in enumerate(ids)
        for b in ids[i + 1 :]
        if (gangs[i] == gangs[ids.index(b)]) == friends
    ]


def _statuses(
    draw: st.DrawFn, fighters: list[Fighter], engaged: list[tuple[str, str]]
) -> list[Fighter]:
    """A fighter in contact with an enemy is never Prone & Pinned."""
    linked = {x for pair in engaged for x in pair}
    out = []
    for f in fighters:
        if f.vehicle is None and not f.broken:
            status = draw(st.sampled_from(STATUSES))
            if status == "Prone & Pinned" and f.id in linked:
                status = "Standing & Active"
            f = msgspec.structs.replace(f, status=status)
        out.append(f)
    return out


def _engagements(
    draw: st.DrawFn, engaged: list[tuple[str, str]], vehicle: str | None
) -> list[Engagement]:
    """Links may cross a low or a wide barricade; a link to the vehicle has a facing."""
    out = []
    for a, b in engaged:
        if vehicle in (a, b):
            facing = draw(st.sampled_from(FACINGS))
            out.append(Engagement(a=a, b=b, facing=facing))
        else:
            across = draw(st.sampled_from([None, None, "low", "wall"]))
            out.append(Engagement(a=a, b=b, across=across))
    return out


def _intent(draw: st.DrawFn, setup: NecromundaSetup) -> NecromundaCommand:
    """A command a player might give, legal or not."""
    ids = [f.id for f in setup.fighters]
    attacker = draw(st.sampled_from(setup.fighters))
    foes = [f.id for f in setup.fighters if f.gang != attacker.gang]
    target = draw(st.sampled_from(foes or ids))
    kind = draw(st.sampled_from(["fight", "fight", "charge", "cdg", "split", "granted", "leave"]))
    mine = [w.id for w in attacker.weapons]
    chosen = tuple(draw(st.lists(st.sampled_from(mine), max_size=2, unique=True))) if mine else ()
    turn = draw(st.booleans())
    if kind == "fight":
        return Fight(
            attacker=attacker.id,
            weapons=chosen,
            targets=(target,),
            turn_to_face=[target] if turn else None,
        )
    if kind == "charge":
        return Charge(
            attacker=attacker.id,
            targets=[target],
            weapons=chosen,
            out_of_sight=(target,) if turn else (),
        )
    if kind == "cdg":
        return CoupDeGraceAction(attacker=attacker.id, target=target)
    if kind == "granted":
        granted_by = draw(st.sampled_from(["Counter-attack", "Ambush", "Mounted"]))
        return GrantedAttack(
            attacker=attacker.id, granted_by=granted_by, weapons=chosen, targets=(target,)
        )
    if kind == "leave":
        return LeaveEngagement(vehicle=attacker.id)
    other = draw(st.sampled_from(foes or ids))
    weapon = chosen[0] if chosen else "unarmed"
    return Fight(
        attacker=attacker.id,
        weapons=chosen[:1],
        allocation=(
            Allocation(weapon=weapon, target=target, dice=1),
            Allocation(weapon=weapon, target=other, dice=1),
        ),
    )


@st.composite
def battles(draw: st.DrawFn, ruleset_id: str = "necromunda-2023") -> Battle:
    rs = get_game_system(ruleset_id)
    n = draw(st.integers(2, 6))
    ids = [f"f{i}" for i in range(n)]
    gangs = [GANGS[i % 2] if i < 2 else draw(st.sampled_from(GANGS)) for i in range(n)]
    fighters = _fighters(draw, ids, gangs)
    enemies = _pairs(ids, gangs, friends=False)
    engaged = draw(st.lists(st.sampled_from(enemies), unique=True)) if enemies else []
    near = _pairs(ids, gangs, friends=True)
    within = draw(st.lists(st.sampled_from(near), unique=True)) if near else []
    vehicle = ids[-1] if n >= 3 and draw(st.booleans()) else None  # the last may be a vehicle
    within_6: list[list[str]] = []
    if vehicle is not None:
        fighters[-1] = msgspec.structs.replace(
            fighters[-1],
            weapons=[],
            vehicle=VEHICLE,
            save=draw(st.sampled_from([None, 4])),
            skills=[],
            mounted=False,
        )
        friends = [f for f, g in zip(ids[:-1], gangs, strict=False) if g == gangs[-1]]
        within_6 = [[vehicle, f] for f in friends if draw(st.booleans())]
    setup = NecromundaSetup(
        gangs=[
            Gang(id=g, tactics=["Ambush"] if draw(st.booleans()) else [])
            for g in dict.fromkeys(gangs)
        ],
        fighters=_statuses(draw, fighters, engaged),
        engagements=_engagements(draw, engaged, vehicle),
        barricades=[Barricade(id="low", width=0.5), Barricade(id="wall", width=1.5)],
        within_3=[list(p) for p in within],
        within_6=within_6,
    )
    rulings = {r.name: draw(st.sampled_from(r.choices)) for r in rs.rulings if r.choices}
    intents = [_intent(draw, setup) for _ in range(draw(st.integers(1, 10)))]
    seed = draw(st.text(alphabet="abcdef0123456789", min_size=1, max_size=8))
    scenario = NecroScenario(
        ruleset=ruleset_id, label="random", rulings=rulings, setup=setup, commands=[], seed=seed
    )
    return scenario, intents


def refused(rs: AnyGameSystem, state: Any, command: Any, rulings: dict[str, str]) -> bool:
    """Does the procedure refuse the command? (It refuses before it yields anything.)"""
    index = state.commands + 1
    probe = rs.procedure(
        rs.evolve(state, CommandIssued(index=index, command=command)),
        command,
        Context(rulings=rulings, command_index=index),
    )
    try:
        next(probe)
    except RuleViolation:
        return True
    except StopIteration:
        return False
    finally:
        probe.close()
    return False


def keep_legal(
    rs: AnyGameSystem, scenario: NecroScenario, intents: Sequence[NecromundaCommand]
) -> list[NecromundaCommand]:
    """Keep the intents the rules allow, in order (an illegal one writes nothing)."""
    dice, spec = dice_for(scenario)
    started = start_event(rs, scenario, spec)
    state = rs.initial_state(scenario.setup)
    kept: list[NecromundaCommand] = []
    for cmd in intents:
        if refused(rs, state, cmd, started.rulings):
            continue
        result = Table(
            system=rs, rulings=started.rulings, dice=dice, choices=ScriptedChoices(), quiet=True
        ).adjudicate(state, cmd, len(kept) + 1)
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


def check_battle(ruleset_id: str, data: Battle) -> None:
    rs = get_game_system(ruleset_id)
    scenario, intents = data
    commands = keep_legal(rs, scenario, intents)
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
        if isinstance(e, CommandIssued):
            check_invariants(state)
