"""Plain text at the output's width, with the standard library alone: what ``bxb at`` prints on
its quick path (``cli/quick.py``) and ``say_lines`` (``cli/app.py``) wraps without Rich. A line
holding a character that is not one column wide is left to Rich (None here)."""

from __future__ import annotations

import os
import sys
import textwrap

from blowbyblow.replay.engine.numbers import whole_number

NARROW = 80  # assumed when standard output is not a terminal and COLUMNS does not say


def output_width() -> int:
    """The width text is wrapped at: the terminal's (COLUMNS when set); for a pipe or a file,
    COLUMNS when set, else 80."""
    if sys.stdout.isatty():
        return _terminal_columns()
    columns = whole_number(os.environ.get("COLUMNS", ""))
    return columns if columns is not None and columns > 0 else NARROW


def _terminal_columns() -> int:
    """``shutil.get_terminal_size((NARROW, 24)).columns``, without importing shutil (and the
    compression modules it imports)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        size = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        size = NARROW
    return size or NARROW


def one_column_each(line: str) -> bool:
    """Does every character of ``line`` take one column, as Rich measures it?"""
    if line.isascii() and line.isprintable():
        return True
    from rich.cells import cell_len  # measured by Rich only when a line needs it

    return cell_len(line) == len(line)


def wrap_plain(line: str, width: int) -> list[str] | None:
    """``line`` wrapped at ``width``, its further lines indented four spaces more than it is;
    None when a character of it is not one column wide (Rich wraps it)."""
    if not one_column_each(line):
        return None
    body = line.lstrip(" ")
    indent = len(line) - len(body)
    return textwrap.wrap(
        body,
        width,
        initial_indent=" " * indent,
        subsequent_indent=" " * (indent + 4),
        break_on_hyphens=False,
    ) or [line]


__all__ = ["NARROW", "one_column_each", "output_width", "wrap_plain"]
