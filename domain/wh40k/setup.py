"""The setup of a 40K 2nd edition hand-to-hand battle (what a scenario file gives) and its checks.

The setup's fields are the top-level keys of a scenario file (``[[models]]``, ``[[weapons]]``,
``contacts``, ``first_player``). A profile uses the 2nd edition characteristics: WS, S, T, W, I,
A, and an armour save (``save = 3`` is a 3+ save on one D6; leave it out for no save).
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from blowbyblow.domain.core import SetupError

# Bounds (docs/scenarios.md, Bounds): 2nd edition characteristics run from 0 to 10; these are
# wider, and narrow enough that no value makes a command run for long.
MAX_MODELS = 100
MAX_WEAPONS = 100
MAX_CONTACTS = 1000
MAX_DAMAGE = 20
MAX_DAMAGE_DICE = 10  # "10D6" at most
MAX_DAMAGE_SIDES = 20
Stat = Annotated[int, Meta(ge=0, le=20)]
Modifier = Annotated[int, Meta(ge=-10, le=10)]
Save = Annotated[int, Meta(ge=1, le=6)]
Damage = Annotated[int, Meta(ge=0, le=MAX_DAMAGE)] | Annotated[str, Meta(max_length=16)]


class Weapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A weapon profile as used in hand-to-hand combat.

    ``strength`` None means "as user" (the wielder's S, plus ``strength_bonus``);
    ``save_modifier`` None means "from Strength" (ruling ``strength-save-modifier``);
    ``damage`` is a number of wounds or a dice expression ``"D3"`` / ``"D6"``;
    ``close_combat`` marks the Close Combat rule (counts for the two-weapon Attack die and may
    be used to resolve hits); ``parry`` marks the Parry rule (one parry per such weapon)."""

    id: str
    name: str = ""
    close_combat: bool = True
    strength: Stat | None = None
    strength_bonus: Modifier = 0
    damage: Damage = 1
    save_modifier: Modifier | None = None
    parry: bool = False

    @property
    def label(self) -> str:
        return self.name or self.id


NO_VALUE = "-"  # a characteristic the model does not have (its profile shows "-")

LeavesCombat = Literal["robot", "dreadnought", "greater daemon", "juggernaut rider"]
"""The models that "may move out of Hand-to-Hand Combat in their Movement Phase" (Breaking Off):
Robots, Dreadnoughts, Greater Daemons and Chaos Champions riding Juggernauts."""

LEAVES_COMBAT_WORDS: dict[LeavesCombat, str] = {
    "robot": "a Robot",
    "dreadnought": "a Dreadnought",
    "greater daemon": "a Greater Daemon",
    "juggernaut rider": "a Chaos Champion riding a Juggernaut",
}


class ModelProfile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One model. ``player`` names its side; ``squad`` names its squad (Broken spreads to the
    squad when it breaks off); ``weapons`` lists weapon ids from the setup's ``weapons``.
    ``ws = "-"``: the model has no Weapon Skill value, and does not fight in Hand-to-Hand
    Combat. ``leaves_combat``: what it is, if it is one of the models that may move out of
    Hand-to-Hand Combat in its Movement Phase."""

    id: str
    player: str
    name: str = ""
    squad: str = ""
    ws: Stat | Literal["-"]
    s: Stat
    t: Stat
    w: Stat = 1
    i: Stat
    a: Stat = 1
    save: Save | None = None
    weapons: Annotated[list[str], Meta(max_length=MAX_WEAPONS)] = []
    leaves_combat: LeavesCombat | None = None

    @property
    def label(self) -> str:
        return self.name or self.id

    @property
    def has_weapon_skill(self) -> bool:
        """Who Fights: only "models with a Weapon Skill value" fight in Hand-to-Hand Combat."""
        return self.ws != NO_VALUE

    @property
    def weapon_skill(self) -> int:
        """The Weapon Skill of a model that has one."""
        if isinstance(self.ws, int):
            return self.ws
        raise ValueError(f"{self.id} has no Weapon Skill value")


class Wh40kSetup(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, dict=True):
    """The battle: models, the weapon profiles they carry, the pairs already in base-to-base
    contact when the battle starts, and whose turn comes first (default: the first model's
    player). ``lookup`` is made once per setup and never written (``dict=True`` holds it)."""

    models: Annotated[list[ModelProfile], Meta(max_length=MAX_MODELS)]
    weapons: Annotated[list[Weapon], Meta(max_length=MAX_WEAPONS)] = []
    contacts: Annotated[list[tuple[str, str]], Meta(max_length=MAX_CONTACTS)] = []
    first_player: str = ""

    @cached_property
    def lookup(self) -> Lookup:
        """The models and weapons by id: every state of a battle shares its setup, and the rules
        look profiles and weapons up some seventy times in a sample of the odds' second 40K
        fight, each a walk of the lists before."""
        return Lookup(self)


class Lookup:
    """A setup's profiles and weapons by id (the first of an id, as a walk of the lists finds
    it), and each model's weapons in the order it lists them, each made when first asked."""

    __slots__ = ("_carried", "_close_combat", "profiles", "weapons")

    def __init__(self, setup: Wh40kSetup) -> None:
        self.profiles: dict[str, ModelProfile] = {}
        for m in setup.models:
            self.profiles.setdefault(m.id, m)
        self.weapons: dict[str, Weapon] = {}
        for w in setup.weapons:
            self.weapons.setdefault(w.id, w)
        self._carried: dict[str, tuple[Weapon, ...]] = {}
        self._close_combat: dict[str, tuple[Weapon, ...]] = {}

    def weapons_of(self, model_id: str) -> tuple[Weapon, ...]:
        carried = self._carried.get(model_id)
        if carried is None:
            ids = self.profiles[model_id].weapons
            carried = self._carried[model_id] = tuple(self.weapons[w] for w in ids)
        return carried

    def close_combat_weapons(self, model_id: str) -> tuple[Weapon, ...]:
        """The model's weapons with the Close Combat rule, in the order it lists them."""
        cc = self._close_combat.get(model_id)
        if cc is None:
            cc = tuple(w for w in self.weapons_of(model_id) if w.close_combat)
            self._close_combat[model_id] = cc
        return cc


def players_of(setup: Wh40kSetup) -> list[str]:
    """The players (the sides), in the order their first model is listed."""
    seen: list[str] = []
    for m in setup.models:
        if m.player not in seen:
            seen.append(m.player)
    return seen


# --- damage --------------------------------------------------------------------------------------

_DICE_EXPR = re.compile(r"^([1-9][0-9]*)?[dD]([1-9][0-9]*)$")


def parse_damage(damage: int | str) -> tuple[int, int, int]:
    """(fixed, dice, sides): ``2`` -> (2, 0, 0); ``"D3"`` -> (0, 1, 3); ``"2D6"`` -> (0, 2, 6)."""
    if isinstance(damage, int):
        return damage, 0, 0
    text = damage.strip()
    if text.isdigit():
        return int(text), 0, 0
    m = _DICE_EXPR.match(text)
    if m is None:
        raise ValueError(f"damage {damage!r} is neither a number nor a dice expression like D3")
    return 0, int(m.group(1) or 1), int(m.group(2))


# --- checks --------------------------------------------------------------------------------------


def _new_id(field: str, n: int, ident: str, seen: list[str], noun: str) -> str:
    """Check the id of ``field[n]`` (not empty, not in ``seen``), add it to ``seen`` and return
    how errors name the entry."""
    if not ident:
        raise SetupError(f"{field}[{n}]: id must not be empty")
    where = f"{field}[{n}] ({ident})"
    if ident in seen:
        raise SetupError(f"{where}: duplicate {noun} id {ident!r}")
    seen.append(ident)
    return where


def _check_weapons(setup: Wh40kSetup) -> list[str]:
    """Unique ids, Strength at least 1, a damage of at least 1; returns the weapon ids."""
    weapon_ids: list[str] = []
    for n, w in enumerate(setup.weapons):
        where = _new_id("weapons", n, w.id, weapon_ids, "weapon")
        if w.strength is not None and w.strength < 1:
            raise SetupError(f"{where}: strength must be at least 1")
        try:
            fixed, dice, sides = parse_damage(w.damage)
        except ValueError as e:
            raise SetupError(f"{where}: {e}") from None
        if fixed + dice < 1 or (dice and sides < 2):
            raise SetupError(f"{where}: damage {w.damage!r} must be at least 1")
        if fixed > MAX_DAMAGE or dice > MAX_DAMAGE_DICE or sides > MAX_DAMAGE_SIDES:
            raise SetupError(
                f"{where}: damage {w.damage!r}: expected at most {MAX_DAMAGE}, or at most "
                f"{MAX_DAMAGE_DICE} dice of at most {MAX_DAMAGE_SIDES} sides"
            )
    return weapon_ids


def _check_characteristics(where: str, m: ModelProfile) -> None:
    for field, value, low in (
        ("ws", m.ws if isinstance(m.ws, int) else 0, 0),
        ("s", m.s, 1),
        ("t", m.t, 1),
        ("w", m.w, 1),
        ("i", m.i, 0),
        ("a", m.a, 1),
    ):
        if value < low:
            raise SetupError(f"{where}: {field} must be at least {low}, not {value}")
    if m.save is not None and not 1 <= m.save <= 6:
        raise SetupError(f"{where}: save must be 1 to 6 (a D6 score), not {m.save}")


def _check_model_weapons(where: str, m: ModelProfile, weapon_ids: list[str]) -> None:
    for wid in m.weapons:
        if wid not in weapon_ids:
            raise SetupError(
                f"{where}: unknown weapon {wid!r}; weapons are: {', '.join(weapon_ids) or 'none'}"
            )
    if len(set(m.weapons)) != len(m.weapons):
        raise SetupError(f"{where}: a weapon is listed twice")


def _check_models(setup: Wh40kSetup, weapon_ids: list[str]) -> None:
    model_ids: list[str] = []
    for n, m in enumerate(setup.models):
        where = _new_id("models", n, m.id, model_ids, "model")
        if not m.player:
            raise SetupError(f"{where}: player must not be empty")
        _check_characteristics(where, m)
        _check_model_weapons(where, m, weapon_ids)


def _check_sides(setup: Wh40kSetup) -> None:
    """Two players at least, a first player who has models, contacts between enemies."""
    players = {m.id: m.player for m in setup.models}
    if len(set(players.values())) < 2:
        raise SetupError("models: hand-to-hand combat needs models of two players")
    if setup.first_player and setup.first_player not in players.values():
        raise SetupError(f"first_player: {setup.first_player!r} is not the player of any model")
    for n, (a, b) in enumerate(setup.contacts):
        for x in (a, b):
            if x not in players:
                raise SetupError(f"contacts[{n}]: unknown model {x!r}")
        if players[a] == players[b]:
            raise SetupError(f"contacts[{n}]: {a} and {b} are on the same side")


def validate_setup(setup: Wh40kSetup) -> None:
    """Cross-references and characteristic ranges; raises SetupError naming the field."""
    if not setup.models:
        raise SetupError("models: a battle needs at least one model on each side")
    weapon_ids = _check_weapons(setup)
    _check_models(setup, weapon_ids)
    _check_sides(setup)


__all__ = [
    "LEAVES_COMBAT_WORDS",
    "NO_VALUE",
    "LeavesCombat",
    "Lookup",
    "ModelProfile",
    "Weapon",
    "Wh40kSetup",
    "parse_damage",
    "players_of",
    "validate_setup",
]
