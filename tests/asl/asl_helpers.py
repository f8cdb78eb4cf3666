"""Small builders for ASL test setups (counters named as in the rulebook: 4-6-7 is FP 4,
range 6, morale 7)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict, Unpack

from blowbyblow.domain.asl.commands import AslCommand
from blowbyblow.domain.asl.setup import (
    LocationSetup,
    MeleeSetup,
    Setup,
    Terrain,
    UnitSetup,
    VehicleSetup,
)
from blowbyblow.domain.core import Event
from blowbyblow.domain.system import Scenario
from blowbyblow.replay.engine.dice import ListedDice, ScriptedChoices
from blowbyblow.replay.engine.script import Played, play

HS_OF = {
    "4-6-7": (2, "2-4-7"),
    "4-4-7": (2, "2-4-7"),
    "4-2-6": (2, "2-2-6"),
    "5-4-8": (2, "2-3-8"),
    "6-5-8": (3, "3-3-8"),
    "6-2-8": (3, "3-2-8"),
    "5-2-7": (2, "2-2-7"),
    "3-3-8": (1, "1-3-8"),
}


def squad(uid: str, side: str, loc: str, name: str, **kw: Any) -> UnitSetup:
    fp, _, morale = (int(x) for x in name.split("-"))
    hs_fp, hs_name = HS_OF.get(name, (fp // 2, f"HS {name}"))
    kw.setdefault("kind", "squad")
    return UnitSetup(
        id=uid,
        side=side,
        location=loc,
        name=name,
        fp=fp,
        morale=morale,
        hs_fp=hs_fp,
        hs_name=hs_name,
        **kw,
    )


def hs(uid: str, side: str, loc: str, name: str, **kw: Any) -> UnitSetup:
    fp, _, morale = (int(x) for x in name.split("-"))
    return UnitSetup(
        id=uid,
        side=side,
        location=loc,
        name=name,
        fp=fp,
        morale=morale,
        kind=kw.pop("kind", "hs"),
        **kw,
    )


def leader(uid: str, side: str, loc: str, name: str, **kw: Any) -> UnitSetup:
    morale, drm = name.split("-")
    return UnitSetup(
        id=uid,
        side=side,
        location=loc,
        name=name,
        kind="leader",
        morale=int(morale),
        leadership=-int(drm),
        **kw,
    )


def loc(
    lid: str, terrain: Terrain = "open", adjacent: tuple[str, ...] = (), **kw: Any
) -> LocationSetup:
    return LocationSetup(id=lid, terrain=terrain, adjacent=list(adjacent), **kw)


def setup(
    units: list[UnitSetup],
    locations: list[LocationSetup],
    vehicles: list[VehicleSetup] | None = None,
    melee: list[str] | None = None,
    sides: tuple[str, str] = ("German", "Russian"),
) -> Setup:
    return Setup(
        sides=list(sides),
        locations=locations,
        units=units,
        vehicles=vehicles or [],
        melee=[MeleeSetup(location=m, since=0) for m in (melee or [])],
    )


class RunOptions(TypedDict, total=False):
    """What a test may add to a run: scripted choices, rulings, and whether every listed die
    must be used (default: yes)."""

    choices: dict[str, str]
    rulings: dict[str, str]
    all_dice_used: bool


def run(
    s: Setup, commands: Sequence[AslCommand], dice: list[int], **options: Unpack[RunOptions]
) -> Played:
    choices = options.get("choices", {})
    listed = ListedDice(dice)
    played = play(
        Scenario(
            ruleset="asl",
            label="test",
            setup=s,
            commands=list(commands),
            rulings=options.get("rulings", {}),
            dice=dice,
            choices=choices,
        ),
        dice=listed,
        choices=ScriptedChoices(choices),
    )
    if options.get("all_dice_used", True):
        assert listed.unused == 0, f"{listed.unused} listed dice were not used"
    return played


def of(played: Played, kind: type[Any]) -> list[Any]:
    return [e for e in played.events if isinstance(e, kind)]


def one(played: Played, kind: type[Any]) -> Any:
    found = of(played, kind)
    assert len(found) == 1, f"expected one {kind.__name__}, got {len(found)}"
    return found[0]


def names(events: list[Event]) -> list[str]:
    return [type(e).__name__ for e in events]
