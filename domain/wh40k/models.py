"""Warhammer 40,000 2nd edition (1993): the models, their weapons, the battle setup and the state
the hand-to-hand rules decide on.

The setup's fields are the top-level keys of a scenario file (``[[models]]``, ``[[weapons]]``,
``contacts``, ``first_player``). A profile uses the 2nd edition characteristics: WS, S, T, W, I,
A, and an armour save (``save = 3`` is a 3+ save on one D6; leave it out for no save).
"""

from __future__ import annotations

import msgspec

# --- setup ------------------------------------------------------------------------------------


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
    strength: int | None = None
    strength_bonus: int = 0
    damage: int | str = 1
    save_modifier: int | None = None
    parry: bool = False

    @property
    def label(self) -> str:
        return self.name or self.id


class ModelProfile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One model. ``player`` names its side; ``squad`` names its squad (Broken spreads to the
    squad when it breaks off); ``weapons`` lists weapon ids from the setup's ``weapons``."""

    id: str
    player: str
    name: str = ""
    squad: str = ""
    ws: int
    s: int
    t: int
    w: int = 1
    i: int
    a: int = 1
    save: int | None = None
    weapons: list[str] = []

    @property
    def label(self) -> str:
        return self.name or self.id


class Wh40kSetup(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The battle: models, the weapon profiles they carry, the pairs already in base-to-base
    contact when the battle starts, and whose turn comes first (default: the first model's
    player)."""

    models: list[ModelProfile]
    weapons: list[Weapon] = []
    contacts: list[tuple[str, str]] = []
    first_player: str = ""


# --- state ------------------------------------------------------------------------------------


class ModelState(msgspec.Struct, frozen=True, kw_only=True):
    """What has happened to one model. ``charged_turn`` is the turn it last charged in (0: never);
    ``broken_turn`` the turn it became Broken in (it may not Rally before the next turn);
    ``slain_by`` the model that slew it."""

    id: str
    wounds: int
    slain: bool = False
    slain_by: str = ""
    broken: bool = False
    broken_turn: int = 0
    charged_turn: int = 0


Pair = tuple[str, str]


class Wh40kState(msgspec.Struct, frozen=True, kw_only=True):
    """The state the rules decide on.

    ``contacts``: pairs of enemy models in base-to-base contact (each pair sorted, in the order
    contact was made). ``fought``: pairs that have resolved their Combat Round in this turn's
    Hand-to-Hand Combat Phase (or may not fight again in it). ``breaking_off``: models that have
    declared a Break Off this phase. ``follow_up``: models that have just killed all their
    opponents and may make a Follow-Up Move now."""

    setup: Wh40kSetup
    turn: int
    player: str
    phase: str  # "movement" | "hand-to-hand"
    models: dict[str, ModelState]
    contacts: tuple[Pair, ...] = ()
    fought: tuple[Pair, ...] = ()
    breaking_off: tuple[str, ...] = ()
    follow_up: tuple[str, ...] = ()

    # --- lookups (pure) ---

    def profile(self, model_id: str) -> ModelProfile:
        for m in self.setup.models:
            if m.id == model_id:
                return m
        raise KeyError(model_id)

    def weapon(self, weapon_id: str) -> Weapon:
        for w in self.setup.weapons:
            if w.id == weapon_id:
                return w
        raise KeyError(weapon_id)

    def weapons_of(self, model_id: str) -> list[Weapon]:
        return [self.weapon(w) for w in self.profile(model_id).weapons]

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

    def unfought_opponents(self, model_id: str) -> list[str]:
        return [o for o in self.opponents(model_id) if pair(model_id, o) not in self.fought]

    def players(self) -> list[str]:
        return players_of(self.setup)


def pair(a: str, b: str) -> Pair:
    """The canonical (sorted) form of a pair of model ids."""
    return (a, b) if a <= b else (b, a)


def players_of(setup: Wh40kSetup) -> list[str]:
    """The players, in the order their first model is listed."""
    seen: list[str] = []
    for m in setup.models:
        if m.player not in seen:
            seen.append(m.player)
    return seen


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
