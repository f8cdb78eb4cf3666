"""What version 1.1 of wh40k-2e adds: Robots, Dreadnoughts, Greater Daemons and Juggernaut
riders moving out of combat, "Move and Shoot normally" after a Follow-Up Move that engages no
one, a model with no Weapon Skill value, and the extra dice of a Multiple Combat that lasts into
another phase (a ruling). Worked examples with listed dice."""

from __future__ import annotations

import msgspec
import pytest
from wh40k_helpers import model, of, one, run, setup

from blowbyblow.domain.core import RuleViolation, SetupError
from blowbyblow.domain.wh40k.commands import (
    BreakOff,
    Charge,
    EndTurn,
    Fight,
    FollowUp,
    LeaveCombat,
)
from blowbyblow.domain.wh40k.events import (
    AttackDiceRolled,
    Charged,
    CombatRoundBegun,
    FollowUpMove,
    LeftCombat,
    ModelSlain,
)
from blowbyblow.domain.wh40k.legal import legal_commands
from blowbyblow.domain.wh40k.narration import narrate
from blowbyblow.domain.wh40k.projection import evolve, view
from blowbyblow.domain.wh40k.rulebook import RULE_BREAK_OFF
from blowbyblow.domain.wh40k.setup import ModelProfile, Wh40kSetup, validate_setup
from blowbyblow.domain.wh40k.state import Wh40kState, initial_state

# --- leaving combat -------------------------------------------------------------------------------


def dreadnought_in_combat(*, ork_kind: str | None = None) -> Wh40kSetup:
    return setup(
        model("dread", "red", leaves_combat="dreadnought"),
        model("ork", "blue", leaves_combat=ork_kind),
        model("nob", "blue"),
        contacts=[("dread", "ork")],
        first_player="red",
    )


def test_a_dreadnought_moves_out_of_combat_and_may_charge_as_normal() -> None:
    """Breaking Off: "Robots, Dreadnoughts, Greater Daemons, and Chaos Champions riding
    Juggernauts may move out of Hand-to-Hand Combat in their Movement Phase—and may then Charge
    or Shoot as normal." """
    played = run(
        dreadnought_in_combat(),
        [LeaveCombat(model="dread"), Charge(model="dread", target="nob")],
        [],
    )
    left = one(played, LeftCombat)
    assert (left.model, left.what, left.away_from, left.rule) == (
        "dread",
        "a Dreadnought",
        ("ork",),
        RULE_BREAK_OFF,
    )
    assert one(played, Charged).target == "nob"
    assert played.state.contacts == (("dread", "nob"),)
    (dread,) = [u for u in view(played.state).units if u.id == "dread"]
    assert "moved out of combat this turn (may Charge or Shoot as normal)" in dread.flags
    # without the charge, no pair is left to fight: the turn may end
    done = run(dreadnought_in_combat(), [LeaveCombat(model="dread"), EndTurn()], [])
    assert done.state.turn == 2 and done.state.contacts == ()


def test_engaged_with_another_such_model_the_standard_breaking_off_rules_apply() -> None:
    """ "However, if they are engaged with another model in this category, the standard Breaking
    Off rules apply." """
    s = dreadnought_in_combat(ork_kind="greater daemon")
    with pytest.raises(RuleViolation, match=r"ork \(a Greater Daemon\).*Breaking Off rules apply"):
        run(s, [LeaveCombat(model="dread")], [])
    offered = {o.type for o in legal_commands(initial_state(s), {}) if o.actor == "dread"}
    assert "breakoff" in offered and "leavecombat" not in offered
    run(s, [BreakOff(model="dread")], [])  # allowed


def test_who_may_move_out_of_combat_and_when() -> None:
    s = dreadnought_in_combat()
    with pytest.raises(RuleViolation, match="in its own Movement Phase"):
        run(s, [BreakOff(model="ork"), LeaveCombat(model="dread")], [])  # the phase has moved on
    blue_first = msgspec.structs.replace(s, first_player="blue")
    with pytest.raises(RuleViolation, match="in its own Movement Phase"):
        run(blue_first, [LeaveCombat(model="dread")], [])
    with pytest.raises(RuleViolation, match="ork may only break off"):
        run(blue_first, [LeaveCombat(model="ork")], [])  # not one of those models
    apart = msgspec.structs.replace(s, contacts=[])
    with pytest.raises(RuleViolation, match="not in hand-to-hand combat"):
        run(apart, [LeaveCombat(model="dread")], [])
    offers = [o for o in legal_commands(initial_state(s), {}) if o.type == "leavecombat"]
    assert [(o.actor, o.side, o.fields) for o in offers] == [("dread", "red", {"model": "dread"})]


# --- after a Follow-Up Move that engages no one -------------------------------------------------


@pytest.mark.parametrize(
    ("first", "next_turn"),
    [("red", 3), ("blue", 2)],  # a is red: its next turn is turn 3 in its own turn, else turn 2
)
def test_a_follow_up_that_engages_no_one_lets_it_move_and_shoot_next_turn(
    first: str, next_turn: int
) -> None:
    """Follow-Up Moves: "If the model does not end its Follow-Up Move engaged in Hand-to-Hand
    Combat, it may Move and Shoot normally in its next turn." """
    s = setup(model("a", "red"), model("b", "blue"), contacts=[("a", "b")], first_player=first)
    # a 6 vs b 1: 6 hits; the first wound (4+, rolled 4) slays b
    played = run(s, [Fight(model="a"), FollowUp(model="a")], [6, 1, 4])
    assert played.state.models["a"].move_and_shoot_turn == next_turn
    text = narrate(one(played, FollowUpMove)) or ""
    assert "may Move and Shoot normally in its next turn" in text

    def flags(state: Wh40kState) -> tuple[str, ...]:
        return next(u.flags for u in view(state).units if u.id == "a")

    assert f"turn {next_turn}" in " ".join(flags(played.state))
    later = run(
        s, [Fight(model="a"), FollowUp(model="a"), *[EndTurn()] * (next_turn - 1)], [6, 1, 4]
    )
    assert later.state.turn == next_turn
    assert any("may Move and Shoot normally this turn" in f for f in flags(later.state))
    after = run(s, [Fight(model="a"), FollowUp(model="a"), *[EndTurn()] * next_turn], [6, 1, 4])
    assert not any("Move and Shoot" in f for f in flags(after.state))


def test_a_follow_up_that_engages_gives_no_such_mark() -> None:
    s = setup(
        model("a", "red"),
        model("b", "blue"),
        model("c", "blue", t=9),
        contacts=[("a", "b")],
        first_player="red",
    )
    played = run(s, [Fight(model="a"), FollowUp(model="a", engage=("c",))], [6, 1, 4])
    assert played.state.models["a"].move_and_shoot_turn == 0


# --- a model with no Weapon Skill value ---------------------------------------------------------


def no_ws() -> ModelProfile:
    """A model whose profile shows "-" for WS, as a scenario file gives it."""
    return msgspec.convert(
        {"id": "wall", "player": "blue", "ws": "-", "s": 3, "t": 8, "i": 0}, ModelProfile
    )


def test_a_model_with_no_weapon_skill_value_does_not_fight() -> None:
    """Who Fights: "all models with a Weapon Skill value that are in base-to-base contact with
    an enemy model fight in Hand-to-Hand Combat" (a profile's "-" is no value)."""
    s = setup(model("marine", "red"), no_ws(), contacts=[("marine", "wall")], first_player="red")
    validate_setup(s)
    with pytest.raises(RuleViolation, match="wall has no Weapon Skill value"):
        run(s, [Fight(model="wall")], [])
    with pytest.raises(RuleViolation, match="not in base contact with an enemy"):
        run(s, [Fight(model="marine")], [])
    with pytest.raises(RuleViolation, match="not in hand-to-hand combat"):
        run(s, [BreakOff(model="marine")], [])
    # combat is mandatory only for those who fight: the turn may end
    assert run(s, [EndTurn()], []).state.turn == 2
    shown = view(initial_state(s))
    (lock,) = shown.locks
    assert (lock.kind, lock.detail) == (
        "base contact",
        "does not fight: wall has no Weapon Skill value",
    )
    statuses = {u.id: u.status for u in shown.units}
    assert statuses == {
        "marine": "in base contact, not fighting",
        "wall": "in base contact, not fighting",
    }
    assert not [o for o in legal_commands(initial_state(s), {}) if o.type in ("fight", "breakoff")]


def test_two_enemies_of_which_one_has_no_weapon_skill_make_no_multiple_combat() -> None:
    s = setup(
        model("marine", "red"),
        model("ork", "blue"),
        no_ws(),
        contacts=[("marine", "ork"), ("marine", "wall")],
    )
    # marine 4 vs ork 3: marine wins 1 hit, wound roll 1 fails
    played = run(s, [Fight(model="marine")], [4, 3, 1])
    assert [(r.models, r.duel) for r in of(played, CombatRoundBegun)] == [(("marine", "ork"), 0)]


def test_weapon_skill_is_a_number_or_a_dash() -> None:
    bad = {"id": "x", "player": "blue", "ws": "none", "s": 3, "t": 3, "i": 1}
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert(bad, ModelProfile)
    with pytest.raises(SetupError, match="ws must be at least 0"):
        validate_setup(setup(model("a", "red", ws=-1), model("b", "blue")))


# --- Multiple Combat across phases (ruling multiple-combat-rounds) --------------------------------


def two_on_one() -> Wh40kSetup:
    """Nobody can wound anybody (S3 against T9): the Multiple Combat lasts."""
    return setup(
        model("x1", "red", t=9),
        model("x2", "red", t=9),
        model("lone", "blue", t=9),
        contacts=[("x1", "lone"), ("x2", "lone")],
        first_player="red",
    )


TWO_PHASES = [Fight(model="lone", order=("x1", "x2")), EndTurn()] * 2


@pytest.mark.parametrize(
    ("ruling", "rounds", "x1_dice"),
    [("each-phase", [1, 2, 1, 2], [1, 1]), ("continue", [1, 2, 3, 4], [1, 3])],
)
def test_the_extra_dice_of_a_multiple_combat_in_the_next_phase(
    ruling: str, rounds: list[int], x1_dice: list[int]
) -> None:
    """Multiple Combat: "If the outnumbered model survives the first Combat Round, the opposing
    player gains +1 Attack Dice for each subsequent Combat Round (+1 on round 2, +2 on round 3,
    and so on)." Whether the count goes on in the next phase is not said: ruling
    multiple-combat-rounds (each-phase, as version 1.0 counted; or continue). All dice are 3s:
    every round a stalemate."""
    dice_count = sum(rounds) + len(rounds)  # the outnumbering model's dice, then lone's one
    played = run(
        two_on_one(), TWO_PHASES, [3] * dice_count, rulings={"multiple-combat-rounds": ruling}
    )
    assert [r.duel for r in of(played, CombatRoundBegun)] == rounds
    assert [d.count for d in of(played, AttackDiceRolled) if d.model == "x1"] == x1_dice
    assert played.state.multiple_rounds == {"lone": rounds[-1]}


def test_the_count_ends_with_the_multiple_combat() -> None:
    state = run(two_on_one(), TWO_PHASES[:1], [3, 3, 3, 3, 3]).state
    assert state.multiple_rounds == {"lone": 2}
    gone = evolve(state, ModelSlain(rule="40K2 HtH: Resolve Hits & Damage", model="x2", by="lone"))
    assert gone.multiple_rounds == {}
