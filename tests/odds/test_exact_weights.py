"""An exact answer's questions (a probability, an expectation, a variance, the shares of each
value) are added up in whole numbers over one denominator: each must be the Fraction the
definition gives, weight by weight, for weights over different denominators."""

from __future__ import annotations

import random
from fractions import Fraction

from blowbyblow.replay.odds.answers import Weights, exact_estimate


def _weights(rng: random.Random) -> list[Fraction]:
    raw = [Fraction(rng.randint(1, 40), rng.choice([1, 2, 3, 6, 7, 36, 216])) for _ in range(9)]
    total = sum(raw, Fraction(0))
    return [w / total for w in raw]


def test_exact_questions_are_the_fractions_of_their_definitions() -> None:
    rng = random.Random(5)
    for _ in range(50):
        weights = _weights(rng)
        w = Weights([], weights, exact=True)
        values = [rng.randint(-2, 4) for _ in weights]
        flags = [rng.random() < 0.5 for _ in weights]
        mean = sum((x * v for x, v in zip(weights, values, strict=True)), Fraction(0))
        var = sum((x * (v - mean) ** 2 for x, v in zip(weights, values, strict=True)), Fraction(0))
        chosen = sum((x for x, f in zip(weights, flags, strict=True) if f), Fraction(0))
        assert w.probability(flags) == exact_estimate(chosen)
        assert w.expected(values) == exact_estimate(mean)
        assert w.variance(values) == exact_estimate(var)
        totals: dict[int, Fraction] = {}
        for x, v in zip(weights, values, strict=True):
            totals[v] = totals.get(v, Fraction(0)) + x
        likeliest = sorted(totals, key=lambda v: (-totals[v], str(v)))
        assert [(s.value, s.p) for s in w.shares(values)] == [
            (str(v), exact_estimate(totals[v])) for v in likeliest
        ]
        assert [s.value for s in w.shares(values, numeric=True)] == [str(v) for v in sorted(totals)]
