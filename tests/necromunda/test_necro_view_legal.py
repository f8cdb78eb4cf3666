"""view and legal_commands of both Necromunda systems, in the demo's states, in hand-built states
and in random battles: every offered command is one the procedure accepts (every combination of
the offered values), the commands a player would give are offered when the rules allow them,
and the view shows what the rules made of the battle."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from necro_helpers import (
    KNIFE,
    MAUL,
    PISTOL,
    VEHICLE,
    WHIP,
    Barricade,
    Charge,
    CoupDeGraceAction,
    Engagement,
    Fight,
    NecroScenario,
    fighter,
    setup,
)
from necro_random import Battle, battles, keep_legal, refused

from blowbyblow.domain.core import BlowByBlowError, CommandIssued, Event, RuleViolation
from blowbyblow.domain.necromunda.commands import NecromundaCommand
from blowbyblow.domain.necromunda.fight import choice_name, weapon_choices
from blowbyblow.domain.necromunda.legal import command_from_option, legal_commands
from blowbyblow.domain.necromunda.projection import view
from blowbyblow.domain.necromunda.setup import NecromundaSetup
from blowbyblow.domain.necromunda.state import NecromundaState, initial_state
from blowbyblow.domain.system import AnyGameSystem, CommandOption, LockView
from blowbyblow.replay.engine.dice import ScriptedChoices, SeededDice
from blowbyblow.replay.engine.driver import Table
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play

SYSTEMS = ("necromunda-2023", "necromunda-legacy")


def states_of(
    rs: AnyGameSystem, events: Sequence[Event], first: NecromundaState
) -> list[NecromundaState]:
    """The state before each command and after the last."""
    states: list[NecromundaState] = []
    state = first
    for e in events:
        if isinstance(e, CommandIssued):
            states.append(state)
        state = rs.evolve(state, e)
    states.append(state)
    return states


def demo_states(ruleset_id: str) -> list[NecromundaState]:
    rs = get_game_system(ruleset_id)
    scenario = rs.demo()
    return states_of(rs, play(scenario).events, rs.initial_state(scenario.setup))


def commands_of(option: CommandOption) -> Iterator[NecromundaCommand]:
    """The command of every combination of the option's values."""
    names = list(option.options)
    for values in itertools.product(*(option.options[n] for n in names)):
        yield command_from_option(option, dict(zip(names, values, strict=True)))


def assert_every_offer_is_accepted(ruleset_id: str, state: NecromundaState) -> int:
    """Adjudicate every offered command (seeded dice, default answers); return how many."""
    rs = get_game_system(ruleset_id)
    rulings = rs.resolve_rulings({})
    count = 0
    for option in legal_commands(state, rulings):
        for command in commands_of(option):
            try:
                Table(
                    system=rs,
                    rulings=rulings,
                    dice=SeededDice("legal"),
                    choices=ScriptedChoices(),
                    quiet=True,
                ).adjudicate(state, command, state.commands + 1)
            except RuleViolation as e:
                raise AssertionError(f"offered {command!r} but the procedure says: {e}") from e
            count += 1
    return count


def offers(state: NecromundaState, kind: str, actor: str) -> list[CommandOption]:
    return [o for o in legal_commands(state) if o.type == kind and o.actor == actor]


def fight_offers(state: NecromundaState) -> set[tuple[str, str, str]]:
    """(attacker, weapons, target) of every Fight offered without turning to face."""
    return {
        (o.actor, w, t)
        for o in legal_commands(state)
        if o.type == "fight" and "turn_to_face" not in o.fields
        for w in o.options["weapons"]
        for t in o.options["targets"]
    }


# --- the demo -------------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset_id", SYSTEMS)
def test_every_offer_in_the_demo_states_is_accepted(ruleset_id: str) -> None:
    states = demo_states(ruleset_id)
    assert len(states) == 3
    assert sum(assert_every_offer_is_accepted(ruleset_id, s) for s in states) > 20


@pytest.mark.parametrize("ruleset_id", SYSTEMS)
def test_demo_offers_follow_the_rules(ruleset_id: str) -> None:
    start, after_charge, end = demo_states(ruleset_id)
    # Krug is in contact with nobody: he may charge any Escher, not fight
    assert not offers(start, "fight", "krug")
    (charge,) = offers(start, "charge", "krug")
    assert charge.options["targets"] == ("vex", "lia", "zia")
    assert charge.options["weapons"] == ("axe+stub-gun", "axe", "stub-gun", "unarmed")
    # Brak and Vex are Engaged and face each other: each may fight the other, not charge
    assert fight_offers(start) >= {("brak", "maul", "vex"), ("vex", "sword+laspistol", "brak")}
    assert not offers(start, "charge", "brak") and not offers(start, "charge", "vex")
    # the maul is Unwieldy: never paired
    assert all("+" not in w for (a, w, _) in fight_offers(start) if a == "brak")
    # after the charge Vex is Seriously Injured: a Coup de Grace for Brak (Active again), no
    # fight for Vex; Krug, Engaged with Lia, may fight her but not charge
    assert not offers(after_charge, "fight", "vex")
    (cdg,) = offers(after_charge, "coup-de-grace", "brak")
    assert cdg.options == {"target": ("vex",), "weapon": ("maul", "unarmed")}
    assert {t for (a, _, t) in fight_offers(after_charge) if a == "krug"} == {"lia"}
    assert not offers(after_charge, "charge", "krug")
    # at the end Lia is Out of Action (nothing for her, and nobody may target her)
    assert not [o for o in legal_commands(end) if o.actor == "lia"]
    assert all("lia" not in v for o in legal_commands(end) for vs in o.options.values() for v in vs)


@pytest.mark.parametrize("ruleset_id", SYSTEMS)
def test_demo_view(ruleset_id: str) -> None:
    start, _, end = demo_states(ruleset_id)
    v = view(start)
    assert v.sides == ("goliath", "escher")
    assert [u.id for u in v.units] == ["krug", "brak", "vex", "lia", "zia"]
    assert v.locks == (LockView(kind="engaged", members=("brak", "vex")),)
    assert 'lia and vex are within 3" of each other' in v.notes
    units = {u.id: u for u in view(end).units}
    assert units["lia"].status == "Out of Action"
    assert units["vex"].status == "Prone & Seriously Injured"
    assert dict((s.name, s.value) for s in units["vex"].stats)["wounds"] == "0/1"
    assert dict((s.name, s.value) for s in units["krug"].stats)["vision arc"] == "vex, lia"
    # Vex is Seriously Injured: still in base contact with Brak and Krug, Engaged with nobody
    assert {lk.members: lk.kind for lk in view(end).locks} == {
        ("brak", "vex"): "in contact",
        ("krug", "vex"): "in contact",
    }
    assert view(end).phase == "close combat, after 2 command(s)"


# --- hand-built states ---------------------------------------------------------------------------


def state_of(s: NecromundaSetup) -> NecromundaState:
    get_game_system("necromunda-2023").validate_setup(s)
    return initial_state(s)


def test_broken_prone_and_vehicles_are_offered_nothing() -> None:
    s = state_of(
        setup(
            [
                fighter("a", "g", broken=True, vision=["b"]),
                fighter("b", "e", vision=["a"]),
                fighter("p", "g", status="Prone & Pinned"),
                fighter("v", "g", vehicle=VEHICLE, weapons=[]),
            ],
            [("a", "b")],
        )
    )
    actors = {o.actor for o in legal_commands(s)}
    assert actors == {"b"}  # only b may act: it fights a (Broken fighters still engage)
    assert fight_offers(s) == {("b", "knife", "a"), ("b", "unarmed", "a")}
    v = {u.id: u for u in view(s).units}
    assert v["a"].flags == ("Broken",) and v["v"].flags == ("vehicle",)
    assert v["v"].status == "Mobile"


def test_a_fighter_facing_away_is_offered_the_fight_after_turning() -> None:
    s = state_of(
        setup([fighter("a", "g", vision=[]), fighter("b", "e", vision=["a"])], [("a", "b")])
    )
    (fight,) = offers(s, "fight", "a")
    assert fight.fields == {"attacker": "a", "turn_to_face": "b"}
    assert command_from_option(fight) == Fight(
        attacker="a", weapons=("knife",), targets=("b",), turn_to_face=["b"]
    )
    assert assert_every_offer_is_accepted("necromunda-2023", s) == 2 + 2  # a turns; b fights a


def test_across_a_wide_barricade_only_a_versatile_weapon_that_reaches_is_offered() -> None:
    s = state_of(
        setup(
            [
                fighter("a", "g", weapons=[KNIFE, WHIP], vision=["b", "c"]),
                fighter("b", "e", vision=["a"]),
                fighter("c", "e", vision=["a"]),
            ],
            [Engagement(a="a", b="b", across="wall"), Engagement(a="a", b="c")],
            [Barricade(id="wall", width=1.5)],
        )
    )
    offered = {(w, t) for (a, w, t) in fight_offers(s) if a == "a"}
    assert ("whip", "b") in offered and ("whip", "c") in offered
    assert ("knife", "b") not in offered and ("knife+whip", "b") not in offered
    assert ("unarmed", "b") not in offered and ("knife", "c") in offered
    # b and a are in contact but not Engaged (the wall is 1.5" wide)
    locks = {lk.members: lk for lk in view(s).locks}
    assert locks[("a", "b")].kind == "in contact"
    assert locks[("a", "b")].detail == 'across wall (1.5" wide)'
    assert locks[("a", "c")].kind == "engaged"
    assert assert_every_offer_is_accepted("necromunda-2023", s) > 5


def test_vehicles_are_charged_against_a_facing_and_fought_from_within_1_inch() -> None:
    s = state_of(
        setup(
            [
                fighter("a", "g", vision=["v"]),
                fighter("c", "g", vision=[]),
                fighter("v", "e", vehicle=VEHICLE, weapons=[]),
            ],
            [Engagement(a="a", b="v", facing="rear")],
        )
    )
    assert fight_offers(s) == {("a", "knife", "v"), ("a", "unarmed", "v")}
    (charge,) = offers(s, "charge", "c")
    assert charge.options["targets"] == ("v",)
    assert charge.options["facing"] == ("front", "side", "rear", "on")
    assert command_from_option(charge, {"facing": "side"}) == Charge(
        attacker="c", targets=["v"], weapons=("knife",), facing={"v": "side"}
    )
    lock = view(s).locks[0]
    assert (lock.kind, lock.detail) == ('within 1" of a vehicle', "vehicle facing: rear")
    for ruleset_id in SYSTEMS:
        # two Fights, a Charge for each facing and weapons choice, the vehicle leaving
        assert assert_every_offer_is_accepted(ruleset_id, s) == 2 + 4 * 2 + 1


def test_attack_dice_and_weapons_limit_the_offers() -> None:
    """No Attack dice, no fight (a second weapon adds one); an Unwieldy weapon fights alone;
    a weapon out of ammo is not offered."""
    s = state_of(
        setup(
            [
                fighter("a", "g", a=0, weapons=[KNIFE, PISTOL], vision=["b"]),
                fighter("b", "e", weapons=[MAUL, KNIFE], vision=["a"]),
            ],
            [("a", "b")],
        )
    )
    assert {w for (a, w, _) in fight_offers(s) if a == "a"} == {"knife+pistol"}
    assert {w for (a, w, _) in fight_offers(s) if a == "b"} == {"maul", "knife", "unarmed"}
    played = play(
        NecroScenario(
            ruleset="necromunda-legacy",
            label="ammo",
            setup=setup(
                [
                    fighter("a", "g", weapons=[PISTOL], vision=["b"]),
                    fighter("b", "e", vision=["a"]),
                ],
                [("a", "b")],
            ),
            commands=[Fight(attacker="a", weapons=("pistol",), targets=("b",))],
            dice=[1, 6, 3, 1],  # a miss; the ammo symbol; Ammo check 3 < 4+: out of ammo
        )
    )
    assert {w for (a, w, _) in fight_offers(played.state) if a == "a"} == {"unarmed"}
    (a,) = [u for u in view(played.state).units if u.id == "a"]
    assert "pistol out of ammo" in a.flags


def test_coup_de_grace_is_offered_against_a_seriously_injured_enemy_in_contact() -> None:
    s = state_of(
        setup(
            [
                fighter("a", "g", weapons=[KNIFE, PISTOL], vision=["b"]),
                fighter("k", "g", broken=True),
                fighter("b", "e", status="Prone & Seriously Injured"),
                fighter("c", "e", status="Prone & Seriously Injured"),
            ],
            [("a", "b"), ("k", "b")],
        )
    )
    (cdg,) = offers(s, "coup-de-grace", "a")
    assert cdg.options == {"target": ("b",), "weapon": ("knife", "pistol", "unarmed")}
    assert command_from_option(cdg, {"weapon": "pistol"}) == CoupDeGraceAction(
        attacker="a", target="b", weapon="pistol"
    )
    assert not offers(s, "coup-de-grace", "k")  # Broken: it must Run for Cover
    assert not offers(s, "charge", "a")  # a Seriously Injured fighter is not charged
    assert assert_every_offer_is_accepted("necromunda-2023", s) == 3


def test_an_option_refuses_a_value_it_does_not_offer() -> None:
    s = state_of(
        setup([fighter("a", "g", vision=["b"]), fighter("b", "e", vision=["a"])], [("a", "b")])
    )
    (fight,) = offers(s, "fight", "a")
    with pytest.raises(BlowByBlowError, match="targets"):
        command_from_option(fight, {"targets": "a"})


# --- random battles --------------------------------------------------------------------------------


def assert_offers_are_complete(ruleset_id: str, state: NecromundaState) -> None:
    """A Fight without turning (any weapons choice, one target), a Charge of one target and a
    Coup de Grace by a fighter that is not Broken: the procedure accepts it exactly when it is
    offered."""
    rs = get_game_system(ruleset_id)
    rulings = rs.resolve_rulings({})
    fights = fight_offers(state)
    options = legal_commands(state, rulings)
    charges = {(o.actor, t) for o in options if o.type == "charge" for t in o.options["targets"]}
    cdgs = {(o.actor, t) for o in options if o.type == "coup-de-grace" for t in o.options["target"]}
    for f in state.fighters.values():
        for t in state.fighters.values():
            for choice in weapon_choices(f):
                cmd = Fight(attacker=f.id, weapons=choice, targets=(t.id,))
                expected = (f.id, choice_name(choice), t.id) in fights
                assert refused(rs, state, cmd, rulings) != expected, cmd
            charge = Charge(
                attacker=f.id, targets=[t.id], facing={t.id: "front"} if t.is_vehicle else {}
            )
            assert refused(rs, state, charge, rulings) != ((f.id, t.id) in charges), charge
            if not f.broken:
                cdg = CoupDeGraceAction(attacker=f.id, target=t.id)
                assert refused(rs, state, cdg, rulings) != ((f.id, t.id) in cdgs), cdg


def check_random_battle(ruleset_id: str, data: Battle) -> None:
    rs = get_game_system(ruleset_id)
    scenario, intents = data
    played = play(msgspec.structs.replace(scenario, commands=keep_legal(rs, scenario, intents)))
    for state in states_of(rs, played.events, rs.initial_state(scenario.setup)):
        assert_every_offer_is_accepted(ruleset_id, state)
        assert_offers_are_complete(ruleset_id, state)
        v = view(state)
        assert {u.id for u in v.units} == set(state.fighters)
        assert len(v.locks) == len(state.links)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(battles())
def test_random_2023_battles_offer_what_the_rules_allow(data: Battle) -> None:
    check_random_battle("necromunda-2023", data)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(battles("necromunda-legacy"))
def test_random_legacy_battles_offer_what_the_rules_allow(data: Battle) -> None:
    check_random_battle("necromunda-legacy", data)
