"""The branches the Necromunda odds merge by the wounds written alike (``odds.unread``,
``sums.settled``), checked off the demos' own states: fighters with more than one wound (a hit
leaves them Standing with other wounds lost, so branches with other wounds lost meet), Flesh Wounds
already taken, a fighter of a third gang, and other rulings and choices; the older charge with its
pistols' Firepower dice explored once (``OddsRules.unread_rolls``), the ammo symbol on a 1 so that
the first face explored rolls the Ammo check (the fifteenth sitting's review: 160 random older
states, rulings and Ammo values gave no answer other than the whole state's). Each answer is the
graph's that writes the whole state (``unread=False``), and each fight's outcomes, every one in
turn the target, have the tree's probability (``replay/odds/chance.py``). Found by the fourteenth
sitting's review, which tried such states at random for an answer that differs."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any, cast

import msgspec
import pytest
from test_sharing import DEMOS, GRAPH_BUDGET, _plain, _prepared

from blowbyblow.replay.odds import sharing, sums
from blowbyblow.replay.odds.answers import Margins, Weights
from blowbyblow.replay.odds.chance import Explorer
from blowbyblow.replay.odds.outcomes import Outcome
from blowbyblow.replay.odds.sharing import Sharer

# (demo command, rulings, choices, each fighter's changes)
Case = tuple[str, dict[str, str], dict[str, str], dict[str, dict[str, Any]]]

CHARGES: list[Case] = [
    (
        "necromunda-2023#1",
        {},
        {},
        {
            "krug": {"w": 3, "wounds": 3},
            "vex": {"w": 3, "wounds": 2, "flesh_wounds": 1},
            "lia": {"w": 2, "wounds": 2},
            "zia": {"w": 2, "wounds": 2},
        },
    ),
    (
        "necromunda-2023#1",
        {"coup-de-grace-effect": "injury-dice"},
        {"react/vex/react": "decline"},
        {"krug": {"w": 3, "wounds": 2}, "vex": {"w": 2, "wounds": 2, "flesh_wounds": 1}},
    ),
    (
        "necromunda-2023#1",
        {},
        {},
        {
            "zia": {"gang": "cawdor", "w": 2, "wounds": 2},
            "krug": {"w": 3, "wounds": 3},
            "vex": {"w": 2, "wounds": 2},
        },
    ),
    # the older rules: every pistol's Firepower dice explored once with the ammo symbol on a 1
    # (the Ammo check rolled, failed on that first face), the fighters' wounds as above
    (
        "necromunda-legacy#1",
        {"firepower-ammo-face": "1", "coup-de-grace-effect": "injury-dice"},
        {},
        {
            "vex": {"w": 3, "wounds": 1},
            "zia": {"w": 3, "wounds": 2, "flesh_wounds": 2},
        },
    ),
]
FIGHTS: list[Case] = [
    (
        "necromunda-2023#2",
        {},
        {},
        {"krug": {"w": 3, "wounds": 3}, "lia": {"w": 3, "wounds": 3}, "vex": {"flesh_wounds": 2}},
    ),
    (
        "necromunda-legacy#2",
        {"coup-de-grace-effect": "injury-dice"},
        {},
        {"krug": {"w": 3, "wounds": 3}, "lia": {"w": 2, "wounds": 2}},
    ),
]
CHARGE_IDS = [
    "2023-charge",
    "2023-charge-injury-dice-vex-declines",
    "2023-charge-third-gang",
    "legacy-charge-ammo-symbol-on-1",
]
FIGHT_IDS = ["2023-fight", "legacy-fight-injury-dice"]


def _case(case: Case) -> tuple[Any, Any, Any, Outcome | None]:
    name, rulings, choices, changes = case
    [(_, sc, number)] = [d for d in DEMOS if d[0] == name]
    sc = msgspec.structs.replace(
        sc, rulings={**sc.rulings, **rulings}, choices={**sc.choices, **choices}
    )
    measure, cmd, group, target = _prepared(sc, number)
    fighters = dict(cmd.state.fighters)
    for fid, change in changes.items():
        fighters[fid] = msgspec.structs.replace(fighters[fid], **change)
    state = msgspec.structs.replace(cmd.state, fighters=fighters)
    return measure, dataclasses.replace(cmd, state=state), group, target


@pytest.fixture
def moved(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many answers met with other wounds lost took them (``sums.settled``): a case that
    moves none checks nothing of it."""
    count = [0]

    def counted(value: Any, before: Any, now: Any, wanted: Any) -> Any:
        count[0] += before != now
        return sums.settled(value, before, now, wanted)

    monkeypatch.setattr(sharing, "settled", counted)
    yield count


@pytest.mark.parametrize("case", CHARGES + FIGHTS, ids=CHARGE_IDS + FIGHT_IDS)
def test_the_answer_is_the_whole_states(case: Case, moved: list[int]) -> None:
    measure, cmd, group, target = _case(case)
    kw: dict[str, Any] = {"budget": 4 * GRAPH_BUDGET, "group": group, "target": target}
    whole = _plain(Sharer(cmd, measure, unread=False, **kw).margins())
    assert _plain(Sharer(cmd, measure, **kw).margins()) == whole
    assert moved[0] > 0


@pytest.mark.parametrize("case", FIGHTS, ids=FIGHT_IDS)
def test_every_outcome_watched_for_is_the_trees(case: Case, moved: list[int]) -> None:
    measure, cmd, group, _ = _case(case)
    tree = Explorer(cmd, budget=4 * GRAPH_BUDGET, group=group, counts=False).explore().dist
    outcomes = cast(list[Outcome], list(tree))
    weights = Weights(outcomes, [tree[o] for o in outcomes], exact=True)
    for target in outcomes[::3]:
        expected = Margins.of_joint(measure, weights, target).happened
        sharer = Sharer(cmd, measure, budget=GRAPH_BUDGET, group=group, target=target)
        assert sharer.margins().happened == expected, target
    assert moved[0] > 0
