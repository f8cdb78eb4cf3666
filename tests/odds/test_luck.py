"""Luck: each roll's mid-rank for each side, and a battle's (or a tournament's) luck against the
distribution fair dice give."""

from __future__ import annotations

import math
import statistics
from fractions import Fraction

from odds_helpers import ASL, asl, recorded, scenario

from blowbyblow.replay.odds.luck import (
    HowToJudge,
    Luck,
    battle_luck,
    luck_of,
    mid_rank,
    sides_luck,
)

# Both sides attack: the 4-6-7 the 4-4-7 and back, simultaneously, 1-1 each (Kill Number 5).
BOTH_ATTACK = ASL.format(terrain="open").replace(
    'attacks = [{ by = ["g"], targets = ["r"] }]',
    'attacks = [{ by = ["g"], targets = ["r"] }, { by = ["r"], targets = ["g"] }]',
)


def side(luck: Luck, name: str):  # type: ignore[no-untyped-def]
    return next(s for s in luck.sides if s.side == name)


def test_the_luck_of_one_cc_dr_by_hand() -> None:
    """The German CC DR of 5 (3 + 2) at Kill Number 5 Reduces the 4-4-7. For the Russians the
    faces fall in three classes by their net loss: eliminated (3) on 2-4, 1/6; Reduced (1) on a
    5, 1/9; unharmed (0) on 6-12, 13/18. A 5 is worse than 13/18 of the faces and better than
    1/6: u = 1/6 + ½ * 1/9 = 2/9 (unlucky), variance (1 - (1/6)³ - (1/9)³ - (13/18)³) / 12. For
    the Germans, whose net loss is the Russians' loss negated, the mirror image: u = 7/9."""
    luck = battle_luck(recorded(asl("open")))
    (roll,) = luck.rolls
    assert roll.key == "c1/cc/1" and roll.values == (3, 2)
    german, russian = roll.luck
    assert german.side == "German" and math.isclose(german.u, 7 / 9)
    assert russian.side == "Russian" and russian.method == "exact"
    variance = (1 - Fraction(1, 6) ** 3 - Fraction(1, 9) ** 3 - Fraction(13, 18) ** 3) / 12
    assert math.isclose(russian.u, 2 / 9)
    assert math.isclose(russian.variance, float(variance))
    r = side(luck, "Russian")
    assert r.rolls == 1 and math.isclose(r.mean_u, 2 / 9)
    assert math.isclose(r.z, (2 / 9 - 1 / 2) / math.sqrt(float(variance)))
    assert math.isclose(r.percentile, 0.5 * (1 + math.erf(r.z / math.sqrt(2))))
    assert math.isclose(side(luck, "German").z, -r.z)
    assert luck.commands[0].at_least_as_bad == {"German": "5/6", "Russian": "5/18"}


def test_mid_ranks_have_mean_one_half_and_the_stated_variance() -> None:
    faces = [
        (Fraction(1, 6), Fraction(3)),
        (Fraction(1, 9), Fraction(1)),
        (Fraction(13, 18), Fraction(0)),
    ]
    ranks = [(p, *mid_rank(faces, e)) for p, e in faces]
    mean = sum(float(p) * u for p, u, _ in ranks)
    var = sum(float(p) * (u - mean) ** 2 for p, u, _ in ranks)
    assert math.isclose(mean, 0.5)
    assert all(math.isclose(v, var) for _, _, v in ranks)


def test_fair_dice_look_fair() -> None:
    """80 battles on seeded (fair) dice, both sides attacking: each battle's z for a side has
    mean 0 and variance 1 with fair dice. The sample mean of 80 stays within 3 standard errors
    (3/√80) of 0, the sample variance near 1, and the tournament's pooled z is unremarkable."""
    battles = [recorded(scenario(BOTH_ATTACK, dice=None, seed=f"fair-{i}")) for i in range(80)]
    pooled = luck_of(battles)
    assert all(abs(s.z) < 3 and s.rolls == 160 for s in pooled.sides)
    zs: dict[str, list[float]] = {"German": [], "Russian": []}
    for number in range(80):
        for s in sides_luck([r for r in pooled.rolls if r.battle == number]):
            zs[s.side].append(s.z)
    for name, values in zs.items():
        assert len(values) == 80, name
        assert abs(statistics.fmean(values)) < 3 / math.sqrt(80), name
        assert 0.6 < statistics.variance(values) < 1.5, name


def test_loaded_dice_show() -> None:
    """Ten battles where the German CC DR is always 1 + 1 and the Russian one always 6 + 6: both
    rolls go the Germans' way (u = 11/12 for a 2 that eliminates; 23/36 for a 12 that misses,
    as 26 of 36 faces miss too), so their luck percentile is near 100%, the Russians' near 0."""
    loaded = [
        recorded(scenario(BOTH_ATTACK, dice=[1, 1, 6, 6], label=f"loaded {i}")) for i in range(10)
    ]
    luck = luck_of(loaded)
    german, russian = side(luck, "German"), side(luck, "Russian")
    assert german.rolls == russian.rolls == 20
    assert german.percentile > 0.999 and russian.percentile < 0.001
    assert german.p_value < 0.001 and russian.p_value < 0.001
    assert math.isclose(german.mean_u, (11 / 12 + 23 / 36) / 2)
    assert math.isclose(russian.mean_u, 1 - german.mean_u)
    assert len(luck.battles) == 10


def test_past_the_budget_faces_are_sampled_with_common_dice() -> None:
    """With a budget too small for the exact tree, the rolls above it are weighed by sampling
    the rest of the command, every face with the same later dice: the luck of the German
    Ambush dr (the first roll, the only one past a budget of 40 runs) comes out near its exact
    value."""
    events = recorded(scenario(ASL.format(terrain="building"), dice=[1, 5, 3, 2]))
    exact = battle_luck(events)
    sampled = battle_luck(events, HowToJudge(budget=40, samples=60))
    first_exact, first_sampled = exact.rolls[0], sampled.rolls[0]
    assert first_exact.key == "c1/ambush/German"
    assert {x.method for x in first_exact.luck} == {"exact"}
    assert {x.method for x in first_sampled.luck} == {"monte-carlo"}
    for a, b in zip(first_exact.luck, first_sampled.luck, strict=True):
        assert a.side == b.side and abs(a.u - b.u) < 0.1
    assert sampled.commands[0].method == "" and exact.commands[0].method == "exact"
