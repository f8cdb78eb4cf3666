"""Step 4, Resolve Hits & Damage: hits equal to the score difference, the winner's weapon or its own
Strength, the to-wound chart and save rulings, multi-wound models, dice damage."""

from __future__ import annotations

import pytest
from wh40k_helpers import model, of, one, run, setup

from blowbyblow.domain.core import DiceRolled
from blowbyblow.domain.wh40k.commands import Fight
from blowbyblow.domain.wh40k.events import (
    HitsScored,
    ModelSlain,
    NoSave,
    RoundWon,
    SaveRolled,
    WoundRolled,
    WoundsLost,
)
from blowbyblow.domain.wh40k.wounds import (
    save_target,
    strength_save_modifier,
    to_wound_difference,
    to_wound_ratio,
)


@pytest.mark.parametrize(
    ("s", "t", "needed"),
    [
        (3, 3, 4),
        (4, 3, 3),
        (5, 3, 2),
        (10, 3, 2),
        (3, 4, 5),
        (3, 5, 6),
        (3, 6, 6),
        (3, 7, None),
        (1, 10, None),
    ],
)
def test_difference_chart(s: int, t: int, needed: int | None) -> None:
    assert to_wound_difference(s, t) == needed


@pytest.mark.parametrize(
    ("s", "t", "needed"),
    [(6, 3, 2), (5, 3, 3), (3, 3, 4), (4, 5, 5), (3, 6, 6), (2, 7, 6)],
)
def test_ratio_chart(s: int, t: int, needed: int) -> None:
    assert to_wound_ratio(s, t) == needed


def test_save_arithmetic() -> None:
    assert [strength_save_modifier(s) for s in (2, 3, 4, 5, 8)] == [0, 0, -1, -2, -5]
    assert save_target(3, -1, True) == 4
    assert save_target(6, -1, True) is None
    assert save_target(None, 0, True) is None
    assert save_target(2, 1, True) == 2
    assert save_target(2, 1, False) == 1


def test_winner_scores_the_difference_and_each_hit_is_wounded_and_saved() -> None:
    s = setup(
        model("a", "red", weapons=["knife"]), model("b", "blue", w=3, save=5), contacts=[("a", "b")]
    )
    # a 6 against b 2: 10 - 6 = 4 hits. Knife as user: S3 vs T3 needs 4+; save 5+ (S3: no mod)
    dice = [6, 2, 4, 5, 3, 6, 2, 5, 1]
    played = run(s, [Fight(model="a")], dice)
    won = one(played, RoundWon)
    assert (won.winner_score - won.loser_score, won.hits) == (4, 4)
    assert one(played, HitsScored).hits == 4
    assert [w.wounded for w in of(played, WoundRolled)] == [True, False, True, True]
    assert [(sv.needed, sv.saved) for sv in of(played, SaveRolled)] == [
        (5, True),
        (5, False),
        (5, False),
    ]
    assert [w.wounds_left for w in of(played, WoundsLost)] == [2, 1]
    assert played.state.models["b"].wounds == 1
    assert of(played, ModelSlain) == []


def test_hits_stop_when_the_loser_is_slain() -> None:
    s = setup(model("a", "red"), model("b", "blue"), contacts=[("a", "b")])
    played = run(s, [Fight(model="a")], [6, 1, 4])
    assert one(played, RoundWon).hits == 6
    assert len(of(played, WoundRolled)) == 1
    assert one(played, NoSave).reason == "no armour save"
    assert one(played, ModelSlain).by == "a"
    assert played.state.models["b"].slain and played.state.contacts == ()


def test_dice_damage_is_rolled() -> None:
    s = setup(
        model("a", "red", weapons=["hammer"]),
        model("b", "blue", t=4, w=3, save=2),
        contacts=[("a", "b")],
    )
    # hammer S8 vs T4: 2+; save 2+ at -5: none; damage D3 rolled 3 takes all 3 wounds
    played = run(s, [Fight(model="a")], [5, 2, 2, 3])
    assert one(played, NoSave).reason == "save modified beyond 6+"
    damage_roll = [d for d in of(played, DiceRolled) if d.key.endswith("/damage")]
    assert [(d.sides, d.values) for d in damage_roll] == [(3, (3,))]
    lost = one(played, WoundsLost)
    assert (lost.damage, lost.damage_dice, lost.wounds_left) == (3, (3,), 0)
    assert len(of(played, WoundRolled)) == 1  # the other two hits are not rolled


def test_winner_uses_its_best_weapon_by_default_or_the_chosen_one() -> None:
    s = setup(
        model("a", "red", weapons=["pistol", "axe"]), model("b", "blue", t=9), contacts=[("a", "b")]
    )
    # a has two Close Combat weapons: 2 dice
    played = run(s, [Fight(model="a")], [6, 1, 2])
    hits = one(played, HitsScored)
    assert (hits.weapon, hits.strength, hits.save_modifier.value) == ("axe", 5, -2)
    chosen = run(s, [Fight(model="a")], [6, 1, 2], choices={"a-v-b/weapon/a": "pistol"})
    hits = one(chosen, HitsScored)
    assert (hits.weapon, hits.strength) == ("pistol", 3)
    # S3 vs T9 cannot wound: no die is rolled for any of the 3 hits
    assert [(w.needed, w.natural) for w in of(chosen, WoundRolled)] == [(None, None)] * 3


def test_without_close_combat_weapon_the_model_uses_its_own_strength() -> None:
    s = setup(
        model("a", "red", s=5, weapons=["rifle"]), model("b", "blue", save=4), contacts=[("a", "b")]
    )
    played = run(s, [Fight(model="a")], [5, 3, 6, 4])
    hits = one(played, HitsScored)
    assert (hits.weapon, hits.strength, hits.save_modifier.value) == ("", 5, -2)
    save = one(played, SaveRolled)
    assert (save.needed, save.saved) == (6, False)


def test_strength_save_modifier_ruling_none() -> None:
    s = setup(model("a", "red", s=5), model("b", "blue", save=4), contacts=[("a", "b")])
    played = run(s, [Fight(model="a")], [5, 3, 6, 4, 1], rulings={"strength-save-modifier": "none"})
    save = one(played, SaveRolled)
    assert (save.modifier.value, save.needed, save.saved) == (0, 4, True)


def test_ratio_chart_ruling_changes_the_roll_needed() -> None:
    s = setup(model("a", "red", s=6), model("b", "blue", t=3), contacts=[("a", "b")])
    diff = run(s, [Fight(model="a")], [5, 3, 2])
    ratio = run(s, [Fight(model="a")], [5, 3, 2], rulings={"to-wound-chart": "ratio"})
    assert one(diff, WoundRolled).needed == 2 and one(ratio, WoundRolled).needed == 2
    s2 = setup(model("a", "red", s=2), model("b", "blue", t=6), contacts=[("a", "b")])
    no_chance = of(run(s2, [Fight(model="a")], [5, 3]), WoundRolled)
    assert [w.needed for w in no_chance] == [None, None]
    ratio2 = run(s2, [Fight(model="a")], [5, 3, 6], rulings={"to-wound-chart": "ratio"})
    assert one(ratio2, WoundRolled).needed == 6
