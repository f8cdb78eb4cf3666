"""Dice that remember what the rules asked of them, and the facts they record.

While exploring, the dice a procedure receives are ``Die`` values: each knows its number and the
expression it came from, and every comparison, every use as an index or a string, every hash
records a *fact* (a predicate over dice and its truth value). ``compile_fact`` turns a fact back
into a function of its dice, so the explorer can ask whether another face keeps it true
(``replay/odds/chance.py`` says why that keeps the answer exact)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# --- dice that remember what the rules asked of them --------------------------------------------

# An expression over dice: ("d", roll, die) | ("c", value) | (op, left, right) | ("neg", x) | ...
Expr = tuple[Any, ...]
Fact = tuple[str, Expr, Expr]  # (op, left, right): a predicate the rules evaluated

_ARITH: dict[str, Callable[[int, int], int]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
}
_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    "==": operator.eq,
}


def _expr_of(x: object) -> Expr | None:
    if isinstance(x, Die):
        return x.expr
    if type(x) is int or type(x) is bool:
        return ("c", int(x))
    return None


def _value_of(x: object) -> int:
    return x.value if isinstance(x, Die) else int(x)  # type: ignore[call-overload]


class Die:
    """A die's value as the rules see it during exploration: it behaves as an ``int`` in
    arithmetic and comparisons, and records in ``facts`` (its run's list) every predicate it
    takes part in. It is deliberately *not* an ``int`` subclass: C code reads an int's value
    without asking, which would go unrecorded; a ``Die`` must be asked (``__index__``,
    ``__format__``, ``__hash__``…), and each such question pins its value as a fact."""

    __slots__ = ("expr", "facts", "value")

    def __init__(self, value: int, expr: Expr, facts: list[tuple[Fact, bool]]) -> None:
        self.value = value
        self.expr = expr
        self.facts = facts

    def _arith(self, other: object, op: str, reflected: bool = False) -> Any:
        oe = _expr_of(other)
        if oe is None:
            return NotImplemented
        a, b = (_value_of(other), self.value) if reflected else (self.value, _value_of(other))
        expr = (op, oe, self.expr) if reflected else (op, self.expr, oe)
        return Die(_ARITH[op](a, b), expr, self.facts)

    def __add__(self, other: object) -> Any:
        return self._arith(other, "+")

    def __radd__(self, other: object) -> Any:
        return self._arith(other, "+", True)

    def __sub__(self, other: object) -> Any:
        return self._arith(other, "-")

    def __rsub__(self, other: object) -> Any:
        return self._arith(other, "-", True)

    def __mul__(self, other: object) -> Any:
        return self._arith(other, "*")

    def __rmul__(self, other: object) -> Any:
        return self._arith(other, "*", True)

    def __floordiv__(self, other: object) -> Any:
        return self._arith(other, "//")

    def __rfloordiv__(self, other: object) -> Any:
        return self._arith(other, "//", True)

    def __mod__(self, other: object) -> Any:
        return self._arith(other, "%")

    def __rmod__(self, other: object) -> Any:
        return self._arith(other, "%", True)

    def __neg__(self) -> Die:
        return Die(-self.value, ("neg", self.expr), self.facts)

    def __pos__(self) -> Die:
        return self

    def __abs__(self) -> Die:
        return Die(abs(self.value), ("abs", self.expr), self.facts)

    def _compare(self, other: object, op: str, swapped: bool = False) -> Any:
        oe = _expr_of(other)
        if oe is None:
            return NotImplemented
        if swapped:
            fact: Fact = (op, oe, self.expr)
            result = _COMPARE[op](_value_of(other), self.value)
        else:
            fact = (op, self.expr, oe)
            result = _COMPARE[op](self.value, _value_of(other))
        self.facts.append((fact, result))
        return result

    def __lt__(self, other: object) -> Any:
        return self._compare(other, "<")

    def __le__(self, other: object) -> Any:
        return self._compare(other, "<=")

    def __gt__(self, other: object) -> Any:
        return self._compare(other, "<", swapped=True)

    def __ge__(self, other: object) -> Any:
        return self._compare(other, "<=", swapped=True)

    def __eq__(self, other: object) -> Any:
        return self._compare(other, "==")

    def __ne__(self, other: object) -> Any:
        result = self._compare(other, "==")
        return result if result is NotImplemented else not result

    def _pin(self) -> int:
        """The rules read the plain number: only faces giving the same number stay together."""
        self.facts.append((("==", self.expr, ("c", self.value)), True))
        return self.value

    def __hash__(self) -> int:
        return hash(self._pin())

    def __bool__(self) -> bool:
        return self._pin() != 0

    def __index__(self) -> int:
        return self._pin()

    def __int__(self) -> int:
        return self._pin()

    def __float__(self) -> float:
        return float(self._pin())

    def __str__(self) -> str:
        return str(self._pin())

    def __repr__(self) -> str:
        return repr(self._pin())

    def __format__(self, spec: str) -> str:
        return format(self._pin(), spec)


def _symbols(expr: Expr, out: set[tuple[int, int]]) -> None:
    kind = expr[0]
    if kind == "d":
        out.add((expr[1], expr[2]))
    elif kind != "c":
        for sub in expr[1:]:
            _symbols(sub, out)


@dataclass(frozen=True)
class FactInfo:
    symbols: tuple[tuple[int, int], ...]  # (roll's depth, die), sorted
    low: int  # the depth of the earliest roll it mentions
    test: Callable[[Sequence[int]], bool]  # its truth for values of its symbols


def _source(expr: Expr, index: Mapping[tuple[int, int], int]) -> str:
    kind = expr[0]
    if kind == "d":
        return f"v[{index[(expr[1], expr[2])]}]"
    if kind == "c":
        return f"({int(expr[1])})"
    if kind == "neg":
        return f"(-{_source(expr[1], index)})"
    if kind == "abs":
        return f"abs({_source(expr[1], index)})"
    if kind not in _ARITH:  # pragma: no cover - a Die builds no other expression
        raise ValueError(f"unknown operator {kind!r}")
    return f"({_source(expr[1], index)} {kind} {_source(expr[2], index)})"


_TESTS: dict[str, Callable[[Sequence[int]], bool]] = {}


def compile_fact(fact: Fact) -> FactInfo:
    """A fact as a function of its dice: built from our own expression trees (whole numbers and
    the operators of ``_ARITH`` / ``_COMPARE`` only), so the source is safe to evaluate."""
    found: set[tuple[int, int]] = set()
    _symbols(fact[1], found)
    _symbols(fact[2], found)
    symbols = tuple(sorted(found))
    index = {s: i for i, s in enumerate(symbols)}
    op, left, right = fact
    if op not in _COMPARE:  # pragma: no cover - Die only records these
        raise ValueError(f"unknown comparison {op!r}")
    code = f"lambda v: {_source(left, index)} {op} {_source(right, index)}"
    test = _TESTS.get(code)
    if test is None:  # facts on other rolls, of the same form, share their test
        test = _TESTS[code] = eval(code, {"__builtins__": {}, "abs": abs})
    return FactInfo(symbols=symbols, low=symbols[0][0] if symbols else 0, test=test)


__all__ = ["Die", "Expr", "Fact", "FactInfo", "compile_fact"]
