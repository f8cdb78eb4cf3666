"""What version 1.4 of gangfight adds: the readings 1.3 fixed, each made a ruling from the
Combat page's words (quoted in each test): who attacks in a Fight! (fight-attacks), which moves
provoke a Free Strike (free-strike-trigger), an Incapacitation token's DEF (token-defence), an
Area of Effect's hits (area-hits), what Shoot!, an Area of Effect attack and Reload cost
(shoot-action, area-action, reload-action), and a Charge! at a model already in reach
(charge-within-reach). Records of 1.3 (``fixtures/make_1_3_records.py``) verify byte for byte,
and a what-if under the other reading diverges; the refusals write nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from gf_helpers import VETERAN, model, of_type, one, run, setup, status

from blowbyblow.domain.gangfight.commands import AreaAttack, Charge, Fight, Move, Reload, Shoot
from blowbyblow.domain.gangfight.events import (
    ActionPointsSpent,
    AttackRolled,
    DodgeRolled,
    FreeStrike,
    WoundsInflicted,
)
from blowbyblow.domain.gangfight.legal import legal_commands
from blowbyblow.domain.gangfight.rulings import RULINGS
from blowbyblow.domain.gangfight.system import GAME_SYSTEM
from blowbyblow.domain.system import Scenario

from bxbtest import diverges, reads_as_recorded, refused_whole

FIXTURES = Path(__file__).resolve().parent / "fixtures"
NEW = {
    "fight-attacks": "one-target",
    "free-strike-trigger": "leaving",
    "token-defence": "keeps",
    "area-hits": "successes",
    "shoot-action": "standard",
    "area-action": "standard",
    "reload-action": "standard",
    "charge-within-reach": "allowed",
}

ORC = model("orc", "orcs")
GOBLIN = model("goblin", "orcs")
THREE = setup(
    VETERAN,
    ORC,
    GOBLIN,
    gaps=(("veteran", "orc", 0), ("veteran", "goblin", 0), ("orc", "goblin", 0)),
)


def test_version_1_4_and_the_readings_of_1_3() -> None:
    assert GAME_SYSTEM.version == "1.4" and "1.3" in GAME_SYSTEM.reads_versions
    assert {r.name: r.before for r in RULINGS if r.since == "1.4"} == NEW
    old = {r.name: r.default for r in RULINGS if r.name not in NEW}
    filled = GAME_SYSTEM.rulings_in_force("1.3", old)
    assert {n: filled[n] for n in NEW} == NEW


# --- fight-attacks ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ruling", "attacks"),
    [
        ("one-target", [("veteran", "orc")]),
        ("each-in-reach", [("veteran", "orc"), ("veteran", "goblin")]),
        (
            "both-sides",
            [("veteran", "orc"), ("veteran", "goblin"), ("orc", "veteran"), ("goblin", "veteran")],
        ),
    ],
)
def test_who_attacks_in_one_fight(ruling: str, attacks: list[tuple[str, str]]) -> None:
    """Melee Combat: "Once this has been done with each model that has an opposing model within
    their threat range, the Fight! Action has been resolved." The Veteran fights the Orc with
    the Goblin also in its reach. one-target (1.3): the Orc alone; each-in-reach: then the
    Goblin; both-sides: then each opposing model with the Veteran in its own reach, still
    standing, attacks back, for no action point. Each attack roll has at most two successes:
    no one reaches EN 4."""
    played = run(
        THREE,
        [Fight(attacker="veteran", target="orc")],
        [5, 5, 1, 1, 1, 1] * 6,
        rulings={"fight-attacks": ruling},
    )
    assert [(e.attacker, e.target) for e in of_type(played, AttackRolled)] == attacks
    spent = of_type(played, ActionPointsSpent)
    assert [(e.fighter, e.cost) for e in spent] == [("veteran", 1)]


def test_a_charges_free_fight_follows_the_same_ruling() -> None:
    """The Charge!'s free Fight! is a Fight!: under each-in-reach it attacks each model then in
    reach. The Veteran charges the Orc 2" away (4 dice at 2+ all succeed); the Goblin is beside
    the Orc and ends in reach too."""
    s = setup(VETERAN, ORC, GOBLIN, gaps=(("veteran", "orc", 2), ("veteran", "goblin", 2)))
    charge = Charge(fighter="veteran", target="orc", to={"orc": 0, "goblin": 0})
    played = run(
        s, [charge], [2, 2, 2, 2] + [1, 1, 1] * 2, rulings={"fight-attacks": "each-in-reach"}
    )
    assert [e.target for e in of_type(played, AttackRolled)] == ["orc", "goblin"]


# --- free-strike-trigger ----------------------------------------------------------------------


@pytest.mark.parametrize(("ruling", "struck"), [("leaving", False), ("entering-too", True)])
def test_a_move_into_a_threat_range_and_stopping(ruling: str, struck: bool) -> None:
    """Free Strikes: "A Free Strike occurs when a model moves through the threatened area of an
    enemy model." The Veteran moves from 3" to 1" of the Orc (threat 1") and stops. leaving
    (1.3): no Free Strike; entering-too: the Orc strikes (1 1 1, no success)."""
    played = run(
        setup(VETERAN, ORC, gaps=(("veteran", "orc", 3),)),
        [Move(fighter="veteran", inches=2, to={"orc": 1})],
        [1, 1, 1],
        rulings={"free-strike-trigger": ruling},
    )
    assert len(of_type(played, FreeStrike)) == int(struck)


def test_leaving_a_threat_range_provokes_under_both_readings() -> None:
    """A Finesse Attack lets a model "move out an opponent's threat without the model suffering
    the effects of a Free-Strike": moving out of it provokes one, whatever the ruling."""
    for ruling in ("leaving", "entering-too"):
        played = run(
            setup(VETERAN, ORC, gaps=(("veteran", "orc", 1),)),
            [Move(fighter="veteran", inches=3, to={"orc": 4})],
            [1, 1, 1],
            rulings={"free-strike-trigger": ruling},
        )
        assert one(played, FreeStrike).striker == "orc"


# --- token-defence ----------------------------------------------------------------------------


@pytest.mark.parametrize(("ruling", "tn", "dead"), [("keeps", 4, False), ("2", 2, True)])
def test_the_defense_of_an_incapacitation_token(ruling: str, tn: int, dead: bool) -> None:
    """Incapacitation: "An Incapacitated model is removed from the table and replaced with an
    Incapacitation token ... cannot perform any actions"; "A model that sustains any damage
    once they are Incapacitated are immediately removed, as those models are Dead." The Orc
    (EN 1, ARM 1) is Incapacitated by one Wound (5 1 1, Armour 1), then its token attacked with
    3 3 2: keeps (1.3) rolls against DEF 4, no success; 2: against DEF 2, three Wounds, and
    with Armour 1 the token is Dead."""
    s = setup(VETERAN, model("orc", "orcs", en=1, arm=1), gaps=(("veteran", "orc", 0),))
    fight = Fight(attacker="veteran", target="orc")
    played = run(s, [fight, fight], [5, 1, 1, 1, 3, 3, 2, 1], rulings={"token-defence": ruling})
    assert of_type(played, AttackRolled)[1].test.tn == tn
    assert (status(played, "orc").condition == "dead") is dead


# --- area-hits --------------------------------------------------------------------------------


@pytest.mark.parametrize(("ruling", "wounds"), [("successes", 3), ("one", 1)])
def test_the_hits_of_an_area_of_effect_attack(ruling: str, wounds: int) -> None:
    """Direct Area of Effect: "If they gain more successes in the roll than the target scored
    on their roll to hit, they manage to dodge the attack completely ... If they fail, they are
    hit"; Damage: "The more successes you score during an attack, the more Damage you will
    inflict". The dragon's breath scores 3 successes (5 5 5 1 +1 Point Blank die: 1); the Orc
    dodges with none (1 1 1): successes (1.3) three Wounds, one: one. The dodge is against the
    roll's 3 successes under both."""
    dragon = model("dragon", "monsters", weapons=("breath",), mrk=4)
    played = run(
        setup(dragon, ORC, gaps=(("dragon", "orc", 8),)),
        [AreaAttack(attacker="dragon", target="orc")],
        [5, 5, 5, 1, 1, 1, 1, 1, 1, 1, 1],
        rulings={"area-hits": ruling},
    )
    assert one(played, DodgeRolled).hits == 3
    inflicted = one(played, WoundsInflicted)
    assert (inflicted.successes, inflicted.wounds) == (3, wounds)


# --- shoot-action, area-action, reload-action ------------------------------------------------

BOWMAN = model("bowman", "humans", weapons=("crossbow", "breath"), iv=4)
RANGED = setup(BOWMAN, ORC, gaps=(("bowman", "orc", 8),))


@pytest.mark.parametrize("kind", ["shoot-action", "reload-action", "area-action"])
def test_what_a_ranged_action_costs(kind: str) -> None:
    """The rules name Shoot!, Reload and Area of Effect attacks, not their kind: as Special
    Actions (with special-action-cost 2) each costs 2 AP, the others 1."""
    commands = [
        Shoot(shooter="bowman", target="orc", weapon="crossbow"),
        Reload(fighter="bowman", weapon="crossbow"),
        AreaAttack(attacker="bowman", target="orc", weapon="breath"),
    ]
    played = run(RANGED, commands, [1] * 8, rulings={kind: "special", "special-action-cost": "2"})
    costs = {e.action: e.cost for e in of_type(played, ActionPointsSpent)}
    special = {"shoot-action": "Shoot!", "reload-action": "Reload"}.get(
        kind, "Shoot! (Area of Effect)"
    )
    assert {a: c for a, c in costs.items() if c == 2} == {special: 2}


def test_a_special_shoot_refused_without_the_points_and_not_offered() -> None:
    """A Special Action of 2 AP with 1 AP left is refused, nothing written; not offered."""
    bowman = model("bowman", "humans", weapons=("crossbow",), iv=1)
    s = setup(bowman, ORC, gaps=(("bowman", "orc", 8),))
    rulings = {"shoot-action": "special", "special-action-cost": "2"}
    scenario = Scenario(
        ruleset="gangfight",
        label="refused",
        setup=s,
        commands=[Shoot(shooter="bowman", target="orc")],
        rulings=rulings,
        dice=[1, 1, 1, 1],
    )
    assert "1 action point(s) left; this costs 2" in str(refused_whole(scenario))
    played = run(s, [], [])
    assert "shoot" not in [o.type for o in legal_commands(played.state, rulings)]
    assert "shoot" in [o.type for o in legal_commands(played.state)]


# --- charge-within-reach ----------------------------------------------------------------------

IN_REACH = setup(VETERAN, ORC, gaps=(("veteran", "orc", 1),))


def test_a_charge_at_a_model_already_in_reach_refused_writes_nothing() -> None:
    """Melee Combat: "Close combat begins when a model falls within another model's threat
    range via the result of a Charge! Action, or a Fight! Action". The Orc is already within
    the Veteran's 1" threat range: refused, the charge is refused with nothing written and not
    offered; allowed (1.3) it is offered."""
    scenario = Scenario(
        ruleset="gangfight",
        label="refused",
        setup=IN_REACH,
        commands=[Charge(fighter="veteran", target="orc")],
        rulings={"charge-within-reach": "refused"},
        dice=[1] * 7,
    )
    assert "already within" in str(refused_whole(scenario))
    state = run(IN_REACH, [], []).state
    refused = legal_commands(state, {"charge-within-reach": "refused"})
    assert "charge" not in [o.type for o in refused]
    assert "charge" in [o.type for o in legal_commands(state)]


# --- records of 1.3 ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "other"),
    [
        ("fight-one-target", {"fight-attacks": "each-in-reach"}),
        ("move-into-threat-range", {"free-strike-trigger": "entering-too"}),
        ("token-attacked", {"token-defence": "2"}),
        ("area-hits", {"area-hits": "one"}),
        ("ranged-costs", {"shoot-action": "special", "special-action-cost": "2"}),
        ("ranged-costs", {"reload-action": "special", "special-action-cost": "2"}),
        ("ranged-costs", {"area-action": "special", "special-action-cost": "2"}),
        ("charge-within-reach", {"charge-within-reach": "refused"}),
    ],
)
def test_a_record_of_1_3_verifies_under_1_4_and_the_other_reading_changes_it(
    name: str, other: dict[str, str]
) -> None:
    """Battles recorded by 1.3, each on a reading 1.4 made a ruling: each ruling takes 1.3's
    reading for them, so they re-adjudicate byte for byte; a what-if under the other reading
    goes otherwise."""
    events = reads_as_recorded(FIXTURES / f"gangfight-1.3-{name}.jsonl", "1.3", NEW)
    assert diverges(events, other)
