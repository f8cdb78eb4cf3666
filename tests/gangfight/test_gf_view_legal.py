"""``view`` and ``legal_commands`` on real states: the demo's states after each command and
hand-built ones. What is offered is accepted by the procedure, and (for the attacks, standing
up and trampling) what the procedure accepts is offered."""

from __future__ import annotations

from itertools import product
from typing import Any

import msgspec
import pytest
from gf_helpers import BRAVE, VETERAN, model, run, setup

from blowbyblow.domain.core import CommandIssued, RuleViolation
from blowbyblow.domain.gangfight.commands import (
    AreaAttack,
    Charge,
    Fight,
    NewTurn,
    PowerAttack,
    Shoot,
)
from blowbyblow.domain.gangfight.legal import legal_commands
from blowbyblow.domain.gangfight.projection import view
from blowbyblow.domain.gangfight.setup import GangfightSetup
from blowbyblow.domain.gangfight.state import GangfightState, initial_state
from blowbyblow.domain.system import CommandOption, StateView, UnitView
from blowbyblow.replay.engine.dice import ScriptedChoices, SeededDice
from blowbyblow.replay.engine.driver import Table
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play

SYSTEM = get_game_system("gangfight")
DEFAULTS = SYSTEM.resolve_rulings({})


def demo_states() -> list[GangfightState]:
    """The demo's state before its first command and after each one."""
    played = play(SYSTEM.demo())
    state: GangfightState = SYSTEM.initial_state(SYSTEM.demo().setup)
    states = [state]
    for event in played.events[1:]:
        if isinstance(event, CommandIssued) and event.index > 1:
            states.append(state)
        state = SYSTEM.evolve(state, event)
    states.append(state)
    return states


DEMO = demo_states()


def unit(v: StateView, uid: str) -> UnitView:
    return next(u for u in v.units if u.id == uid)


def stats(u: UnitView) -> dict[str, str]:
    return {s.name: s.value for s in u.stats}


def offered(state: GangfightState) -> dict[tuple[str, str], CommandOption]:
    """The options by (command type, actor)."""
    return {(o.type, o.actor): o for o in legal_commands(state)}


def commands_of(option: CommandOption) -> list[Any]:
    """Every command an option allows: its fixed fields and each combination of allowed values."""
    names = list(option.options)
    commands = []
    for values in product(*(option.options[n] for n in names)):
        data = {"type": option.type, **option.fields, **dict(zip(names, values, strict=True))}
        commands.append(msgspec.convert(data, SYSTEM.command_type, strict=False))
    return commands


def accepted(state: GangfightState, command: Any) -> bool:
    """Adjudicate ``command`` with seeded dice and default choices under the default rulings."""
    try:
        Table(
            system=SYSTEM,
            rulings=DEFAULTS,
            dice=SeededDice("legal"),
            choices=ScriptedChoices(),
            quiet=True,
        ).adjudicate(state, command, 1)
    except RuleViolation:
        return False
    return True


# --- hand-built states ------------------------------------------------------------------------

OGRE = model("ogre", "brutes", size="large", att=4)
KNIGHT = model("knight", "humans", size="large")
GIANT = model("giant", "humans", size="huge")
IMP = model("imp", "brutes", size="small")
ALLEY = setup(
    OGRE,
    VETERAN,
    KNIGHT,
    GIANT,
    IMP,
    gaps=(("ogre", "veteran", 0), ("ogre", "knight", 1), ("ogre", "giant", 3), ("ogre", "imp", 0)),
)


def alley_state() -> GangfightState:
    return initial_state(ALLEY)


def after(s: GangfightSetup, commands: list[Any], dice: list[int]) -> GangfightState:
    state = run(s, commands, dice).state
    assert isinstance(state, GangfightState)
    return state


WEAK = model("weak", "orcs", en=1, arm=0)
TOKEN_DUEL = setup(VETERAN, WEAK, model("ally", "humans"), gaps=(("veteran", "weak", 0),))


def token_state() -> GangfightState:
    """The weak orc Incapacitated by the veteran's Fight!: a token at 0" of it."""
    return after(TOKEN_DUEL, [Fight(attacker="veteran", target="weak")], [4, 1, 1])


def dead_state() -> GangfightState:
    """The weak orc killed: a second Fight! on its token."""
    hit = Fight(attacker="veteran", target="weak")
    return after(TOKEN_DUEL, [hit, hit], [4, 1, 1, 5, 1, 1])


SHOOTERS = setup(
    model("gunner", "humans", weapons=("pistol", "crossbow", "grenade")),
    model("friend", "humans"),
    model("orc", "orcs", weapons=("breath",)),
    model("orc-2", "orcs"),
    gaps=(
        ("gunner", "orc", 9),
        ("gunner", "orc-2", 4),
        ("friend", "orc-2", 0),
        ("orc", "friend", 7),
    ),
)


def shooters_state() -> GangfightState:
    """The gunner has fired its crossbow at the orc; the orc is 7" from the friend, who is in
    base contact with orc-2."""
    return after(SHOOTERS, [Shoot(shooter="gunner", target="orc", weapon="crossbow")], [1] * 4)


HAND_BUILT = [alley_state, token_state, dead_state, shooters_state]


# --- view -------------------------------------------------------------------------------------


def test_view_of_the_demo_start() -> None:
    v = view(DEMO[0])
    assert v.sides == ("humans", "orcs")
    assert v.phase == "turn 1"
    assert [u.id for u in v.units] == ["veteran", "regular", "brave"]
    veteran = unit(v, "veteran")
    assert (veteran.side, veteran.status, veteran.flags) == ("humans", "standing", ())
    assert stats(veteran)["wounds"] == "0/4" and stats(veteran)["action points"] == "3"
    assert stats(unit(v, "regular"))["wounds"] == "0/3"
    # both Humans are within the Orc's threat range of 1" (and it within theirs)
    assert [(lock.kind, lock.members) for lock in v.locks] == [
        ("threat range", ("brave", "regular")),
        ("threat range", ("brave", "veteran")),
    ]
    assert v.locks[0].detail == '1" apart; within the threat range of brave and regular'


def test_view_after_the_power_attack_knocks_the_veteran_prone_and_out_of_reach() -> None:
    v = view(DEMO[2])  # after 1. Fight! and 2. the Orc's Power Attack (2 successes)
    veteran = unit(v, "veteran")
    assert (veteran.status, veteran.flags) == ("prone", ("prone",))
    assert stats(unit(v, "brave"))["action points"] == "2"
    # knocked back 2": no longer within anyone's 1" threat range
    assert [lock.members for lock in v.locks] == [("brave", "regular")]
    assert 'brave - veteran: 2" apart' in v.notes


def test_view_after_the_free_strike_and_at_the_end() -> None:
    walked = view(DEMO[3])  # the Regular walked away through the Orc's Free Strike
    assert stats(unit(walked, "regular"))["wounds"] == "2/3"
    assert stats(unit(walked, "regular"))["EN left"] == "1"
    assert walked.locks == ()
    end = view(DEMO[-1])
    assert end.phase == "turn 2"
    brave = unit(end, "brave")
    assert (brave.status, brave.flags) == ("incapacitated", ("incapacitated",))
    assert stats(brave)["action points"] == "0"
    # an Incapacitated model is no longer in combat, even in base contact
    assert end.locks == ()
    assert 'brave - veteran: 0" apart' in end.notes


def test_view_of_a_dead_model_and_a_token() -> None:
    assert unit(view(token_state()), "weak").status == "incapacitated"
    dead = unit(view(dead_state()), "weak")
    assert (dead.status, dead.flags) == ("dead", ("dead",))


def test_view_locks_only_opposing_models_within_a_threat_range() -> None:
    v = view(alley_state())
    # the ogre's friend the imp is at 0": no lock; the giant at 3" is beyond the ogre's 1"
    assert [lock.members for lock in v.locks] == [("knight", "ogre"), ("ogre", "veteran")]
    assert 'imp - ogre: 0" apart' in v.notes and 'giant - ogre: 3" apart' in v.notes


# --- legal_commands ---------------------------------------------------------------------------


def test_demo_start_offers_attacks_on_models_in_threat_range() -> None:
    options = offered(DEMO[0])
    assert options[("fight", "veteran")].options == {"target": ("brave",)}
    assert options[("fight", "brave")].options == {"target": ("veteran", "regular")}
    assert options[("fight", "brave")].side == "orcs"
    for kind in ("power-attack", "finesse-attack", "move"):
        assert (kind, "regular") in options
    # Medium models may not Slam! or Trample
    assert not any(t in ("slam", "trample") for t, _ in options)
    assert options[("move", "veteran")].options == {"inches": ("1", "2", "3", "4")}
    assert legal_commands(DEMO[0])[-1].type == "new-turn"


def test_a_prone_model_is_offered_only_to_stand_up() -> None:
    options = offered(DEMO[2])
    assert [t for t, actor in options if actor == "veteran"] == ["stand-up"]
    assert options[("stand-up", "veteran")].fields == {"fighter": "veteran"}
    # the Orc may no longer reach the veteran, knocked back 2"
    assert options[("fight", "brave")].options == {"target": ("regular",)}


def test_out_of_action_points_or_out_of_the_fight_nothing_is_offered() -> None:
    options = offered(DEMO[-1])
    # the veteran spent its 3 points; the Orc is Incapacitated; the Regular is 4" from the Orc:
    # it may move, or charge the Orc's token (ruling attack-incapacitated)
    assert sorted(options) == [("charge", "regular"), ("move", "regular"), ("new-turn", "")]
    assert options[("charge", "regular")].options == {"target": ("brave",)}
    hit = Fight(attacker="veteran", target="brave")
    duel = setup(VETERAN, BRAVE, gaps=(("veteran", "brave", 0),))
    spent = after(duel, [hit, hit, hit], [1] * 9)
    assert not any(actor == "veteran" for _, actor in offered(spent))
    again = after(duel, [hit, hit, hit, NewTurn()], [1] * 9)
    assert ("fight", "veteran") in offered(again)


def test_slam_and_trample_follow_size() -> None:
    options = offered(alley_state())
    assert options[("fight", "ogre")].options == {"target": ("veteran", "knight")}
    # Slam! only a model of the same size or larger; the giant is out of reach
    assert options[("slam", "ogre")].options == {"target": ("knight",)}
    # smaller models within its threat range: the veteran and its friend the imp
    assert ("trample", "ogre") in options
    # the Large knight may Slam! the ogre back, but has no smaller model to trample; a Medium
    # model may do neither
    assert options[("slam", "knight")].options == {"target": ("ogre",)}
    assert ("trample", "knight") not in options
    assert ("slam", "veteran") not in options and ("trample", "veteran") not in options
    # with only a same-size model in reach there is nothing to trample
    pair = initial_state(setup(OGRE, KNIGHT, gaps=(("ogre", "knight", 0),)))
    assert ("trample", "ogre") not in offered(pair) and ("slam", "ogre") in offered(pair)


def test_shooting_charging_and_reloading_are_offered() -> None:
    """Shoot! with each loaded ranged weapon at opposing models a gap measures, an Area of Effect
    with an area weapon, Reload of a fired weapon, Charge! at any opposing model a gap measures;
    a model with another in its threat range (the friend, engaged with orc-2) may not shoot."""
    options = legal_commands(shooters_state())
    by = {(o.type, o.actor, o.fields.get("weapon", "")): o for o in options}
    assert by[("shoot", "gunner", "pistol")].options == {"target": ("orc", "orc-2")}
    assert ("shoot", "gunner", "crossbow") not in by  # fired, not reloaded
    assert by[("area-attack", "gunner", "grenade")].options == {"target": ("orc", "orc-2")}
    assert by[("reload", "gunner", "")].options == {"weapon": ("crossbow",)}
    assert by[("charge", "gunner", "")].options == {"target": ("orc", "orc-2")}
    assert by[("area-attack", "orc", "breath")].options == {"target": ("gunner", "friend")}
    assert not any(o.actor == "friend" and o.type in ("shoot", "area-attack") for o in options)
    within = {**DEFAULTS, "ranged-range": "within-range"}
    limited = {
        (o.type, o.fields.get("weapon", "")): o
        for o in legal_commands(shooters_state(), within)
        if o.actor == "gunner"
    }
    assert limited[("shoot", "pistol")].options == {"target": ("orc-2",)}


def test_tokens_may_be_attacked_and_the_dead_may_not() -> None:
    assert offered(token_state())[("fight", "veteran")].options == {"target": ("weak",)}
    assert ("fight", "veteran") not in offered(dead_state())


# --- every option offered is accepted; every attack accepted is offered ---------------------------


STATES = [*DEMO, *(build() for build in HAND_BUILT)]


@pytest.mark.parametrize("index", range(len(STATES)))
def test_every_option_offered_is_accepted(index: int) -> None:
    state = STATES[index]
    for option in legal_commands(state):
        for command in commands_of(option):
            assert accepted(state, command), command


@pytest.mark.parametrize("index", range(len(STATES)))
def test_every_attack_the_rules_accept_is_offered(index: int) -> None:
    state = STATES[index]
    options = offered(state)
    ids = [f.id for f in state.setup.fighters]
    for kind, attacker, target in product(("fight", "power-attack", "finesse-attack"), ids, ids):
        command = msgspec.convert(
            {"type": kind, "attacker": attacker, "target": target}, SYSTEM.command_type
        )
        allowed = (kind, attacker) in options and target in options[(kind, attacker)].options[
            "target"
        ]
        assert accepted(state, command) == allowed, command
    for fid in ids:
        for kind, field in (("trample", "attacker"), ("stand-up", "fighter")):
            command = msgspec.convert({"type": kind, field: fid}, SYSTEM.command_type)
            assert accepted(state, command) == ((kind, fid) in options), command


@pytest.mark.parametrize("index", range(len(STATES)))
def test_every_shot_and_charge_the_rules_accept_is_offered(index: int) -> None:
    """Shoot! and Area of Effect attacks with each weapon, and Charge!, at each model, with the
    distance their gap gives: accepted exactly when offered."""
    state = STATES[index]
    options = legal_commands(state)
    ids = [f.id for f in state.setup.fighters]
    weapons = [w.id for w in state.setup.weapons if w.range is not None]

    def offers(kind: str, actor: str, target: str, weapon: str = "") -> bool:
        return any(
            o.type == kind
            and o.actor == actor
            and o.fields.get("weapon", "") == weapon
            and target in o.options["target"]
            for o in options
        )

    for actor, target in product(ids, ids):
        for wid in weapons:
            shot = Shoot(shooter=actor, target=target, weapon=wid)
            area = AreaAttack(attacker=actor, target=target, weapon=wid)
            assert accepted(state, shot) == offers("shoot", actor, target, wid), shot
            assert accepted(state, area) == offers("area-attack", actor, target, wid), area
        charge = Charge(fighter=actor, target=target)
        assert accepted(state, charge) == offers("charge", actor, target), charge


def test_a_power_attack_is_not_offered_to_a_model_that_may_not_make_one() -> None:
    """The Orc's Power Attack on the prone veteran is refused, and not offered either."""
    knocked = after(
        setup(VETERAN, BRAVE, gaps=(("veteran", "brave", 0),)),
        [PowerAttack(attacker="brave", target="veteran")],
        [5, 1, 1, 1],
    )
    assert not accepted(knocked, PowerAttack(attacker="veteran", target="brave"))
    assert ("power-attack", "veteran") not in offered(knocked)


def test_the_options_follow_the_rulings_in_force() -> None:
    """Action Points: a Special Action costs what ruling special-action-cost says; a model with
    one action point left is offered Power and Finesse Attacks only when they cost 1, and
    always when action points are not tracked (ruling action-points=untracked)."""
    s = setup(model("a", "x", iv=1), model("b", "y"), gaps=(("a", "b", 0),))
    state = initial_state(s)

    def types_for_a(**given: str) -> set[str]:
        return {o.type for o in legal_commands(state, {**DEFAULTS, **given}) if o.actor == "a"}

    assert {"fight", "power-attack", "finesse-attack"} <= types_for_a()
    costly = types_for_a(**{"special-action-cost": "2"})
    assert "fight" in costly and not {"power-attack", "finesse-attack"} & costly
    untracked = types_for_a(**{"special-action-cost": "2", "action-points": "untracked"})
    assert {"power-attack", "finesse-attack"} <= untracked
    for option in legal_commands(state, {**DEFAULTS, "special-action-cost": "2"}):
        command = SYSTEM.build_command(option)
        Table(
            system=SYSTEM,
            rulings={**DEFAULTS, "special-action-cost": "2"},
            dice=SeededDice("x"),
            choices=ScriptedChoices(),
            quiet=True,
        ).adjudicate(state, command, 1)  # nothing offered is refused
