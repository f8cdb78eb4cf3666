"""``bxb odds --plot`` and ``bxb luck --plot``: the odds' and luck's plots (drawn by matplotlib,
``replay/odds/plots.py``, the viewer's too) written to a file, PNG, SVG or PDF by its suffix.
matplotlib comes with the ``plot`` extra (``pip install 'blowbyblow[plot]'``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from blowbyblow.replay.odds.answers import Odds
from blowbyblow.replay.odds.luck import Luck
from blowbyblow.replay.odds.plots import FORMATS, PlotError, image, luck_figure, odds_figure

SUFFIXES = tuple(f".{kind}" for kind in FORMATS)


def _kind(path: Path) -> str:
    if path.suffix.lower() not in SUFFIXES:
        raise PlotError(f"--plot {path}: the file must end in {', '.join(SUFFIXES)}")
    return path.suffix.lower()[1:]


def _write(figure: Any, kind: str, path: Path) -> None:
    data = image(figure, kind)
    try:
        path.write_bytes(data)
    except OSError as e:
        raise PlotError(f"--plot {path}: cannot write it ({e.strerror or e})") from e


def plot_odds(odds: Odds, title: str, path: Path) -> None:
    """Each outcome's probability as bars, what the dice gave (when known) in orange."""
    kind = _kind(path)
    try:
        figure = odds_figure(odds, title)
    except PlotError as e:
        raise PlotError(f"--plot: {e}") from e
    _write(figure, kind, path)


def plot_luck(luck: Luck, path: Path) -> None:
    """Each side's running luck percentile over the battle(s)."""
    kind = _kind(path)
    try:
        figure = luck_figure(luck)
    except PlotError as e:
        raise PlotError(f"--plot: {e}") from e
    _write(figure, kind, path)


__all__ = ["PlotError", "plot_luck", "plot_odds"]
