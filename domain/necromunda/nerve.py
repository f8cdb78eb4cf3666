"""Nerve tests (Necromunda Core Rulebook (2023), Nerve Tests; ruling ``nerve-tests``): when a
fighter becomes Seriously Injured or goes Out of Action, each friend within 3" of it that is
Standing and not Broken tests 2D6 + 1 per other steady friend within 3" of it against its Cool;
failure: Broken. A friendly vehicle Wrecked makes each such friend within 6" of it test
(ruling ``nerve-wrecked-vehicle``, since 1.1). The older rules' YAQ (ruling ``nerve-after-coup-de-grace``): no second test
for a fighter Seriously Injured and then finished by a free Coup de Grace."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from blowbyblow.domain.core import Modifier, Step, roll
from blowbyblow.domain.necromunda.combat import Attack, emit
from blowbyblow.domain.necromunda.events import BrokenChanged, NerveTested, NerveTestSkipped
from blowbyblow.domain.necromunda.rulings import NERVE_AFTER_COUP_DE_GRACE, NERVE_TESTS
from blowbyblow.domain.necromunda.state import (
    OUT_OF_ACTION,
    PRONE_PINNED,
    SERIOUSLY_INJURED,
    STANDING,
    WRECKED,
    NecromundaState,
    Status,
)


def within_3_of(state: NecromundaState, fighter: str) -> list[str]:
    """The friends listed within 3" of the fighter."""
    return [x if y == fighter else y for x, y in state.within_3 if fighter in (x, y)]


def within_6_of(state: NecromundaState, vehicle: str) -> list[str]:
    """The friends listed within 6" of a vehicle (those within 3" are within 6" too)."""
    listed = [x if y == vehicle else y for x, y in state.within_6 if vehicle in (x, y)]
    return list(dict.fromkeys([*listed, *within_3_of(state, vehicle)]))


def _cause(casualty: str, after: Status) -> str:
    if after == WRECKED:
        return f"friendly vehicle {casualty} was Wrecked"
    return (
        f"{casualty} {'went Out of Action' if after == OUT_OF_ACTION else 'was Seriously Injured'}"
    )


def nerve_tests(
    at: Attack, state: NecromundaState, casualty: str, after: Status
) -> Generator[Step, Any, NecromundaState]:
    """Each steady friend within 3" of a fighter that became Seriously Injured or went Out of
    Action tests its nerve (when the ruling ``nerve-tests`` is on)."""
    if at.ctx.ruling(NERVE_TESTS) != "on":
        return state
    if after == SERIOUSLY_INJURED and _yaq_applies(at):
        at.combat.nerve.injured(casualty)
    elif after == OUT_OF_ACTION and at.combat.nerve.coup_de_grace != casualty:
        # out otherwise than by the free Coup de Grace: its note is read no more
        at.combat.nerve.out_of_action(casualty)
    near = within_6_of(state, casualty) if after == WRECKED else within_3_of(state, casualty)
    for fid in sorted(set(near) - {casualty}):
        f = state.fighters[fid]
        if f.broken or f.is_vehicle or f.status not in (*STANDING, PRONE_PINNED):
            continue
        if _yaq_no_second_test(at, casualty, after):
            state = yield from emit(
                NerveTestSkipped(
                    rule=at.rule("CC 8 YAQ"),
                    fighter=fid,
                    cause=_cause(casualty, after),
                    reason=(
                        "no second Nerve test: the fighter was Seriously Injured and then taken "
                        "Out of Action by a free Coup de Grace in the same activation"
                    ),
                )
            )
            continue
        state = yield from nerve_test(at, state, fid, casualty, after)
    return state


def _yaq_no_second_test(at: Attack, casualty: str, after: Status) -> bool:
    """The older rules' YAQ: the casualty was Seriously Injured in this activation and the free
    Coup de Grace has now taken it Out of Action."""
    log = at.combat.nerve
    return (
        after == OUT_OF_ACTION
        and log.coup_de_grace == casualty
        and casualty in log.seriously_injured
        and _yaq_applies(at)
    )


def _yaq_applies(at: Attack) -> bool:
    """Is the older rules' YAQ in force? Only then is who became Seriously Injured in this
    activation recorded: nothing else reads it, and the odds' branches that differ only in an
    unread record would not meet (it is held in every continuation of the command)."""
    return at.edition.yaq_nerve_note and at.ctx.ruling(NERVE_AFTER_COUP_DE_GRACE) == "skip"


def nerve_test(
    at: Attack, state: NecromundaState, fighter: str, casualty: str, after: Status
) -> Generator[Step, Any, NecromundaState]:
    """One Nerve test: 2D6 + 1 per other friend within 3" that is neither Broken nor Seriously
    Injured (nor Out of Action), against the fighter's Cool; failure: Broken."""
    rule = at.rule("Nerve")
    f = state.fighters[fighter]
    support = [s for s in within_3_of(state, fighter) if s != casualty]
    mods = [
        Modifier(value=1, cause=f'friend {s} within 3"', rule=rule)
        for s in sorted(support)
        if not state.fighters[s].broken
        and state.fighters[s].status not in (SERIOUSLY_INJURED, OUT_OF_ACTION)
    ]
    values = yield from roll(
        f"{at.key}nerve/{fighter}/{casualty}/{after.split()[0].lower()}",
        2,
        purpose=f"{f.label}: Nerve test",
    )
    total = sum(values) + sum(m.value for m in mods)
    passed = total >= f.cl
    state = yield from emit(
        NerveTested(
            rule=rule,
            fighter=fighter,
            cause=_cause(casualty, after),
            naturals=list(values),
            modifiers=mods,
            target_number=f.cl,
            total=total,
            passed=passed,
        )
    )
    if not passed:
        state = yield from emit(
            BrokenChanged(rule=rule, fighter=fighter, broken=True, cause="failed Nerve test")
        )
    return state
