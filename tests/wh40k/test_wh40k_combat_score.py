"""The combat-score arithmetic of the rulebook: fumbles, critical hits, parries, charging,
Initiative and stalemate, driven by the dice the tests name."""

from __future__ import annotations

import pytest
from wh40k_helpers import model, of, one, run, setup

from blowbyblow.domain.core import ChoiceMade, DiceRolled
from blowbyblow.domain.wh40k.commands import BreakOff, Charge, EndTurn, Fight
from blowbyblow.domain.wh40k.events import (
    AttackDiceRolled,
    CombatScoreCalculated,
    CriticalHitsCounted,
    FumblesCounted,
    ParriesCompared,
    ParryDeclined,
    ParryUsed,
    RoundWon,
    Stalemate,
    WoundRolled,
)
from blowbyblow.domain.wh40k.fumbles_and_critical_hits import count_critical_hits, count_fumbles
from blowbyblow.domain.wh40k.rulebook import RULE_CRITICALS, RULE_FUMBLES


def test_fumble_and_critical_counting() -> None:
    assert count_fumbles([1, 1, 4]) == 2
    assert count_fumbles([2, 6]) == 0
    # "the first score of 6 has no special effect. Each additional 6 represents a Critical Hit"
    assert count_critical_hits([6]) == 0
    assert count_critical_hits([6, 6]) == 1
    assert count_critical_hits([6, 6, 6, 2]) == 2
    assert count_critical_hits([5, 5]) == 0


def test_fumbles_give_opponent_plus_one_each_and_extra_sixes_are_critical_hits() -> None:
    s = setup(model("a", "red", ws=4, a=3), model("b", "blue", ws=3, a=3), contacts=[("a", "b")])
    # a rolls 6 6 6 (two Critical Hits), b rolls 1 1 4 (two Fumbles); a's first hit slays b
    played = run(s, [Fight(model="a")], [6, 6, 6, 1, 1, 4, 4])
    crit = one(played, CriticalHitsCounted, model="a")
    assert (crit.sixes, crit.critical_hits) == (3, 2)
    fum = one(played, FumblesCounted, model="b")
    assert (fum.fumbles, fum.opponent) == (2, "a")
    sa = one(played, CombatScoreCalculated, model="a")
    assert (sa.highest, sa.ws) == (6, 4)
    assert sorted((m.rule, m.value) for m in sa.modifiers) == [
        (RULE_CRITICALS, 2),
        (RULE_FUMBLES, 2),
    ]
    assert sa.score == 6 + 4 + 2 + 2
    sb = one(played, CombatScoreCalculated, model="b")
    assert (sb.highest, sb.modifiers, sb.score) == (4, (), 4 + 3)
    won = one(played, RoundWon)
    assert (won.winner, won.hits, won.by_initiative) == ("a", 14 - 7, False)


def test_single_six_is_no_critical_hit() -> None:
    s = setup(model("a", "red", a=3), model("b", "blue", t=7), contacts=[("a", "b")])
    played = run(s, [Fight(model="a")], [6, 5, 2, 3])
    assert of(played, CriticalHitsCounted) == []
    assert one(played, CombatScoreCalculated, model="a").score == 6 + 4


def test_parry_forces_reroll_of_highest_die_and_the_reroll_stands_even_if_better() -> None:
    s = setup(
        model("a", "red", t=7, weapons=["sword"]), model("b", "blue", a=2), contacts=[("a", "b")]
    )
    # a: 3; b: 5 2; a parries the 5 (default: parry a 4 or more) and b re-rolls it: 6
    played = run(s, [Fight(model="a")], [3, 5, 2, 6])
    assert one(played, ParriesCompared).net == (1, 0)
    used = one(played, ParryUsed)
    assert (used.parrier, used.highest, used.response, used.rerolled) == ("a", 5, "reroll", 6)
    assert (used.dice_before, used.dice_after) == ((5, 2), (6, 2))
    assert one(played, CombatScoreCalculated, model="b").score == 6 + 4
    assert one(played, RoundWon).winner == "b"
    choice = one(played, ChoiceMade)
    assert (choice.key, choice.answer, choice.source) == ("c1/a-v-b/parry/a/1", "parry", "default")


def test_rerolled_die_can_fumble() -> None:
    s = setup(model("a", "red", weapons=["sword"]), model("b", "blue", a=2), contacts=[("a", "b")])
    # b: 5 3, parried: the 5 re-rolls to a 1, a Fumble that adds +1 to a
    played = run(s, [Fight(model="a")], [3, 5, 3, 1, 1])
    assert one(played, FumblesCounted, model="b").dice == (1, 3)
    sa = one(played, CombatScoreCalculated, model="a")
    assert sa.score == 3 + 4 + 1
    assert one(played, RoundWon).hits == 1


def test_parries_cancel_one_for_one() -> None:
    s = setup(
        model("a", "red", i=4, weapons=["sword"]),
        model("b", "blue", weapons=["sword2"]),
        contacts=[("a", "b")],
    )
    played = run(s, [Fight(model="a")], [4, 4, 1])
    compared = one(played, ParriesCompared)
    assert (compared.parries, compared.net) == ((1, 1), (0, 0))
    assert of(played, ParryUsed) == [] and of(played, ChoiceMade) == []


def test_two_parries_against_one_keep_one() -> None:
    s = setup(
        model("a", "red", t=9, weapons=["sword", "sword2"]),
        model("b", "blue", a=2, weapons=["sword"]),
        contacts=[("a", "b")],
    )
    # a has 2 Close Combat weapons: 2 dice (2 2); b: 5 4; a's one remaining parry: 5 -> 3
    played = run(s, [Fight(model="a")], [2, 2, 5, 4, 3])
    compared = one(played, ParriesCompared)
    assert (compared.parries, compared.net) == ((2, 1), (1, 0))
    assert one(played, ParryUsed).dice_after == (3, 4)
    assert one(played, CombatScoreCalculated, model="b").score == 4 + 4


def test_two_parries_reroll_the_highest_die_twice() -> None:
    s = setup(
        model("a", "red", weapons=["sword", "sword2"]),
        model("b", "blue", a=2),
        contacts=[("a", "b")],
    )
    played = run(s, [Fight(model="a")], [2, 2, 6, 5, 2, 1, 1])
    first, second = of(played, ParryUsed)
    assert (first.highest, first.dice_after) == (6, (2, 5))
    assert (second.highest, second.dice_after) == (5, (2, 1))
    assert one(played, CombatScoreCalculated, model="a").score == 2 + 4 + 1


def test_parry_is_optional() -> None:
    s = setup(
        model("a", "red", t=7, weapons=["sword"]), model("b", "blue", a=2), contacts=[("a", "b")]
    )
    played = run(s, [Fight(model="a")], [3, 5, 2], choices={"a-v-b/parry/a/1": "decline"})
    assert one(played, ParryDeclined).highest == 5
    assert of(played, ParryUsed) == []
    assert one(played, CombatScoreCalculated, model="b").score == 5 + 4


def test_parry_default_declines_a_low_die() -> None:
    s = setup(
        model("a", "red", weapons=["sword"]), model("b", "blue", a=2, t=9), contacts=[("a", "b")]
    )
    played = run(s, [Fight(model="a")], [6, 3, 2])
    assert one(played, ParryDeclined).highest == 3
    assert one(played, ChoiceMade).answer == "decline"


def test_parry_response_next_highest_ruling() -> None:
    s = setup(
        model("a", "red", weapons=["sword"]), model("b", "blue", a=2, t=9), contacts=[("a", "b")]
    )
    played = run(
        s,
        [Fight(model="a")],
        [3, 6, 2],
        rulings={"parry-response": "reroll-or-next-highest"},
        choices={"a-v-b/parry/a/1/response": "next-highest"},
    )
    used = one(played, ParryUsed)
    assert (used.response, used.rerolled, used.dice_after) == ("next-highest", None, (2,))
    assert one(played, CombatScoreCalculated, model="b").score == 2 + 4
    assert not any(e.key.endswith("/reroll") for e in of(played, DiceRolled))


def test_parry_response_default_is_reroll_when_next_die_is_low() -> None:
    s = setup(
        model("a", "red", t=9, weapons=["sword"]),
        model("b", "blue", a=2, t=9),
        contacts=[("a", "b")],
    )
    played = run(
        s, [Fight(model="a")], [3, 6, 2, 4], rulings={"parry-response": "reroll-or-next-highest"}
    )
    used = one(played, ParryUsed)
    assert (used.response, used.dice_after) == ("reroll", (4, 2))


def test_rulebook_parry_never_asks_for_next_highest() -> None:
    s = setup(
        model("a", "red", t=9, weapons=["sword"]),
        model("b", "blue", a=2, t=9),
        contacts=[("a", "b")],
    )
    played = run(s, [Fight(model="a")], [3, 6, 5, 4])
    assert [c.key for c in of(played, ChoiceMade)] == ["c1/a-v-b/parry/a/1"]


def test_breaking_off_model_may_not_parry_nor_cancel() -> None:
    s = setup(
        model("a", "red", t=9, weapons=["sword"]),
        model("b", "blue", weapons=["sword2"]),
        contacts=[("a", "b")],
    )
    played = run(s, [BreakOff(model="a"), Fight(model="a")], [5, 3, 2, 3, 4])
    compared = one(played, ParriesCompared)
    assert (compared.parries, compared.net) == ((0, 1), (0, 1))
    assert one(played, ParryUsed).parrier == "b"
    sa = one(played, CombatScoreCalculated, model="a")
    assert (sa.ws, sa.profile_ws, sa.score) == (0, 4, 2)


def test_charging_adds_one_in_the_turn_of_the_charge_only() -> None:
    s = setup(model("a", "red"), model("b", "blue", t=9), first_player="red")
    played = run(
        s,
        [Charge(model="a", target="b"), Fight(model="a"), EndTurn(), Fight(model="b")],
        [3, 3, 3, 3],
    )
    first, _, _, later = of(played, CombatScoreCalculated)
    assert [m.value for m in first.modifiers] == [1]
    assert "charge" in first.modifiers[0].rule.lower()
    assert first.score == 3 + 4 + 1
    assert (later.model, later.modifiers) == ("a", ())
    assert len(of(played, Stalemate)) == 1


def test_charge_bonus_ruling_none() -> None:
    s = setup(model("a", "red"), model("b", "blue"), first_player="red")
    played = run(
        s,
        [Charge(model="a", target="b"), Fight(model="a")],
        [3, 3],
        rulings={"charge-bonus": "none"},
    )
    assert one(played, Stalemate).score == 7
    assert of(played, WoundRolled) == []


def test_equal_scores_higher_initiative_wins_one_hit() -> None:
    s = setup(model("a", "red", i=2, t=9), model("b", "blue", i=5), contacts=[("a", "b")])
    played = run(s, [Fight(model="a")], [4, 4])
    won = one(played, RoundWon)
    assert (won.winner, won.hits, won.by_initiative) == ("b", 1, True)
    assert (won.winner_initiative, won.loser_initiative) == (5, 2)
    assert len(of(played, WoundRolled)) == 1


def test_equal_scores_and_initiative_is_a_stalemate() -> None:
    s = setup(model("a", "red"), model("b", "blue"), contacts=[("a", "b")])
    played = run(s, [Fight(model="a")], [4, 4])
    assert one(played, Stalemate).score == 8
    assert of(played, RoundWon) == [] and of(played, WoundRolled) == []


@pytest.mark.parametrize(("ruling", "expected"), [("0", None), ("-1", "b")])
def test_improvised_attack_ruling(ruling: str, expected: str | None) -> None:
    s = setup(
        model("a", "red", t=9), model("b", "blue", t=9, weapons=["knife"]), contacts=[("a", "b")]
    )
    played = run(s, [Fight(model="a")], [4, 4], rulings={"improvised-attack": ruling})
    winners = [w.winner for w in of(played, RoundWon)]
    assert winners == ([] if expected is None else [expected])


def test_two_close_combat_weapons_add_an_attack_die() -> None:
    s = setup(
        model("a", "red", a=2, weapons=["knife", "pistol"]),
        model("b", "blue", a=2, weapons=["knife", "rifle"]),
        contacts=[("a", "b")],
    )
    played = run(s, [Fight(model="a")], [4, 4, 4, 4, 4])
    da = one(played, AttackDiceRolled, model="a")
    db = one(played, AttackDiceRolled, model="b")
    assert (da.count, len(da.modifiers)) == (3, 1)
    assert (db.count, db.modifiers) == (2, ())  # a lasgun has no Close Combat rule
