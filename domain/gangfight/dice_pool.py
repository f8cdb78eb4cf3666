"""The one dice-pool test of Gangfight (Game Terms: tests and Target Numbers; Combat, Melee
Combat steps 2-5 spell it out for attacks and armour). Every roll of the system goes through
here: attacks, armour, free strikes, trampling, falling. Pure arithmetic first, then one
generator that asks and rolls."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

import msgspec

from blowbyblow.domain.core import Context, Modifier, Step, ask, roll
from blowbyblow.domain.gangfight.events import PoolTest
from blowbyblow.domain.gangfight.rulings import UNREACHABLE_TN, VOLUNTARY_DROP

LOWEST_TN = 2
HIGHEST_TN = 6


@dataclass(frozen=True, kw_only=True)
class Pool:
    """A test before it is rolled: ``base`` dice plus ``modifiers`` against a Target Number of
    ``tn_base`` plus ``tn_modifiers``. ``may_drop`` is False for a Free Strike (no dice may be
    dropped to lower the Target Number)."""

    base: int
    modifiers: tuple[Modifier, ...] = ()
    tn_base: int
    tn_modifiers: tuple[Modifier, ...] = ()
    may_drop: bool = True


def target_number(base: int, modifiers: tuple[Modifier, ...]) -> int:
    """A Target Number can never go below 2 (a natural 1 always fails)."""
    return max(LOWEST_TN, base + sum(m.value for m in modifiers))


def forced_drops(pool: int, tn: int, *, may_drop: bool, unreachable: str) -> tuple[int, bool]:
    """GF Melee 2/4: above 6, drop one die per point to bring the TN to 6; if that cannot be
    done (at least one die must still be rolled), only 6s succeed (``unreachable``: the value of
    ruling unreachable-tn). Free Strikes may drop nothing (GF Free Strikes). Returns (dice
    dropped, sixes only)."""
    if tn <= HIGHEST_TN:
        return 0, False
    if not may_drop:
        return 0, True
    need = tn - HIGHEST_TN
    if pool - need >= 1:
        return need, False
    if unreachable == "drop-to-one" and pool > 1:
        return pool - 1, True
    return 0, True


def most_chosen_drops(dice: int, tn: int, *, may_drop: bool, voluntary: str, sixes: bool) -> int:
    """How many more dice the roller may drop to lower the TN one point each (``voluntary``: the
    value of ruling voluntary-drop): at least one die must be rolled and the TN cannot go below
    2."""
    if not may_drop or sixes or voluntary != "allowed":
        return 0
    return max(0, min(dice - 1, tn - LOWEST_TN))


def judge(values: tuple[int, ...], final_tn: int) -> tuple[int, int]:
    """GF Melee 3/5: each die that matches or beats the TN succeeds; a natural 1 always fails;
    a natural 6 is a Critical Success. Returns (successes, criticals)."""
    successes = sum(1 for v in values if v != 1 and v >= final_tn)
    criticals = sum(1 for v in values if v == 6)
    return successes, criticals


def plan(pool: Pool, ctx: Context) -> tuple[PoolTest, int]:
    """The test before any choice or die: returns it and how many dice the roller may still
    choose to drop."""
    size = pool.base + sum(m.value for m in pool.modifiers)
    tn = target_number(pool.tn_base, pool.tn_modifiers)
    forced, sixes = forced_drops(
        max(size, 0), tn, may_drop=pool.may_drop, unreachable=ctx.ruling(UNREACHABLE_TN)
    )
    dice = max(size, 0) - forced
    tn_now = HIGHEST_TN if sixes or tn > HIGHEST_TN else tn
    test = PoolTest(
        pool_base=pool.base,
        pool_modifiers=pool.modifiers,
        pool=size,
        tn_base=pool.tn_base,
        tn_modifiers=pool.tn_modifiers,
        tn=tn,
        may_drop=pool.may_drop,
        dropped_forced=forced,
        dice=dice,
        final_tn=tn_now,
        sixes_only=sixes,
    )
    choice = most_chosen_drops(
        dice, tn_now, may_drop=pool.may_drop, voluntary=ctx.ruling(VOLUNTARY_DROP), sixes=sixes
    )
    return test, choice


def choose_drops(test: PoolTest, chosen: int) -> PoolTest:
    return msgspec.structs.replace(
        test, dropped_chosen=chosen, dice=test.dice - chosen, final_tn=test.final_tn - chosen
    )


def complete(test: PoolTest, values: tuple[int, ...]) -> PoolTest:
    if len(values) != test.dice:
        raise ValueError(f"a pool of {test.dice} dice was answered with {values!r}")
    successes, criticals = judge(values, test.final_tn)
    return msgspec.structs.replace(test, natural=values, successes=successes, criticals=criticals)


def ask_count(key: str, most: int, *, default: int, prompt: str) -> Generator[Step, Any, int]:
    """Ask for a whole number from 0 to ``most`` (dice to drop, successes to spend, inches)."""
    answer = yield from ask(
        key, tuple(str(i) for i in range(most + 1)), default=str(default), prompt=prompt
    )
    return int(answer)


def pool_test(
    key: str, pool: Pool, ctx: Context, purpose: str = ""
) -> Generator[Step, Any, PoolTest]:
    """Run one test: the roller is asked ("<key>/drop") how many extra dice to drop when there
    is a choice, then ``key`` rolls the dice left. An empty pool rolls nothing."""
    test, most = plan(pool, ctx)
    if most > 0:
        chosen = yield from ask_count(
            f"{key}/drop",
            most,
            default=0,
            prompt=f"{purpose or key}: drop how many dice to lower TN {test.final_tn}+ by one each?",
        )
        test = choose_drops(test, chosen)
    values: tuple[int, ...] = ()
    if test.dice > 0:
        # Read only by ``judge``: how many meet the final TN, and how many are 6s.
        counts = (test.final_tn, 6) if test.final_tn < HIGHEST_TN else (HIGHEST_TN,)
        values = yield from roll(key, test.dice, 6, purpose, counts=counts)
    return complete(test, values)
