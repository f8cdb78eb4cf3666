"""The Combat page's worked examples, driven by the dice they name."""

from __future__ import annotations

import pytest
from gf_helpers import BRAVE, VETERAN, model, of_type, one, run, setup, status

from blowbyblow.domain.gangfight.commands import Fall, Fight, Trample
from blowbyblow.domain.gangfight.events import (
    ArmourRolled,
    AttackRolled,
    FallingDamage,
    Incapacitated,
    WoundsApplied,
    WoundsInflicted,
    WoundsNegated,
)
from blowbyblow.replay.engine.dice import ListedDice


def test_damage_and_armour_example_veteran_strikes_the_orc() -> None:
    """Damage: the Veteran rolls 3, 5, 5: two successes, 2 Wounds. Armour: the Orc's ARM 4
    against the Veteran's DAM 4 rolls 2, 4, 4, 5: three successes, negating both wounds."""
    played = run(
        setup(VETERAN, BRAVE, gaps=(("veteran", "brave", 0),)),
        [Fight(attacker="veteran", target="brave")],
        dice=[3, 5, 5, 2, 4, 4, 5],
    )
    attack = one(played, AttackRolled)
    assert attack.rule == "GF Melee 2"
    assert attack.test.natural == (3, 5, 5)
    assert (attack.test.tn, attack.test.final_tn, attack.test.successes) == (4, 4, 2)
    inflicted = one(played, WoundsInflicted)
    assert (inflicted.rule, inflicted.wounds) == ("GF Melee 3", 2)
    armour = one(played, ArmourRolled)
    assert armour.rule == "GF Melee 4"
    assert (armour.test.pool, armour.test.tn, armour.test.natural) == (4, 4, (2, 4, 4, 5))
    assert armour.test.successes == 3
    negated = one(played, WoundsNegated)
    assert (negated.rule, negated.negated, negated.remaining) == ("GF Melee 5", 2, 0)
    assert of_type(played, WoundsApplied) == []
    assert status(played, "brave").wounds == 0


def test_wounds_example_orc_with_double_handed_weapon() -> None:
    """Wounds: the Orc scores 4 hits; the Veteran's ARM 4 against the Orc's DAM 6 (Double
    Handed Weapon); he drops 2 dice to bring the TN to 4+, rolls 4 and 5, negating two; two
    come off his EN 4 and he can take another 2."""
    played = run(
        setup(VETERAN, BRAVE, gaps=(("veteran", "brave", 0),)),
        [Fight(attacker="brave", target="veteran")],
        dice=[4, 5, 6, 4, 4, 5],
        choices={"fight/armour/drop": "2"},
    )
    attack = one(played, AttackRolled)
    assert attack.test.successes == 4 and attack.test.criticals == 1
    armour = one(played, ArmourRolled)
    t = armour.test
    assert (t.tn_base, t.tn, t.dropped_forced, t.dropped_chosen) == (4, 6, 0, 2)
    assert [m.value for m in t.tn_modifiers] == [2]  # the Double Handed Weapon: DAM 6
    assert (t.dice, t.final_tn, t.natural, t.successes) == (2, 4, (4, 5), 2)
    applied = one(played, WoundsApplied)
    assert (applied.wounds, applied.after, applied.en, applied.en_left) == (2, 2, 4, 2)
    assert of_type(played, Incapacitated) == []
    assert status(played, "veteran").condition == "active"


@pytest.mark.parametrize(
    ("ruling", "after_two_more"), [("zero-or-less", True), ("more-than-en", False)]
)
def test_the_veteran_can_take_another_two(ruling: str, after_two_more: bool) -> None:
    """'He can sustain another 2 wounds before becoming Incapacitated': under zero-or-less the
    second of them incapacitates him (EN 4 - 4 = 0); under more-than-en he is still up."""
    fight = Fight(attacker="brave", target="veteran")
    played = run(
        setup(VETERAN, BRAVE, gaps=(("veteran", "brave", 0),)),
        [fight, fight],
        dice=[4, 5, 6, 4, 4, 5, 4, 5, 1, 1, 1, 1, 1, 1],
        choices={"c1/fight/armour/drop": "2", "c2/fight/armour/drop": "0"},
        rulings={"incapacitation": ruling},
    )
    assert status(played, "veteran").wounds == 4
    assert (status(played, "veteran").condition == "incapacitated") is after_two_more


def test_large_model_falling_six_inches_takes_three_damage_4_hits() -> None:
    ogre = model("ogre", "brutes", size="large", arm=3, en=6)
    played = run(setup(ogre), [Fall(fighter="ogre", inches=6)], dice=[4, 1, 2])
    falling = one(played, FallingDamage)
    assert (falling.rule, falling.hits, falling.damage, falling.height_half_inches) == (
        "GF Falling",
        3,
        4,
        4,
    )
    armour = one(played, ArmourRolled)
    assert (armour.against, armour.test.tn, armour.wounds, armour.test.successes) == (
        "fall",
        4,
        3,
        1,
    )
    assert status(played, "ogre").wounds == 2


def test_trample_example_knight_drops_three_dice_against_three_marksmen() -> None:
    """Knight ATT 4 tramples three Marksmen of DEF 3 (+1 trampled = 4): dropping 3 dice brings
    all of them to 3; one die is rolled against all three (ruling trample-roll=one-roll)."""
    knight = model("knight", "humans", size="large", att=4, weapons=("sword",))
    marks = [model(f"m{i}", "elves", defense=3, arm=0) for i in (1, 2, 3)]
    dice = ListedDice([3])
    from blowbyblow.domain.system import Scenario
    from blowbyblow.replay.engine.script import play

    played = play(
        Scenario(
            ruleset="gangfight",
            label="trample",
            rulings={"trample-roll": "one-roll"},
            setup=setup(knight, *marks, gaps=tuple(("knight", m.id, 0) for m in marks)),
            commands=[Trample(attacker="knight")],
            choices={"trample/level": "1"},
        ),
        dice=dice,
    )
    attacks = of_type(played, AttackRolled)
    assert [a.target for a in attacks] == ["m1", "m2", "m3"]
    for a in attacks:
        assert (a.test.pool, a.test.dice, a.test.tn, a.test.natural) == (1, 1, 3, (3,))
        assert a.test.successes == 1
    assert dice.unused == 0
    assert [s.wounds for s in played.state.fighters[1:]] == [1, 1, 1]
