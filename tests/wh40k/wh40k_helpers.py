"""Small builders for the wh40k-2e tests: profiles, weapons, a battle played with listed dice."""

from __future__ import annotations

from typing import Any, TypeVar

from blowbyblow.domain.core import Event
from blowbyblow.domain.system import Scenario
from blowbyblow.domain.wh40k.setup import ModelProfile, Weapon, Wh40kSetup
from blowbyblow.replay.engine.dice import ListedDice, ScriptedChoices
from blowbyblow.replay.engine.script import Played, play

E = TypeVar("E", bound=Event)

SWORD = Weapon(id="sword", name="power sword", strength=5, save_modifier=-3, parry=True)
SWORD2 = Weapon(id="sword2", name="second sword", strength=4, save_modifier=-1, parry=True)
KNIFE = Weapon(id="knife", name="knife")  # as user, save modifier from Strength
AXE = Weapon(id="axe", name="power axe", strength=5, save_modifier=-2)
PISTOL = Weapon(id="pistol", name="laspistol", strength=3, save_modifier=-1)
HAMMER = Weapon(id="hammer", name="thunder hammer", strength=8, save_modifier=-5, damage="D3")
RIFLE = Weapon(id="rifle", name="lasgun", close_combat=False, strength=3, save_modifier=-1)
ALL_WEAPONS = [SWORD, SWORD2, KNIFE, AXE, PISTOL, HAMMER, RIFLE]


def model(id: str, player: str, **kw: Any) -> ModelProfile:
    base: dict[str, Any] = {"ws": 4, "s": 3, "t": 3, "w": 1, "i": 3, "a": 1, "save": None}
    base.update(kw)
    return ModelProfile(id=id, player=player, **base)


def setup(
    *models: ModelProfile, contacts: list[tuple[str, str]] | None = None, first_player: str = ""
) -> Wh40kSetup:
    return Wh40kSetup(
        models=list(models),
        weapons=ALL_WEAPONS,
        contacts=contacts or [],
        first_player=first_player,
    )


def run(
    the_setup: Wh40kSetup,
    commands: list[Any],
    dice: list[int],
    rulings: dict[str, str] | None = None,
    choices: dict[str, str] | None = None,
) -> Played:
    """Play ``commands`` with the listed ``dice``, every one of which must be used."""
    listed = ListedDice(dice)
    played = play(
        Scenario(
            ruleset="wh40k-2e",
            label="test",
            rulings=rulings or {},
            setup=the_setup,
            commands=commands,
        ),
        dice=listed,
        choices=ScriptedChoices(choices or {}),
    )
    assert listed.unused == 0, f"{listed.unused} listed dice were not used"
    return played


def of(played: Played, kind: type[E]) -> list[E]:
    return [e for e in played.events if isinstance(e, kind)]


def one(played: Played, kind: type[E], **match: Any) -> E:
    found = [e for e in of(played, kind) if all(getattr(e, k) == v for k, v in match.items())]
    assert len(found) == 1, f"expected one {kind.__name__} {match}, found {found}"
    return found[0]
