"""A node's outcomes as whole numbers over a common denominator, and a roll's outcomes added up
from its classes' (``replay/odds/sharing.py``'s graph keeps one ``Value`` a node)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.odds.outcomes import UnitOutcome

Units = tuple[UnitOutcome, ...]
# A way to the target: the units whose wounds lost miss it, with theirs, and the counts.
Way = tuple[tuple[tuple[int, int], ...], tuple[int, ...]]


@dataclass(frozen=True)
class Value:
    """The outcomes below a point of the command, as whole numbers over ``den``: the units'
    joint outcome (``units``), each count's own distribution (``margins``: by place in
    ``Measure.vector`` and value, in one table, the zeros left out: a place's zero has what its
    other values leave of ``den``), and, when an outcome is watched for (``Sharer.target``), the
    counts of the ways to it (``target``: by counts vector, the units being the target's and
    every count within the target's). Counted from that point on. ``keyed``: a choice below it
    may be answered by its key (``_Asks``)."""

    den: int
    units: dict[Units, int]
    margins: dict[tuple[int, int], int]  # by (place, value)
    target: dict[Way, int]  # by (what it misses of the target, counts)
    keyed: bool = False


# A value below a point of the command as the point's node adds it up (``combine``): the
# value, the counts every outcome of it gains before that point (``(place, count)``, the places
# that move), the ways to the target so moved (``Sharer``'s), and whether a choice below it
# may be answered by its key.
Below = tuple[Value, list[tuple[int, int]], dict[Way, int], bool]


def combine(parts: list[tuple[int, Below]], total: int) -> Value:
    """A roll's outcomes: each class's (``ways`` of ``total`` faces) outcomes, moved by the
    counts before it and added, in one pass a class over its table of counts (a place's
    distribution moved where its place moves, its zero from what the place's values leave of
    its ``den``). The first class's are taken by a comprehension (in C, as a copy where its
    factor is 1 and nothing moves), the others added to them. Whole numbers are divided by
    their common divisor only once the denominator has grown past ``_WIDE`` bits: the answer's
    fractions are the same either way (``Fraction`` reduces them), and most reductions cost
    more than the wider numbers."""
    common = math.lcm(*(part[0].den for _, part in parts))
    units, margins, target, keyed = _first(*parts[0], common)
    for ways, part in parts[1:]:
        keyed = _add(units, margins, target, ways, part, common) or keyed
    den = total * common
    if den.bit_length() > _WIDE:
        divisor = math.gcd(den, *units.values(), *target.values(), *margins.values())
        if divisor > 1:
            return Value(
                den=den // divisor,
                units={u: k // divisor for u, k in units.items()},
                margins={at: k // divisor for at, k in margins.items()},
                target={t: k // divisor for t, k in target.items()},
                keyed=keyed,
            )
    return Value(den=den, units=units, margins=margins, target=target, keyed=keyed)


def _first(
    ways: int, part: Below, common: int
) -> tuple[dict[Units, int], dict[tuple[int, int], int], dict[Way, int], bool]:
    """The first class's outcomes over ``common``, moved: new dicts, to add the others to."""
    v, moved, moved_target, keyed = part
    factor = ways * (common // v.den)
    if factor == 1:
        units = dict(v.units)
        target = dict(moved_target)
        margins = dict(v.margins) if not moved else {}
    else:
        units = {u: factor * k for u, k in v.units.items()}
        target = {t: factor * k for t, k in moved_target.items()}
        margins = {at: factor * k for at, k in v.margins.items()} if not moved else {}
    if moved:
        _add_moved(margins, v, moved, factor)
    return units, margins, target, keyed


def _add(  # noqa: PLR0913 - what is added to, and what is added
    units: dict[Units, int],
    margins: dict[tuple[int, int], int],
    target: dict[Way, int],
    ways: int,
    part: Below,
    common: int,
) -> bool:
    """Another class's outcomes over ``common``, moved, added in place; whether it is keyed."""
    v, moved, moved_target, keyed = part
    factor = ways * (common // v.den)
    unit = units.get
    for u, k in v.units.items():
        units[u] = unit(u, 0) + factor * k
    if moved_target:
        way = target.get
        for vector, k in moved_target.items():
            target[vector] = way(vector, 0) + factor * k
    if moved:
        _add_moved(margins, v, moved, factor)
    else:
        count = margins.get
        for at, k in v.margins.items():
            margins[at] = count(at, 0) + factor * k
    return keyed


def _add_moved(
    margins: dict[tuple[int, int], int], v: Value, moved: list[tuple[int, int]], factor: int
) -> None:
    """``v``'s counts times ``factor`` added to ``margins``, each place in ``moved`` moved by
    its count: its values, and its zero (what they leave of ``v.den``), which lands on the
    count itself; a value moved to zero is left out, as in ``Value.margins``."""
    moves = dict(moved)
    kept = dict.fromkeys(moves, 0)  # what a moved place's values hold: its zero is the rest
    count = margins.get
    for at, k in v.margins.items():
        place, value = at
        by = moves.get(place)
        if by is not None:
            kept[place] += k
            value += by
            if not value:
                continue
            at = (place, value)
        margins[at] = count(at, 0) + factor * k
    den = v.den
    for place, by in moves.items():
        zero = den - kept[place]
        if zero:
            at = (place, by)
            margins[at] = count(at, 0) + factor * zero


# The bits a denominator may grow to before its value is reduced (``combine``).
_WIDE = 64


class FalseClaim(BlowByBlowError, ValueError):
    """A game system's claim about what its rules read (``OddsRules``) found false while its
    odds were explored: a bug of the game system's, said in one line (``bxb odds``, the
    server's odds) rather than an answer that would be wrong."""

    def __str__(self) -> str:
        return f"the game system's odds claims are false here, no odds given: {self.args[0]}"


def settled(value: Value, before: Units, now: Units, wanted: Units | None) -> Value:
    """A node's answer, explored from a branch whose outcome so far is ``before``, for one
    that meets it with ``now``: they differ only where ``OddsRules.unread`` wrote alike what
    the outcome shows, which may only be a unit's wounds lost, and which no later step
    changes; so every outcome below holds the explored branch's, and takes this one's. The
    ways that miss the target (``wanted``) only by wounds lost (``missed``) move with them.
    Checked on every outcome: one whose wounds lost changed raises (the claim is false)."""
    if before == now:
        return value
    moved = []
    for i, (b, n) in enumerate(zip(before, now, strict=True)):
        if b != n:
            if b._replace(wounds_lost=n.wounds_lost) != n:
                raise FalseClaim(f"OddsRules.unread wrote alike unit {i}'s {b} and {n}")
            moved.append((i, b.wounds_lost, n.wounds_lost))
    units: dict[Units, int] = {}
    for outcome, k in value.units.items():
        unit = list(outcome)
        for i, was, becomes in moved:
            if unit[i].wounds_lost != was:
                raise FalseClaim(
                    f"OddsRules.unread wrote alike unit {i}'s wounds lost, which a later step "
                    f"changed: {was} became {unit[i].wounds_lost}"
                )
            unit[i] = unit[i]._replace(wounds_lost=becomes)
        units[tuple(unit)] = k
    target: dict[Way, int] = {}
    for (miss, vector), k in value.target.items():
        assert wanted is not None
        missing = dict(miss)
        for i, _, becomes in moved:
            missing.pop(i, None)
            if becomes != wanted[i].wounds_lost:
                missing[i] = becomes
        at = (tuple(sorted(missing.items())), vector)
        target[at] = target.get(at, 0) + k
    return dataclasses.replace(value, units=units, target=target)


def missed(final: Units, wanted: Units) -> tuple[tuple[int, int], ...] | None:
    """Where ``final`` misses the target ``wanted`` only by units' wounds lost: those units
    and their wounds lost (None: it misses it otherwise too)."""
    miss = []
    for i, (unit, want) in enumerate(zip(final, wanted, strict=True)):
        if unit != want:
            if unit._replace(wounds_lost=want.wounds_lost) != want:
                return None
            miss.append((i, unit.wounds_lost))
    return tuple(miss)


__all__ = ["Below", "FalseClaim", "Units", "Value", "Way", "combine", "missed", "settled"]
