"""N23 CC 6-8 and Resolving Hits: wound chart, saves, damage, Injury dice, flesh wounds, Reaction
attacks, Consolidate / Coup de Grace, vehicles and barricades, driven by listed dice."""

from __future__ import annotations

import pytest
from necro_helpers import (
    AXE,
    CLUB,
    KNIFE,
    VEHICLE,
    WHIP,
    Barricade,
    CoupDeGraceAction,
    Engagement,
    Fight,
    fighter,
    of,
    one,
    one_against_two,
    run,
    setup,
    vehicle_and_interferer,
)

from blowbyblow.domain.core import ChoiceMade, RuleViolation, SetupError
from blowbyblow.domain.necromunda.events import (
    AssistClaimed,
    Consolidated,
    CoupDeGrace,
    DamageInflicted,
    FleshWoundSuffered,
    HitRolled,
    InjuryRolled,
    LocationRolled,
    NerveTested,
    ReactionAttacksBegun,
    ReactionForgone,
    SaveRolled,
    Step8Forgone,
    VehicleDamaged,
    WoundRolled,
)
from blowbyblow.domain.necromunda.fight import split_attack_dice, weapon_profile
from blowbyblow.domain.necromunda.resolve_hits import injury_dice_count, wound_target
from blowbyblow.domain.necromunda.setup import NecromundaSetup
from blowbyblow.domain.necromunda.state import (
    MOBILE,
    OUT_OF_ACTION,
    SERIOUSLY_INJURED,
    STANDING_ACTIVE,
    STANDING_ENGAGED,
    WRECKED,
)
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play


@pytest.mark.parametrize(
    ("s", "t", "need"),
    [
        (8, 4, 2),  # S = 2T: 2+
        (9, 4, 2),
        (7, 4, 3),  # S > T (just under 2T): 3+
        (5, 4, 3),
        (4, 4, 4),  # S = T: 4+
        (3, 4, 5),  # S < T
        (3, 5, 5),  # S < T, just over T/2
        (2, 4, 6),  # S = T/2: 6+
        (3, 6, 6),
        (1, 3, 6),  # S < T/2
        (2, 1, 2),
        (1, 1, 4),
    ],
)
def test_wound_chart_boundaries(s: int, t: int, need: int) -> None:
    assert wound_target(s, t) == need


def test_injury_dice_count() -> None:
    assert injury_dice_count(3, 5) == 3  # the FACTS example: 5 Damage on 3 Wounds
    assert injury_dice_count(2, 1) == 0
    assert injury_dice_count(1, 1) == 1
    assert injury_dice_count(1, 2) == 2
    assert injury_dice_count(0, 2) == 2  # already at 0: every point rolls
    assert injury_dice_count(2, 0) == 1  # Damage "-": one dice, no wound removed


def _duel(**b: object) -> NecromundaSetup:
    return setup(
        [
            fighter("a", "g", weapons=[AXE, KNIFE], vision=["b"]),
            fighter("b", "e", vision=["a"], **b),
        ],
        [("a", "b")],
    )


def test_save_with_ap_and_natural_1_fails() -> None:
    # AP -1 against a 4+ save: a natural 4 is 3, failed
    played = run(
        _duel(save=4), [Fight(attacker="a", weapons=("axe",), targets=("b",))], [3, 3, 4, 1, 1]
    )
    save = one(played, SaveRolled)
    assert (save.natural, save.target_number, [m.value for m in save.modifiers]) == (4, 4, [-1])
    assert not save.saved
    # a natural 1 fails even a 2+ save with no AP (fists have no AP)
    s = setup(
        [fighter("a", "g", weapons=[], vision=["b"]), fighter("b", "e", save=2, vision=["a"])],
        [("a", "b")],
    )
    played = run(s, [Fight(attacker="a", targets=("b",))], [3, 4, 1, 1, 1])
    save = one(played, SaveRolled)
    assert save.natural == 1 and not save.saved and save.modifiers == []
    # AP that makes the save impossible: no roll at all
    played = run(
        _duel(save=6), [Fight(attacker="a", weapons=("axe",), targets=("b",))], [3, 3, 1, 1]
    )
    assert of(played, SaveRolled) == []
    # a save
    played = run(
        _duel(save=4), [Fight(attacker="a", weapons=("axe",), targets=("b",))], [3, 3, 5, 1]
    )
    assert one(played, SaveRolled).saved and of(played, DamageInflicted) == []


def test_damage_and_injury_dice_flesh_wound_serious_injury() -> None:
    s = setup(
        [
            fighter(
                "a",
                "g",
                weapons=[AXE.__class__(id="hammer", s_bonus=1, d=2, traits=["Melee"])],
                vision=["b"],
            ),
            fighter("b", "e", w=1, t=3, vision=["a"]),
        ],
        [("a", "b")],
    )
    # hit, wound; Damage 2 on 1 wound: 2 Injury dice: 2 (Flesh Wound), 4 (Serious Injury)
    played = run(
        s,
        [Fight(attacker="a", weapons=("hammer",), targets=("b",))],
        [3, 3, 2, 4],
        choices={"step8": "none"},
    )
    dmg = one(played, DamageInflicted)
    assert (dmg.wounds_before, dmg.wounds_after, dmg.injury_dice) == (1, 0, 2)
    assert [i.result for i in of(played, InjuryRolled)] == ["Flesh Wound", "Serious Injury"]
    b = played.state.fighters["b"]
    assert (b.status, b.flesh_wounds, b.toughness) == (SERIOUSLY_INJURED, 1, 2)
    # the attacker is no longer engaged with anyone standing
    assert played.state.fighters["a"].status == STANDING_ACTIVE
    # two Serious Injuries from one hit: the second is a Flesh Wound
    played = run(
        s,
        [Fight(attacker="a", weapons=("hammer",), targets=("b",))],
        [3, 3, 3, 5],
        choices={"step8": "none"},
    )
    fw = one(played, FleshWoundSuffered)
    assert "extra Serious Injury" in fw.reason
    assert played.state.fighters["b"].status == SERIOUSLY_INJURED
    # ruling: no effect instead
    played = run(
        s,
        [Fight(attacker="a", weapons=("hammer",), targets=("b",))],
        [3, 3, 3, 5],
        choices={"step8": "none"},
        rulings={"extra-serious-injury": "no-effect"},
    )
    assert of(played, FleshWoundSuffered) == []


def test_serious_injury_on_a_seriously_injured_fighter_is_a_flesh_wound_and_t0_is_ooa() -> None:
    s = setup(
        [
            fighter("a", "g", a=2, weapons=[KNIFE], vision=["b"]),
            fighter("b", "e", t=2, w=1, vision=["a"]),
        ],
        [("a", "b")],
    )
    # two hits; first: wound 4, injury 3 (Serious Injury); second: wound 4 (vs T2 now 3+... S3 vs T2),
    # injury 4 (Serious Injury on a Seriously Injured fighter: Flesh Wound, T 2 -> 1)
    played = run(
        s, [Fight(attacker="a", targets=("b",))], [3, 3, 4, 3, 4, 4], choices={"step8": "none"}
    )
    b = played.state.fighters["b"]
    assert (b.status, b.flesh_wounds, b.toughness) == (SERIOUSLY_INJURED, 1, 1)
    # flesh wounds to Toughness 0: Out of Action
    s1 = setup(
        [
            fighter("a", "g", weapons=[KNIFE], vision=["b"]),
            fighter("b", "e", t=1, w=1, vision=["a"]),
        ],
        [("a", "b")],
    )
    played = run(s1, [Fight(attacker="a", targets=("b",))], [3, 2, 1])
    assert one(played, FleshWoundSuffered).toughness == 0
    assert played.state.fighters["b"].status == OUT_OF_ACTION
    assert played.state.links == ()


def test_injury_faces_ruling() -> None:
    s = setup([fighter("a", "g", vision=["b"]), fighter("b", "e", t=3, vision=["a"])], [("a", "b")])
    cmd = Fight(attacker="a", targets=("b",))
    assert one(run(s, [cmd], [3, 4, 2, 1]), InjuryRolled).result == "Flesh Wound"
    alt = run(
        s, [cmd], [3, 4, 2], rulings={"injury-dice-faces": "FSSSSO"}, choices={"step8": "none"}
    )
    assert one(alt, InjuryRolled).result == "Serious Injury"


def test_reaction_attacks_only_by_enemies_still_standing_and_engaged() -> None:
    s = setup(
        [
            fighter("a", "g", a=1, vision=["b", "c"]),
            fighter("b", "e", vision=["a"]),
            fighter("c", "e", vision=["a"]),
            fighter("d", "e", vision=["a"], status="Prone & Seriously Injured"),
        ],
        [("a", "b"), ("a", "c"), ("a", "d")],
    )
    # a hits b (4, -1 interference by c), wounds (4), injury 6: Out of Action; c reacts: a 1
    played = run(s, [Fight(attacker="a", weapons=("knife",), targets=("b",))], [4, 4, 6, 1])
    assert one(played, ReactionAttacksBegun).reactors == ["c"]
    assert {h.attacker for h in of(played, HitRolled)} == {"a", "c"}
    # vehicles and the Seriously Injured never react; b went Out of Action first
    assert played.state.fighters["b"].status == OUT_OF_ACTION


def test_reactor_that_does_not_turn_has_no_target() -> None:
    s = setup([fighter("a", "g", vision=["b"]), fighter("b", "e", vision=[])], [("a", "b")])
    played = run(
        s, [Fight(attacker="a", targets=("b",))], [1], choices={"react/b/turn": "do-not-turn"}
    )
    assert "no eligible target" in one(played, ReactionForgone).reason


def test_step8_coup_de_grace_when_all_are_seriously_injured() -> None:
    s = setup([fighter("a", "g", vision=["b"]), fighter("b", "e", vision=["a"])], [("a", "b")])
    played = run(s, [Fight(attacker="a", targets=("b",))], [3, 4, 4])
    asked = next(c for c in of(played, ChoiceMade) if c.key == "c1/step8")
    assert asked.options == ("coup-de-grace", "consolidate", "none")
    cdg = one(played, CoupDeGrace)
    assert (cdg.target, cdg.effect, cdg.rule) == ("b", "out-of-action", "N23 CC 8")
    assert played.state.fighters["b"].status == OUT_OF_ACTION
    # consolidate instead: leaves contact
    played = run(
        s, [Fight(attacker="a", targets=("b",))], [3, 4, 4], choices={"step8": "consolidate"}
    )
    assert one(played, Consolidated).left_contact_with == ["b"]
    assert played.state.links == ()
    # the other Coup de Grace ruling: Injury dice from the weapon (knife: Damage 1 -> one dice)
    played = run(
        s,
        [Fight(attacker="a", targets=("b",))],
        [3, 4, 4, 6],
        rulings={"coup-de-grace-effect": "injury-dice"},
    )
    injuries = of(played, InjuryRolled)
    assert [i.natural for i in injuries] == [4, 6]
    assert played.state.fighters["b"].status == OUT_OF_ACTION


def test_step8_no_coup_de_grace_when_one_enemy_went_out_of_action() -> None:
    """N23: Coup de Grace only if every enemy engaged is Seriously Injured (or Wrecked);
    consolidate if each is Seriously Injured, Out of Action or Wrecked."""
    s, cmd = one_against_two()
    # b: hit 4, c: hit 4 (each -1 for the other's interference);
    # wound b 4 -> injury 6 (Out of Action); wound c 4 -> injury 4 (Serious Injury)
    played = run(s, [cmd], [4, 4, 4, 6, 4, 4])
    asked = next(c for c in of(played, ChoiceMade) if c.key == "c1/step8")
    assert asked.options == ("consolidate", "none")
    assert of(played, CoupDeGrace) == []
    # still engaged with a standing enemy: no step 8 at all
    played = run(s, [cmd], [4, 4, 4, 6, 1, 1])
    assert one(played, Step8Forgone).fighter == "a"


def test_coup_de_grace_action() -> None:
    s = setup(
        [fighter("a", "g", vision=["b"]), fighter("b", "e", status=SERIOUSLY_INJURED)], [("a", "b")]
    )
    played = run(s, [CoupDeGraceAction(attacker="a", target="b")], [])
    assert one(played, CoupDeGrace).rule == "N23 Coup de Grace"
    assert played.state.fighters["b"].status == OUT_OF_ACTION
    s2 = setup([fighter("a", "g"), fighter("b", "e")], [("a", "b")])
    with pytest.raises(RuleViolation, match=r"Standing & Active|not a Prone & Seriously Injured"):
        run(s2, [CoupDeGraceAction(attacker="a", target="b")], [])


def test_attacking_a_vehicle() -> None:
    """+1 to hit, no assists, no Reaction attacks, Toughness of the facing touched, an extra
    Location dice, hull points, Wrecked; a fighter within 1" of it stays Standing & Active."""
    s = setup(
        [
            fighter("a", "g", weapons=[KNIFE, CLUB], vision=["v"]),
            fighter("h", "g", vision=["v"]),
            fighter("v", "e", save=4, vehicle=VEHICLE, weapons=[]),
        ],
        [Engagement(a="a", b="v", facing="rear"), Engagement(a="h", b="v", facing="front")],
    )
    init = get_game_system("necromunda-2023").initial_state(s)
    assert init.fighters["a"].status == STANDING_ACTIVE and init.fighters["v"].status == MOBILE
    # hit 2 (+1 = 3), wound 5 (S3 vs rear T4: 5+), save 1 fails, Location 1 and 6 (asked:
    # default Body), 1 Hull Point lost from the Body. No reactions.
    cmd1 = Fight(attacker="a", weapons=("knife",), targets=("v",))
    played = run(s, [cmd1], [2, 5, 1, 1, 6])
    hit = one(played, HitRolled)
    assert [(m.value, m.cause) for m in hit.modifiers] == [(1, "attacking a vehicle")] and hit.hit
    assert of(played, AssistClaimed) == []
    assert one(played, WoundRolled).toughness == 4
    loc = one(played, LocationRolled)
    assert (loc.naturals, loc.results, loc.chosen) == ([1, 6], ["Body", "Engine"], "Body")
    assert [c.key for c in of(played, ChoiceMade)] == ["c1/location-choice/1"]
    dmg = one(played, VehicleDamaged)
    assert (dmg.location, dmg.hull_points_before, dmg.hull_points_after) == ("Body", 2, 1)
    assert of(played, DamageInflicted) == []
    assert of(played, ReactionAttacksBegun) == []
    # second blow, with the club (S4 vs T4), Wrecks it; then consolidate (no Coup de Grace on a vehicle)
    cmd2 = Fight(attacker="a", weapons=("club",), targets=("v",))
    played = run(
        s, [cmd1, cmd2], [2, 5, 1, 1, 6, 3, 4, 2, 2, 2], choices={"c2/step8": "consolidate"}
    )
    assert played.state.fighters["v"].status == WRECKED
    asked = next(c for c in of(played, ChoiceMade) if c.key == "c2/step8")
    assert asked.options == ("consolidate", "none")
    assert of(played, Consolidated)
    # on the vehicle: the lowest Toughness
    s_on = setup(
        [fighter("a", "g", vision=["v"]), fighter("v", "e", vehicle=VEHICLE, weapons=[])],
        [Engagement(a="a", b="v", facing="on")],
    )
    assert one(run(s_on, [Fight(attacker="a", targets=("v",))], [6, 1]), WoundRolled).toughness == 4


def test_vehicle_interference_ruling() -> None:
    s = vehicle_and_interferer()
    cmd = Fight(attacker="a", targets=("v",))
    played = run(s, [cmd], [6, 1, 1])
    assert sorted(m.value for m in of(played, HitRolled)[0].modifiers) == [-1, 1]
    played = run(s, [cmd], [6, 1, 1], rulings={"vehicle-target-interference": "none"})
    assert [m.value for m in of(played, HitRolled)[0].modifiers] == [1]


def test_fighting_across_barricades() -> None:
    low = Barricade(id="low", width=0.5)
    wall = Barricade(id="wall", width=1.5)
    far = Barricade(id="far", width=3.0)
    s = setup(
        [
            fighter("a", "g", weapons=[KNIFE, WHIP], vision=["b", "c", "d"]),
            fighter("b", "e", vision=["a"]),
            fighter("c", "e", vision=["a"]),
            fighter("d", "e", vision=["a"]),
        ],
        [
            Engagement(a="a", b="b", across="low"),
            Engagement(a="a", b="c", across="wall"),
            Engagement(a="a", b="d", across="far"),
        ],
        [low, wall, far],
    )
    init = get_game_system("necromunda-2023").initial_state(s)
    assert init.fighters["b"].status == STANDING_ENGAGED  # under 1" wide: engaged
    assert init.fighters["c"].status == STANDING_ACTIVE  # wider: not engaged
    run(s, [Fight(attacker="a", weapons=("knife",), targets=("b",))], [1, 1])
    with pytest.raises(RuleViolation, match="not an eligible target"):
        run(s, [Fight(attacker="a", weapons=("knife",), targets=("c",))], [1])
    run(s, [Fight(attacker="a", weapons=("whip",), targets=("c",))], [1, 1])  # Versatile 2" > 1.5"
    with pytest.raises(RuleViolation):
        run(s, [Fight(attacker="a", weapons=("whip",), targets=("d",))], [1])  # 3" is too far


def test_illegal_fights() -> None:
    s = setup(
        [fighter("a", "g", vision=["b"]), fighter("b", "e", vision=["a"]), fighter("c", "e")],
        [("a", "b")],
    )
    with pytest.raises(RuleViolation, match=r"no eligible target|not an eligible"):
        run(s, [Fight(attacker="a", targets=("c",))], [])
    with pytest.raises(RuleViolation, match="unknown attacker"):
        run(s, [Fight(attacker="zz", targets=("b",))], [])
    with pytest.raises(RuleViolation, match="Standing"):
        run(
            setup(
                [fighter("a", "g", status=SERIOUSLY_INJURED, vision=["b"]), fighter("b", "e")],
                [("a", "b")],
            ),
            [Fight(attacker="a", targets=("b",))],
            [],
        )


def test_nerve_tests_ruling() -> None:
    s = setup(
        [
            fighter("a", "g", vision=["b"]),
            fighter("b", "e", vision=["a"]),
            fighter("f", "e", cl=7),
            fighter("f2", "e"),
        ],
        [("a", "b")],
        within_3=[("b", "f"), ("f", "f2")],
    )
    cmd = Fight(attacker="a", targets=("b",))
    # hit, wound, injury 4 (Serious Injury): f tests (f2 within 3" of it: +1) 2+3+1 = 6 < 7: Broken
    played = run(
        s, [cmd], [3, 4, 4, 2, 3], rulings={"nerve-tests": "on"}, choices={"step8": "none"}
    )
    nerve = one(played, NerveTested)
    assert (nerve.fighter, nerve.total, nerve.passed) == ("f", 6, False)
    assert played.state.fighters["f"].broken
    off = run(s, [cmd], [3, 4, 4], rulings={"nerve-tests": "off"}, choices={"step8": "none"})
    assert of(off, NerveTested) == []


def test_setup_errors_name_the_field() -> None:
    rs = get_game_system("necromunda-2023")
    bad = [
        (setup([fighter("a", "g"), fighter("a", "e")]), "duplicate fighter"),
        (setup([fighter("a", "g"), fighter("b", "g")], [("a", "b")]), "same gang"),
        (setup([fighter("a", "g"), fighter("b", "e")], [("a", "x")]), "unknown fighter"),
        (setup([fighter("a", "g", status="Lying down")]), "status"),
        (
            setup([fighter("a", "g"), fighter("b", "e", status="Prone & Pinned")], [("a", "b")]),
            "Pinned",
        ),
        (setup([fighter("a", "g", vision=["q"])]), "vision"),
    ]
    for s, match in bad:
        with pytest.raises(SetupError, match=match):
            rs.validate_setup(s)


def test_rulings_recorded_at_battle_start() -> None:
    s = setup([fighter("a", "g", vision=["b"]), fighter("b", "e", vision=["a"])], [("a", "b")])
    played = run(s, [], [], rulings={"coup-de-grace-effect": "injury-dice"})
    started = played.events[0]
    rs = get_game_system("necromunda-2023")
    assert set(started.rulings) == {r.name for r in rs.rulings}  # type: ignore[attr-defined]
    assert started.rulings["coup-de-grace-effect"] == "injury-dice"  # type: ignore[attr-defined]
    assert started.rulings["injury-dice-faces"] == "FFSSSO"  # type: ignore[attr-defined]


def test_split_attack_dice_unit() -> None:
    from blowbyblow.domain.necromunda.state import FighterState, WeaponState

    def w(wid: str, *traits: str) -> WeaponState:
        return WeaponState(
            id=wid,
            name="",
            s=None,
            s_bonus=0,
            ap=0,
            d=1,
            traits=traits,
            versatile_tenths=0,
            ammo=None,
        )

    f = FighterState(
        id="f",
        name="",
        gang="g",
        m=5,
        ws=3,
        bs=3,
        s=3,
        t=3,
        w=1,
        i=3,
        a=1,
        ld=7,
        cl=7,
        wil=7,
        int_=7,
        save=None,
        weapons=(),
        status=STANDING_ACTIVE,
        broken=False,
        wounds=1,
        flesh_wounds=0,
    )
    melee, melee2, side = (
        weapon_profile(f, w("m", "Melee")),
        weapon_profile(f, w("m2", "Melee")),
        weapon_profile(f, w("p", "Sidearm")),
    )
    assert split_attack_dice([], 3, None) == [("unarmed", 3)]
    assert split_attack_dice([side], 3, None) == [("p", 1), ("unarmed", 2)]
    assert split_attack_dice([melee, side], 4, None) == [("m", 3), ("p", 1)]
    assert split_attack_dice([melee, melee2], 4, None) == [("m", 2), ("m2", 2)]
    assert split_attack_dice([melee, melee2], 5, "m2") == [("m", 2), ("m2", 3)]


def test_play_rejects_unknown_ruling_values() -> None:
    s = setup([fighter("a", "g")])
    from blowbyblow.domain.core import RulingError
    from blowbyblow.domain.system import Scenario

    with pytest.raises(RulingError):
        play(
            Scenario(
                ruleset="necromunda-2023",
                label="x",
                rulings={"coup-de-grace-effect": "maybe"},
                setup=s,
                commands=[],
            )
        )


def test_reaction_attacks_may_be_declined() -> None:
    s = setup([fighter("a", "g", vision=["b"]), fighter("b", "e", vision=["a"])], [("a", "b")])
    played = run(
        s, [Fight(attacker="a", targets=("b",))], [1], choices={"react/b/react": "decline"}
    )
    assert one(played, ReactionForgone).reason == "its player declined"
    assert {h.attacker for h in of(played, HitRolled)} == {"a"}
