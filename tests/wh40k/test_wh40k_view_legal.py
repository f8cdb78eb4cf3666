"""view and legal_commands of wh40k-2e: real states (the demo's, after each command, and
hand-built ones) and the rule consequences they must show; every offered option is accepted by
the procedure."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from test_wh40k_properties import HashedChoices, battles
from test_wh40k_properties import legal_commands as generated_commands
from wh40k_helpers import model, setup

from blowbyblow.domain.core import Command, RuleViolation
from blowbyblow.domain.system import CommandOption, StateView, UnitView
from blowbyblow.domain.wh40k.commands import (
    BreakOff,
    Charge,
    EndTurn,
    Fight,
    FollowUp,
    LeaveCombat,
)
from blowbyblow.domain.wh40k.legal import legal_commands
from blowbyblow.domain.wh40k.projection import view
from blowbyblow.domain.wh40k.rulebook import RULEBOOK, SECTIONS
from blowbyblow.domain.wh40k.setup import Wh40kSetup
from blowbyblow.domain.wh40k.state import Wh40kState, initial_state, pair
from blowbyblow.domain.wh40k.system import GAME_SYSTEM
from blowbyblow.domain.wh40k.who_fights import find_combat
from blowbyblow.projections.battle import fold
from blowbyblow.replay.engine.dice import SeededDice
from blowbyblow.replay.engine.driver import Adjudication, Table
from blowbyblow.replay.engine.script import play, split_by_command

RULINGS = GAME_SYSTEM.resolve_rulings({})
COMMAND_UNION: Any = GAME_SYSTEM.command_type


def demo_states() -> list[Wh40kState]:
    """The demo's state before each of its commands, then its final state."""
    played = play(GAME_SYSTEM.demo())
    batches = split_by_command(played.events)
    state: Wh40kState = GAME_SYSTEM.initial_state(GAME_SYSTEM.demo().setup)
    states = [state]
    for batch in batches[1:]:
        state = fold(GAME_SYSTEM, state, batch)
        states.append(state)
    assert states[-1] == played.state
    return states


STATES = demo_states()
BEFORE_BREAK_OFF = STATES[3]  # the three charges made
BEFORE_FIRST_FIGHT = STATES[4]  # Cato has declared his break off
BEFORE_MULTIPLE_COMBAT = STATES[5]  # Cato has escaped
BEFORE_FOLLOW_UP = STATES[6]  # Varro fought Snagga and Gorg
FINAL = STATES[-1]  # turn 2


def build(option: CommandOption, pick: int = 0) -> Any:
    """The command an option stands for: its fixed fields, the ``pick``-th allowed value of
    each option field (the last when there are fewer)."""
    data: dict[str, Any] = {"type": option.type, **option.fields}
    for name, values in option.options.items():
        data[name] = values[min(pick, len(values) - 1)]
    return msgspec.convert(data, COMMAND_UNION)


def run(state: Wh40kState, command: Command, seed: str = "legal") -> Adjudication:
    return Table(
        system=GAME_SYSTEM,
        rulings=RULINGS,
        dice=SeededDice(seed),
        choices=HashedChoices(seed),
        quiet=True,
    ).adjudicate(state, command, 1)


def offered(state: Wh40kState, kind: str) -> list[CommandOption]:
    return [o for o in legal_commands(state) if o.type == kind]


def actors(state: Wh40kState, kind: str) -> list[str]:
    return [o.actor for o in offered(state, kind)]


def unit(v: StateView, ident: str) -> UnitView:
    (found,) = [u for u in v.units if u.id == ident]
    return found


def stat(u: UnitView, name: str) -> str:
    (found,) = [s.value for s in u.stats if s.name == name]
    return found


# --- every option is accepted ------------------------------------------------------------------


@pytest.mark.parametrize("position", range(len(STATES)))
def test_every_offered_option_is_accepted_in_the_demo_states(position: int) -> None:
    state = STATES[position]
    options = legal_commands(state)
    assert options, "a player can always do something (at least end the turn or fight)"
    for option in options:
        widest = max((len(v) for v in option.options.values()), default=1)
        for pick in range(widest):
            command = build(option, pick)
            result = run(state, command)
            assert result.events, option


def test_options_come_in_a_fixed_order() -> None:
    for state in STATES:
        assert legal_commands(state) == legal_commands(state)
        kinds = [o.type for o in legal_commands(state)]
        rank = ["followup", "charge", "breakoff", "fight", "endturn"]
        assert kinds == sorted(kinds, key=rank.index)


# --- the demo, command by command -----------------------------------------------------------------


def test_at_the_start_the_orks_may_charge_any_ultramarine_and_nobody_fights() -> None:
    start = STATES[0]
    charges = offered(start, "charge")
    assert [(o.actor, o.side, o.options["target"]) for o in charges] == [
        ("gorg", "Orks", ("varro", "cato")),
        ("snagga", "Orks", ("varro", "cato")),
        ("zog", "Orks", ("varro", "cato")),
    ]
    assert offered(start, "fight") == [] and offered(start, "breakoff") == []
    assert [o.side for o in offered(start, "endturn")] == ["Orks"]


def test_engaged_models_are_not_offered_a_charge_and_the_turn_may_not_end() -> None:
    state = BEFORE_BREAK_OFF
    assert state.phase == "movement"
    assert offered(state, "charge") == []  # every Ork is in base contact
    assert offered(state, "endturn") == []  # combat is mandatory
    assert actors(state, "breakoff") == ["varro", "cato", "gorg", "snagga", "zog"]
    # one fight per combat: the Multiple Combat around Varro (named by him), Cato against Zog
    fights = offered(state, "fight")
    assert [(o.actor, o.fields) for o in fights] == [
        ("varro", {"model": "varro"}),
        ("cato", {"model": "cato"}),
    ]
    assert "Multiple Combat" in fights[0].summary
    assert "Multiple Combat" not in fights[1].summary


def test_a_declared_break_off_is_not_offered_again_and_charges_are_over() -> None:
    state = BEFORE_FIRST_FIGHT
    assert state.phase == "hand-to-hand"
    assert "cato" not in actors(state, "breakoff")
    assert offered(state, "charge") == []


def test_after_cato_escapes_only_the_multiple_combat_is_left_to_fight() -> None:
    state = BEFORE_MULTIPLE_COMBAT
    assert actors(state, "fight") == ["varro"]
    # Zog has fought this phase and is no longer in contact: nothing for him
    assert "zog" not in actors(state, "breakoff") + actors(state, "fight")
    assert actors(state, "breakoff") == ["varro", "gorg", "snagga"]
    assert offered(state, "endturn") == []


def test_after_killing_varro_gorg_may_follow_up_and_the_turn_may_end() -> None:
    state = BEFORE_FOLLOW_UP
    (follow,) = offered(state, "followup")
    assert (follow.actor, follow.side, follow.fields) == ("gorg", "Orks", {"model": "gorg"})
    assert legal_commands(state)[0] == follow
    assert [o.side for o in offered(state, "endturn")] == ["Orks"]
    assert offered(state, "fight") == []


def test_the_follow_up_is_offered_only_straight_after_the_fight() -> None:
    after = run(BEFORE_FOLLOW_UP, EndTurn()).state
    assert offered(after, "followup") == []
    assert offered(STATES[7], "followup") == []


def test_in_turn_two_the_broken_survivor_is_not_offered_a_charge() -> None:
    state = FINAL
    assert (state.turn, state.player, state.phase) == (2, "Ultramarines", "movement")
    # Cato is Broken, Varro is slain; the Orks may not charge in the Ultramarines' turn
    assert offered(state, "charge") == []
    assert [(o.type, o.side) for o in legal_commands(state)] == [("endturn", "Ultramarines")]


# --- view -------------------------------------------------------------------------------------------


def test_view_at_the_start() -> None:
    v = view(STATES[0])
    assert v.sides == ("Ultramarines", "Orks")
    assert [u.id for u in v.units] == ["varro", "cato", "gorg", "snagga", "zog"]
    varro = unit(v, "varro")
    assert (varro.name, varro.side, varro.status) == (
        "Sergeant Varro",
        "Ultramarines",
        "not engaged",
    )
    assert stat(varro, "wounds") == "1/1" and stat(varro, "save") == "3+"
    assert stat(unit(v, "gorg"), "wounds") == "2/2"
    assert v.locks == ()
    assert v.phase == "Turn 1, Orks player: Movement Phase"


def test_view_shows_the_combats_and_the_multiple_combat() -> None:
    v = view(BEFORE_BREAK_OFF)
    combats = [(lock.members, lock.detail) for lock in v.locks if lock.kind == "combat"]
    assert combats == [
        (("gorg", "varro"), "to fight this phase"),
        (("snagga", "varro"), "to fight this phase"),
        (("cato", "zog"), "to fight this phase"),
    ]
    (multiple,) = [lock for lock in v.locks if lock.kind == "multiple combat"]
    assert multiple.members == ("varro", "gorg", "snagga")
    assert all(u.status == "in hand-to-hand combat" for u in v.units)
    assert "charged this turn" in unit(v, "gorg").flags
    assert "charged this turn" not in unit(v, "varro").flags
    assert any("combat is mandatory" in n for n in v.notes)


def test_view_after_the_break_off_shows_the_squad_broken() -> None:
    v = view(BEFORE_MULTIPLE_COMBAT)
    cato, varro = unit(v, "cato"), unit(v, "varro")
    assert cato.status == "Broken" and "Broken (turn 1)" in cato.flags
    # Varro is of Cato's squad: Broken too, but still fighting
    assert varro.status == "in hand-to-hand combat" and "Broken (turn 1)" in varro.flags
    assert "fought this phase" in unit(v, "zog").flags
    assert v.phase == "Turn 1, Orks player: Hand-to-Hand Combat Phase"


def test_view_after_the_multiple_combat() -> None:
    v = view(BEFORE_FOLLOW_UP)
    varro, snagga, gorg = unit(v, "varro"), unit(v, "snagga"), unit(v, "gorg")
    assert (varro.status, varro.flags[0]) == ("slain", "slain by gorg")
    assert (snagga.status, snagga.flags[0]) == ("slain", "slain by varro")
    assert stat(varro, "wounds") == "0/1"
    assert gorg.status == "not engaged" and "may follow up" in gorg.flags
    assert v.locks == ()
    assert any("Follow-Up Move" in n and "gorg" in n for n in v.notes)


# --- hand-built states --------------------------------------------------------------------------------


def three_on_one() -> Wh40kSetup:
    return setup(
        model("x1", "red", squad="mob"),
        model("x2", "red", squad="mob"),
        model("x3", "red", squad="mob"),
        model("lone", "blue"),
        model("far", "blue"),
        contacts=[("x1", "lone"), ("x2", "lone"), ("x3", "lone")],
        first_player="blue",
    )


def test_a_multiple_combat_is_offered_once_named_by_the_lone_model() -> None:
    state = initial_state(three_on_one())
    fights = offered(state, "fight")
    assert [(o.actor, o.side) for o in fights] == [("lone", "blue")]
    # "far" (blue, whose turn it is, not engaged) may charge any red model
    (charge,) = offered(state, "charge")
    assert (charge.actor, charge.options["target"]) == ("far", ("x1", "x2", "x3"))
    # every engaged model may break off, of either side
    assert [(o.actor, o.side) for o in offered(state, "breakoff")] == [
        ("x1", "red"),
        ("x2", "red"),
        ("x3", "red"),
        ("lone", "blue"),
    ]


def test_a_fought_pair_is_not_offered_again_but_the_rest_is() -> None:
    s = setup(
        model("a", "red"),
        model("b", "blue"),
        model("c", "red"),
        model("d", "blue"),
        contacts=[("a", "b"), ("c", "d")],
    )
    state = msgspec.structs.replace(
        initial_state(s), fought=(pair("a", "b"),), phase="hand-to-hand"
    )
    assert actors(state, "fight") == ["c"]
    assert actors(state, "breakoff") == ["c", "d"]  # a and b have fought: too late to break off
    assert offered(state, "charge") == []  # the Hand-to-Hand Combat Phase has begun
    assert offered(state, "endturn") == []
    done = msgspec.structs.replace(state, fought=(pair("a", "b"), pair("c", "d")))
    assert [o.type for o in legal_commands(done)] == ["endturn"]


def test_a_broken_model_is_not_offered_a_charge_nor_a_slain_one() -> None:
    s = setup(model("a", "red"), model("b", "red"), model("c", "red"), model("z", "blue"))
    state = initial_state(s)
    models = dict(state.models)
    models["a"] = msgspec.structs.replace(models["a"], broken=True, broken_turn=1)
    models["b"] = msgspec.structs.replace(models["b"], slain=True, wounds=0)
    state = msgspec.structs.replace(state, models=models)
    assert actors(state, "charge") == ["c"]
    v = view(state)
    assert [unit(v, m).status for m in ("a", "b", "c", "z")] == [
        "Broken",
        "slain",
        "not engaged",
        "not engaged",
    ]


def test_each_one_on_one_pair_is_its_own_fight() -> None:
    s = setup(
        model("a", "red"),
        model("b", "blue"),
        model("c", "red"),
        model("d", "blue"),
        contacts=[("a", "b"), ("c", "d")],
    )
    state = initial_state(s)
    assert [(o.actor, o.summary) for o in offered(state, "fight")] == [
        ("a", "a fights b"),
        ("c", "c fights d"),
    ]


# --- random battles: the options agree with the procedure ---------------------------------------


def _fought_by(state: Wh40kState, model: str) -> frozenset[tuple[str, str]] | None:
    """The pairs ``fight`` naming ``model`` fights; None when the procedure refuses it."""
    try:
        combat = find_combat(state, model)
    except RuleViolation:
        return None
    if combat.lone is None:
        return frozenset({pair(*combat.models)})
    return frozenset(pair(combat.lone, o) for o in combat.models)


TAGS: dict[type[Command], str] = {
    Charge: "charge",
    BreakOff: "breakoff",
    LeaveCombat: "leavecombat",
    Fight: "fight",
    FollowUp: "followup",
}


def _covered(state: Wh40kState, command: Any) -> bool:
    """Whether ``command`` is among the offered options (a fight: one that fights the same
    pairs; a charge: its target among the allowed ones)."""
    options = legal_commands(state)
    if isinstance(command, EndTurn):
        return any(o.type == "endturn" for o in options)
    mine = [o for o in options if o.type == TAGS[type(command)]]
    if isinstance(command, Fight):
        pairs = _fought_by(state, command.model)
        return pairs is not None and pairs in [_fought_by(state, o.actor) for o in mine]
    if isinstance(command, Charge):
        return any(o.actor == command.model and command.target in o.options["target"] for o in mine)
    return any(o.actor == command.model for o in mine)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(battles())
def test_in_random_battles_every_option_is_accepted_and_every_legal_move_offered(
    battle: tuple[Wh40kSetup, dict[str, str], str, list[int]],
) -> None:
    the_setup, rulings, seed, picks = battle
    resolved = GAME_SYSTEM.resolve_rulings(rulings)
    state = GAME_SYSTEM.initial_state(the_setup)
    for index, pick in enumerate(picks, start=1):
        options = legal_commands(state)
        for option in options:
            Table(
                system=GAME_SYSTEM,
                rulings=resolved,
                dice=SeededDice(seed),
                choices=HashedChoices(seed),
                quiet=True,
            ).adjudicate(state, build(option, pick), index)
        for command in generated_commands(state, pick):
            assert _covered(state, command), command
        if not options:
            break
        state = (
            Table(
                system=GAME_SYSTEM,
                rulings=resolved,
                dice=SeededDice(seed),
                choices=HashedChoices(seed),
                quiet=True,
            )
            .adjudicate(state, build(options[pick % len(options)], pick), index)
            .state
        )


def test_a_refused_command_is_not_offered() -> None:
    state = BEFORE_MULTIPLE_COMBAT
    for command in (Fight(model="zog"), BreakOff(model="zog"), Charge(model="zog", target="varro")):
        with pytest.raises(RuleViolation):
            run(state, command)
        assert not _covered(state, command)


# --- the rulebook ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "words"),
    [
        ("40K2 HtH: Parrying", "Hand-to-Hand Combat, Combat Score Modifiers (Parrying)"),
        (
            "40K2 HtH: Resolve Hits & Damage (ruling to-wound-chart)",
            "Hand-to-Hand Combat, Combat Rounds, step 4 (Resolve Hits & Damage), as ruling "
            "to-wound-chart decides",
        ),
        ("40K2 HtH: Follow-Up Moves", "Hand-to-Hand Combat, Follow-Up Moves"),
        ("something else", "something else"),
    ],
)
def test_rule_references_read_as_rulebook_sections(rule: str, words: str) -> None:
    assert RULEBOOK.section(rule) == words
    assert RULEBOOK.cite(rule) == f"Warhammer 40,000 Rulebook (2nd edition, 1993), {words}"


def test_every_recorded_rule_and_every_ruling_names_a_known_section() -> None:
    played = play(GAME_SYSTEM.demo())
    rules = {getattr(e, "rule", "") for e in played.events} - {""}
    for rule in rules | {r.rule for r in GAME_SYSTEM.rulings}:
        assert RULEBOOK.section(rule) != rule, rule
    for r in GAME_SYSTEM.rulings:
        assert r.rule in SECTIONS and r.note, r.name
