"""Two battles compared (``bxb diff``, the viewer's diff, a fork's parent beside its child): one
engine for every front end. First their starts, one line per aspect that differs; then play, as
played, event by event after the start, to the first step that differs.

"As played" leaves out what is not play: a voided command and its void, a fair battle's escrow
and contributions (how its dice came), a child battle's link to its parent, and the flags,
rulings and notes said about the commands. So a parent and the child a judge forked from it
with a corrected die diverge at that die, whatever was noted in between; positions are each
battle's own log positions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from blowbyblow.domain.core import BattleStarted, Event
from blowbyblow.domain.judging import ANNOTATION_TYPES, BattleForked
from blowbyblow.projections.battle import standing
from blowbyblow.replay.battles.whatif import first_divergence
from blowbyblow.replay.engine.codec import encode
from blowbyblow.replay.evidence.fairness import start_length
from blowbyblow.replay.store.log import LoggedEvent

_NOT_PLAY: tuple[type[Event], ...] = (*ANNOTATION_TYPES, BattleForked)


def as_played(events: Sequence[Event]) -> list[tuple[int, Event]]:
    """A battle from position 1 as played, each event with its log position: its start, then
    the commands that stand (see the module's words for what is left out)."""
    played = [(p, e) for p, e in standing(events) if not isinstance(e, _NOT_PLAY)]
    opening = start_length([event for _, event in played])
    return [played[0], *played[opening:]]


def start_differences(a: Event, b: Event) -> list[str]:
    """How two battles' starts differ, one line per aspect: game system, label, dice, each
    ruling, setup; "start: the same ..." when only what the rules never read differs."""
    assert isinstance(a, BattleStarted) and isinstance(b, BattleStarted)
    out: list[str] = []
    if (a.ruleset, a.ruleset_version) != (b.ruleset, b.ruleset_version):
        out.append(
            f"game system: {a.ruleset} {a.ruleset_version} / {b.ruleset} {b.ruleset_version}"
        )
    if a.label != b.label:
        out.append(f"label: {a.label!r} / {b.label!r}")
    if encode(a.dice) != encode(b.dice):
        out.append(f"dice: {_dice_words(a)} / {_dice_words(b)}")
    for name in sorted(set(a.rulings) | set(b.rulings)):
        va, vb = a.rulings.get(name, "(none)"), b.rulings.get(name, "(none)")
        if va != vb:
            out.append(f"ruling {name}: {va} / {vb}")
    if encode(a.setup) != encode(b.setup):
        out.append("setup: differs (compare `bxb export` of each)")
    if not out:
        out.append("start: the same game system, dice, rulings and setup")
    return out


def _dice_words(started: BattleStarted[Any]) -> str:
    spec = started.dice
    return spec.mode + (f" (seed {spec.seed})" if spec.seed else "")


@dataclass(frozen=True)
class DiffSide:
    """One battle at the divergence: the log position of its event there (one past its last
    event when it ends first) and that event (None when it ends first)."""

    events: int  # how many events its log holds
    played: int  # how many of them are play
    position: int
    event: Event | None


@dataclass(frozen=True)
class BattleDiff:
    """``start``: how the starts differ, one line each; ``divergence``: the number of the first
    event as played that differs (counting the start as 1; None when play is the same), with
    each battle's side of it."""

    start: list[str]
    divergence: int | None
    a: DiffSide
    b: DiffSide

    @property
    def left_out(self) -> int:
        """Events of the two logs that are not play (voids, annotations, a fair start...)."""
        return self.a.events - self.a.played + self.b.events - self.b.played


def _side(events: Sequence[Event], played: list[tuple[int, Event]], n: int | None) -> DiffSide:
    if n is None or n > len(played):
        return DiffSide(len(events), len(played), len(events) + 1, None)
    position, event = played[n - 1]
    return DiffSide(len(events), len(played), position, event)


def diff_battles(a: Sequence[LoggedEvent | Event], b: Sequence[LoggedEvent | Event]) -> BattleDiff:
    """Battle ``a`` beside battle ``b`` (each its events from position 1)."""
    ea = [e.event if isinstance(e, LoggedEvent) else e for e in a]
    eb = [e.event if isinstance(e, LoggedEvent) else e for e in b]
    pa, pb = as_played(ea), as_played(eb)
    n = first_divergence([e for _, e in pa], [e for _, e in pb], skip_start=True)
    return BattleDiff(
        start=start_differences(ea[0], eb[0]),
        divergence=n,
        a=_side(ea, pa, n),
        b=_side(eb, pb, n),
    )


__all__ = ["BattleDiff", "DiffSide", "as_played", "diff_battles", "start_differences"]
