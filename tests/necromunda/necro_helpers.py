"""Helpers for the Necromunda tests: small setups, playing commands with listed dice, loading
the example scenario files."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from blowbyblow.domain.core import Event
from blowbyblow.domain.necromunda.commands import (
    Allocation,
    Charge,
    CoupDeGraceAction,
    Fight,
    NecromundaCommand,
)
from blowbyblow.domain.necromunda.setup import (
    Barricade,
    Engagement,
    Fighter,
    Gang,
    NecromundaSetup,
    Vehicle,
    Weapon,
)
from blowbyblow.domain.system import Scenario
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import Played, play

E = TypeVar("E", bound=Event)
NecroScenario = Scenario[NecromundaSetup, NecromundaCommand]
SCENARIOS = Path(__file__).resolve().parents[2] / "cli" / "scenarios"
RESERVED = ("ruleset", "label", "rulings", "seed", "dice", "choices", "actions")

KNIFE = Weapon(id="knife", ap=-1, traits=["Melee"])
AXE = Weapon(id="axe", s_bonus=1, ap=-1, traits=["Melee"])
CLUB = Weapon(id="club", s_bonus=1, traits=["Melee"])
PISTOL = Weapon(id="pistol", s=3, traits=["Sidearm"], ammo=4)
PISTOL2 = Weapon(id="pistol2", s=3, traits=["Sidearm"], ammo=4)
MAUL = Weapon(id="maul", s_bonus=2, ap=-1, d=2, traits=["Melee", "Unwieldy"])
RIFLE = Weapon(id="rifle", s=3, traits=["Basic"])
WHIP = Weapon(id="whip", traits=["Melee", "Versatile"], versatile_range=2.0)
VEHICLE = Vehicle(toughness_front=6, toughness_side=5, toughness_rear=4, hull_points=2)

__all__ = [
    "AXE",
    "CLUB",
    "KNIFE",
    "MAUL",
    "PISTOL",
    "PISTOL2",
    "RESERVED",
    "RIFLE",
    "SCENARIOS",
    "VEHICLE",
    "WHIP",
    "Allocation",
    "Barricade",
    "Charge",
    "CoupDeGraceAction",
    "Engagement",
    "Fight",
    "Gang",
    "NecroScenario",
    "Vehicle",
    "fighter",
    "load_scenario",
    "of",
    "one",
    "one_against_two",
    "run",
    "setup",
    "vehicle_and_interferer",
]


def fighter(fid: str, gang: str, **kw: Any) -> Fighter:
    base: dict[str, Any] = {
        "ws": 3,
        "s": 3,
        "t": 3,
        "w": 1,
        "a": 1,
        "weapons": [KNIFE],
        "vision": [],
    }
    base.update(kw)
    return Fighter(id=fid, gang=gang, **base)


def setup(
    fighters: Sequence[Fighter],
    engagements: Sequence[tuple[str, str] | Engagement] = (),
    barricades: Sequence[Barricade] = (),
    within_3: Sequence[Sequence[str]] = (),
    within_6: Sequence[Sequence[str]] = (),
) -> NecromundaSetup:
    gangs = list(dict.fromkeys(f.gang for f in fighters))
    return NecromundaSetup(
        gangs=[Gang(id=g) for g in gangs],
        fighters=list(fighters),
        engagements=[
            e if isinstance(e, Engagement) else Engagement(a=e[0], b=e[1]) for e in engagements
        ],
        barricades=list(barricades),
        within_3=[list(p) for p in within_3],
        within_6=[list(p) for p in within_6],
    )


def one_against_two() -> tuple[NecromundaSetup, Fight]:
    """a (2 Attacks, knife) engaged with b and c, all three facing each other; a Fight giving one
    die to each (so each of b and c interferes with the attack on the other)."""
    s = setup(
        [
            fighter("a", "g", a=2, vision=["b", "c"]),
            fighter("b", "e", vision=["a"]),
            fighter("c", "e", vision=["a"]),
        ],
        [("a", "b"), ("a", "c")],
    )
    cmd = Fight(
        attacker="a",
        weapons=("knife",),
        allocation=(
            Allocation(weapon="knife", target="b", dice=1),
            Allocation(weapon="knife", target="c", dice=1),
        ),
    )
    return s, cmd


def vehicle_and_interferer() -> NecromundaSetup:
    """a in contact with the front of vehicle v and with an enemy fighter i, who could
    interfere; a sees only v."""
    return setup(
        [
            fighter("a", "g", vision=["v"]),
            fighter("i", "e", vision=["a"]),
            fighter("v", "e", vehicle=VEHICLE, weapons=[]),
        ],
        [Engagement(a="a", b="v", facing="front"), Engagement(a="a", b="i")],
    )


def run(
    the_setup: NecromundaSetup,
    commands: Sequence[NecromundaCommand],
    dice: Sequence[int] = (),
    *,
    ruleset: str = "necromunda-2023",
    **given: dict[str, str],
) -> Played:
    """Play ``commands`` with listed ``dice``; ``rulings=`` and ``choices=`` as in a scenario."""
    unknown = set(given) - {"rulings", "choices"}
    assert not unknown, f"run() takes rulings= and choices=, not {unknown}"
    return play(
        NecroScenario(
            ruleset=ruleset,
            label="test",
            rulings=given.get("rulings", {}),
            setup=the_setup,
            commands=list(commands),
            dice=list(dice),
            choices=given.get("choices", {}),
        )
    )


def load_scenario(path: Path, ruleset_id: str | None = None) -> NecroScenario:
    """Exactly as the CLI loads a scenario file."""
    data: dict[str, Any] = tomllib.loads(path.read_text())
    ruleset = get_game_system(ruleset_id or data["ruleset"])
    rest = {k: v for k, v in data.items() if k not in RESERVED}
    setup = msgspec.convert(rest, NecromundaSetup)
    commands = [msgspec.convert(a, ruleset.command_type) for a in data.get("actions", [])]
    return NecroScenario(
        ruleset=ruleset.id,
        label=data["label"],
        rulings=data.get("rulings", {}),
        setup=setup,
        commands=commands,
        seed=data.get("seed"),
        dice=data.get("dice"),
        choices=data.get("choices", {}),
    )


def of(played: Played, kind: type[E]) -> list[E]:
    return [e for e in played.events if isinstance(e, kind)]


def one(played: Played, kind: type[E]) -> E:
    found = of(played, kind)
    assert len(found) == 1, f"expected one {kind.__name__}, got {found}"
    return found[0]
