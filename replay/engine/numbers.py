"""Whole numbers written as text by a person or in a file: a key's command number, a position,
a count, a size, a setting.

``str.isdigit`` is no test for them: it is true of digits ``int`` refuses (superscripts such as
``²``), and ``int`` refuses a string of more than 4300 digits; either one, met where a number was
checked with ``isdigit``, ended the program with a ValueError. ``whole_number`` reads a number
written plainly or says it is not one."""

from __future__ import annotations

MOST_DIGITS = 18  # below 2**63: any number a count, a position or a size may be


def whole_number(text: str, *, signed: bool = False) -> int | None:
    """``text`` (surrounding spaces allowed) as a whole number when it is one written in ASCII
    digits, at most ``MOST_DIGITS`` of them, with a leading ``-`` when ``signed``; else None."""
    digits = text.strip()
    negative = signed and digits.startswith("-")
    if negative:
        digits = digits[1:]
    if not (digits.isascii() and digits.isdigit() and len(digits) <= MOST_DIGITS):
        return None
    return -int(digits) if negative else int(digits)
