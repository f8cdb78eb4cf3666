"""The state the 40K 2nd edition hand-to-hand rules decide on, and ``initial_state(setup)``."""

from __future__ import annotations

from typing import Literal

import msgspec

from blowbyblow.domain.core import RuleViolation
from blowbyblow.domain.wh40k.setup import ModelProfile, Weapon, Wh40kSetup, players_of

Phase = Literal["movement", "hand-to-hand"]
"""The phase of the player turn: the Movement Phase (charges), then the Hand-to-Hand Combat
Phase (begun by the first break off or Combat Round)."""

PHASE_WORDS: dict[Phase, str] = {
    "movement": "Movement Phase",
    "hand-to-hand": "Hand-to-Hand Combat Phase",
}

ModelStatus = Literal[
    "slain", "in hand-to-hand combat", "in base contact, not fighting", "Broken", "not engaged"
]
"""What a model is doing, first that holds: slain; in base contact with an enemy it fights; in
base contact only where one of the two has no Weapon Skill value; Broken; otherwise not
engaged."""


class ModelState(msgspec.Struct, frozen=True, kw_only=True):
    """What has happened to one model. ``charged_turn`` is the turn it last charged in (0: never),
    ``charged`` the model it charged then;
    ``broken_turn`` the turn it became Broken in (it may not Rally before the next turn);
    ``slain_by`` the model that slew it; ``left_combat_turn`` the turn it last moved out of
    Hand-to-Hand Combat in its Movement Phase (0: never); ``move_and_shoot_turn`` the turn in
    which it may Move and Shoot normally after a Follow-Up Move that engaged no one (0: none)."""

    id: str
    wounds: int
    slain: bool = False
    slain_by: str = ""
    broken: bool = False
    broken_turn: int = 0
    charged_turn: int = 0
    charged: str = ""
    left_combat_turn: int = 0
    move_and_shoot_turn: int = 0


Pair = tuple[str, str]


class Wh40kState(msgspec.Struct, frozen=True, kw_only=True):
    """The state the rules decide on.

    ``player`` is the player (side) whose turn it is. ``contacts``: pairs of enemy models in
    base-to-base contact (each pair sorted, in the order contact was made). ``fought``: pairs that
    have resolved their Combat Round in this turn's Hand-to-Hand Combat Phase (or may not fight
    again in it). ``breaking_off``: models that have declared a Break Off this phase.
    ``follow_up``: models that have just killed all their opponents and may make a Follow-Up Move
    now. ``multiple_rounds``: for each model outnumbered in a Multiple Combat, the number of the
    last Combat Round of that Multiple Combat (kept while it lasts, across phases)."""

    setup: Wh40kSetup
    turn: int
    player: str
    phase: Phase
    models: dict[str, ModelState]
    contacts: tuple[Pair, ...] = ()
    fought: tuple[Pair, ...] = ()
    breaking_off: tuple[str, ...] = ()
    follow_up: tuple[str, ...] = ()
    multiple_rounds: dict[str, int] = {}

    # --- lookups (pure) ---

    def profile(self, model_id: str) -> ModelProfile:
        return self.setup.lookup.profiles[model_id]

    def weapon(self, weapon_id: str) -> Weapon:
        return self.setup.lookup.weapons[weapon_id]

    def weapons_of(self, model_id: str) -> tuple[Weapon, ...]:
        return self.setup.lookup.weapons_of(model_id)

    def close_combat_weapons(self, model_id: str) -> tuple[Weapon, ...]:
        """The model's weapons with the Close Combat rule, in the order it lists them."""
        return self.setup.lookup.close_combat_weapons(model_id)

    def charged_this_turn(self, model_id: str) -> bool:
        return self.models[model_id].charged_turn == self.turn

    def alive(self, model_id: str) -> bool:
        m = self.models.get(model_id)
        return m is not None and not m.slain

    def opponents(self, model_id: str) -> list[str]:
        """Enemy models in base contact with ``model_id``, in the order contact was made."""
        found: list[str] = []
        for a, b in self.contacts:
            if a == model_id:
                found.append(b)
            elif b == model_id:
                found.append(a)
        return found

    def fights(self, model_id: str) -> bool:
        """Who Fights: a model with a Weapon Skill value."""
        return self.profile(model_id).has_weapon_skill

    def hth_opponents(self, model_id: str) -> list[str]:
        """The enemies in base contact that ``model_id`` fights in Hand-to-Hand Combat: none if
        it has no Weapon Skill value, and none that has no Weapon Skill value."""
        if not self.fights(model_id):
            return []
        return [o for o in self.opponents(model_id) if self.fights(o)]

    def unfought_opponents(self, model_id: str) -> list[str]:
        return [o for o in self.hth_opponents(model_id) if pair(model_id, o) not in self.fought]

    def has_fought(self, model_id: str) -> bool:
        """Whether a pair with ``model_id`` has fought (or may not fight) this phase."""
        return any(model_id in p for p in self.fought)

    def players(self) -> list[str]:
        return players_of(self.setup)

    def enemies(self, model_id: str) -> list[str]:
        """Living models of the other players, in setup order."""
        player = self.profile(model_id).player
        return [m.id for m in self.setup.models if m.player != player and self.alive(m.id)]

    def status(self, model_id: str) -> ModelStatus:
        if not self.alive(model_id):
            return "slain"
        if self.hth_opponents(model_id):
            return "in hand-to-hand combat"
        if self.opponents(model_id):
            return "in base contact, not fighting"
        if self.models[model_id].broken:
            return "Broken"
        return "not engaged"


def pair(a: str, b: str) -> Pair:
    """The canonical (sorted) form of a pair of model ids."""
    return (a, b) if a <= b else (b, a)


def require_living(state: Wh40kState, model: str, rule: str) -> None:
    """A command naming a model that does not exist or has been slain is refused under ``rule``."""
    if model not in state.models:
        raise RuleViolation(rule, f"there is no model {model!r}")
    if not state.alive(model):
        raise RuleViolation(rule, f"{model} has been slain")


def initial_state(setup: Wh40kSetup) -> Wh40kState:
    players = players_of(setup)
    first = setup.first_player or (players[0] if players else "")
    contacts: list[Pair] = []
    for a, b in setup.contacts:
        p = pair(a, b)
        if p not in contacts:
            contacts.append(p)
    return Wh40kState(
        setup=setup,
        turn=1,
        player=first,
        phase="movement",
        models={m.id: ModelState(id=m.id, wounds=m.w) for m in setup.models},
        contacts=tuple(contacts),
    )


__all__ = [
    "PHASE_WORDS",
    "ModelState",
    "ModelStatus",
    "Pair",
    "Phase",
    "Wh40kState",
    "initial_state",
    "pair",
    "require_living",
]
