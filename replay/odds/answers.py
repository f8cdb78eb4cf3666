"""What the odds answer looks like, and how it is summed up from weighted outcomes: exact
probabilities (fractions summing to 1) or Monte Carlo sample counts with 95% intervals."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import msgspec

from blowbyblow.replay.odds.outcomes import Measure, Outcome, UnitOutcome

Z95 = 1.959963984540054  # the standard normal's 97.5th percentile: two-sided 95% intervals

# --- what the answer looks like ---------------------------------------------------------------


class Estimate(msgspec.Struct, frozen=True, kw_only=True):
    """A probability or an expected value: ``exact`` (a fraction, "7/36") when computed
    exactly, else a Monte Carlo estimate with its 95% interval [``low``, ``high``]."""

    value: float
    low: float
    high: float
    exact: str | None = None

    @property
    def fraction(self) -> Fraction:
        if self.exact is None:
            raise ValueError("a Monte Carlo estimate has no exact fraction")
        return Fraction(self.exact)

    def contains(self, x: float) -> bool:
        return self.low <= x <= self.high


class Share(msgspec.Struct, frozen=True, kw_only=True):
    """One value of a distribution and its probability."""

    value: str
    p: Estimate


class UnitOdds(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    side: str
    status_before: str
    status: list[Share]  # its status after the command
    wounds_lost: list[Share]
    expected_wounds_lost: Estimate
    removed: Estimate  # no longer on the table
    captured: Estimate
    renamed: list[Share]  # its name after, when it changes (an ASL squad Reduced)
    expected_harm: Estimate


class SideOdds(msgspec.Struct, frozen=True, kw_only=True):
    """What a side suffers (``loss``) and how bad the outcome is for it (``net_loss``: its loss
    less the other sides'), see ``replay.odds.outcomes``."""

    side: str
    loss: list[Share]
    expected_loss: Estimate
    net_loss: list[Share]
    expected_net_loss: Estimate


class CountOdds(msgspec.Struct, frozen=True, kw_only=True):
    """A tally (hits, kills…) or a kind of rule step: its distribution, its mean (``expected``)
    and spread (``spread``: its standard deviation, from ``variance``), P(at least one), and
    P(at least k) for each k from 1 to the most it can be (``at_least``). For a tally, ``by_side``
    gives each side's share of it (``side`` set): what the side scored, or what befell the other
    side (see ``domain.system.Count``)."""

    name: str
    side: str = ""
    expected: Estimate
    variance: Estimate
    spread: float
    at_least_one: Estimate
    at_least: list[Share]
    distribution: list[Share]
    by_side: list[CountOdds] = []


class SidePercentile(msgspec.Struct, frozen=True, kw_only=True):
    """What happened to ``side``, against the odds: its net loss, and the probability of an
    outcome at least as bad for it (small: unlucky) and at most as bad (small: lucky)."""

    side: str
    net_loss: int
    at_least_as_bad: Estimate
    at_most_as_bad: Estimate


class Happened(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome the dice gave: each unit's status, the tallies, each side's percentile."""

    statuses: dict[str, str]
    tallies: dict[str, int]
    sides: list[SidePercentile]
    probability: Estimate  # of exactly this outcome


class Odds(msgspec.Struct, frozen=True, kw_only=True):
    ruleset: str
    command: int  # its number in its battle
    action: str  # the command's type
    method: str  # "exact" or "monte-carlo"
    policy: str
    runs: int  # adjudications made to answer (exact) or samples drawn (Monte Carlo)
    outcomes: int  # distinct outcomes found
    grouped: list[str]  # rolls explored as multisets (order-insensitive)
    traced: bool  # equivalent faces of a die were grouped (exact only)
    budget: int
    samples: int = 0
    seed: str = ""
    confidence: float = 0.95
    note: str = ""  # why the method is what it is
    units: list[UnitOdds]
    sides: list[SideOdds]
    tallies: list[CountOdds]
    events: list[CountOdds]
    happened: Happened | None = None


# --- weighted outcomes: exact fractions or sample counts ----------------------------------------


@dataclass
class Weights:
    """The outcomes found, with their weights: exact probabilities (fractions summing to 1) or
    sample counts. Every question is asked with one value per outcome, in ``outcomes`` order."""

    outcomes: list[Outcome]
    weights: list[Fraction]  # probabilities, or (Monte Carlo) whole numbers of samples
    exact: bool

    @property
    def total(self) -> int:
        return 1 if self.exact else sum(int(w) for w in self.weights)

    @cached_property
    def _over(self) -> tuple[list[int], int]:
        """Exact weights as whole numbers over one common denominator: every question is then
        added up in whole numbers, one Fraction made for its answer (a Fraction's sum costs a
        gcd at every step), the same Fraction in the end."""
        den = math.lcm(*(w.denominator for w in self.weights))
        return [w.numerator * (den // w.denominator) for w in self.weights], den

    def probability(self, flags: Sequence[bool]) -> Estimate:
        if self.exact:
            nums, den = self._over
            return _exact(Fraction(sum(n for n, f in zip(nums, flags, strict=True) if f), den))
        hits = sum(int(w) for w, f in zip(self.weights, flags, strict=True) if f)
        return wilson(hits, self.total)

    def expected(self, values: Sequence[int]) -> Estimate:
        if self.exact:
            nums, den = self._over
            return _exact(Fraction(sum(n * v for n, v in zip(nums, values, strict=True)), den))
        n = self.total
        pairs = [(v, int(w)) for w, v in zip(self.weights, values, strict=True)]
        average = sum(v * w for v, w in pairs) / n
        var = sum(w * (v - average) ** 2 for v, w in pairs) / max(n - 1, 1)
        half = Z95 * math.sqrt(var / n)
        return Estimate(value=average, low=average - half, high=average + half)

    def variance(self, values: Sequence[int]) -> Estimate:
        """The variance of ``values``: exact, or the samples' with a 95% interval from the
        fourth central moment (normal approximation)."""
        if self.exact:
            # sum of w (v - mean)^2, mean = s1 / den, each w = n / den: over den^3 in whole
            # numbers, (den^2 s2 - 2 den s1^2 + s0 s1^2) with s0, s1, s2 the sums of n, n v,
            # n v^2.
            nums, den = self._over
            s0 = s1 = s2 = 0
            for n, v in zip(nums, values, strict=True):
                s0 += n
                s1 += n * v
                s2 += n * v * v
            return _exact(Fraction(den * den * s2 - 2 * den * s1 * s1 + s0 * s1 * s1, den**3))
        n = self.total
        pairs = [(float(v), int(w)) for w, v in zip(self.weights, values, strict=True)]
        average = sum(v * w for v, w in pairs) / n
        m2 = sum(w * (v - average) ** 2 for v, w in pairs) / n
        m4 = sum(w * (v - average) ** 4 for v, w in pairs) / n
        sample_var = m2 * n / max(n - 1, 1)
        half = Z95 * math.sqrt(max(m4 - m2 * m2, 0.0) / n)
        return Estimate(value=sample_var, low=max(sample_var - half, 0.0), high=sample_var + half)

    def shares(self, values: Sequence[Hashable], numeric: bool = False) -> list[Share]:
        """Each distinct value with its probability: most likely first, or in numeric order.
        Added up in whole numbers: exact weights over their common denominator, samples as
        counts."""
        nums, den = self._over if self.exact else ([int(w) for w in self.weights], self.total)
        sums: dict[Hashable, int] = {}
        for n, v in zip(nums, values, strict=True):
            sums[v] = sums.get(v, 0) + n
        if numeric:
            order = sorted(sums, key=lambda v: int(str(v)))
        else:
            order = sorted(sums, key=lambda v: (-sums[v], str(v)))
        return [
            Share(
                value=str(v),
                p=_exact(Fraction(sums[v], den)) if self.exact else wilson(sums[v], den),
            )
            for v in order
        ]


@dataclass
class Margins:
    """What an answer is summed up from: the units' joint outcomes (``units``: outcomes with
    the units only), each count's own distribution (``counts``: by place in
    ``Measure.vector``: the tallies, each side's share of them, the rule steps), and the
    probability of exactly the outcome that happened (``happened``, when one did)."""

    units: Weights
    counts: dict[int, tuple[list[int], list[Fraction]]]
    happened: Estimate | None = None

    def count(self, place: int) -> tuple[Weights, list[int]]:
        """A count's distribution, as weights over its values (zero when never counted)."""
        values, weights = self.counts.get(place, ([0], [Fraction(self.units.total)]))
        return Weights([], weights, exact=self.units.exact), values

    def counted(self, place: int) -> bool:
        """Is the count at ``place`` ever other than zero?"""
        return any(v != 0 for v in self.counts.get(place, ([], []))[0])

    @staticmethod
    def of_joint(measure: Measure, w: Weights, happened: Outcome | None = None) -> Margins:
        """A joint distribution's margins (the tree's, or Monte Carlo's counts)."""
        # Monte Carlo's weights are counts: added as whole numbers (a Fraction's sum costs
        # far more), the same Fractions in the end.
        whole = all(x.denominator == 1 for x in w.weights)
        weights: list[Any] = [x.numerator for x in w.weights] if whole else list(w.weights)
        units: dict[tuple[UnitOutcome, ...], Any] = {}
        counts: dict[int, dict[int, Any]] = {}
        for o, weight in zip(w.outcomes, weights, strict=True):
            units[o.units] = units.get(o.units, 0) + weight
            for place, v in enumerate(measure.outcome_vector(o)):
                per = counts.setdefault(place, {})
                per[v] = per.get(v, 0) + weight
        return Margins(
            units=Weights(
                [_units_only(u) for u in units], [Fraction(x) for x in units.values()], w.exact
            ),
            counts={p: (list(d), [Fraction(x) for x in d.values()]) for p, d in counts.items()},
            happened=None
            if happened is None
            else w.probability([o == happened for o in w.outcomes]),
        )


def _units_only(units: tuple[UnitOutcome, ...]) -> Outcome:
    return Outcome(units=units, tallies=(), by_side=(), events=())


def exact_estimate(p: Fraction) -> Estimate:
    """An exact probability or expectation as an ``Estimate``."""
    return Estimate(value=float(p), low=float(p), high=float(p), exact=_fraction(p))


_exact = exact_estimate


def _fraction(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def wilson(hits: int, n: int) -> Estimate:
    """A proportion from ``n`` samples with its Wilson score 95% interval."""
    if n == 0:
        raise ValueError("no samples")
    p = hits / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = 0.0 if hits == 0 else max(0.0, centre - half)  # no rounding dust at the ends
    high = 1.0 if hits == n else min(1.0, centre + half)
    return Estimate(value=p, low=low, high=high)


def units_odds(measure: Measure, w: Weights) -> list[UnitOdds]:
    out = []
    for i, u in enumerate(measure.before.units):
        mine = [o.units[i] for o in w.outcomes]
        out.append(
            UnitOdds(
                id=u.id,
                name=u.name,
                side=u.side,
                status_before=u.status,
                status=w.shares([x.status or "removed" for x in mine]),
                wounds_lost=w.shares([x.wounds_lost for x in mine], numeric=True),
                expected_wounds_lost=w.expected([x.wounds_lost for x in mine]),
                removed=w.probability([x.gone for x in mine]),
                captured=w.probability([x.captured for x in mine]),
                renamed=[s for s in w.shares([x.name for x in mine]) if s.value != u.name],
                expected_harm=w.expected([measure.harm(i, x) for x in mine]),
            )
        )
    return out


def sides_odds(measure: Measure, w: Weights) -> list[SideOdds]:
    out = []
    for side in measure.before.sides:
        losses = [measure.loss(o, side) for o in w.outcomes]
        net = [measure.net_loss(o, side) for o in w.outcomes]
        out.append(
            SideOdds(
                side=side,
                loss=w.shares(losses, numeric=True),
                expected_loss=w.expected(losses),
                net_loss=w.shares(net, numeric=True),
                expected_net_loss=w.expected(net),
            )
        )
    return out


def count_odds(
    name: str,
    w: Weights,
    values: list[int],
    side: str = "",
    by_side: list[CountOdds] | None = None,
) -> CountOdds:
    variance = w.variance(values)
    return CountOdds(
        name=name,
        side=side,
        expected=w.expected(values),
        variance=variance,
        spread=math.sqrt(max(variance.value, 0.0)),
        at_least_one=w.probability([v > 0 for v in values]),
        at_least=[
            Share(value=str(k), p=w.probability([v >= k for v in values]))
            for k in range(1, max(values, default=0) + 1)
        ],
        distribution=w.shares(values, numeric=True),
        by_side=by_side or [],
    )


def happened_odds(measure: Measure, m: Margins, outcome: Outcome) -> Happened:
    """What happened against the odds: each side's net loss and its percentiles (from the units'
    outcomes), and the probability of exactly this outcome."""
    w = m.units
    sides = []
    for side in measure.before.sides:
        seen = measure.net_loss(outcome, side)
        losses = [measure.net_loss(o, side) for o in w.outcomes]
        sides.append(
            SidePercentile(
                side=side,
                net_loss=seen,
                at_least_as_bad=w.probability([x >= seen for x in losses]),
                at_most_as_bad=w.probability([x <= seen for x in losses]),
            )
        )
    return Happened(
        statuses={
            u.id: (o.status or "removed")
            for u, o in zip(measure.before.units, outcome.units, strict=True)
        },
        tallies={t.name: n for t, n in zip(measure.rules.tallies, outcome.tallies, strict=True)},
        sides=sides,
        probability=m.happened
        if m.happened is not None
        else w.probability([o == outcome for o in w.outcomes]),
    )


__all__ = [
    "Z95",
    "CountOdds",
    "Estimate",
    "Happened",
    "Margins",
    "Odds",
    "Share",
    "SideOdds",
    "SidePercentile",
    "UnitOdds",
    "Weights",
    "count_odds",
    "exact_estimate",
    "happened_odds",
    "sides_odds",
    "units_odds",
    "wilson",
]
