"""A battle's recorded inputs against its dice mode: a fair battle's escrow and contributions
before its first command, the seed every digital die is recomputed from (a seeded battle's, or the
one a fair battle's seal reveals), each die's label and value, and each choice's label (a default one against the rules' default)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from blowbyblow.domain.core import BattleStarted, ChoiceMade, DiceRolled
from blowbyblow.domain.judging import (
    CORRECTED_BY_JUDGE,
    BattleForked,
    BattleSealed,
    ChoiceCorrected,
    DieCorrected,
)
from blowbyblow.replay.engine.dice import RecordedChoices, SeededDice, seeded_roll
from blowbyblow.replay.evidence.fair_forks import INHERITED, fair_link, fork_secret
from blowbyblow.replay.evidence.fairness import (
    FairnessError,
    OutOfPlace,
    check_contributions,
    dice_seed,
    is_escrowed,
    read_fair_start,
)
from blowbyblow.replay.evidence.problems import Failed, Problem, Report
from blowbyblow.replay.evidence.seals import commitment
from blowbyblow.replay.store.log import LoggedEvent


def check_fair_start(
    report: Report,
    first: BattleStarted[Any],
    events: Sequence[LoggedEvent],
    length: int,
    sides: tuple[str, ...],
) -> int:
    """How many events precede the first command: ``BattleStarted`` and, in a fair battle, its
    escrow and one contribution from each side, all of them given before the first command.
    ``events`` are the battle's first records, up to the first that is no contribution;
    ``length`` is how many the battle has (its seal aside)."""
    if not is_escrowed(first.dice) or first.origin is not None:
        return 1
    try:
        start = read_fair_start([e.event for e in events])
    except OutOfPlace as e:
        raise Failed(Problem(e.position, "dice", e.message)) from None
    for position, (side, value) in enumerate(start.contributions.items(), start=3):
        try:
            check_contributions(sides, {side: value})
        except FairnessError as e:
            raise Failed(Problem(position, "dice", str(e))) from None
    missing = [s for s in sides if s not in start.contributions]
    if start.length < length and (missing or not start.contributions):
        raise Failed(
            Problem(
                start.length + 1,
                "dice",
                "command 1 of a fair battle was played before every side gave its "
                f"contribution (missing: {', '.join(missing) or 'every side'})",
            )
        )
    if start.length == length:
        waiting = f"; waiting for contributions from {', '.join(missing)}" if missing else ""
        report.notes.append(f"fair battle started, no command yet{waiting}")
    return start.length


def check_dice_seed(
    report: Report,
    first: BattleStarted[Any],
    sealed: BattleSealed | None,
    events: Sequence[LoggedEvent],
) -> str | None:
    """The seed every digital die is recomputed from: a seeded battle's, or, once the seal has
    revealed the seed a fair battle committed to at its start, the one drawn from it (and, since
    ``bxb-fair-v2``, from the sides' contributions)."""
    if first.dice.mode == "seeded":
        return first.dice.seed
    if first.dice.mode != "fair":
        return None
    revealed = sealed.checkpoint.seed if sealed is not None else None
    link = fair_link([e.event for e in events[:2]])
    if revealed is None:
        if sealed is not None:
            missing = (
                "a fair fork does not reveal a seed"
                if link is not None
                else "a fair battle does not reveal its seed"
            )
            raise Failed(Problem(report.events, "seal", f"the seal of {missing}"))
        report.notes.append(
            "fair dice cannot be checked yet: the seed is not revealed until the battle is sealed"
        )
        return None
    if link is not None:  # a judge's fork: its seal reveals its parent's dice seed
        if commitment(revealed) != link.dice:
            raise Failed(
                Problem(
                    report.events,
                    "seal",
                    "the revealed seed does not match the fork's commitment to its parent's dice",
                )
            )
        return fork_secret(revealed, report.battle)
    if commitment(revealed) != first.dice.commitment:
        raise Failed(
            Problem(
                report.events,
                "seal",
                "the revealed seed does not match the commitment made at the start",
            )
        )
    return dice_seed(first, [e.event for e in events], revealed)


@dataclass(frozen=True)
class DiceCheck:
    """How the battle's dice were made (``BattleStarted.dice.mode``) and the seed they are
    recomputed from (a seeded battle's; a fair battle's once its seal reveals it)."""

    mode: str
    seed: str | None
    forked: BattleForked | None = None  # a child battle's link: the die a judge corrected
    # A fair fork (``fair_forks``): its commands before its sides' new values took their
    # parent's dice (checked against the parent); after them, a die labelled ``seeded`` is
    # recomputed from the child's own seed once its seal reveals the parent's (``seed`` is then
    # set), one labelled ``inherited`` is the parent's.
    fair_fork: bool = False


# The labels a die may carry in a battle of each dice mode. A seeded battle's dice all come from
# its seed: a die labelled anything else (``physical`` with better values, say) is a forgery, as
# nothing else could have made it. A physical battle has no seed, so a die labelled ``seeded``
# there is a claim nobody can check. Fair battles: see ``_check_fair_die``.
DICE_SOURCES = {"seeded": frozenset({SeededDice.source}), "physical": frozenset({"physical"})}


def check_dice(report: Report, segment: Sequence[LoggedEvent], dice: DiceCheck) -> None:
    """Every die of a command against the battle's dice mode; every digital die recomputed from
    the battle's seed and the roll's key."""
    for logged in segment:
        ev = logged.event
        if not isinstance(ev, DiceRolled):
            continue
        if ev.source == CORRECTED_BY_JUDGE:
            change = dice.forked.link.change if dice.forked is not None else None
            if not isinstance(change, DieCorrected) or (change.key, change.values) != (
                ev.key,
                ev.values,
            ):
                raise Failed(_not_corrected(logged.position, f"die {ev.key}"))
            continue
        if dice.mode == "fair":
            _check_fair_die(report, logged, ev, dice)
            continue
        allowed = DICE_SOURCES.get(dice.mode)
        if allowed is None:
            raise Failed(Problem(1, "setup", f"unknown dice mode {dice.mode!r}"))
        if ev.source not in allowed:
            raise Failed(
                Problem(
                    logged.position,
                    "dice",
                    f"die {ev.key} is labelled {ev.source!r}, but this is a {dice.mode} battle: "
                    f"its dice can only be {' or '.join(sorted(allowed))}",
                )
            )
        if dice.seed is not None:
            _recompute(report, logged, ev, dice.seed)


def _not_corrected(position: int, what: str) -> Problem:
    return Problem(
        position,
        "dice" if what.startswith("die") else "choice",
        f"{what} is labelled {CORRECTED_BY_JUDGE!r} (corrected by a judge), but no judge's fork "
        "of this battle corrected it to that",
    )


def _check_fair_die(report: Report, logged: LoggedEvent, ev: DiceRolled, dice: DiceCheck) -> None:
    """A fair battle's die: every die comes from the seed committed at the start, so it must be
    labelled seeded, and is recomputed once the seal has revealed the seed. In a judge's fork,
    a die may also be its parent's (``inherited``), checked against the parent's record."""
    if dice.fair_fork and ev.source == INHERITED:
        return
    if ev.source != SeededDice.source:
        raise Failed(
            Problem(
                logged.position,
                "dice",
                f"die {ev.key} is labelled {ev.source!r}, but this is a fair battle: its dice "
                "all come from the seed committed at the start"
                + (" or its parent's record (inherited)" if dice.fair_fork else ""),
            )
        )
    if dice.seed is not None:
        _recompute(report, logged, ev, dice.seed)


def _recompute(report: Report, logged: LoggedEvent, ev: DiceRolled, seed: str) -> None:
    """A digital die recomputed from the seed and its roll's key."""
    report.dice_checked += 1
    expected = seeded_roll(seed, ev.key, len(ev.values), ev.sides)
    if expected != ev.values:
        raise Failed(
            Problem(
                logged.position,
                "dice",
                f"die {ev.key} shows {list(ev.values)}, but the battle's seed gives "
                f"{list(expected)}",
            )
        )


# The labels a choice may carry, in a battle of any dice mode: the engine's choice sources make
# no others (``replay/engine/dice.py``; the table page and ``bxb play`` say ``interactive``). A
# ``default`` choice is the rules' default: the re-adjudication checks its answer is
# (``ChoicesAsRecorded``), as a seeded die is checked against its seed.
CHOICE_SOURCES = frozenset({"scripted", "interactive", "default"})


def check_choices(
    segment: Sequence[LoggedEvent], forked: BattleForked | None = None
) -> dict[str, int]:
    """Every choice of a command against the labels choices can carry (``judge`` only where a
    child's link corrected that question to that answer); the position of each choice by its
    key, for ``ChoicesAsRecorded``."""
    where: dict[str, int] = {}
    change = forked.link.change if forked is not None else None
    for logged in segment:
        ev = logged.event
        if not isinstance(ev, ChoiceMade):
            continue
        if ev.source == CORRECTED_BY_JUDGE:
            if not isinstance(change, ChoiceCorrected) or (change.key, change.answer) != (
                ev.key,
                ev.answer,
            ):
                raise Failed(_not_corrected(logged.position, f"choice {ev.key}"))
            continue
        if ev.source not in CHOICE_SOURCES:
            raise Failed(
                Problem(
                    logged.position,
                    "choice",
                    f"choice {ev.key} is labelled {ev.source!r}: a choice can only be "
                    f"{', '.join(sorted(CHOICE_SOURCES))}",
                )
            )
        where[ev.key] = logged.position
    return where


class ChoicesAsRecorded(RecordedChoices):
    """A command's recorded choices, answered back as recorded; a choice labelled ``default``
    must be the default the rules give for that question (else someone changed the answer and
    kept the label)."""

    def __init__(self, recorded: Mapping[str, tuple[str, str]], where: Mapping[str, int]) -> None:
        super().__init__(recorded)
        self._where = where

    def choose(
        self, key: str, options: tuple[str, ...], default: str, prompt: str
    ) -> tuple[str, str]:
        answer, source = super().choose(key, options, default, prompt)
        if source == "default" and answer != default and key in self._where:
            raise Failed(
                Problem(
                    self._where[key],
                    "choice",
                    f"choice {key} is labelled 'default' but answers {answer!r}: the rules' "
                    f"default is {default!r}",
                )
            )
        return answer, source
