"""``view`` and ``legal_commands`` of ASL CC, on the demo's states, hand-built states and random
battles: what a front end shows and offers follows the rules, and an offered command is never
refused."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from asl_helpers import hs, leader, loc, run, setup, squad
from hypothesis import HealthCheck, given, settings
from test_asl_properties import battles

from blowbyblow.domain.asl.commands import AslCommand, Attack, CloseCombat
from blowbyblow.domain.asl.legal import legal_commands, validate
from blowbyblow.domain.asl.projection import view
from blowbyblow.domain.asl.setup import Setup, VehicleSetup
from blowbyblow.domain.asl.state import State
from blowbyblow.domain.core import Context, RuleViolation
from blowbyblow.domain.system import CommandOption, StateView, UnitView
from blowbyblow.replay.engine.dice import ScriptedChoices, SeededDice
from blowbyblow.replay.engine.driver import Table
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play

RULESET = get_game_system("asl")
DEFAULTS = RULESET.resolve_rulings({})


def build(option: CommandOption) -> AslCommand:
    """The command an option stands for, with the first allowed value of each option field."""
    command: AslCommand = RULESET.build_command(option)
    return command


def assert_offers_are_legal(state: State, rulings: dict[str, str] | None = None) -> None:
    """Every offered option, built and adjudicated with seeded dice, is not refused; each
    offered attacker has a legal target among those offered, and each target an attacker."""
    rulings = rulings or DEFAULTS
    ctx = Context(rulings=rulings, command_index=1)
    for option in legal_commands(state, rulings):
        command = build(option)
        Table(
            system=RULESET,
            rulings=rulings,
            dice=SeededDice("legal"),
            choices=ScriptedChoices({}),
            quiet=True,
        ).adjudicate(state, command, 1)
        by = option.options.get("attacks.by", ())
        targets = option.options.get("attacks.targets", ())
        pairs = {(b, t) for b in by for t in targets if _legal(state, option, (b, t), ctx)}
        assert {b for b, _ in pairs} == set(by), option
        assert {t for _, t in pairs} == set(targets), option


def _legal(state: State, option: CommandOption, pair: tuple[str, str], ctx: Context) -> bool:
    by, target = pair
    try:
        trial = RULESET.build_command(option, {"attacks.by": by, "attacks.targets": target})
        validate(state, trial, ctx)
    except RuleViolation:
        return False
    return True


def cc_offers(state: State) -> list[CommandOption]:
    """The ``closecombat`` options offered (those between phases are tested elsewhere)."""
    return [o for o in legal_commands(state) if o.type == "closecombat"]


def options_for(state: State, side: str) -> list[CommandOption]:
    return [o for o in cc_offers(state) if o.side == side]


def unit(v: StateView, uid: str) -> UnitView:
    return next(u for u in v.units if u.id == uid)


def stats(u: UnitView) -> dict[str, str]:
    return {s.name: s.value for s in u.stats}


def demo_states() -> list[State]:
    """The demo's states: at the start, after its first command (the advance), after all."""
    scenario = RULESET.demo()
    first = msgspec.structs.replace(scenario, commands=scenario.commands[:1])
    return [RULESET.initial_state(scenario.setup), play(first).state, play(scenario).state]


# --- legal_commands -----------------------------------------------------------------------------


def test_demo_states_offer_only_legal_commands() -> None:
    for state in demo_states():
        assert legal_commands(state)
        assert_offers_are_legal(state)


def test_before_the_first_ccph_either_side_may_be_the_attacker_of_player_turn_1() -> None:
    """Either side's Player Turn 1 may begin: each side's units may advance (A4.7). Once the
    German stack advanced into X3, the German Player Turn's CC there is offered to both sides."""
    state = RULESET.initial_state(RULESET.demo().setup)
    offered = legal_commands(state, DEFAULTS)
    advances = {
        (o.fields["attacker"], o.actor, o.options["to"]) for o in offered if o.type == "advance"
    }
    assert advances >= {
        ("German", "g-467a", ("X3",)),
        ("German", "g-81", ("X3",)),
        ("Russian", "r-447a", ("X2", "Y3")),
    }
    assert not cc_offers(state)
    first = msgspec.structs.replace(RULESET.demo(), commands=RULESET.demo().commands[:1])
    state = play(first).state
    cc = cc_offers(state)
    assert {(o.fields["turn"], o.fields["attacker"], o.fields["location"]) for o in cc} == {
        ("1", "German", "X3"),
    }
    german = next(o for o in cc if o.side == "German")
    # A11.14: the 8-1 stacked on the 4-6-7 is not singled out; it may attack if it says so first.
    assert german.options["attacks.by"] == ("g-467a", "g-467b", "g-81")
    assert german.options["solo"] == ("g-81",)
    russian = next(o for o in cc if o.side == "Russian")
    assert russian.options["attacks.targets"] == ("g-467a", "g-467b")
    assert "g-81" not in russian.options["attacks.targets"]


def test_after_the_last_location_of_a_player_turn_the_other_side_attacks_next() -> None:
    """Player Turn 2 (Russian) resolved X3, its only contested Location: Player Turn 3 is the
    German's; the HS that withdrew to X2 is out of the Melee and offered nowhere."""
    final = play(RULESET.demo()).state
    offered = cc_offers(final)
    assert {(o.fields["turn"], o.fields["attacker"]) for o in offered} == {("3", "German")}
    assert [o.side for o in offered] == ["German", "Russian"]
    everyone = {x for o in offered for values in o.options.values() for x in values}
    assert "r-447a" not in everyone


def two_locations() -> Setup:
    return setup(
        [
            squad("g1", "German", "A1", "4-6-7"),
            squad("r1", "Russian", "A1", "4-4-7"),
            squad("g2", "German", "B1", "4-6-7"),
            squad("r2", "Russian", "B1", "4-4-7", broken=True),
            squad("g3", "German", "C1", "4-6-7"),
        ],
        [loc("A1", "open", ("B1",)), loc("B1", "open", ("A1", "C1")), loc("C1", "open", ("B1",))],
    )


def test_a_location_resolved_this_player_turn_is_not_offered_again() -> None:
    """A11.12: each Location's CC once per Player Turn; C1 holds one side only."""
    p = run(two_locations(), [CloseCombat(turn=1, attacker="German", location="A1")], [])
    offered = cc_offers(p.state)
    assert {(o.fields["turn"], o.fields["location"]) for o in offered} == {("1", "B1")}
    assert_offers_are_legal(p.state)


def test_a_broken_unit_is_attacked_but_never_attacks() -> None:
    """A11.16: in B1 the broken 4-4-7 is a target; the Russian side has no attack to offer."""
    state = RULESET.initial_state(two_locations())
    b1 = [o for o in cc_offers(state) if o.fields["location"] == "B1"]
    german = [o for o in b1 if o.side == "German" and o.fields["attacker"] == "German"]
    assert german[0].options == {"attacks.by": ("g2",), "attacks.targets": ("r2",)}
    assert not [o for o in b1 if o.side == "Russian" and o.fields["attacker"] == "German"]
    assert_offers_are_legal(state)


def test_dummies_passengers_and_prisoners_are_not_offered() -> None:
    """A11.19 Dummies are removed; A11.611 Passengers share their vehicle's fate; prisoners are
    not attacked, and attack only their captor (A11.33, ruling prisoner-attacks), never under
    not-allowed."""
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7"),
            squad("gD", "German", "A1", "4-6-7", dummy=True, concealed=True),
            squad("r426", "Russian", "A1", "4-2-6", inexperienced=True),
            squad("r447", "Russian", "A1", "4-4-7"),
            squad("r1", "Russian", "A1", "4-4-7"),
        ],
        [loc("A1", "open", ("A2",)), loc("A2", "open", ("A1",))],
        vehicles=[
            VehicleSetup(id="ht", side="Russian", location="A1", armored=False, passengers=["r1"])
        ],
    )
    p = run(
        s,
        [
            CloseCombat(
                turn=1,
                attacker="German",
                location="A1",
                ambush_possible=False,
                attacks=[Attack(by=["g1"], targets=["r426"], capture=True)],
            )
        ],
        [1, 2],
    )
    assert p.state.prisoners == {"r426": "g1"}
    offered = cc_offers(p.state)
    assert {o.fields["turn"] for o in offered} == {"2"}
    for o in offered:
        everyone = {x for values in o.options.values() for x in values}
        assert not everyone & {"gD", "r1"}, o
        assert "r426" not in o.options.get("attacks.targets", ()), o
    german = next(o for o in offered if o.side == "German")
    assert german.options["attacks.targets"] == ("r447", "ht")
    russian = next(o for o in offered if o.side == "Russian")
    # the unarmored halftrack has no CC FP (A11.62); its Passenger r1 shares its fate
    assert russian.options == {"attacks.by": ("r447", "r426"), "attacks.targets": ("g1",)}
    assert_offers_are_legal(p.state)
    not_allowed = {**DEFAULTS, "prisoner-attacks": "not-allowed"}
    russian = next(
        o
        for o in legal_commands(p.state, not_allowed)
        if o.type == "closecombat" and o.side == "Russian"
    )
    assert russian.options == {"attacks.by": ("r447",), "attacks.targets": ("g1",)}


def test_a_vehicle_attacks_personnel_only_and_an_smc_alone_needs_no_solo() -> None:
    """A11.62: a vehicle with MG FP attacks enemy Personnel, never a vehicle; A11.14: a leader
    with no friendly MMC beside him attacks alone without announcing it; A11.5: Infantry attack
    the vehicle."""
    s = setup(
        [leader("gL", "German", "A1", "9-2"), squad("r1", "Russian", "A1", "4-4-7")],
        [loc("A1")],
        vehicles=[
            VehicleSetup(id="pz", side="German", location="A1", cmg=2),
            VehicleSetup(id="t34", side="Russian", location="A1", cmg=0, bmg=0),
        ],
    )
    state = RULESET.initial_state(s)
    german = next(
        o for o in cc_offers(state) if o.side == "German" and o.fields["attacker"] == "German"
    )
    assert german.options["attacks.by"] == ("gL", "pz")
    assert german.options["attacks.targets"] == ("r1", "t34")
    assert "solo" not in german.options
    russian = next(
        o for o in cc_offers(state) if o.side == "Russian" and o.fields["attacker"] == "German"
    )
    # the T-34 has no CC FP: only the squad attacks, the leader or either vehicle
    assert russian.options["attacks.by"] == ("r1",)
    assert russian.options["attacks.targets"] == ("gL", "pz")
    assert_offers_are_legal(state)


def test_in_melee_an_smc_is_attacked_with_the_mmc_it_is_stacked_on() -> None:
    """A11.14: the 8-1 on the 4-6-7 defends with it, so only the squad is a target; it may
    attack with it, or alone if it says so first."""
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7"),
            leader("gL", "German", "A1", "8-1", stacked_on="g1"),
            hs("r1", "Russian", "A1", "2-4-7"),
        ],
        [loc("A1", "open", ("A2",)), loc("A2", "open", ("A1",))],
        melee=["A1"],
    )
    state = RULESET.initial_state(s)
    assert_offers_are_legal(state)
    russian = next(
        o for o in cc_offers(state) if o.side == "Russian" and o.fields["attacker"] == "German"
    )
    assert russian.options["attacks.targets"] == ("g1",)
    german = next(
        o for o in cc_offers(state) if o.side == "German" and o.fields["attacker"] == "German"
    )
    assert german.options == {
        "attacks.by": ("g1", "gL"),
        "attacks.targets": ("r1",),
        "solo": ("gL",),
    }


LEGAL_SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@LEGAL_SETTINGS
@given(battles())
def test_random_battles_offer_only_legal_commands(battle: Any) -> None:
    setup_, _, rulings, _, _, state = battle
    assert_offers_are_legal(RULESET.initial_state(setup_), rulings)
    assert_offers_are_legal(state, rulings)


# --- view ---------------------------------------------------------------------------------------


def test_view_of_the_demo_after_both_player_turns() -> None:
    v = view(play(RULESET.demo()).state)
    assert v.sides == ("German", "Russian")
    assert v.phase == "Player Turn 2: ATTACKER Russian, DEFENDER German"
    assert v.notes == ("CC resolved this Player Turn in: X3",)
    by_location: dict[str, list[str]] = {}
    for u in v.units:
        by_location.setdefault(u.location, []).append(u.id)
    assert by_location == {"X3": ["g-467a", "g-81", "g-467b", "r-447b"], "X2": ["r-447a"]}
    # A11.15: the Melee lock of X3 holds the Known units; the concealed g-467b is not in it.
    (lock,) = v.locks
    assert (lock.kind, lock.members) == ("melee", ("g-467a", "g-81", "r-447b"))
    assert lock.detail == "X3: in Melee since Player Turn 1"
    assert v.concealed == ("g-467b",)
    g467b = unit(v, "g-467b")
    assert (g467b.side, g467b.status, g467b.flags) == ("German", "Good Order", ("concealed",))
    # the Reduced squad is a HS (A7.302) and withdrew out of the Melee (A11.2)
    hs_ = unit(v, "r-447a")
    assert (hs_.name, stats(hs_)["kind"], stats(hs_)["CC FP"]) == ("2-4-7", "half-squad", "2")
    assert "in Melee" not in hs_.flags
    leader_ = unit(v, "g-81")
    assert stats(leader_) == {
        "kind": "leader",
        "CC FP": "1",  # A11.14: an SMC's inherent CC FP
        "Morale": "8",
        "leadership": "-1",
        "stacked on": "g-467a",
    }
    assert "in Melee" in leader_.flags
    assert stats(unit(v, "r-447b"))["SW"] == "LMG"


def test_view_before_the_first_ccph() -> None:
    v = view(RULESET.initial_state(RULESET.demo().setup))
    assert v.phase == "before the first CCPh"
    assert v.locks == () and v.prisoners == () and v.notes == ()
    assert v.concealed == ("g-467a", "g-81", "g-467b")


def test_view_shows_broken_pinned_prisoners_and_their_captors() -> None:
    """A20.22: the 4-2-6 captured, the 4-4-7 gives up one HS; A11.16 broken, A7.8 pinned."""
    s = setup(
        [
            squad("g1", "German", "A1", "4-6-7"),
            squad("g2", "German", "A1", "4-6-7", pinned=True),
            squad("r426", "Russian", "A1", "4-2-6", inexperienced=True),
            squad("r447", "Russian", "A1", "4-4-7"),
            squad("r3", "Russian", "A1", "4-4-7", broken=True),
        ],
        [loc("A1")],
    )
    attack = Attack(by=["g1"], targets=["r426", "r447"], capture=True)
    p = run(
        s,
        [CloseCombat(turn=1, attacker="German", location="A1", attacks=[attack])],
        [1, 2],
    )
    v = view(p.state)
    assert {(x.prisoner, x.captor) for x in v.prisoners} == {
        ("r426", "g1"),
        ("r447-prisoner", "g1"),
    }
    r426 = unit(v, "r426")
    assert (r426.status, stats(r426)["guarded by"]) == ("prisoner", "g1")
    assert "prisoner" in r426.flags and "in Melee" not in r426.flags
    assert "guarding prisoners" in unit(v, "g1").flags
    assert unit(v, "r3").status == "broken" and "broken" in unit(v, "r3").flags
    assert unit(v, "g2").status == "pinned"
    assert unit(v, "r447").status == "Good Order" and stats(unit(v, "r447"))["kind"] == "half-squad"


def test_view_shows_vehicles_their_state_and_the_melee_they_hold() -> None:
    """A11.5: an Immobilized AFV; A11.7: a vehicle not in Motion holds the Known enemy Infantry
    in Melee without being held; a wreck stays where it burned."""
    s = setup(
        [squad("r1", "Russian", "A1", "4-4-7")],
        [loc("A1")],
        vehicles=[VehicleSetup(id="pz", side="German", location="A1", name="PzIVJ", cmg=2)],
    )
    # The squad's CCV 5, no DRM: DR 5 (2+3) = CCV immobilizes (A11.5); the PzIVJ's CMG then
    # attacks at 1-4 (2 FP vs CCV 5) and misses with a 12.
    p = run(
        s,
        [
            CloseCombat(
                turn=1,
                attacker="Russian",
                location="A1",
                ambush_possible=False,
                attacks=[Attack(by=["r1"], targets=["pz"]), Attack(by=["pz"], targets=["r1"])],
            )
        ],
        [2, 3, 6, 6],
    )
    v = view(p.state)
    pz = unit(v, "pz")
    assert (pz.name, pz.side, pz.status, pz.location) == ("PzIVJ", "German", "Immobilized", "A1")
    assert pz.flags == ("vehicle", "AFV", "BU", "holds Melee")
    assert stats(pz) == {"CMG": "2"}
    (lock,) = v.locks
    assert lock.members == ("r1", "pz")
    assert lock.detail == "A1: in Melee since Player Turn 1; held by pz (A11.7)"


@pytest.mark.parametrize(("dice", "status"), [([1, 1, 6], "burning wreck"), ([2, 2], "wreck")])
def test_view_of_a_destroyed_vehicle(dice: list[int], status: str) -> None:
    s = setup(
        [squad("r1", "Russian", "A1", "4-4-7")],
        [loc("A1")],
        vehicles=[VehicleSetup(id="pz", side="German", location="A1", cmg=0, bmg=1)],
    )
    command = CloseCombat(
        turn=1,
        attacker="Russian",
        location="A1",
        ambush_possible=False,
        attacks=[Attack(by=["r1"], targets=["pz"])],
    )
    p = run(s, [command], dice)
    assert unit(view(p.state), "pz").status == status
