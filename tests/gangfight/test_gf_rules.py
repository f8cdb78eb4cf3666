"""Every special case: Power/Finesse Attacks, Free Strikes, two weapons, Slam!/Trample and
sizes, Prone, incapacitation and death, action points, threat range, falling, setup checks."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from gf_helpers import BRAVE, VETERAN, model, of_type, one, run, setup, status

from blowbyblow.domain.core import ChoiceMade, Context, RuleViolation, SetupError
from blowbyblow.domain.gangfight.commands import (
    Fall,
    Fight,
    FinesseAttack,
    Move,
    NewTurn,
    PowerAttack,
    Slam,
    StandUp,
    TakeFreeStrike,
    Trample,
)
from blowbyblow.domain.gangfight.events import (
    ActionPointsSpent,
    ArmourRolled,
    AttackRolled,
    Disengaged,
    FallingDamage,
    FreeStrike,
    FreeStrikeDeclined,
    Incapacitated,
    Killed,
    KnockedBack,
    KnockedDown,
    Moved,
    Slammed,
    SlamTreatedAsTrample,
    StoodUp,
    Trampled,
    WoundsApplied,
    WoundsInflicted,
)
from blowbyblow.domain.gangfight.falling import falling_hits
from blowbyblow.domain.gangfight.procedure import procedure
from blowbyblow.domain.gangfight.rulings import RULINGS
from blowbyblow.domain.gangfight.setup import Size, validate_setup
from blowbyblow.domain.gangfight.state import initial_state

DEFAULTS = {r.name: r.default for r in RULINGS}
DUEL = setup(VETERAN, BRAVE, gaps=(("veteran", "brave", 0),))


def refused(
    s: Any, commands: list[Any], last: Any, rule: str, rulings: dict[str, str] | None = None
) -> None:
    """``last`` is refused with RuleViolation(rule) before the procedure yields anything."""
    state = run(s, commands, dice=[6] * 60, rulings=rulings).state if commands else initial_state(s)
    ctx = Context(rulings={**DEFAULTS, **(rulings or {})}, command_index=len(commands) + 1)
    with pytest.raises(RuleViolation) as err:
        next(procedure(state, last, ctx))
    assert err.value.rule == rule


# --- Power Attack, Prone, standing up ------------------------------------------------------


def test_power_attack_knocks_back_by_successes_then_down() -> None:
    played = run(DUEL, [PowerAttack(attacker="brave", target="veteran")], dice=[5, 4, 3, 1])
    inflicted = one(played, WoundsInflicted)
    assert (inflicted.rule, inflicted.wounds, inflicted.effect) == ("GF Power Attacks", 0, 2)
    assert of_type(played, ArmourRolled) == []
    back = one(played, KnockedBack)
    assert (back.inches, back.gap_before, back.gap_after) == (2, 0, 2)
    assert one(played, KnockedDown).fighter == "veteran"
    assert status(played, "veteran").prone
    assert played.state.gaps[0].inches == 2


def test_power_attack_with_no_success_does_nothing_else() -> None:
    played = run(DUEL, [PowerAttack(attacker="brave", target="veteran")], dice=[1, 2, 3, 1])
    assert of_type(played, KnockedBack) == [] and of_type(played, KnockedDown) == []
    assert not status(played, "veteran").prone


def test_power_attack_split_ruling_turns_some_successes_into_wounds() -> None:
    played = run(
        DUEL,
        [PowerAttack(attacker="brave", target="veteran")],
        dice=[5, 4, 4, 1, 1, 1, 1, 1],
        rulings={"special-attack-damage": "split"},
        choices={"power/effect": "1"},
    )
    inflicted = one(played, WoundsInflicted)
    assert (inflicted.wounds, inflicted.effect) == (2, 1)
    assert one(played, KnockedBack).inches == 1
    assert status(played, "veteran").wounds == 2


@pytest.mark.parametrize("who", ["large", "marauder"])
def test_large_models_and_perks_apply_successes_to_effect_and_damage(who: str) -> None:
    brute = (
        model("brute", "orcs", size="large", att=2, dam=4)
        if who == "large"
        else model("brute", "orcs", att=2, dam=4, perks=("marauder",))
    )
    played = run(
        setup(VETERAN, brute, gaps=(("veteran", "brute", 0),)),
        [PowerAttack(attacker="brute", target="veteran")],
        dice=[5, 6, 1, 1, 1, 1],
    )
    inflicted = one(played, WoundsInflicted)
    assert (inflicted.wounds, inflicted.effect) == (2, 2)
    assert status(played, "veteran").wounds == 2 and status(played, "veteran").prone


def test_prone_model_has_def_2_and_must_stand_before_acting() -> None:
    knock = PowerAttack(attacker="brave", target="veteran")
    close = Move(fighter="brave", inches=2, to={"veteran": 0})
    played = run(
        DUEL,
        [knock, close, Fight(attacker="brave", target="veteran")],
        dice=[5, 4, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1],
    )
    hit = of_type(played, AttackRolled)[-1]
    assert (hit.test.tn_base, hit.test.tn, hit.test.final_tn) == (4, 2, 2)
    assert hit.test.tn_modifiers[0].rule == "GF Knocked Down"
    assert hit.test.successes == 1  # the 2 hits at 2+, the 1s never do
    refused(DUEL, [knock], Fight(attacker="veteran", target="brave"), "GF Knocked Down")
    refused(DUEL, [knock], Move(fighter="veteran", inches=1), "GF Knocked Down")
    refused(DUEL, [], StandUp(fighter="veteran"), "GF Knocked Down")
    stood = run(DUEL, [knock, StandUp(fighter="veteran")], dice=[5, 4, 1, 1])
    assert one(stood, StoodUp).rule == "GF Knocked Down"
    spent = [e for e in of_type(stood, ActionPointsSpent) if e.fighter == "veteran"]
    assert [(e.action, e.cost) for e in spent] == [("stand up", 1)]
    assert not status(stood, "veteran").prone and status(stood, "veteran").ap == 2


@pytest.mark.parametrize(("ruling", "tn"), [("always-2", 2), ("2-plus-modifiers", 3)])
def test_prone_defence_ruling_under_trample(ruling: str, tn: int) -> None:
    ogre = model("ogre", "brutes", size="large", att=3, weapons=("sword",))
    s = setup(ogre, VETERAN, BRAVE, gaps=(("ogre", "veteran", 0), ("brave", "veteran", 0)))
    played = run(
        s,
        [PowerAttack(attacker="brave", target="veteran"), Trample(attacker="ogre")],
        dice=[5, 1, 1, 1, 1, 1, 1],
        rulings={"prone-defence": ruling, "trample-friends": "enemies-only"},
    )
    trample = [a for a in of_type(played, AttackRolled) if a.attack == "trample"]
    assert [a.target for a in trample] == ["veteran"]
    assert trample[0].test.tn == tn


# --- Finesse Attack and Free Strikes -------------------------------------------------------


def test_finesse_attack_disengages_without_a_free_strike() -> None:
    played = run(
        DUEL,
        [
            FinesseAttack(attacker="veteran", target="brave"),
            Move(fighter="veteran", inches=2, to={"brave": 4}),
        ],
        dice=[6, 5, 2],
    )
    d = one(played, Disengaged)
    assert (d.rule, d.allowed, d.inches, d.gap_before, d.gap_after) == (
        "GF Finesse Attacks",
        2,
        2,
        0,
        2,
    )
    assert of_type(played, FreeStrike) == [] and of_type(played, WoundsApplied) == []
    # now outside the brave's threat range, moving on provokes nothing either
    assert one(played, Moved).gaps[0].inches == 4


def test_finesse_attack_may_move_less() -> None:
    played = run(
        DUEL,
        [FinesseAttack(attacker="veteran", target="brave")],
        dice=[6, 5, 2],
        choices={"finesse/disengage": "1"},
    )
    assert one(played, Disengaged).inches == 1
    assert played.state.gaps[0].inches == 1


def test_moving_out_of_threat_range_provokes_a_free_strike_without_dropping() -> None:
    tough = model("tough", "orcs", weapons=("sword",), att=3, defense=7)
    s = setup(tough, VETERAN, gaps=(("veteran", "tough", 0),))
    played = run(s, [Move(fighter="tough", inches=3, to={"veteran": 3})], dice=[6, 5, 4, 1, 1, 1])
    fs = one(played, FreeStrike)
    assert (fs.striker, fs.target) == ("veteran", "tough")
    hit = one(played, AttackRolled)
    assert hit.attack == "free-strike" and not hit.test.may_drop
    # DEF 7 with no dropping: the whole pool rolls, only 6s succeed
    assert (hit.test.dice, hit.test.sixes_only, hit.test.successes, hit.test.criticals) == (
        3,
        True,
        1,
        1,
    )
    assert not any(c.key.endswith("hit/drop") for c in of_type(played, ChoiceMade))
    assert one(played, Moved).fighter == "tough"


def test_free_strike_can_be_declined_and_a_model_incapacitated_stops() -> None:
    declined = run(
        DUEL,
        [Move(fighter="brave", inches=2, to={"veteran": 2})],
        dice=[],
        choices={"move/veteran/free-strike": "decline"},
    )
    assert one(declined, FreeStrikeDeclined).reason == "declined"
    assert one(declined, Moved).fighter == "brave"
    weak = model("weak", "orcs", en=1, arm=0)
    s = setup(weak, VETERAN, gaps=(("veteran", "weak", 0),))
    felled = run(s, [Move(fighter="weak", inches=2, to={"veteran": 2})], dice=[6, 1, 1])
    assert one(felled, Incapacitated).fighter == "weak"
    assert of_type(felled, Moved) == []


def test_declared_free_strike_command() -> None:
    played = run(
        DUEL, [TakeFreeStrike(striker="veteran", target="brave")], dice=[4, 4, 4, 1, 1, 1, 1]
    )
    assert one(played, FreeStrike).reason == "declared"
    assert of_type(played, ActionPointsSpent) == []  # a free action
    assert status(played, "brave").wounds == 3


# --- two weapons ----------------------------------------------------------------------------


def test_two_hand_weapons_add_one_attack_die_and_best_damage() -> None:
    dual = model("dual", "humans", weapons=("sword", "axe"))
    s = setup(dual, BRAVE, gaps=(("dual", "brave", 0),))
    played = run(
        s,
        [Fight(attacker="dual", target="brave", weapons=("sword", "axe"))],
        dice=[4, 4, 1, 1, 1, 1, 1, 1],
    )
    hit = one(played, AttackRolled)
    assert (hit.test.pool_base, hit.test.pool) == (3, 4)
    assert hit.test.pool_modifiers[0].rule == "GF Two Weapons"
    armour = one(played, ArmourRolled)
    assert armour.test.tn == 5  # DAM 4 +1 axe (best)
    first = run(
        s,
        [Fight(attacker="dual", target="brave", weapons=("sword", "axe"))],
        dice=[4, 4, 1, 1, 1, 1, 1, 1],
        rulings={"two-weapon-damage": "first"},
    )
    assert one(first, ArmourRolled).test.tn == 4


def test_two_weapons_only_hand_weapons_and_no_shield() -> None:
    shielded = model("sh", "humans", weapons=("sword", "pistol", "shield"))
    big = model("big", "humans", weapons=("great-axe", "sword"))
    s = setup(shielded, big, BRAVE, gaps=(("sh", "brave", 0), ("big", "brave", 0)))
    refused(
        s, [], Fight(attacker="sh", target="brave", weapons=("sword", "pistol")), "GF Two Weapons"
    )
    refused(
        s,
        [],
        Fight(attacker="big", target="brave", weapons=("great-axe", "sword")),
        "GF Two Weapons",
    )
    refused(s, [], Fight(attacker="big", target="brave", weapons=("axe",)), "GF Melee 2")
    pistols = model("gun", "humans", weapons=("sword", "pistol"))
    ok = run(
        setup(pistols, BRAVE, gaps=(("gun", "brave", 0),)),
        [Fight(attacker="gun", target="brave", weapons=("sword", "pistol"))],
        dice=[1, 1, 1, 1],
    )
    assert one(ok, AttackRolled).test.pool == 4


# --- Slam! and Trample ----------------------------------------------------------------------


def test_slam_same_size_wounds_and_knocks_back_and_down() -> None:
    a = model("a", "x", size="large", att=3, dam=5)
    b = model("b", "y", size="large", arm=2, en=6)
    played = run(
        setup(a, b, gaps=(("a", "b", 1),)), [Slam(attacker="a", target="b")], dice=[5, 5, 1, 1, 1]
    )
    assert one(played, Slammed).modifiers == ()
    inflicted = one(played, WoundsInflicted)
    assert (inflicted.rule, inflicted.wounds, inflicted.effect) == ("GF Slam!", 2, 2)
    assert status(played, "b").wounds == 2 and status(played, "b").prone
    assert one(played, KnockedBack).gap_after == 3


def test_slam_on_a_larger_model_minus_one_att_plus_one_def_and_a_miss_gives_a_free_strike() -> None:
    a = model("a", "x", size="large", att=3, arm=0)
    b = model("b", "y", size="huge", defense=4, att=2)
    played = run(
        setup(a, b, gaps=(("a", "b", 0),)), [Slam(attacker="a", target="b")], dice=[4, 1, 5, 5]
    )
    hit = of_type(played, AttackRolled)
    assert (hit[0].test.pool, hit[0].test.tn) == (2, 5)
    assert hit[0].test.successes == 0
    fs = one(played, FreeStrike)
    assert (fs.striker, fs.target) == ("b", "a")
    assert status(played, "a").wounds == 2
    assert of_type(played, KnockedDown) == []


def test_slam_needs_a_large_model_and_on_a_smaller_model_is_a_trample() -> None:
    refused(DUEL, [], Slam(attacker="veteran", target="brave"), "GF Slam!")
    ogre = model("ogre", "brutes", size="large", att=4)
    s = setup(ogre, VETERAN, gaps=(("ogre", "veteran", 0),))
    played = run(s, [Slam(attacker="ogre", target="veteran")], dice=[1, 1, 1, 1, 1, 1, 1])
    assert one(played, SlamTreatedAsTrample).target == "veteran"
    assert one(played, Trampled).targets == ("veteran",)
    assert of_type(played, AttackRolled)[0].test.tn == 5  # DEF 4 +1 trampled
    assert one(played, FreeStrike).striker == "veteran"  # the trample failed against it


@pytest.mark.parametrize(
    ("ruling", "targets"), [("all-smaller", ("friend", "veteran")), ("enemies-only", ("veteran",))]
)
def test_trample_strikes_every_smaller_model_in_threat_range(
    ruling: str, targets: tuple[str, ...]
) -> None:
    ogre = model("ogre", "brutes", size="large", att=4, threat=2)
    friend = model("friend", "brutes", size="small")
    other = model("far", "humans", size="small")
    peer = model("peer", "humans", size="large")
    s = setup(
        ogre,
        friend,
        VETERAN,
        other,
        peer,
        gaps=(
            ("ogre", "friend", 2),
            ("ogre", "veteran", 1),
            ("ogre", "far", 3),
            ("ogre", "peer", 0),
        ),
    )
    played = run(s, [Trample(attacker="ogre")], dice=[6] * 40, rulings={"trample-friends": ruling})
    assert one(played, Trampled).targets == targets


def test_trample_with_no_one_smaller_in_range_is_refused() -> None:
    ogre = model("ogre", "brutes", size="large")
    s = setup(ogre, VETERAN, gaps=(("ogre", "veteran", 3),))
    refused(s, [], Trample(attacker="ogre"), "GF Trample")


# --- incapacitation, death, action points, threat range -----------------------------------


def test_damage_while_incapacitated_kills() -> None:
    weak = model("weak", "orcs", en=1, arm=0)
    s = setup(VETERAN, weak, gaps=(("veteran", "weak", 0),))
    hit = Fight(attacker="veteran", target="weak")
    played = run(s, [hit, hit], dice=[4, 1, 1, 5, 1, 1])
    assert one(played, Incapacitated).fighter == "weak"
    killed = one(played, Killed)
    assert (killed.rule, killed.wounds) == ("GF Incapacitation", 1)
    assert status(played, "weak").condition == "dead"
    refused(s, [hit, hit], hit, "GF Incapacitation")
    refused(s, [hit], hit, "GF Incapacitation", rulings={"attack-incapacitated": "not-allowed"})
    refused(
        setup(weak, VETERAN, gaps=(("veteran", "weak", 0),)),
        [Fight(attacker="veteran", target="weak")],
        Fight(attacker="weak", target="veteran"),
        "GF Incapacitation",
    )


def test_falling_while_incapacitated_kills() -> None:
    weak = model("weak", "orcs", en=1, arm=0)
    played = run(
        setup(weak), [Fall(fighter="weak", inches=2), Fall(fighter="weak", inches=2)], dice=[]
    )
    assert [type(e).__name__ for e in played.events if isinstance(e, Incapacitated | Killed)] == [
        "Incapacitated",
        "Killed",
    ]


def test_action_points_run_out_and_come_back() -> None:
    hit = Fight(attacker="veteran", target="brave")
    three = [hit, hit, hit]
    refused(DUEL, three, hit, "G2 Action Points")
    played = run(DUEL, [*three, NewTurn(), hit], dice=[1] * 15)
    assert status(played, "veteran").ap == 2 and played.state.turn == 2
    untracked = run(DUEL, [*three, hit], dice=[1] * 12, rulings={"action-points": "untracked"})
    assert of_type(untracked, ActionPointsSpent) == []
    costly = run(
        DUEL,
        [PowerAttack(attacker="veteran", target="brave")],
        dice=[1, 1, 1],
        rulings={"special-action-cost": "2"},
    )
    assert one(costly, ActionPointsSpent).cost == 2


def test_threat_range_and_sides() -> None:
    s = setup(VETERAN, BRAVE, gaps=(("veteran", "brave", 2),))
    refused(s, [], Fight(attacker="veteran", target="brave"), "GF Melee 1")
    friend = model("friend", "humans")
    refused(
        setup(VETERAN, friend, gaps=(("veteran", "friend", 0),)),
        [],
        Fight(attacker="veteran", target="friend"),
        "GF Melee 1",
    )
    far = setup(VETERAN, BRAVE)
    refused(far, [], Fight(attacker="veteran", target="brave"), "GF Melee 1")
    refused(DUEL, [], Move(fighter="veteran", inches=5), "G2 Move")
    refused(s, [], Move(fighter="veteran", inches=1, to={"brave": 0}), "G2 Move")


# --- falling --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "inches", "whole", "beyond"),
    [
        ("large", 6, 3, 2),
        ("large", 2, 0, 0),
        ("medium", 1, 0, 0),
        ("medium", 2, 2, 1),
        ("small", 3, 3, 2),
        ("huge", 7, 3, 2),
    ],
)
def test_falling_hits_by_size(size: Size, inches: int, whole: int, beyond: int) -> None:
    assert falling_hits(inches, size, "whole-fall") == whole
    assert falling_hits(inches, size, "beyond-height") == beyond


def test_falling_without_armour_ruling() -> None:
    ogre = model("ogre", "brutes", size="large", en=6)
    played = run(
        setup(ogre),
        [Fall(fighter="ogre", inches=6)],
        dice=[],
        rulings={"falling-armour": "none"},
    )
    assert one(played, FallingDamage).hits == 3
    assert of_type(played, ArmourRolled) == []
    assert status(played, "ogre").wounds == 3


# --- setup ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        setup(VETERAN, VETERAN),
        setup(model("x", "a", weapons=("lance",))),
        setup(VETERAN, gaps=(("veteran", "nobody", 0),)),
        setup(VETERAN, BRAVE, gaps=(("veteran", "brave", 0), ("brave", "veteran", 1))),
        setup(model("x", "a", en=0)),
        setup(model("x", "a", perks=("berserk",))),
    ],
)
def test_setup_errors(bad: Any) -> None:
    with pytest.raises(SetupError):
        validate_setup(bad)


@pytest.mark.parametrize(
    ("weapon", "words"),
    [
        ({"id": "w", "range": -1}, "negative"),
        ({"id": "w", "area": "direct"}, "needs a range"),
        ({"id": "w", "reload": True}, "only a ranged weapon"),
    ],
)
def test_ranged_weapon_setup_errors(weapon: dict[str, Any], words: str) -> None:
    from blowbyblow.domain.gangfight.setup import GangfightSetup

    s = msgspec.convert(
        {"weapons": [weapon], "fighters": [msgspec.to_builtins(VETERAN)]}, GangfightSetup
    )
    with pytest.raises(SetupError, match=words):
        validate_setup(s)


def test_unknown_profile_field_is_refused() -> None:
    from blowbyblow.domain.gangfight.setup import GangfightSetup

    raw = {
        "fighters": [
            {
                "id": "a",
                "side": "x",
                "profile": {
                    "mov": 1,
                    "att": 1,
                    "mrk": 1,
                    "def": 1,
                    "iv": 1,
                    "wp": 1,
                    "arm": 1,
                    "en": 1,
                    "dam": 1,
                    "ini": 3,
                },
            }
        ]
    }
    with pytest.raises(msgspec.ValidationError, match="ini"):
        msgspec.convert(raw, GangfightSetup)
