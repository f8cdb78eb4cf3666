"""Multiple Combat, Breaking Off, Follow-Up Moves, charging and the mandatory combat of the
Hand-to-Hand Combat Phase."""

from __future__ import annotations

from decimal import Decimal

import pytest
from wh40k_helpers import model, of, one, run, setup

from blowbyblow.domain.core import ChoiceMade, DiceRolled, RuleViolation
from blowbyblow.domain.wh40k.commands import BreakOff, Charge, EndTurn, Fight, FollowUp
from blowbyblow.domain.wh40k.events import (
    AttackDiceRolled,
    BrokeOff,
    CombatRoundBegun,
    CombatScoreCalculated,
    FollowUpAllowed,
    FollowUpMove,
    ModelSlain,
    MultipleCombatBegun,
    TurnBegun,
)
from blowbyblow.domain.wh40k.rulebook import RULE_MULTIPLE
from blowbyblow.domain.wh40k.setup import Wh40kSetup

# --- Multiple Combat ----------------------------------------------------------------------------


def three_on_one() -> Wh40kSetup:
    return setup(
        model("x1", "red"),
        model("x2", "red"),
        model("x3", "red"),
        model("lone", "blue", t=9),
        contacts=[("x1", "lone"), ("x2", "lone"), ("x3", "lone")],
    )


# duel 1: x2 (1 die) 2 vs lone 5: lone wins 3 hits, the first wound (4) slays x2
# duel 2: x1 (2 dice) 2 2 vs lone 1 (a fumble): x1 wins 2 hits that cannot wound T9
# duel 3: x3 (3 dice) 1 1 3 vs lone 3: lone wins 9 - 7 = 2 hits, the first (6) slays x3
THREE_ON_ONE_DICE = [2, 5, 4, 2, 2, 1, 1, 1, 3, 3, 6]


def test_multiple_combat_is_a_series_of_duels_with_an_extra_die_per_later_round() -> None:
    played = run(three_on_one(), [Fight(model="lone", order=("x2", "x1", "x3"))], THREE_ON_ONE_DICE)
    begun = one(played, MultipleCombatBegun)
    assert (begun.lone, begun.order, begun.outnumbering_player) == (
        "lone",
        ("x2", "x1", "x3"),
        "red",
    )
    assert [(r.models, r.duel) for r in of(played, CombatRoundBegun)] == [
        (("x2", "lone"), 1),
        (("x1", "lone"), 2),
        (("x3", "lone"), 3),
    ]
    counts = {(d.model, d.count) for d in of(played, AttackDiceRolled)}
    assert counts == {("x2", 1), ("x1", 2), ("x3", 3), ("lone", 1)}
    x3 = one(played, AttackDiceRolled, model="x3")
    assert [(m.value, m.rule) for m in x3.modifiers] == [(2, RULE_MULTIPLE)]
    assert {m.model for m in of(played, ModelSlain)} == {"x2", "x3"}
    assert played.state.contacts == (("lone", "x1"),)
    assert of(played, FollowUpAllowed) == []  # lone still has x1 to fight


def test_naming_an_outnumbering_model_fights_the_whole_multiple_combat() -> None:
    played = run(three_on_one(), [Fight(model="x2", order=("x2", "x1", "x3"))], THREE_ON_ONE_DICE)
    assert one(played, MultipleCombatBegun).lone == "lone"
    assert len(of(played, CombatRoundBegun)) == 3


def test_order_is_asked_of_the_outnumbering_player_when_not_given() -> None:
    played = run(
        three_on_one(),
        [Fight(model="lone")],
        THREE_ON_ONE_DICE,
        choices={"order/1": "x2", "order/2": "x1"},
    )
    assert one(played, MultipleCombatBegun).order == ("x2", "x1", "x3")
    assert [c.key for c in of(played, ChoiceMade)] == ["c1/order/1", "c1/order/2"]


def test_multiple_combat_ends_when_the_lone_model_dies() -> None:
    s = setup(
        model("x1", "red"),
        model("x2", "red"),
        model("lone", "blue"),
        contacts=[("x1", "lone"), ("x2", "lone")],
    )
    # x1 6 vs lone 1: 6 hits, the first wound (5) slays lone; x2 never fights
    played = run(s, [Fight(model="lone", order=("x1", "x2")), EndTurn()], [6, 1, 5])
    assert len(of(played, CombatRoundBegun)) == 1
    assert one(played, TurnBegun).player == "blue"


@pytest.mark.parametrize("order", [("x1",), ("x1", "x1", "x2"), ("x1", "x2", "nobody")])
def test_order_must_name_each_outnumbering_model_once(order: tuple[str, ...]) -> None:
    s = setup(
        model("x1", "red"),
        model("x2", "red"),
        model("lone", "blue"),
        contacts=[("x1", "lone"), ("x2", "lone")],
    )
    with pytest.raises(RuleViolation) as err:
        run(s, [Fight(model="lone", order=order)], [])
    assert err.value.rule == RULE_MULTIPLE


def test_order_is_refused_in_a_one_on_one_fight() -> None:
    s = setup(model("a", "red"), model("b", "blue"), contacts=[("a", "b")])
    with pytest.raises(RuleViolation):
        run(s, [Fight(model="a", order=("b",))], [])


# --- Breaking Off -------------------------------------------------------------------------------


def test_breaking_off_survivor_moves_2d6_and_its_squad_is_broken() -> None:
    s = setup(
        model("a", "red", squad="s1", t=9),
        model("c", "red", squad="s1"),
        model("d", "red"),
        model("b", "blue"),
        contacts=[("a", "b")],
    )
    # a (WS 0) 6 vs b 2: 6 vs 6, Initiative tied: stalemate; a escapes 5 + 6 = 11"
    played = run(s, [BreakOff(model="a"), Fight(model="a")], [6, 2, 5, 6])
    score = one(played, CombatScoreCalculated, model="a")
    assert (score.ws, score.score) == (0, 6)
    broke = one(played, BrokeOff)
    assert (broke.dice, broke.inches, broke.away_from, broke.broken) == (
        (5, 6),
        11,
        ("b",),
        ("a", "c"),
    )
    state = played.state
    assert state.models["a"].broken and state.models["c"].broken
    assert not state.models["d"].broken and state.models["a"].broken_turn == 1
    assert state.contacts == () and state.breaking_off == ()
    assert of(played, FollowUpAllowed) == []  # b's opponent escaped; b killed nobody


def test_a_slain_breaker_does_not_move() -> None:
    s = setup(model("a", "red"), model("b", "blue", weapons=["knife"]), contacts=[("a", "b")])
    played = run(s, [BreakOff(model="a"), Fight(model="a")], [2, 6, 5])
    assert of(played, BrokeOff) == []
    assert not any(d.key.endswith("breakoff/a") for d in of(played, DiceRolled))
    assert one(played, FollowUpAllowed).model == "b"


def test_break_off_must_be_declared_before_the_model_fights() -> None:
    s = setup(
        model("a", "red", t=9),
        model("b", "blue", t=9),
        model("c", "blue", t=9),
        contacts=[("a", "b")],
    )
    with pytest.raises(RuleViolation, match="before its Combat Round"):
        run(s, [Fight(model="a"), BreakOff(model="a")], [3, 3])
    with pytest.raises(RuleViolation, match="not in hand-to-hand"):
        run(s, [BreakOff(model="c")], [])
    with pytest.raises(RuleViolation, match="already declared"):
        run(s, [BreakOff(model="a"), BreakOff(model="a")], [])


# --- Follow-Up Moves ----------------------------------------------------------------------------


def killing_blow() -> Wh40kSetup:
    return setup(
        model("a", "red"),
        model("b", "blue"),
        model("c", "blue", t=9),
        contacts=[("a", "b")],
        first_player="red",
    )


KILL = [6, 1, 4]  # a 6 vs b 1: 6 hits; the first wound (4+, rolled 4) slays b


def test_follow_up_after_killing_all_opponents_engages_without_charge_bonus() -> None:
    played = run(
        killing_blow(),
        [
            Fight(model="a"),
            FollowUp(model="a", inches=Decimal("1.5"), engage=("c",)),
            EndTurn(),
            Fight(model="c"),
        ],
        [*KILL, 4, 4],
    )
    assert one(played, FollowUpAllowed).killed == ("b",)
    move = one(played, FollowUpMove)
    assert (move.inches, move.engaged, move.fights_this_phase) == (Decimal("1.5"), ("c",), False)
    # next turn a and c fight; a did not charge: no +1
    later = of(played, CombatScoreCalculated)[-2:]
    assert all(s.modifiers == () for s in later)


def test_follow_up_fights_this_phase_ruling_makes_the_new_pair_fight_now() -> None:
    cmds = [Fight(model="a"), FollowUp(model="a", engage=("c",)), EndTurn()]
    with pytest.raises(RuleViolation, match="combat is mandatory"):
        run(killing_blow(), cmds, KILL, rulings={"follow-up-fights": "this-phase"})
    played = run(
        killing_blow(),
        [*cmds[:2], Fight(model="c"), EndTurn()],
        [*KILL, 3, 3],
        rulings={"follow-up-fights": "this-phase"},
    )
    assert one(played, TurnBegun).turn == 2


def test_follow_up_is_up_to_two_inches() -> None:
    with pytest.raises(RuleViolation, match="up to 2"):
        run(killing_blow(), [Fight(model="a"), FollowUp(model="a", inches=Decimal("2.5"))], KILL)


def test_follow_up_only_for_a_model_that_killed_and_only_at_once() -> None:
    with pytest.raises(RuleViolation, match="may not make a Follow-Up Move"):
        run(killing_blow(), [FollowUp(model="a")], [])
    s = setup(
        model("a", "red"),
        model("b", "blue"),
        model("e", "red"),
        model("f", "blue", t=9),
        contacts=[("a", "b"), ("e", "f")],
    )
    with pytest.raises(RuleViolation, match="may not make a Follow-Up Move"):
        run(s, [Fight(model="a"), Fight(model="e"), FollowUp(model="a")], [*KILL, 3, 3])


@pytest.mark.parametrize(
    ("ruling", "allowed"), [("killer", ["x1"]), ("all-opponents-dead", ["x1", "x2"])]
)
def test_follow_up_who_ruling(ruling: str, allowed: list[str]) -> None:
    s = setup(
        model("x1", "red"),
        model("x2", "red"),
        model("lone", "blue"),
        contacts=[("x1", "lone"), ("x2", "lone")],
    )
    played = run(
        s, [Fight(model="lone", order=("x1", "x2"))], [6, 1, 5], rulings={"follow-up-who": ruling}
    )
    assert [f.model for f in of(played, FollowUpAllowed)] == allowed


# --- charging and the turn ----------------------------------------------------------------------


def test_combat_is_mandatory_before_the_turn_ends() -> None:
    s = setup(model("a", "red"), model("b", "blue"), contacts=[("a", "b")])
    with pytest.raises(RuleViolation, match="a and b"):
        run(s, [EndTurn()], [])


def test_charge_rules() -> None:
    s = setup(
        model("a", "red"),
        model("a2", "red"),
        model("b", "blue", t=9),
        model("b2", "blue"),
        first_player="red",
    )
    for bad, message in [
        (Charge(model="b", target="a"), "turn"),
        (Charge(model="a", target="a2"), "not an enemy"),
        (Charge(model="a", target="zz"), "no model"),
    ]:
        with pytest.raises(RuleViolation, match=message):
            run(s, [bad], [])
    with pytest.raises(RuleViolation, match="already in hand-to-hand"):
        run(s, [Charge(model="a", target="b"), Charge(model="a", target="b2")], [])
    with pytest.raises(RuleViolation, match="Movement Phase"):
        run(
            s,
            [Charge(model="a", target="b"), Fight(model="a"), Charge(model="a2", target="b2")],
            [3, 3],
        )
    played = run(s, [Charge(model="a", target="b"), Charge(model="a2", target="b")], [])
    assert played.state.opponents("b") == ["a", "a2"]


def test_a_broken_model_may_not_charge() -> None:
    s = setup(
        model("a", "red", t=9),
        model("b", "blue", t=9),
        model("c", "blue"),
        contacts=[("a", "b")],
        first_player="blue",
    )
    cmds = [BreakOff(model="a"), Fight(model="a"), EndTurn(), Charge(model="a", target="c")]
    with pytest.raises(RuleViolation, match="Broken"):
        run(s, cmds, [3, 3, 1, 1])


def test_lone_model_that_kills_every_attacker_may_follow_up() -> None:
    s = setup(
        model("x1", "red"),
        model("x2", "red"),
        model("lone", "blue"),
        contacts=[("x1", "lone"), ("x2", "lone")],
    )
    # duel 1: x1 1 vs lone 6: 11 - 5 = 6 hits, wound 4 slays x1
    # duel 2: x2 (2 dice) 1 1 vs lone 6: 12 - 5 = 7 hits, wound 4 slays x2
    played = run(s, [Fight(model="lone", order=("x1", "x2"))], [1, 6, 4, 1, 1, 6, 4])
    allowed = one(played, FollowUpAllowed)
    assert (allowed.model, allowed.killed) == ("lone", ("x1", "x2"))
    assert played.state.follow_up == ("lone",)
