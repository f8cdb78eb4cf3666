"""Plots of odds and luck, drawn by matplotlib: each outcome's probability as bars with what the
dice gave marked, and each side's running luck percentile as a line. One drawing for every front
end: ``bxb odds --plot`` and ``bxb luck --plot`` write it to a file (``cli/plots.py``), the judge's
viewer serves it as SVG (``web/plots.py``).

matplotlib comes with the ``plot`` extra (``pip install 'blowbyblow[plot]'``) and is imported only
when a plot is drawn; without it, ``PlotError`` says so in one line. Figures are made with
matplotlib's object API (``Figure``, no ``pyplot``): nothing global, so a server's threads may
draw at once. The same figures give the same bytes (no date, no version, fixed SVG ids)."""

from __future__ import annotations

import io
from typing import Any

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.odds.answers import Odds, Share
from blowbyblow.replay.odds.luck import Luck, luck_over_time

FORMATS = ("png", "svg", "pdf")
NEEDS = "plots need matplotlib: pip install 'blowbyblow[plot]'"
HAPPENED = "tab:orange"  # what the dice gave
OUTCOME = "tab:blue"


class PlotError(BlowByBlowError):
    """A plot that cannot be drawn as asked (no matplotlib, another format)."""


def available() -> bool:
    """Whether plots can be drawn here (matplotlib installed)."""
    try:
        import matplotlib.figure  # noqa: F401
    except ImportError:
        return False
    return True


def _figure(width: float, height: float) -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        raise PlotError(NEEDS) from e
    return Figure(figsize=(width, height))


def image(figure: Any, kind: str) -> bytes:
    """The figure as a ``kind`` file's bytes (png, svg or pdf)."""
    if kind not in FORMATS:
        raise PlotError(f"a plot is drawn as {', '.join(FORMATS)}, not {kind!r}")
    from matplotlib import rc_context

    # No date or version in the file, and SVG ids from a fixed salt: the same figure, the same
    # bytes.
    metadata: dict[str, Any] = {
        "png": {"Software": None},
        "svg": {"Date": None, "Creator": None},
        "pdf": {"CreationDate": None, "Producer": None, "Creator": None},
    }[kind]
    out = io.BytesIO()
    with rc_context({"svg.hashsalt": "blowbyblow", "svg.fonttype": "none"}):
        figure.savefig(out, format=kind, dpi=110, bbox_inches="tight", metadata=metadata)
    return out.getvalue()


def _bars(ax: Any, title: str, shares: list[Share], marked: str | None) -> None:
    labels = [s.value for s in shares]
    values = [s.p.value for s in shares]
    colours = [HAPPENED if v == marked else OUTCOME for v in labels]
    ax.bar(range(len(labels)), values, color=colours)
    low = [s.p.value - s.p.low for s in shares]
    high = [s.p.high - s.p.value for s in shares]
    if any(low) or any(high):  # Monte Carlo: the 95% intervals
        ax.errorbar(range(len(labels)), values, yerr=[low, high], fmt="none", ecolor="black")
    ax.set_xticks(range(len(labels)), labels, rotation=30 if len(labels) > 4 else 0, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("probability")
    ax.set_title(title, fontsize=10)


def odds_panels(odds: Odds) -> list[tuple[str, list[Share], str | None]]:
    """What the odds plot shows, a panel each: each side's net loss, then the status after of
    each unit whose status may change, with what the dice gave (when known)."""
    happened = odds.happened
    panels: list[tuple[str, list[Share], str | None]] = []
    for side in odds.sides:
        seen = next((s for s in happened.sides if s.side == side.side), None) if happened else None
        panels.append(
            (f"{side.side}: net loss", side.net_loss, None if seen is None else str(seen.net_loss))
        )
    for u in odds.units:
        if len(u.status) > 1 or u.status[0].value != u.status_before:
            marked = happened.statuses.get(u.id) if happened else None
            panels.append((f"{u.name}: status after", u.status, marked))
    return panels


def odds_figure(odds: Odds, title: str, columns: int = 2) -> Any:
    """Each outcome's probability as bars; what the dice gave (when known) in orange; the
    panels in ``columns`` columns (1: a phone's narrow screen)."""
    panels = odds_panels(odds)
    cols = max(1, min(columns, len(panels)))
    rows = max(1, (len(panels) + cols - 1) // cols)
    fig = _figure(5.5 * cols, 3.2 * rows)
    axes = fig.subplots(rows, cols, squeeze=False)
    for ax, (name, shares, marked) in zip(axes.flat, panels, strict=False):
        _bars(ax, name, shares, marked)
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_visible(False)
    method = "exact" if odds.method == "exact" else f"Monte Carlo, {odds.samples} samples"
    note = "; orange: what the dice gave" if odds.happened is not None else ""
    heading = f"{title}: command {odds.command} ({odds.action}), {method}{note}"
    fig.suptitle(heading, fontsize=11, wrap=True)
    fig.tight_layout()
    return fig


def luck_figure(luck: Luck, title: str | None = None) -> Any:
    """Each side's luck over the battle(s): its running luck percentile after each roll that
    mattered to it (0.5: as lucky as fair dice make the typical battle)."""
    fig = _figure(8, 4)
    ax = fig.subplots()
    for side, points in luck_over_time(luck).items():
        ax.plot([n for n, _ in points], [p for _, p in points], marker=".", label=side)
    ax.axhline(0.5, color="grey", linestyle="--", linewidth=1)
    ax.set_ylim(0, 1)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # rolls are counted: 1, 2, 3
    ax.set_xlabel("rolls that mattered to the side, in order")
    ax.set_ylabel("luck percentile so far")
    default = f"luck over {len(luck.battles)} battle(s): {', '.join(luck.battles)}"
    ax.set_title(title or default, fontsize=10)
    if ax.get_legend_handles_labels()[0]:
        ax.legend()
    fig.tight_layout()
    return fig


__all__ = [
    "FORMATS",
    "NEEDS",
    "PlotError",
    "available",
    "image",
    "luck_figure",
    "odds_figure",
    "odds_panels",
]
