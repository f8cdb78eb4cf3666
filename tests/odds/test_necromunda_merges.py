"""The Necromunda charges' branches that meet since the thirteenth sitting, each by a claim
about the rules, and what would go wrong if a claim said more than the rules do.

- Flesh Wounds of a fighter no attack left in the command can hit (``odds.unread`` with
  ``Struck``): once the attacker's hits are resolved, only the Reaction attacks (each at an
  enemy of its maker) and step 8's Coup de Grace (at a Seriously Injured fighter) are left.
- A Hit roll's natural, total and note only recorded (``Recorded``) while the older rules'
  Ammo check for a pistol is rolled between the roll and its events."""

from __future__ import annotations

import dataclasses
from typing import Any

import msgspec
import pytest
from test_sharing import DEMOS, GRAPH_BUDGET, _plain, _prepared

from blowbyblow.domain.necromunda.odds import Done, unread
from blowbyblow.domain.necromunda.state import SERIOUSLY_INJURED
from blowbyblow.replay.odds.sharing import Sharer


def _demo(name: str) -> tuple[Any, Any, Any, Any]:
    [(_, sc, number)] = [d for d in DEMOS if d[0] == name]
    return _prepared(sc, number)


def test_flesh_wounds_are_unread_where_no_attack_left_can_hit() -> None:
    """Krug's charge, his hits resolved, Vex and Lia (Escher) about to react: Vex, Standing,
    is hit by nobody else in the command (the reactors' targets are their enemies, Krug's
    side; the Coup de Grace only a Seriously Injured fighter), so her Flesh Wounds are
    written alike; Krug's are kept (both react at him), as are a Seriously Injured Escher's
    (a Coup de Grace reads them) and those of a fighter of a third gang (a reactor may
    choose it). Before the hits are resolved (no reactors noted) every one is kept. The
    outcome shows nothing written alike."""
    measure, cmd, _, _ = _demo("necromunda-2023#1")
    fighters = dict(cmd.state.fighters)
    for fid in ("krug", "vex", "lia", "zia"):
        fighters[fid] = msgspec.structs.replace(fighters[fid], flesh_wounds=1)
    fighters["lia"] = msgspec.structs.replace(fighters["lia"], status=SERIOUSLY_INJURED)
    fighters["zia"] = msgspec.structs.replace(fighters["zia"], gang="cawdor")
    state = msgspec.structs.replace(cmd.state, fighters=fighters)

    read = unread(state, Done(frozenset({"krug"}), ("vex", "lia"))).fighters
    assert read["vex"].flesh_wounds == 0
    assert [read[f].flesh_wounds for f in ("krug", "lia", "zia")] == [1, 1, 1]
    assert unread(state, Done(frozenset({"krug"}))) == state
    alike = unread(state, Done(frozenset({"krug"}), ("vex",)))
    assert measure.final(alike) == measure.final(state)
    # nobody reacts: only a Seriously Injured fighter can still be hit (the Coup de Grace)
    none = unread(state, Done(frozenset({"krug"}), ())).fighters
    assert [none[f].flesh_wounds for f in ("krug", "vex", "lia", "zia")] == [0, 0, 1, 0]


@pytest.mark.parametrize("name", ["necromunda-2023#1", "necromunda-legacy#1"])
def test_the_charges_answers_are_the_whole_states(name: str) -> None:
    """Both charges, every claim on: the answer of the graph that writes the whole state
    (``unread=False``) and every recorded value by value (``recorded=False``), fraction for
    fraction, in fewer runs than either."""
    measure, cmd, group, target = _demo(name)
    kw: dict[str, Any] = {"budget": 4 * GRAPH_BUDGET, "group": group, "target": target}
    alike = Sharer(cmd, measure, **kw)
    whole = Sharer(cmd, measure, unread=False, **kw)
    by_value = Sharer(cmd, measure, recorded=False, **kw)
    answer = _plain(alike.margins())
    assert _plain(whole.margins()) == answer
    assert _plain(by_value.margins()) == answer
    assert alike.runs < whole.runs
    assert alike.runs < by_value.runs or name == "necromunda-2023#1"  # no Ammo check in 2023


def test_claiming_the_attackers_side_unread_too_changes_the_answer() -> None:
    """The comparison above can fail: claimed as if nobody reacted (every fighter but a
    Seriously Injured one hit by no attack left once Krug's hits are resolved), Krug's Flesh
    Wounds, which Vex's and Lia's Wound rolls read as his Toughness, merge branches that go
    on otherwise, and the 2023 charge's answer changes."""
    measure, cmd, group, target = _demo("necromunda-2023#1")

    def as_if_nobody_reacted(state: Any, done: Done | None) -> Any:
        if done is not None and done.reactors is not None:
            done = Done(done.chose, ())
        return unread(state, done)

    odds = dataclasses.replace(measure.system.odds, unread=as_if_nobody_reacted)
    wrong = dataclasses.replace(measure, system=dataclasses.replace(measure.system, odds=odds))
    claimed = Sharer(cmd, wrong, budget=GRAPH_BUDGET, group=group, target=target)
    whole = Sharer(cmd, measure, budget=GRAPH_BUDGET, group=group, target=target, unread=False)
    assert _plain(claimed.margins()) != _plain(whole.margins())
