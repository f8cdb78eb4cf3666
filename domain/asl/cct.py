"""The Close Combat Table (A11.11): odds columns and Kill Numbers.

Attack FP is compared with the FP of the units attacked and the ratio is rounded DOWN to the
nearest column printed on the CCT (EX: 7-4 is 3-2, 11-2 is 4-1, 4-15 is 1-4). Final DR < Kill
Number: every unit attacked is eliminated; = KN: Partial Kill (Casualty Reduction by Random
Selection); > KN: no effect. Black KN normally, red (black + 2) in Hand-to-Hand CC (J2.31).

FP can be fractional after halving (A11.19, A7.8), so it is kept as an exact ``Fraction`` and
written into events as text ("2.5"), never as a float.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

# (column label, lowest ratio that reaches it, black Kill Number), from the lowest column up.
CCT: tuple[tuple[str, Fraction, int], ...] = (
    ("<1-8", Fraction(0), 0),
    ("1-8", Fraction(1, 8), 1),
    ("1-6", Fraction(1, 6), 2),
    ("1-4", Fraction(1, 4), 3),
    ("1-2", Fraction(1, 2), 4),
    ("1-1", Fraction(1), 5),
    ("3-2", Fraction(3, 2), 6),
    ("2-1", Fraction(2), 7),
    ("3-1", Fraction(3), 8),
    ("4-1", Fraction(4), 9),
    ("6-1", Fraction(6), 10),
    ("8-1", Fraction(8), 11),
    ("10-1", Fraction(10), 12),
    (">10-1", Fraction(11), 13),
)

_HIGHEST_FIRST = CCT[::-1]  # the first column a ratio reaches, from the top, is the highest

RED_KN_BONUS = 2  # red (HtH) Kill Number = black + 2, on every column of the CCT


def odds_column(attack: Fraction, defense: Fraction, above_ten: str) -> tuple[str, int]:
    """A11.11: the CCT column (label, black KN) for ``attack`` FP against ``defense`` FP.

    ``above_ten`` is the ruling odds-above-10: "beyond" sends every ratio above exactly
    10-1 to the ">10-1" column; "round-down" rounds 10.x-1 down to 10-1 like every other ratio
    (">10-1" from 11-1)."""
    if defense.numerator <= 0:
        return CCT[-1][0], CCT[-1][2]
    # The ratio as whole numbers, top over bottom (bottom > 0), compared by cross-multiplying:
    # the same columns as comparing Fractions, without building one per comparison (every
    # replay of an attack asks again, the odds' runs by the hundred).
    top = attack.numerator * defense.denominator
    bottom = attack.denominator * defense.numerator
    if above_ten == "beyond" and top > 10 * bottom:
        return CCT[-1][0], CCT[-1][2]
    for name, lowest, kn in _HIGHEST_FIRST:
        if top * lowest.denominator >= lowest.numerator * bottom:
            return name, kn
    return CCT[0][0], CCT[0][2]


def kill_number(black: int, red: bool) -> int:
    return black + RED_KN_BONUS if red else black


def fmt(value: Fraction) -> str:
    """FP as text: "5", "2.5", "1.25"."""
    if value.denominator == 1:
        return str(value.numerator)
    whole = value.numerator / value.denominator  # exact for halves/quarters/eighths
    return f"{whole:g}"


def result_of(final_dr: int, kn: int) -> Literal["eliminated", "partial", "none"]:
    """A11.11: "eliminated" (< KN), "partial" (= KN) or "none" (> KN)."""
    if final_dr < kn:
        return "eliminated"
    if final_dr == kn:
        return "partial"
    return "none"
