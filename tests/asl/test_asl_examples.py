"""The worked examples of A11.141 (8-1 leader) and A11.41 (concealed 4-4-7), driven with the
dice the examples name."""

from __future__ import annotations

import pytest
from asl_helpers import leader, loc, of, one, run, setup, squad

from blowbyblow.domain.asl import events as ev
from blowbyblow.domain.asl.commands import Attack, CloseCombat
from blowbyblow.domain.asl.setup import Setup


def leader_example() -> Setup:
    return setup(
        [
            squad("g467", "German", "A1", "4-6-7"),
            leader("g81", "German", "A1", "8-1", stacked_on="g467"),
            squad("r1", "Russian", "A1", "4-4-7"),
            squad("r2", "Russian", "A1", "4-4-7"),
        ],
        [loc("A1")],
    )


LEADER_CC = CloseCombat(
    turn=1,
    attacker="German",
    location="A1",
    attacks=[
        Attack(by=["g467", "g81"], targets=["r1", "r2"]),
        Attack(by=["r1", "r2"], targets=["g467"]),
    ],
)


@pytest.mark.parametrize("german_dr", [(1, 1), (2, 2), (1, 3)])
def test_leader_example_german_below_5_eliminates_both(german_dr: tuple[int, int]) -> None:
    """A11.141 EX: 1-2 (5-8), -1 leadership: an Original DR < 5 eliminates both Russian squads."""
    p = run(leader_example(), [LEADER_CC], [*german_dr, 6, 6])
    odds = of(p, ev.OddsCalculated)
    assert (odds[0].attack_fp, odds[0].defense_fp, odds[0].column) == ("5", "8", "1-2")
    assert odds[0].kill_number == 4
    res = of(p, ev.CloseCombatResolved)[0]
    assert [o.result for o in res.outcomes] == ["eliminated", "eliminated"]
    assert [m.cause for m in res.outcomes[0].modifiers] == ["leader g81"]
    assert p.state.units["r1"].status == "eliminated"
    assert p.state.units["r2"].status == "eliminated"
    # simultaneous: the eliminated Russians still attack (A11.12), here with no effect
    assert of(p, ev.CloseCombatResolved)[1].outcomes[0].result == "none"


def test_leader_example_german_5_reduces_one_russian_squad() -> None:
    """Original DR 5 (Final 4 = KN): one Russian squad is Reduced to a HS (Random Selection)."""
    p = run(leader_example(), [LEADER_CC], [2, 3, 4, 6, 6, 6])  # RS drs r1 4, r2 6
    pk = one(p, ev.PartialKill)
    assert pk.eligible == ("r1", "r2")
    rs = one(p, ev.RandomSelectionRolled)
    assert rs.selected == ("r2",)
    assert p.state.units["r2"].kind == "hs" and p.state.units["r2"].name == "2-4-7"
    assert p.state.units["r1"].kind == "squad"


def test_leader_example_russians_3_2_below_6_eliminate_both_german_units() -> None:
    """The Russians attack at 3-2 (8-5) and eliminate both German units with a DR < 6."""
    p = run(leader_example(), [LEADER_CC], [6, 6, 2, 3])
    odds = of(p, ev.OddsCalculated)[1]
    assert (odds.attack_fp, odds.defense_fp, odds.column, odds.kill_number) == ("8", "5", "3-2", 6)
    res = of(p, ev.CloseCombatResolved)[1]
    assert [o.unit for o in res.outcomes] == ["g467", "g81"]  # the 8-1 defends with its MMC
    assert p.state.units["g467"].status == "eliminated"
    assert p.state.units["g81"].status == "eliminated"


def test_leader_example_russian_6_random_selection_between_german_units() -> None:
    """A Russian 6: the German makes a Random Selection DR for Casualty Reduction; a tie
    affects both: the squad is Reduced, the leader wounded (Wound Severity dr 2)."""
    p = run(leader_example(), [LEADER_CC], [6, 6, 3, 3, 4, 4, 2])
    rs = one(p, ev.RandomSelectionRolled)
    assert rs.units == ("g467", "g81") and rs.selected == ("g467", "g81")
    assert p.state.units["g467"].name == "2-4-7"
    wound = one(p, ev.WoundSeverityRolled)
    assert (wound.unit, wound.result) == ("g81", "wounded")
    assert p.state.units["g81"].wounded


# --- A11.41 EX: German 6-5-8 advances into a Location with a concealed Russian 4-4-7 ---------


def concealed_example() -> Setup:
    return setup(
        [
            squad("g658", "German", "B2", "6-5-8"),
            squad("r447", "Russian", "B2", "4-4-7", concealed=True),
        ],
        [loc("B2", "open", ("B3",)), loc("B3", "woods", ("B2",))],
    )


def decline(turn: int = 1) -> CloseCombat:
    return CloseCombat(
        turn=turn, attacker="German", location="B2", attacks=[Attack(by=["g658"], targets=["r447"])]
    )


def test_concealed_example_ambush_drs_no_ambush() -> None:
    """German dr 3 (no drm), Russian -2 Concealed with an Original 3: no Ambush."""
    p = run(concealed_example(), [decline()], [3, 3, 6, 6])
    rolled = one(p, ev.AmbushStatusRolled)
    german, russian = rolled.rolls
    assert (german.original, german.final, german.modifiers) == (3, 3, ())
    assert (russian.original, russian.final) == (3, 1)
    assert [m.cause for m in russian.modifiers] == ["Concealed"]
    assert rolled.ambusher is None and not of(p, ev.AmbushDeclared)


@pytest.mark.parametrize(
    ("threshold", "russian_dr", "ambush"),
    [
        ("at-least-3", 1, True),
        ("at-least-3", 2, True),
        ("more-than-3", 1, True),
        ("more-than-3", 2, False),
        ("at-least-3", 3, False),
    ],
)
def test_concealed_example_ambush_threshold_ruling(
    threshold: str, russian_dr: int, ambush: bool
) -> None:
    """The EX's aside ('an original Ambush dr of < 2') is what more-than-3 gives; the default
    at-least-3 also Ambushes on a 2 (as G5 needs: 0 vs 3)."""
    p = run(
        concealed_example(),
        [decline()],
        [3, russian_dr, 6, 5],
        rulings={"ambush-threshold": threshold},
        all_dice_used=False,
    )
    assert bool(of(p, ev.AmbushDeclared)) is ambush


def test_concealed_example_russian_declines_german_attacks_at_1_2() -> None:
    """If the 4-4-7 declines, the German attacks at 3-4 (6 halved), rounded down to 1-2."""
    p = run(concealed_example(), [decline()], [3, 3, 6, 6])
    odds = one(p, ev.OddsCalculated)
    assert (odds.attack_fp, odds.defense_fp, odds.column, odds.kill_number) == ("3", "4", "1-2", 4)


@pytest.mark.parametrize("dr", [(1, 1), (1, 2)])
def test_concealed_example_dr_2_or_3_eliminates(dr: tuple[int, int]) -> None:
    p = run(concealed_example(), [decline()], [3, 3, *dr])
    assert p.state.units["r447"].status == "eliminated"
    assert "B2" not in p.state.melee


def test_concealed_example_dr_4_reduces_and_reveals() -> None:
    """A DR of 4: the 4-4-7 loses its concealment and becomes a HS (then Melee)."""
    p = run(concealed_example(), [decline()], [3, 3, 2, 2])
    r = p.state.units["r447"]
    assert (r.kind, r.name, r.concealed) == ("hs", "2-4-7", False)
    lost = one(p, ev.ConcealmentLost)
    assert lost.unit == "r447"
    assert p.state.melee["B2"].units == ("g658", "r447")


@pytest.mark.parametrize("dr", [(2, 3), (3, 3), (6, 6)])
def test_concealed_example_other_dr_no_effect_keeps_concealment_no_melee(
    dr: tuple[int, int],
) -> None:
    """Any other DR: it keeps its concealment, is not locked in Melee (A11.15)."""
    p = run(concealed_example(), [decline()], [3, 3, *dr], choices={"infiltrate/1/r447": "stay"})
    r = p.state.units["r447"]
    assert r.status == "active" and r.concealed and r.kind == "squad"
    assert "B2" not in p.state.melee


def test_concealed_example_russian_attacks_loses_concealment_german_at_3_2() -> None:
    """If the Russian attacks, the 4-4-7 loses concealment at once and the 6-5-8 attacks at 3-2."""
    cc = CloseCombat(
        turn=1,
        attacker="German",
        location="B2",
        attacks=[Attack(by=["g658"], targets=["r447"]), Attack(by=["r447"], targets=["g658"])],
    )
    p = run(concealed_example(), [cc], [3, 3, 6, 5, 6, 5])
    lost = one(p, ev.ConcealmentLost)
    first_designation = p.events.index(of(p, ev.AttackDesignated)[0])
    assert p.events.index(lost) < first_designation
    odds = of(p, ev.OddsCalculated)
    assert (odds[0].attack_fp, odds[0].defense_fp, odds[0].column) == ("6", "4", "3-2")
    assert p.state.melee["B2"].units == ("g658", "r447")


@pytest.mark.parametrize(("ruling", "ambush"), [("-2", True), ("0", False)])
def test_concealed_ambush_drm_ruling(ruling: str, ambush: bool) -> None:
    """The EX: the Russian Ambushes with an Original 1 only thanks to the -2 Concealed drm."""
    p = run(
        concealed_example(), [decline()], [3, 1, 6, 5], rulings={"ambush-concealed-drm": ruling}
    )
    assert bool(of(p, ev.AmbushDeclared)) is ambush
