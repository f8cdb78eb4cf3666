"""The one dice-pool test (Game Terms; GF Melee 2-5): Target Numbers, dropping, sixes only,
natural 1s and 6s."""

from __future__ import annotations

import pytest

from blowbyblow.domain.core import Context, Modifier
from blowbyblow.domain.gangfight.dice_pool import (
    Pool,
    choose_drops,
    complete,
    forced_drops,
    judge,
    most_chosen_drops,
    plan,
    target_number,
)
from blowbyblow.domain.gangfight.rulings import RULINGS

DEFAULTS = {r.name: r.default for r in RULINGS}


def rulings(**kw: str) -> Context:
    d = dict(DEFAULTS)
    d.update({k.replace("_", "-"): v for k, v in kw.items()})
    return Context(rulings=d, command_index=1)


def test_tn_never_below_two() -> None:
    minus3 = (Modifier(value=-3, cause="x", rule="y"),)
    assert target_number(3, minus3) == 2
    assert target_number(4, ()) == 4


def test_natural_one_always_fails_and_six_is_critical() -> None:
    assert judge((1, 1, 2, 6), 2) == (2, 1)
    assert judge((6, 6, 5), 6) == (2, 2)
    assert judge((3, 5, 5), 4) == (2, 0)


def test_tn_above_six_drops_one_die_per_point() -> None:
    test, choice = plan(Pool(base=4, tn_base=8, may_drop=True), rulings())
    assert (test.tn, test.dropped_forced, test.dice, test.final_tn, test.sixes_only) == (
        8,
        2,
        2,
        6,
        False,
    )
    assert choice == 1  # then it may drop one more to get 5+
    done = complete(choose_drops(test, 1), (5,))
    assert (done.dice, done.final_tn, done.successes) == (1, 5, 1)


@pytest.mark.parametrize(
    ("ruling", "dropped", "dice"), [("keep-pool", 0, 2), ("drop-to-one", 1, 1)]
)
def test_unreachable_tn_only_sixes(ruling: str, dropped: int, dice: int) -> None:
    test, choice = plan(Pool(base=2, tn_base=8, may_drop=True), rulings(unreachable_tn=ruling))
    assert (test.dropped_forced, test.dice, test.final_tn, test.sixes_only) == (
        dropped,
        dice,
        6,
        True,
    )
    assert choice == 0
    assert complete(test, (6, 5)[:dice]).successes == 1


def test_free_strike_may_not_drop_even_above_six() -> None:
    test, choice = plan(Pool(base=5, tn_base=7, may_drop=False), rulings())
    assert (test.dropped_forced, test.dice, test.sixes_only, choice) == (0, 5, True, 0)


def test_voluntary_drop_ruling() -> None:
    assert most_chosen_drops(4, 6, may_drop=True, voluntary="allowed", sixes=False) == 3
    assert most_chosen_drops(4, 3, may_drop=True, voluntary="allowed", sixes=False) == 1
    assert most_chosen_drops(4, 6, may_drop=True, voluntary="above-6-only", sixes=False) == 0
    assert most_chosen_drops(1, 6, may_drop=True, voluntary="allowed", sixes=False) == 0


def test_forced_drops_keeps_one_die() -> None:
    assert forced_drops(3, 8, may_drop=True, unreachable="keep-pool") == (2, False)
    assert forced_drops(2, 8, may_drop=True, unreachable="keep-pool") == (0, True)
    assert forced_drops(5, 6, may_drop=True, unreachable="keep-pool") == (0, False)


def test_empty_pool_rolls_nothing() -> None:
    test, choice = plan(
        Pool(
            base=1,
            modifiers=(Modifier(value=-1, cause="Slam!", rule="GF Slam!"),),
            tn_base=4,
            may_drop=True,
        ),
        rulings(),
    )
    assert (test.pool, test.dice, choice) == (0, 0, 0)
    assert complete(test, ()).successes == 0
