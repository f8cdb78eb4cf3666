"""Property tests: random legal CC phases (random units, concealment, Melee, vehicles, rulings,
seeded dice and hashed choices) replay to the same state, no unit attacks twice in a CCPh, and
a concealed unit that never attacked is never locked in Melee."""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blowbyblow.domain.asl import events as ev
from blowbyblow.domain.asl.commands import Attack, CloseCombat, Withdrawal
from blowbyblow.domain.asl.legal import validate
from blowbyblow.domain.asl.setup import LocationSetup, MeleeSetup, Setup, UnitSetup, VehicleSetup
from blowbyblow.domain.asl.state import State, units_in, vehicles_in
from blowbyblow.domain.asl.withdrawal import destinations
from blowbyblow.domain.core import Context, Event, RuleViolation
from blowbyblow.domain.system import Scenario
from blowbyblow.replay.engine.dice import SeededDice
from blowbyblow.replay.engine.driver import Table
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import Played, play

RULESET = get_game_system("asl")
SIDES = ("German", "Russian")
MMC = [
    ("squad", "4-6-7", 4, 2),
    ("squad", "4-4-7", 4, 2),
    ("squad", "6-2-8", 6, 3),
    ("hs", "2-4-7", 2, 0),
    ("crew", "2-2-8", 2, 0),
]


class HashedChoices:
    """Deterministic 'random' answers: option picked by hashing the seed and the key."""

    def __init__(self, seed: str) -> None:
        self.seed = seed

    def choose(
        self, key: str, options: tuple[str, ...], default: str, prompt: str
    ) -> tuple[str, str]:
        h = int.from_bytes(hashlib.sha256(f"{self.seed}/{key}".encode()).digest()[:4], "big")
        return options[h % len(options)], "scripted"


@st.composite
def setups(draw: Any) -> Setup:
    terrain = draw(st.sampled_from(["open", "woods", "building"]))
    locations = [
        LocationSetup(id="C", terrain=terrain, adjacent=["N", "S"]),
        LocationSetup(id="N", terrain="woods", adjacent=["C"]),
        LocationSetup(id="S", terrain="open", adjacent=["C"]),
    ]
    units: list[UnitSetup] = []
    for side in SIDES:
        for i in range(draw(st.integers(1, 3))):
            kind, name, fp, hs_fp = draw(st.sampled_from(MMC))
            units.append(
                UnitSetup(
                    id=f"{side[0]}{i}",
                    side=side,
                    kind=kind,
                    name=name,
                    fp=fp,
                    hs_fp=hs_fp,
                    location="C",
                    concealed=draw(st.booleans()),
                    broken=draw(st.booleans()),
                    pinned=draw(st.integers(0, 4)) == 0,
                    cx=draw(st.integers(0, 4)) == 0,
                    inexperienced=draw(st.integers(0, 4)) == 0,
                    sws=["LMG"] if i == 0 else [],
                )
            )
        if draw(st.integers(0, 3)) == 0:
            units.append(
                UnitSetup(
                    id=f"{side[0]}D",
                    side=side,
                    kind="squad",
                    location="C",
                    dummy=True,
                    concealed=True,
                )
            )
        if draw(st.integers(0, 3)) == 0:
            units.append(
                UnitSetup(
                    id=f"{side[0]}H",
                    side=side,
                    kind="crew",
                    name="2-2-8",
                    fp=2,
                    location=draw(st.sampled_from(["C", "N", "S"])),
                    hidden=True,
                )
            )
        if draw(st.booleans()):
            units.append(
                UnitSetup(
                    id=f"{side[0]}L",
                    side=side,
                    kind=draw(st.sampled_from(["leader", "hero"])),
                    name="8-1",
                    leadership=-1,
                    location="C",
                    stacked_on=f"{side[0]}0",
                    concealed=draw(st.booleans()),
                )
            )
    vehicles = []
    if draw(st.integers(0, 3)) == 0:
        vehicles.append(
            VehicleSetup(
                id="V",
                side=draw(st.sampled_from(SIDES)),
                location="C",
                cmg=4,
                ce=draw(st.booleans()),
                mobile=draw(st.booleans()),
                close_defense_usage=8,
            )
        )
    melee = [MeleeSetup(location="C", since=0)] if draw(st.booleans()) else []
    return Setup(
        sides=list(SIDES), locations=locations, units=units, vehicles=vehicles, melee=melee
    )


def legal(state: State, command: CloseCombat, rulings: dict[str, str]) -> bool:
    try:
        validate(state, command, Context(rulings=rulings, command_index=0))
    except RuleViolation:
        return False
    return True


def draw_command(draw: Any, state: State, turn: int, rulings: dict[str, str]) -> CloseCombat:
    attacker = SIDES[(turn - 1) % 2]
    command = CloseCombat(turn=turn, attacker=attacker, location="C")
    present = units_in(state, "C")
    lock = state.melee.get("C")
    for u in present:
        if lock and u.id in lock.units and draw(st.integers(0, 3)) == 0:
            dests = destinations(state, u, "C")
            if dests:
                w = Withdrawal(unit=u.id, to=draw(st.sampled_from(dests)))
                trial = msgspec.structs.replace(command, withdrawals=[*command.withdrawals, w])
                if legal(state, trial, rulings):
                    command = trial
    withdrawing = {w.unit for w in command.withdrawals}
    for _ in range(draw(st.integers(0, 6))):
        side = draw(st.sampled_from(SIDES))
        own = [u.id for u in present if u.side == side and not u.broken and u.id not in withdrawing]
        own += [v.id for v in vehicles_in(state, "C", side)]
        own += [
            u.id
            for u in state.units.values()
            if u.side == side and u.status == "captured" and u.location == "C"
        ]
        enemy = [u.id for u in present if u.side != side and u.kind in ("squad", "hs", "crew")]
        enemy_all = [u.id for u in present if u.side != side]
        enemy_v = [v.id for v in vehicles_in(state, "C") if v.side != side]
        if not own or not (enemy_all or enemy_v):
            continue
        by = draw(st.lists(st.sampled_from(own), min_size=1, max_size=3, unique=True))
        if "V" in by:
            by = ["V"]
        prisoners = [b for b in by if state.units.get(b) and state.units[b].guard]
        if prisoners:
            by = prisoners
            guard = state.units[prisoners[0]].guard
            enemy = enemy_all = [guard] if guard else enemy
        choice = draw(st.integers(0, 5))
        if enemy_v and (choice == 0 or not enemy_all):
            targets = [enemy_v[0]]
        elif enemy and choice < 5:
            targets = draw(st.lists(st.sampled_from(enemy), min_size=1, max_size=2, unique=True))
        else:
            targets = draw(
                st.lists(st.sampled_from(enemy_all), min_size=1, max_size=2, unique=True)
            )
        weapons = draw(st.sampled_from([[], ["sn"], ["cmg"]])) if by == ["V"] else []
        attack = Attack(
            by=by,
            targets=[] if weapons == ["sn"] else targets,
            capture=draw(st.integers(0, 5)) == 0,
            weapons=weapons,
        )
        solo = [b for b in by if len(by) == 1 and b.endswith("L")]
        trial = msgspec.structs.replace(
            command,
            attacks=[*command.attacks, attack],
            solo=sorted(set(command.solo) | set(solo)),
        )
        if legal(state, trial, rulings):
            command = trial
    return command


Battle = tuple[Setup, list[CloseCombat], dict[str, str], str, list[Event], State]


@st.composite
def battles(draw: Any) -> Battle:
    setup = draw(setups())
    rulings = RULESET.resolve_rulings(
        {
            r.name: draw(st.sampled_from(r.choices))
            for r in RULESET.rulings
            if r.name != "atmm-check"
        }
    )
    seed = draw(st.text(alphabet="abcdef0123456789", min_size=4, max_size=8))
    dice, choices = SeededDice(seed), HashedChoices(seed)
    state = RULESET.initial_state(setup)
    commands: list[CloseCombat] = []
    events: list[Event] = []
    for turn in range(1, draw(st.integers(1, 3)) + 1):
        command = draw_command(draw, state, turn, rulings)
        result = Table(
            system=RULESET, rulings=rulings, dice=dice, choices=choices, quiet=True
        ).adjudicate(state, command, turn)
        commands.append(command)
        events += result.events
        state = result.state
    return setup, commands, rulings, seed, events, state


def replayed(
    setup: Setup, commands: list[CloseCombat], rulings: dict[str, str], seed: str
) -> Played:
    return play(
        Scenario(
            ruleset="asl",
            label="prop",
            setup=setup,
            commands=list(commands),
            rulings=rulings,
            seed=seed,
        ),
        choices=HashedChoices(seed),
    )


SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(battles())
def test_replay_gives_the_same_state(battle: Battle) -> None:
    setup, commands, rulings, seed, events, state = battle
    played = replayed(setup, commands, rulings, seed)
    folded = RULESET.initial_state(setup)
    for e in played.events[1:]:
        folded = RULESET.evolve(folded, e)
    enc = msgspec.msgpack.encode
    assert enc(folded) == enc(played.state) == enc(state)
    assert enc(played.events[1:]) == enc(events)
    assert all(RULESET.narrate(e) for e in events if isinstance(e, RULESET.event_types))


@SETTINGS
@given(battles())
def test_no_unit_attacks_twice_in_a_ccph(battle: Battle) -> None:
    _, _, _, _, events, _ = battle
    per_turn: dict[int, list[str]] = {}
    turn = 0
    for e in events:
        if isinstance(e, ev.CloseCombatPhaseBegun):
            turn = e.turn
        if isinstance(e, ev.AttackDesignated) and not e.attackers[0].startswith("V"):
            per_turn.setdefault(turn, []).extend(e.attackers)
    for attackers in per_turn.values():
        assert len(attackers) == len(set(attackers))


@SETTINGS
@given(battles())
def test_concealed_unit_that_never_attacked_is_never_in_melee(battle: Battle) -> None:
    setup, _, _, _, events, _ = battle
    state = RULESET.initial_state(setup)
    concealed_at_start: set[str] = set()
    attacked: set[str] = set()
    for e in events:
        if isinstance(e, ev.CloseCombatPhaseBegun):
            concealed_at_start = {u.id for u in state.units.values() if u.concealed}
            attacked = set()
        if isinstance(e, ev.AttackDesignated):
            attacked |= set(e.attackers)
        state = RULESET.evolve(state, e)
        if isinstance(e, ev.ConcealmentLost) and e.cause == "makes a CC attack":
            assert e.unit in attacked or any(
                isinstance(x, ev.AttackDesignated) and e.unit in x.attackers for x in events
            )
        if isinstance(e, ev.MeleeLocked | ev.MeleeContinued):
            for uid in e.units:
                assert not state.units[uid].concealed, uid
            still_hidden = {u for u in concealed_at_start if state.units[u].concealed}
            assert not (still_hidden - attacked) & set(e.units)
