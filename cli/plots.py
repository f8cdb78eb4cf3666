"""Plots of odds and luck, drawn by matplotlib (``bxb odds --plot``, ``bxb luck --plot``): the
image is written to a file (PNG, SVG or PDF, by its suffix). matplotlib is imported only when a
plot is asked for; it comes with the ``plot`` extra (``pip install 'blowbyblow[plot]'``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.odds.answers import Odds, Share
from blowbyblow.replay.odds.luck import Luck, luck_over_time

SUFFIXES = (".png", ".svg", ".pdf")


class PlotError(BlowByBlowError):
    """A plot that cannot be drawn as asked."""


def _pyplot(path: Path) -> Any:
    if path.suffix.lower() not in SUFFIXES:
        raise PlotError(f"--plot {path}: the file must end in {', '.join(SUFFIXES)}")
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: no window, no display needed
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise PlotError("--plot needs matplotlib: pip install 'blowbyblow[plot]'") from e
    return plt


def _save(plt: Any, fig: Any, path: Path) -> None:
    try:
        fig.savefig(path, dpi=110, bbox_inches="tight", metadata=_metadata(path))
    except OSError as e:
        raise PlotError(f"--plot {path}: cannot write it ({e.strerror or e})") from e
    finally:
        plt.close(fig)


def _metadata(path: Path) -> dict[str, Any]:
    # No date or version in the file: the same figures give the same bytes.
    if path.suffix.lower() == ".png":
        return {"Software": None}
    if path.suffix.lower() == ".svg":
        return {"Date": None, "Creator": None}
    return {"CreationDate": None, "Producer": None, "Creator": None}


def _bars(ax: Any, title: str, shares: list[Share], marked: str | None) -> None:
    labels = [s.value for s in shares]
    values = [s.p.value for s in shares]
    colours = ["tab:orange" if v == marked else "tab:blue" for v in labels]
    ax.bar(range(len(labels)), values, color=colours)
    low = [s.p.value - s.p.low for s in shares]
    high = [s.p.high - s.p.value for s in shares]
    if any(low) or any(high):  # Monte Carlo: the 95% intervals
        ax.errorbar(range(len(labels)), values, yerr=[low, high], fmt="none", ecolor="black")
    ax.set_xticks(range(len(labels)), labels, rotation=30 if len(labels) > 4 else 0, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("probability")
    ax.set_title(title, fontsize=10)


def plot_odds(odds: Odds, title: str, path: Path) -> None:
    """Each outcome's probability as bars: each side's net loss, and the status after of each
    unit whose status may change; what the dice gave (when known) in orange."""
    plt = _pyplot(path)
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
    cols = 2 if len(panels) > 1 else 1
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5.5 * cols, 3.2 * rows), squeeze=False)
    for ax, (name, shares, marked) in zip(axes.flat, panels, strict=False):
        _bars(ax, name, shares, marked)
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_visible(False)
    method = "exact" if odds.method == "exact" else f"Monte Carlo, {odds.samples} samples"
    note = "; orange: what the dice gave" if happened is not None else ""
    fig.suptitle(f"{title}: command {odds.command} ({odds.action}), {method}{note}", fontsize=11)
    fig.tight_layout()
    _save(plt, fig, path)


def plot_luck(luck: Luck, path: Path) -> None:
    """Each side's luck over the battle(s): its running luck percentile after each roll that
    mattered to it (0.5: as lucky as fair dice make the typical battle)."""
    plt = _pyplot(path)
    fig, ax = plt.subplots(figsize=(8, 4))
    for side, points in luck_over_time(luck).items():
        ax.plot([n for n, _ in points], [p for _, p in points], marker=".", label=side)
    ax.axhline(0.5, color="grey", linestyle="--", linewidth=1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("rolls that mattered to the side, in order")
    ax.set_ylabel("luck percentile so far")
    ax.set_title(f"luck over {len(luck.battles)} battle(s): {', '.join(luck.battles)}", fontsize=10)
    ax.legend()
    fig.tight_layout()
    _save(plt, fig, path)


__all__ = ["PlotError", "plot_luck", "plot_odds"]
