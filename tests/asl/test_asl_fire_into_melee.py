"""Version 1.6 of ``asl``: fire into a Melee (A11.15), the command ``fire``. A11.15: "The Melee
units may be attacked by non-Melee units during a fire phase (or even the ATTACKER's MPh in some
cases) but all friendly Melee and enemy units in the Location must be attacked [EXC: A Sniper
attacks a Melee hex without harming friendly units]." The attack itself is outside chapter A11
(the IFT): each unit's result is entered. A battle recorded by 1.5
(``fixtures/make_1_5_records.py``) verifies byte for byte."""

from __future__ import annotations

from pathlib import Path

from asl_helpers import hs, leader, loc, one, run, setup, squad

from blowbyblow.domain.asl import events as ev
from blowbyblow.domain.asl.commands import (
    Advance,
    AslCommand,
    FireIntoMelee,
)
from blowbyblow.domain.asl.setup import Setup, VehicleSetup
from blowbyblow.domain.core import ChoiceMade
from blowbyblow.domain.system import Scenario
from blowbyblow.replay.engine.registry import get_game_system

from bxbtest import reads_as_recorded, refused_whole

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def k4_melee() -> Setup:
    """The Melee in K4 of the comprehensive example (a German 4-6-7 with its 8-1 against a
    Russian 4-4-7 and 5-2-7); in K3 a German 4-6-7 free of it and, in K4 itself, a concealed
    German 2-4-7 that kept its "?" (so not locked in Melee, A11.15 EXC); a Russian 4-4-7 in K5."""
    return setup(
        [
            squad("g467", "German", "K4", "4-6-7"),
            leader("g81", "German", "K4", "8-1", stacked_on="g467"),
            squad("r447", "Russian", "K4", "4-4-7"),
            squad("r527", "Russian", "K4", "5-2-7"),
            squad("g3", "German", "K3", "4-6-7"),
            hs("gc", "German", "K4", "2-4-7", concealed=True),
            squad("r5", "Russian", "K5", "4-4-7"),
        ],
        [
            loc("K4", "building", ("K3", "K5")),
            loc("K3", "building", ("K4",)),
            loc("K5", "building", ("K4",)),
        ],
        melee=["K4"],
    )


def fire(by: list[str], turn: int = 5, attacker: str = "German", **kw: str) -> FireIntoMelee:
    return FireIntoMelee(turn=turn, attacker=attacker, location="K4", by=by, **kw)


def test_every_friendly_melee_unit_and_every_enemy_unit_is_attacked() -> None:
    """A11.15: the German 4-6-7 in K3 fires into K4: "all friendly Melee and enemy units in the
    Location must be attacked": the German 4-6-7 and 8-1 in Melee and both Russian squads; not
    the German 2-4-7 that kept its concealment, which is not in the Melee; not the Russian
    squad next door. Each result is entered (the IFT is outside A11)."""
    played = run(k4_melee(), [fire(["g3"])], [])
    fired = one(played, ev.MeleeFiredOn)
    assert (fired.side, fired.by, fired.rule) == ("German", ("g3",), "A11.15")
    assert set(fired.targets) == {"g467", "g81", "r447", "r527"}
    asked = [e.key for e in played.events if isinstance(e, ChoiceMade)]
    assert sorted(asked) == sorted(f"c1/ift/{u}" for u in fired.targets)
    # nothing entered: no effect on anyone, the Melee goes on
    assert "K4" in played.state.melee


def test_the_entered_results_apply() -> None:
    """Entered: the friendly 4-6-7 pinned, the 8-1 wounded (Casualty Reduction of an SMC,
    A7.302: its Wound Severity dr 3, A17.11), the 4-4-7 Reduced to its HS, the 5-2-7 broken."""
    choices = {
        "ift/g467": "pin",
        "ift/g81": "reduce",
        "ift/r447": "reduce",
        "ift/r527": "break",
    }
    played = run(k4_melee(), [fire(["g3"])], [3], choices=choices)
    units = played.state.units
    assert units["g467"].pinned and not units["g467"].broken
    assert units["g81"].wounded and units["g81"].status == "active"
    assert units["r447"].kind == "hs" and units["r447"].fp == 2
    assert units["r527"].broken
    assert "K4" in played.state.melee  # broken units stay in Melee (A11.16)


def test_a_melee_left_with_one_side_ends() -> None:
    """Both Russian squads eliminated by the fire: no Infantry of both sides remains, the Melee
    ends (MeleeEnded, A11.15), and the German 4-6-7 may then advance out of K4 (no longer
    "locked in Melee")."""
    choices = {"ift/r447": "eliminate", "ift/r527": "eliminate"}
    commands: list[AslCommand] = [
        fire(["g3"]),
        Advance(turn=5, attacker="German", units=["g467"], to="K3"),
    ]
    played = run(k4_melee(), commands, [], choices=choices)
    assert one(played, ev.MeleeEnded).location == "K4"
    assert "K4" not in played.state.melee
    assert played.state.units["g467"].location == "K3"


def test_a_sniper_harms_no_friendly_unit() -> None:
    """A11.15 EXC: "A Sniper attacks a Melee hex without harming friendly units": the German
    Sniper's attack is on the two Russian squads only."""
    played = run(
        k4_melee(), [FireIntoMelee(turn=5, attacker="German", location="K4", sniper="German")], []
    )
    fired = one(played, ev.MeleeFiredOn)
    assert fired.sniper and fired.by == ()
    assert set(fired.targets) == {"r447", "r527"}


def test_a_concealed_unit_not_in_the_melee_fires_into_it() -> None:
    """A11.15 EXC: a unit that retains its concealment "is not locked in Melee itself ... It is
    free to fire in its next Fire Phase (into the Melee at TPBF; 7.212)". The DEFENDER fires too
    (its Defensive Fire): the Russian 4-4-7 in K5 in the German Player Turn."""
    played = run(k4_melee(), [fire(["gc"])], [])
    assert one(played, ev.MeleeFiredOn).by == ("gc",)
    played = run(k4_melee(), [fire(["r5"])], [])
    fired = one(played, ev.MeleeFiredOn)
    assert fired.side == "Russian"
    # for the Russians, the friendly Melee units are theirs and the enemy are every German
    # unit in K4, the concealed 2-4-7 included
    assert set(fired.targets) == {"r447", "r527", "g467", "g81", "gc"}


def test_fire_into_the_melee_is_offered_to_the_units_that_may_fire() -> None:
    """Offered for the current Player Turn: the German 4-6-7 in K3, the concealed 2-4-7 in K4
    and the Russian 4-4-7 in K5; not the units locked in Melee. Each offer, built, is legal."""
    from test_asl_view_legal import RULESET, assert_offers_are_legal

    played = run(k4_melee(), [fire(["g3"])], [])
    offered = RULESET.legal_commands(played.state, RULESET.resolve_rulings({}))
    fires = {(o.fields["turn"], o.side, o.fields["by"]) for o in offered if o.type == "fire"}
    assert {(side, by) for turn, side, by in fires if turn == "5"} == {
        ("German", "g3"),
        ("German", "gc"),
        ("Russian", "r5"),
    }
    assert_offers_are_legal(played.state)


def test_an_afv_in_the_melee_location_fires_into_it() -> None:
    """A11.7: "An Immobile AFV or an AFV which opts to stay in a hex in which it started its
    turn with Known enemy Infantry/Cavalry may fire only at the enemy Infantry/Cavalry in that
    hex (7.212)" and "Even though a vehicle cannot be held in Melee, it holds all Known enemy
    Infantry": not locked itself, the German AFV in K4 fires into the Melee there; every unit
    of the Melee is attacked, as A11.15 says."""
    s = k4_melee()
    afv = VehicleSetup(id="pz", side="German", location="K4", afv=True, armored=True, cmg=5)
    s = setup(list(s.units), list(s.locations), vehicles=[afv], melee=["K4"])
    played = run(s, [fire(["pz"])], [])
    fired = one(played, ev.MeleeFiredOn)
    assert (fired.side, fired.by) == ("German", ("pz",))
    assert set(fired.targets) == {"g467", "g81", "r447", "r527"}


# --- refusals: nothing written ------------------------------------------------------------------


def scenario(*commands: AslCommand) -> Scenario[Setup, AslCommand]:
    return Scenario(ruleset="asl", label="refused", setup=k4_melee(), commands=list(commands))


def test_a_unit_locked_in_melee_may_not_fire() -> None:
    """A11.15: "Units locked in Melee may not Interdict routing units nor conduct any activity
    other than CC or Withdrawal from Melee". Refused, nothing written."""
    refused = refused_whole(scenario(fire(["g467"])))
    assert refused.rule == "A11.15"
    assert "g467 is locked in Melee in K4" in str(refused)


def test_fire_into_a_location_not_in_melee_is_refused() -> None:
    refused = refused_whole(
        scenario(FireIntoMelee(turn=5, attacker="German", location="K5", by=["g3"]))
    )
    assert "K5 is not locked in Melee" in str(refused)


def test_fire_after_the_aph_is_refused() -> None:
    """ "during a fire phase (or even the ATTACKER's MPh in some cases)": the fire phases and the
    MPh come before the APh; once a unit advanced, no more fire in that Player Turn."""
    refused = refused_whole(
        scenario(Advance(turn=5, attacker="German", units=["g3"], to="K4"), fire(["g3"]))
    )
    assert "the APh of Player Turn 5 has begun" in str(refused)


def test_fire_by_both_sides_at_once_or_by_nobody_is_refused() -> None:
    assert "not all of one side" in str(refused_whole(scenario(fire(["g3", "r5"]))))
    assert "no unit fires" in str(refused_whole(scenario(fire([]))))
    both = FireIntoMelee(turn=5, attacker="German", location="K4", by=["g3"], sniper="German")
    assert "a Sniper attacks alone" in str(refused_whole(scenario(both)))


# --- battles recorded by 1.5 -------------------------------------------------------------------


def test_a_battle_of_1_5_verifies_under_1_6() -> None:
    """A Melee carried on over two Player Turns, recorded by 1.5 (which had no ``fire``): it
    verifies byte for byte; 1.6 adds no ruling."""
    system = get_game_system("asl")
    assert "1.5" in system.reads_versions
    assert [r.name for r in system.rulings if r.since == "1.6"] == []
    events = reads_as_recorded(FIXTURES / "asl-1.5-melee-goes-on.jsonl", "1.5", {})
    kinds = [type(e.event).__name__ for e in events]
    assert kinds.count("MeleeContinued") == 2
