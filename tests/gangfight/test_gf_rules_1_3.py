"""What version 1.3 of gangfight adds: the rulings power-no-success (a Power Attack with no
success) and shot-damage (the Armour roll's Target Number against a shot), each from the Combat
page's text with fixed dice, both readings shown."""

from __future__ import annotations

import pytest
from gf_helpers import BRAVE, VETERAN, model, of_type, one, run, setup, status

from blowbyblow.domain.gangfight.commands import AreaAttack, PowerAttack, Shoot
from blowbyblow.domain.gangfight.events import (
    ArmourRolled,
    KnockedBack,
    KnockedDown,
    WoundsApplied,
)

DUEL = setup(VETERAN, BRAVE, gaps=(("veteran", "brave", 0),))
BOWMAN = model("bowman", "humans", weapons=("crossbow",), mrk=3)
DRAGON = model("dragon", "monsters", weapons=("breath",), mrk=4, dam=4)
ORC = model("orc", "orcs", defense=4, arm=3, en=4)


@pytest.mark.parametrize(("ruling", "prone"), [("stands", False), ("knocked-down", True)])
def test_a_power_attack_with_no_success(ruling: str, prone: bool) -> None:
    """Power Attacks: "instead of applying all of the successes to damage, instead that is how
    many inches the model is knocked back. Once the models reaches that distance, they are
    knocked down." The Brave's 4 dice at DEF 4+ roll 1 2 3 1: no success, 0 inches. stands
    (1.2): no knock-back to reach, the Veteran stands; knocked-down: 0 inches are reached at
    once and it goes Prone, with no knock-back."""
    played = run(
        DUEL,
        [PowerAttack(attacker="brave", target="veteran")],
        dice=[1, 2, 3, 1],
        rulings={"power-no-success": ruling},
    )
    assert of_type(played, KnockedBack) == []
    assert len(of_type(played, KnockedDown)) == int(prone)
    assert status(played, "veteran").prone is prone
    assert played.state.gaps[0].inches == 0


def test_a_power_attack_with_successes_is_the_same_under_both_readings() -> None:
    """With two successes both readings knock the Veteran back 2" and then down."""
    for ruling in ("stands", "knocked-down"):
        played = run(
            DUEL,
            [PowerAttack(attacker="brave", target="veteran")],
            dice=[5, 4, 3, 1],
            rulings={"power-no-success": ruling},
        )
        assert one(played, KnockedBack).inches == 2
        assert status(played, "veteran").prone


@pytest.mark.parametrize(("ruling", "tn", "wounds"), [("modified", 5, 1), ("attribute", 4, 0)])
def test_the_armour_roll_against_a_crossbow_shot(ruling: str, tn: int, wounds: int) -> None:
    """Ranged Combat step 7: "The target number is your model's Damage attribute. If your
    modified Damage attribute is higher than 6, your opponent must drop dice". The crossbow
    (+1 DAM) at 8": MRK 3 +1 Point Blank, 5 5 1 1 at DEF 4+, two Wounds; the Orc's ARM 3 rolls
    5 4 1. modified (1.2): against DAM 4 +1 = 5+, the 5 negates one, one Wound is applied;
    attribute: against DAM 4, the 5 and the 4 negate both."""
    played = run(
        setup(BOWMAN, ORC, gaps=(("bowman", "orc", 8),)),
        [Shoot(shooter="bowman", target="orc")],
        dice=[5, 5, 1, 1, 5, 4, 1],
        rulings={"shot-damage": ruling},
    )
    armour = one(played, ArmourRolled).test
    assert (armour.tn_base, armour.tn, armour.successes) == (4, tn, 2 - wounds)
    assert status(played, "orc").wounds == wounds
    assert sum(e.wounds for e in of_type(played, WoundsApplied)) == wounds


@pytest.mark.parametrize(("ruling", "tn"), [("modified", 4), ("attribute", 4)])
def test_an_area_attack_with_no_weapon_bonus_is_the_same(ruling: str, tn: int) -> None:
    """The fire breath has no DAM bonus: both readings roll Armour against the dragon's DAM 4."""
    played = run(
        setup(DRAGON, ORC, gaps=(("dragon", "orc", 8),)),
        [AreaAttack(attacker="dragon", target="orc")],
        dice=[5, 5, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
        rulings={"shot-damage": ruling},
    )
    assert one(played, ArmourRolled).test.tn == tn
