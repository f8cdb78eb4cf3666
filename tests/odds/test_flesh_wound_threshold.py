"""A fighter's Flesh Wounds written alike while the only step left to read them is the hit being
resolved, past its Wound roll (fifteenth sitting, ``odds.unread`` with ``Struck.to_hit``,
``Struck.reacted`` and ``Struck.injuring``).

Flesh Wounds are read as Toughness by a Wound roll against the fighter, and by each Flesh Wound
its Injury dice inflict, which takes it Out of Action at Toughness 0 (N23 / N17 Resolving Hits
1 and 3); the outcome does not show them. So once a hit has wounded, with no later hit of the
attack at the same fighter, no reactor left that can choose it and no Coup de Grace to roll
Injury dice on it, they are read only as whether the hit's Injury dice (at most one a point of
Damage, at least one) can bring the Toughness to 0: every Toughness above that reads alike.
The answers are the graph's that writes the whole state (``unread=False``) and, for the fights,
the tree's; a threshold one lower changes them."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from test_merges_perturbed import _case as _changed
from test_necromunda_merges import _trees_answer
from test_sharing import GRAPH_BUDGET, _plain

from blowbyblow.domain.necromunda.odds import Done, unread
from blowbyblow.replay.odds.sharing import Sharer

# (demo command, each fighter's changes): Vex one Flesh Wound from Out of Action by Flesh
# Wounds after Krug's first (the charge's hits all at her), Krug's own Toughness low for the
# Reaction attacks at him, Lia's for the fight's axe
CASES: list[tuple[str, dict[str, dict[str, Any]]]] = [
    ("necromunda-2023#1", {"vex": {"flesh_wounds": 1}, "krug": {"flesh_wounds": 2}}),
    ("necromunda-legacy#1", {"vex": {"flesh_wounds": 1}, "krug": {"flesh_wounds": 2}}),
    # Vex's Toughness 4 and Krug's one Flesh Wound: branches met by the threshold (264 runs
    # where 279 without it)
    ("necromunda-2023#1", {"vex": {"t": 4}, "krug": {"flesh_wounds": 1}}),
    ("necromunda-legacy#1", {"vex": {"t": 4}, "krug": {"flesh_wounds": 1}}),
    ("necromunda-2023#2", {"lia": {"flesh_wounds": 1, "w": 2, "wounds": 2}}),
    ("necromunda-legacy#2", {"lia": {"flesh_wounds": 1, "w": 2, "wounds": 2}}),
]
IDS = [
    "2023-charge",
    "legacy-charge",
    "2023-charge-tough-vex",
    "legacy-charge-tough-vex",
    "2023-fight",
    "legacy-fight",
]


def _case(name: str, changes: dict[str, dict[str, Any]]) -> tuple[Any, Any, Any, Any]:
    return _changed((name, {}, {}, changes))


def _claiming(measure: Any, claim: Any) -> Any:
    """``measure`` with ``unread`` called on what ``claim`` makes of the record (``Done``)."""

    def claimed(state: Any, done: Done | None) -> Any:
        return unread(state, None if done is None else claim(done))

    odds = dataclasses.replace(measure.system.odds, unread=claimed)
    return dataclasses.replace(measure, system=dataclasses.replace(measure.system, odds=odds))


@pytest.mark.parametrize(("name", "changes"), CASES, ids=IDS)
def test_the_answer_is_the_whole_states(name: str, changes: dict[str, dict[str, Any]]) -> None:
    measure, cmd, group, target = _case(name, changes)
    kw: dict[str, Any] = {"budget": 4 * GRAPH_BUDGET, "group": group, "target": target}
    answer = _plain(Sharer(cmd, measure, **kw).margins())
    assert _plain(Sharer(cmd, measure, unread=False, **kw).margins()) == answer
    if name.endswith("#2"):
        assert _trees_answer(measure, cmd, group, target) == answer


@pytest.mark.parametrize("name", ["necromunda-2023#1", "necromunda-legacy#1"])
def test_the_demo_charges_take_fewer_runs(name: str) -> None:
    """The demo's charges, as they are: the same answer as without the threshold, in fewer
    runs (279 to 264 each)."""
    measure, cmd, group, target = _case(name, {})
    kw: dict[str, Any] = {"budget": 4 * GRAPH_BUDGET, "group": group, "target": target}
    claimed = Sharer(cmd, measure, **kw)
    without = Sharer(cmd, _claiming(measure, lambda d: d._replace(last=None)), **kw)
    assert _plain(claimed.margins()) == _plain(without.margins())
    assert claimed.runs < without.runs


def _one_lower(done: Done) -> Done:
    return done if done.last is None else done._replace(injuring=done.injuring - 1)


def test_a_threshold_one_lower_changes_the_answer() -> None:
    """The comparison above can fail: a Toughness one above the Flesh Wounds to come read
    alike with any higher (Vex, one Flesh Wound from Out of Action, met with Vex two away)
    gives the 2023 charge another answer than the whole state's."""
    measure, cmd, group, target = _case(*CASES[0])
    kw: dict[str, Any] = {"budget": 4 * GRAPH_BUDGET, "group": group, "target": target}
    whole = _plain(Sharer(cmd, measure, unread=False, **kw).margins())
    assert _plain(Sharer(cmd, _claiming(measure, _one_lower), **kw).margins()) != whole
