"""Two or more choices side by side (which weapon, which target, charge or not): each a command
from the same state, explored by the same procedures, and the figures that tell them apart in
one table."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import msgspec

from blowbyblow.replay.odds.answers import Estimate, Odds
from blowbyblow.replay.odds.explore import HowToExplore, Situation, command_odds
from blowbyblow.replay.odds.paths import OddsError


class Row(msgspec.Struct, frozen=True, kw_only=True):
    """One figure for each choice, in the choices' order."""

    what: str
    values: list[Estimate]


class Comparison(msgspec.Struct, frozen=True, kw_only=True):
    """The choices' labels, the figures that differ between them (each side's expected net
    loss first: lower is better for that side), and each choice's whole odds."""

    labels: list[str]
    rows: list[Row]
    odds: list[Odds]


def compare_odds(
    at: Situation, choices: Sequence[tuple[str, Any]], how: HowToExplore | None = None
) -> Comparison:
    """The odds of each ``(label, command)`` in ``choices``, each from ``at``'s state as the
    command ``at`` stands for, side by side."""
    if len(choices) < 2:
        raise OddsError("a comparison needs two choices or more")
    how = how or HowToExplore()
    odds = [command_odds(dataclasses.replace(at, command=c), how) for _, c in choices]
    rows: list[Row] = []
    for i, side in enumerate(odds[0].sides):
        rows.append(
            Row(
                what=f"{side.side}: expected net loss",
                values=[o.sides[i].expected_net_loss for o in odds],
            )
        )
    for i, tally in enumerate(odds[0].tallies):
        rows.append(
            Row(what=f"{tally.name} (expected)", values=[o.tallies[i].expected for o in odds])
        )
        for j, share in enumerate(tally.by_side):
            rows.append(
                Row(
                    what=f"{tally.name} by {share.side} (expected)",
                    values=[o.tallies[i].by_side[j].expected for o in odds],
                )
            )
    for i, unit in enumerate(odds[0].units):
        rows.append(
            Row(what=f"{unit.name} [{unit.id}] removed", values=[o.units[i].removed for o in odds])
        )
        rows.append(
            Row(
                what=f"{unit.name} [{unit.id}] wounds lost (expected)",
                values=[o.units[i].expected_wounds_lost for o in odds],
            )
        )
    kept = [r for r in rows if any(v.value for v in r.values)]
    return Comparison(labels=[label for label, _ in choices], rows=kept, odds=odds)


__all__ = ["Comparison", "Row", "compare_odds"]
