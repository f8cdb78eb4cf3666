"""Small scenarios, one per game system, whose odds can be worked out by hand."""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Generator, Sequence
from typing import Any, TypedDict, Unpack

from blowbyblow.domain.core import Event
from blowbyblow.domain.system import AnyScenario
from blowbyblow.replay.engine.dice import ScriptedChoices
from blowbyblow.replay.engine.driver import Table
from blowbyblow.replay.engine.scenario import scenario_from_dict
from blowbyblow.replay.engine.script import play
from blowbyblow.replay.odds.chance import Command, Explorer, LeafFunction, matcher
from blowbyblow.replay.odds.explore import Situation, scenario_command

# Necromunda (2023): Krug (WS 4+, one Attack, a knife: S 3, AP -, D 1) fights Vex (T 3, W 1, no
# save); Brak, Krug's friend, is engaged with Vex alone, so Krug claims an assist (+1).
NECROMUNDA = """
ruleset = "necromunda-2023"
label = "Krug fights Vex"
gangs = [{ id = "goliath" }, { id = "escher" }]
engagements = [{ a = "krug", b = "vex" }, { a = "brak", b = "vex" }]

[[fighters]]
id = "krug"
gang = "goliath"
ws = 4
a = 1
vision = ["vex"]
weapons = [{ id = "knife", traits = ["Melee"] }]

[[fighters]]
id = "brak"
gang = "goliath"
status = "Standing & Engaged"

[[fighters]]
id = "vex"
gang = "escher"
status = "Standing & Engaged"

[[actions]]
type = "fight"
attacker = "krug"
targets = ["vex"]
weapons = ["knife"]
"""

# ASL: a 4-6-7 attacks a 4-4-7 in Close Combat, 4 FP against 4 FP (1-1, Kill Number 5), in open
# ground (no Ambush) or in a building (both sides roll for Ambush first).
ASL = """
ruleset = "asl"
label = "a 4-6-7 against a 4-4-7"
sides = ["German", "Russian"]
dice = [3, 2]

[[locations]]
id = "X1"
terrain = "{terrain}"

[[units]]
id = "g"
side = "German"
kind = "squad"
name = "4-6-7"
fp = 4
morale = 7
hs_fp = 2
hs_name = "2-4-7"
location = "X1"

[[units]]
id = "r"
side = "Russian"
kind = "squad"
name = "4-4-7"
fp = 4
morale = 7
hs_fp = 2
hs_name = "2-4-7"
location = "X1"

[[actions]]
type = "closecombat"
turn = 1
attacker = "German"
location = "X1"
attacks = [{{ by = ["g"], targets = ["r"] }}]
"""

# 40K 2nd edition: Gorg (A 2) and Varro (A 1), both WS 4, already in base contact, no charge this
# turn and no parrying weapon.
WH40K = """
ruleset = "wh40k-2e"
label = "Gorg against Varro"
first_player = "Orks"
contacts = [["gorg", "varro"]]

[[models]]
id = "varro"
player = "Ultramarines"
ws = 4
s = 4
t = 4
i = 4
a = 1
save = 3

[[models]]
id = "gorg"
player = "Orks"
ws = 4
s = 4
t = 4
i = 3
a = 2
save = 6

[[actions]]
type = "fight"
model = "gorg"
"""

PARRY_WEAPONS = """
[[weapons]]
id = "sword"
parry = true

[[weapons]]
id = "main-gauche"
parry = true
"""
# Varro parries Gorg's 3 Attack dice once (a sword; Gorg's 2 highest read by their faces), or
# Gorg's 2 dice twice (and a main-gauche: both read; Varro's 2 dice, for two Close Combat
# weapons, read by their highest), under each ruling on what a parry does and which dice Fumbles and Critical Hits are counted on.
_ONE_PARRY = WH40K.replace("a = 2", "a = 3").replace(
    "a = 1\nsave = 3", 'a = 1\nsave = 3\nweapons = ["sword"]'
)
_TWO_PARRIES = WH40K.replace(
    "a = 1\nsave = 3", 'a = 1\nsave = 3\nweapons = ["sword", "main-gauche"]'
)
PARRIED: dict[str, tuple[str, dict[str, str]]] = {
    "one parry": (_ONE_PARRY, {}),
    "one parry, dice counted as rolled": (_ONE_PARRY, {"dice-counted": "as-rolled"}),
    "two parries": (_TWO_PARRIES, {}),
    "two parries, each die once, or the next-highest": (
        _TWO_PARRIES,
        {"parry-dice": "each-die-once", "parry-response": "reroll-or-next-highest"},
    ),
}


def parried(case: str) -> Situation:
    """Gorg against Varro with the parries of ``case`` (``PARRIED``)."""
    text, rulings = PARRIED[case]
    table = "".join(f'\n"{k}" = "{v}"' for k, v in rulings.items())
    return situation(scenario(text + PARRY_WEAPONS + ("\n[rulings]" + table if table else "")), 1)


# Gangfight: the Veteran (ATT 3, a sword: DAM 4 + 0) makes a Fight! attack on the Orc Brave
# (DEF 4, ARM 4, EN 4), base to base.
GANGFIGHT = """
ruleset = "gangfight"
label = "the Veteran's Fight!"

[[weapons]]
id = "sword"
kind = "hand"
dam = 0

[[fighters]]
id = "veteran"
side = "humans"
weapons = ["sword"]
profile = { mov = 4, att = 3, mrk = 3, def = 4, iv = 3, wp = 4, arm = 3, en = 4, dam = 4 }

[[fighters]]
id = "brave"
side = "orcs"
profile = { mov = 4, att = 4, mrk = 2, def = 4, iv = 3, wp = 3, arm = 4, en = 4, dam = 4 }

[[gaps]]
a = "veteran"
b = "brave"
inches = 0

[[actions]]
type = "fight"
attacker = "veteran"
target = "brave"
weapons = ["sword"]
"""


def scenario(text: str, **changes: Any) -> AnyScenario:
    data = tomllib.loads(text)
    data.update(changes)
    return scenario_from_dict(data, "test scenario")


def asl(terrain: str = "open", **changes: Any) -> AnyScenario:
    return scenario(ASL.format(terrain=terrain), **changes)


def situation(sc: AnyScenario, number: int = 1) -> Situation:
    return scenario_command(sc, number)[0]


class HowToExplore(TypedDict, total=False):
    until: Sequence[str]  # stop after the first event of one of these types
    budget: int  # default 5000
    traced: bool  # default True: group equivalent faces
    group: Sequence[str]  # default: the system's own order-insensitive rolls
    counts: bool  # default True: a roll read by ``counts`` is explored once per count


def explorer(at: Situation, leaf: LeafFunction, **how: Unpack[HowToExplore]) -> Explorer:
    """An explorer of ``at``'s command measuring each outcome with ``leaf`` (the rules' default
    choices)."""
    until = how.get("until", ())
    group = how.get("group")
    table = Table(
        system=at.system, rulings=at.rulings, dice=_Unused(), choices=ScriptedChoices(), quiet=True
    )
    cmd = Command(
        table=table,
        state=at.state,
        command=at.command,
        index=at.index,
        leaf=leaf,
        until=(lambda e: type(e).__name__ in until) if until else None,
    )
    patterns = at.system.odds.order_insensitive if group is None else group
    return Explorer(
        cmd,
        budget=how.get("budget", 5000),
        group=matcher(list(patterns)),
        traced=how.get("traced", True),
        counts=how.get("counts", True),
    )


class _Unused:
    source = "unused"

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        raise AssertionError("the explorer answers every roll")


def recorded(sc: AnyScenario) -> list[Event]:
    """The scenario played in memory with its own dice: the battle's events from position 1."""
    return play(sc).events


__all__ = [
    "ASL",
    "GANGFIGHT",
    "NECROMUNDA",
    "PARRIED",
    "WH40K",
    "asl",
    "explorer",
    "parried",
    "recorded",
    "scenario",
    "situation",
]


def drive(g: Generator[Any, Any, Any], answers: list[int]) -> Any:
    """Send each of ``answers`` to a procedure waiting on single dice; what it returns."""
    try:
        for a in answers:
            g.send((a,))
    except StopIteration as stop:
        return stop.value
    raise AssertionError("the procedure asked for more")


def started(
    outer: Callable[[list[int]], Generator[Any, Any, Any]],
) -> tuple[Generator[Any, Any, Any], Any]:
    """``outer([2, 3])`` at its second item's first roll (the first item's rolled 1 and 2),
    with the request it waits on."""
    g = outer([2, 3])
    request = next(g)
    g.send((1,))
    request = g.send((2,))
    return g, request
