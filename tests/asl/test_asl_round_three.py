"""Version 1.2 of ``asl`` from the rules text: the leader's choice to direct (A11.141), Street
Fighting's road between buildings and the building levels of Locations (A11.8), and the readings
made rulings (A11.15 reinforcing units, A11.16 Disrupted units). Each test quotes the words it
is written from; the refusals write nothing."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from asl_helpers import hs, leader, loc, of, one, run, setup, squad

from blowbyblow.domain.asl import events as ev
from blowbyblow.domain.asl.commands import (
    Advance,
    AslCommand,
    Attack,
    CloseCombat,
    Move,
    ReactionFire,
)
from blowbyblow.domain.asl.setup import LocationSetup, Setup, Terrain, VehicleSetup, validate_setup
from blowbyblow.domain.core import ChoiceMade, RuleViolation, SetupError
from blowbyblow.domain.system import Scenario
from blowbyblow.replay.battles.record import record
from blowbyblow.replay.store.log import BattleStore


def causes(mods: Any) -> list[str]:
    return [m.cause for m in mods]


def refused(s: Setup, commands: list[AslCommand], rulings: dict[str, str] | None = None) -> str:
    """Recording the battle is refused with a RuleViolation and nothing is written."""
    store = BattleStore(":memory:")
    scenario = Scenario(
        ruleset="asl", label="refused", setup=s, commands=commands, rulings=rulings or {}, dice=[]
    )
    with pytest.raises(RuleViolation) as err:
        record(store, scenario, quiet=True)
    assert store.battles() == [], "nothing written"
    return f"{err.value.rule}: {err.value.message}"


# --- A11.141: a leader "may" direct ---------------------------------------------------------------


def ex_a11_141(leadership: int = -1) -> Setup:
    """The A11.141 EX: "A German 4-6-7 squad and 8-1 leader are in the same Location with two
    Russian 4-4-7 squads.\""""
    return setup(
        [
            squad("g467", "German", "A1", "4-6-7"),
            msgspec.structs.replace(
                leader("g81", "German", "A1", "8-1", stacked_on="g467"), leadership=leadership
            ),
            squad("ra", "Russian", "A1", "4-4-7"),
            squad("rb", "Russian", "A1", "4-4-7"),
        ],
        [loc("A1", "open")],
    )


GERMAN_ATTACK = CloseCombat(
    turn=1,
    attacker="German",
    location="A1",
    attacks=[Attack(by=["g467", "g81"], targets=["ra", "rb"])],
)


def test_the_leader_directs_by_default_and_the_choice_is_recorded() -> None:
    """A11.141: "One leader may direct the CC attack of the MMC it defends with ... by applying
    his leadership DRM to the CC DR"; the EX: "The German player attacks both Russians squads at
    1-2 (5-8) and can eliminate them both with an Original DR < 5 due to the -1 leadership
    modifier." Original 4, directed: Final 3, both eliminated."""
    p = run(ex_a11_141(), [GERMAN_ATTACK], [2, 2])
    choice = one(p, ChoiceMade)
    assert (choice.key, choice.options, choice.answer) == ("c1/direct/1", ("g81", "none"), "g81")
    resolved = one(p, ev.CloseCombatResolved)
    assert resolved.column == "1-2" and resolved.kill_number == 4
    assert [causes(o.modifiers) for o in resolved.outcomes] == [["leader g81"]] * 2
    assert [o.result for o in resolved.outcomes] == ["eliminated", "eliminated"]


def test_a_leader_who_does_not_direct_adds_his_fp_but_not_his_drm() -> None:
    """A11.141 "may direct": answered ``none``, the 8-1 still adds "his inherent FP" (5-8, 1-2)
    but not his DRM: the Original 4 is a Final 4 = the Kill Number, a Partial Kill ("If the
    Original DR is a 5, one of the Russian squads is Reduced" - one less without the -1)."""
    p = run(
        ex_a11_141(),
        [GERMAN_ATTACK],
        [2, 2, 3, 3],
        choices={"c1/direct/1": "none"},
        all_dice_used=False,
    )
    odds = one(p, ev.OddsCalculated)
    assert (odds.attack_fp, odds.column) == ("5", "1-2")
    resolved = one(p, ev.CloseCombatResolved)
    assert [(o.modifiers, o.final_dr, o.result) for o in resolved.outcomes] == [
        ((), 4, "partial"),
        ((), 4, "partial"),
    ]
    assert of(p, ev.PartialKill)


def test_a_leader_with_a_positive_drm_is_not_made_to_direct() -> None:
    """ "may direct": a 6+1 leader's +1 is the owner's to decline (1.1 always applied it)."""
    with_plus_one = run(ex_a11_141(leadership=1), [GERMAN_ATTACK], [3, 3])
    assert causes(one(with_plus_one, ev.CloseCombatResolved).outcomes[0].modifiers) == [
        "leader g81"
    ]
    declined = run(
        ex_a11_141(leadership=1), [GERMAN_ATTACK], [3, 3], choices={"c1/direct/1": "none"}
    )
    assert one(declined, ev.CloseCombatResolved).outcomes[0].modifiers == ()


def test_a_leader_attacking_alone_is_not_asked() -> None:
    """A11.141: "a leader may not use his leadership DRM to modify the CC DR of his own attack
    if he attacks alone": no choice is asked, no DRM applies."""
    cc = CloseCombat(
        turn=1,
        attacker="German",
        location="A1",
        solo=["g81"],
        attacks=[Attack(by=["g81"], targets=["ra"])],
    )
    p = run(ex_a11_141(), [cc], [3, 3])
    assert not of(p, ChoiceMade)
    assert one(p, ev.CloseCombatResolved).outcomes[0].modifiers == ()


def test_ruling_always_is_the_1_1_reading_with_no_choice() -> None:
    p = run(ex_a11_141(), [GERMAN_ATTACK], [2, 2], rulings={"leader-choice": "always"})
    assert not of(p, ChoiceMade)
    assert causes(one(p, ev.CloseCombatResolved).outcomes[0].modifiers) == ["leader g81"]


def test_a_leader_named_in_the_command_directs_without_being_asked() -> None:
    named = msgspec.structs.replace(
        GERMAN_ATTACK, attacks=[Attack(by=["g467", "g81"], targets=["ra", "rb"], leader="g81")]
    )
    p = run(ex_a11_141(), [named], [2, 2])
    assert not of(p, ChoiceMade)
    assert causes(one(p, ev.CloseCombatResolved).outcomes[0].modifiers) == ["leader g81"]


def test_vs_a_vehicle_the_combining_leader_may_direct() -> None:
    """A11.51: "A leadership DRM applies to CC vs a vehicle only when that leader is combining
    with another unit in that attack"; A11.5: the SMC still "modifies the CCV of the other unit
    by +1" whether he directs or not."""
    s = setup(
        [
            squad("g467", "German", "A1", "4-6-7"),
            leader("g92", "German", "A1", "9-2", stacked_on="g467"),
        ],
        [loc("A1", "open")],
        vehicles=[VehicleSetup(id="t34", side="Russian", location="A1", name="T-34", cmg=2)],
    )
    cc = CloseCombat(
        turn=1,
        attacker="German",
        location="A1",
        attacks=[Attack(by=["g467", "g92"], targets=["t34"])],
    )
    directed = run(s, [cc], [4, 4])
    assert one(directed, ChoiceMade).key == "c1/direct/1"
    assert "leader g92" in causes(one(directed, ev.VehicleCCResolved).modifiers)
    not_directed = run(s, [cc], [4, 4], choices={"c1/direct/1": "none"})
    assert one(not_directed, ev.CCVCalculated).ccv == 6
    assert "leader g92" not in causes(one(not_directed, ev.VehicleCCResolved).modifiers)


# --- A11.8: a road between buildings; ground level ------------------------------------------------


def road(*, across: Terrain = "building", sides: bool = True, level: int = 0) -> Setup:
    """A Russian 4-4-7 in K5 (``level`` of its building), ADJACENT to the road L5; across the
    road, M5 is ``across``."""
    k5 = [loc("K5", "building", ("L5",), level=level, hex="K5")]
    if level:
        k5.insert(0, loc("K5-0", "building", (), hex="K5"))
    return setup(
        [squad("r447", "Russian", "K5", "4-4-7")],
        [
            *k5,
            loc("M5", across, ("L5",)),
            loc(
                "L5",
                "road",
                ("K5", "L4", "M5"),
                road_sides=[["K5"], ["M5"]] if sides else [],
            ),
            loc("L4", "road", ("L5",)),
        ],
        vehicles=[VehicleSetup(id="pzh", side="German", location="L4", name="PzIVH", cmg=5, bmg=2)],
    )


MOVE_AND_FIRE: list[AslCommand] = [
    Move(turn=1, attacker="German", units=["pzh"], to="L5"),
    ReactionFire(turn=1, attacker="German", vehicle="pzh", by=["r447"]),
]


def test_reaction_fire_onto_a_road_between_buildings() -> None:
    """A11.8: "any vehicle in such a road hex [ADJACENT to a building hex on both sides of that
    road] may be attacked with Reaction Fire (D7.2) by Infantry on ground level of those
    buildings"."""
    p = run(road(), MOVE_AND_FIRE, [3, 3, 2, 2])
    assert one(p, ev.ReactionFireDeclared).came_from == "K5"
    assert "Street Fighting Ambush" in causes(one(p, ev.VehicleCCResolved).modifiers)


@pytest.mark.parametrize(
    "s", [road(across="open"), road(sides=False)], ids=["open-across", "no-road-sides"]
)
def test_reaction_fire_onto_a_road_with_a_building_on_one_side_is_refused(s: Setup) -> None:
    """A11.8: "ADJACENT to a building hex on both sides of that road": M5 across the road is
    open ground, or the setup does not say what is across: refused, nothing written."""
    why = refused(s, MOVE_AND_FIRE)
    assert why.startswith("A11.8: Reaction Fire onto L5: its road is not ADJACENT")


def test_ruling_attacker_building_is_the_1_1_reading() -> None:
    p = run(
        road(across="open"),
        MOVE_AND_FIRE,
        [3, 3, 2, 2],
        rulings={"street-fighting-road": "attacker-building"},
    )
    assert one(p, ev.VehicleCCResolved).result == "immobilized"


@pytest.mark.parametrize("ruling", ["both-sides", "attacker-building"])
def test_no_reaction_fire_from_an_upper_level(ruling: str) -> None:
    """A11.8: "by Infantry on ground level of those buildings": the 4-4-7 on level 1 of K5 may
    not, whichever reading of the road (the level is checked either way)."""
    why = refused(road(level=1), MOVE_AND_FIRE, {"street-fighting-road": ruling})
    assert "level 1 of its building: A11.8 allows it only from ground level" in why


def test_street_fighters_in_cc_come_from_ground_level_onto_a_road_between_buildings() -> None:
    """A11.8: "All Infantry advancing into that road Location from ground level of one or more
    of those adjacent building hexes qualify automatically for Ambush benefits"."""
    s = road(level=1, across="open")
    s = msgspec.structs.replace(
        s,
        units=[squad("g467", "German", "L5", "4-6-7", street_fighting_from="K5")],
        vehicles=[VehicleSetup(id="t34", side="Russian", location="L5", name="T-34", cmg=2)],
    )
    cc = CloseCombat(
        turn=1, attacker="German", location="L5", attacks=[Attack(by=["g467"], targets=["t34"])]
    )
    assert "A11.8: g467 Street Fighting from K5, level 1" in refused(s, [cc])
    ground = msgspec.structs.replace(
        s, locations=[*road(across="open").locations], units=s.units, vehicles=s.vehicles
    )
    assert "its road is not ADJACENT to a building hex on both sides" in refused(ground, [cc])
    both = msgspec.structs.replace(
        s, locations=[*road().locations], units=s.units, vehicles=s.vehicles
    )
    p = run(both, [cc], [4, 4, 6, 6], all_dice_used=False)
    assert "Street Fighting Ambush" in causes(one(p, ev.VehicleCCResolved).modifiers)


@pytest.mark.parametrize(
    ("location", "message"),
    [
        (LocationSetup(id="W1", terrain="woods", level=1), "level 1 needs terrain building"),
        (
            LocationSetup(id="W1", terrain="open", road_sides=[["W1"]]),
            "road_sides needs terrain road",
        ),
        (LocationSetup(id="W1", terrain="road", road_sides=[["Z9"]]), "unknown hex 'Z9'"),
    ],
)
def test_levels_and_road_sides_are_checked_in_the_setup(
    location: LocationSetup, message: str
) -> None:
    s = setup([squad("g467", "German", "W1", "4-6-7")], [location])
    with pytest.raises(SetupError, match=message):
        validate_setup(s)


def test_a_level_out_of_bounds_is_refused() -> None:
    with pytest.raises(msgspec.ValidationError, match="level"):
        msgspec.convert({"id": "B1", "terrain": "building", "level": 9}, LocationSetup)


# --- A11.15: reinforcing units (ruling reinforcing-attack) ----------------------------------------


def melee_in_k4() -> Setup:
    return setup(
        [
            squad("g1", "German", "K4", "4-6-7"),
            squad("r1", "Russian", "K4", "4-4-7"),
            squad("g2", "German", "K3", "4-6-7"),
        ],
        [loc("K3", "building", ("K4",)), loc("K4", "building", ("K3",))],
        melee=["K4"],
    )


def test_a_reinforcing_unit_must_attack_unless_the_ruling_says_otherwise() -> None:
    """A11.15: "New units may advance into a Melee hex but must engage in CC (though a
    concealed unit may elect not to attack in an attempt to retain its concealment)".
    must-attack (default): the Known 4-6-7 that reinforced may not stay out of the attacks,
    nothing written; may-decline: it need not attack, and is held in the Melee."""
    advance = Advance(turn=1, attacker="German", units=["g2"], to="K4")
    cc = CloseCombat(
        turn=1, attacker="German", location="K4", attacks=[Attack(by=["g1"], targets=["r1"])]
    )
    why = refused(melee_in_k4(), [advance, cc])
    assert why.startswith("A11.15: g2 advanced into the Melee in K4")
    p = run(melee_in_k4(), [advance, cc], [5, 5], rulings={"reinforcing-attack": "may-decline"})
    assert one(p, ev.AttackDesignated).attackers == ("g1",)
    assert set(p.state.melee["K4"].units) == {"g1", "g2", "r1"}


# --- A11.16: a Disrupted unit in Melee (ruling disrupted-in-melee) --------------------------------


def disrupted_in_melee() -> Setup:
    return setup(
        [
            hs("g338", "German", "J2", "3-3-8", kind="squad"),
            hs("r227", "Russian", "J2", "2-2-7", broken=True, disrupted=True),
        ],
        [loc("J2", "building", ("I3",)), loc("I3", "open", ("J2",))],
        melee=["J2"],
    )


@pytest.mark.parametrize(("ruling", "eliminated"), [("stays", False), ("failure-to-rout", True)])
def test_a_disrupted_unit_in_melee(ruling: str, eliminated: bool) -> None:
    """A11.16: broken Infantry in Melee "must attempt to Withdraw from Melee (11.2) unless
    Disrupted or guarding prisoners. Any other broken unit unable to withdraw from Melee is
    eliminated at the end of that CCPh for Failure to Rout." stays (default, 1.1): "other"
    excludes the Disrupted unit; failure-to-rout: not withdrawing, it is eliminated."""
    p = run(
        disrupted_in_melee(),
        [CloseCombat(turn=1, attacker="German", location="J2")],
        [],
        rulings={"disrupted-in-melee": ruling},
    )
    assert not of(p, ev.WithdrawalAttempted)
    assert bool(of(p, ev.FailureToRout)) is eliminated
    assert (p.state.units["r227"].status != "active") is eliminated


def test_a_disrupted_unit_that_withdraws_does_not_fail_to_rout() -> None:
    """failure-to-rout: a Disrupted unit "may attempt to Withdraw" (A11.2) like any other; one
    that does is not eliminated for Failure to Rout."""
    from blowbyblow.domain.asl.commands import Withdrawal

    cc = CloseCombat(
        turn=1, attacker="German", location="J2", withdrawals=[Withdrawal(unit="r227", to="I3")]
    )
    p = run(disrupted_in_melee(), [cc], [], rulings={"disrupted-in-melee": "failure-to-rout"})
    assert not of(p, ev.FailureToRout)
    assert p.state.units["r227"].location == "I3"


# --- A11.71: cyclists and skiers --------------------------------------------------------------


@pytest.mark.parametrize("mounted", ["cyclist", "skier"])
def test_cyclists_and_skiers_are_not_held_in_melee(mounted: str) -> None:
    """A11.71: "Cavalry, cyclists, skiers, Mobile vehicles and their PRC who survive their
    initial round of CC are not required to remain in Melee." Both attacks miss: only the two
    squads would be locked, and the Russian one is mounted."""
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7"),
            squad("r1", "Russian", "A1", "4-4-7", **{mounted: True}),
        ],
        [loc("A1", "open")],
    )
    cc = CloseCombat(
        turn=1,
        attacker="German",
        location="A1",
        attacks=[Attack(by=["g1"], targets=["r1"]), Attack(by=["r1"], targets=["g1"])],
    )
    p = run(s, [cc], [6, 6, 6, 6])
    assert "A1" not in p.state.melee and not of(p, ev.MeleeLocked)
    on_foot = msgspec.structs.replace(s, units=[s.units[0], squad("r1", "Russian", "A1", "4-4-7")])
    assert "A1" in run(on_foot, [cc], [6, 6, 6, 6]).state.melee


# --- A11.62: a CE halftrack's Passengers ----------------------------------------------------------


def halftrack(*, ce: bool = True, is_halftrack: bool = True, pinned: bool = False) -> Setup:
    return setup(
        [
            squad("g467", "German", "A1", "4-6-7", pinned=pinned),
            squad("r447", "Russian", "A1", "4-4-7"),
        ],
        [loc("A1", "open")],
        vehicles=[
            VehicleSetup(
                id="sdkfz",
                side="German",
                location="A1",
                name="SdKfz 251/1",
                armored=True,
                open_topped=True,
                halftrack=is_halftrack,
                ce=ce,
                cmg=2,
                passengers=["g467"],
            )
        ],
    )


def ht_attack(*weapons: Any) -> CloseCombat:
    return CloseCombat(
        turn=1,
        attacker="German",
        location="A1",
        attacks=[Attack(by=["sdkfz"], targets=["r447"], weapons=list(weapons))],
    )


def test_a_ce_halftracks_passengers_add_their_fp() -> None:
    """A11.62: "The only other ways an AFV may attack in CC are with a RMG factor, Riders, CE
    Passengers in a halftrack, or a Close Defense Weapon system. An AFV may combine any CMG, RMG,
    halftrack Passenger's FP, and AAMG FP into one or more combined CC attacks ... All such FP is
    used to form Odds ratios vs the defender's CCV": CMG 2 + the 4-6-7's 4 = 6 vs CCV 5, 1-1;
    the CMG alone is 2 vs 5, 1-4; pinned, the Passengers' FP is halved (2 + 2 = 4 vs 5, 1-2)."""
    both = run(halftrack(), [ht_attack("cmg", "passengers")], [6, 6])
    odds = one(both, ev.OddsCalculated)
    assert (odds.attack_fp, odds.defense_fp, odds.column) == ("6", "5", "1-1")
    alone = one(run(halftrack(), [ht_attack()], [6, 6]), ev.OddsCalculated)
    assert (alone.attack_fp, alone.column) == ("2", "1-4")
    pinned = one(
        run(halftrack(pinned=True), [ht_attack("cmg", "passengers")], [6, 6]), ev.OddsCalculated
    )
    assert (pinned.attack_fp, pinned.column) == ("4", "1-2")


@pytest.mark.parametrize(
    "s", [halftrack(ce=False), halftrack(is_halftrack=False)], ids=["bu", "not-a-halftrack"]
)
def test_passengers_fp_only_of_a_ce_halftrack(s: Setup) -> None:
    """A11.62: "CE Passengers in a halftrack": BU, or in another vehicle, they add nothing;
    naming them is refused, nothing written."""
    assert "A11.62: sdkfz: only the Passengers of a CE halftrack" in refused(
        s, [ht_attack("cmg", "passengers")]
    )


# --- A11.141 and a pinned leader (ruling pinned-leader-directs, 1.3) --------------------------


@pytest.mark.parametrize(("ruling", "directed"), [("no", False), ("yes", True)])
def test_a_pinned_leader_directs_only_if_the_ruling_says_so(ruling: str, directed: bool) -> None:
    """A11.141: "One leader may direct the CC attack of the MMC it defends with ... by applying
    his leadership DRM" names no limit for a pinned leader; no (default, 1.0 to 1.2, A7.831 as
    secondary sources read it): the pinned 8-1 adds his FP, halved (A7.8), but not his -1."""
    s = ex_a11_141()
    pinned = msgspec.structs.replace(s.units[1], pinned=True)
    s = msgspec.structs.replace(s, units=[s.units[0], pinned, *s.units[2:]])
    p = run(s, [GERMAN_ATTACK], [3, 3], rulings={"pinned-leader-directs": ruling})
    assert one(p, ev.OddsCalculated).attack_fp == "4.5"
    mods = one(p, ev.CloseCombatResolved).outcomes[0].modifiers
    assert ("leader g81" in causes(mods)) is directed
    assert bool(of(p, ChoiceMade)) is directed
