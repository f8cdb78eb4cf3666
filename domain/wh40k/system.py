"""The binding of Warhammer 40,000 2nd edition (1993) hand-to-hand combat: ``wh40k-2e``.

Version 1.1 adds the ``leavecombat`` command, the profile's ``leaves_combat`` and ``ws = "-"``,
and the ruling ``multiple-combat-rounds`` (since 1.1, its ``before`` is 1.0's count), so battles
recorded under 1.0 still re-adjudicate exactly (``reads_versions``). Version 1.2 adds the
ruling ``dice-counted`` (its ``before`` is 1.1's count on the final dice); version 1.3 the ruling
``parry-dice`` (its ``before`` is 1.2's then-highest die); version 1.4 the rulings
``charge-bonus-against``, ``broken-charge`` and ``no-ws-opponents`` (each ``before`` is 1.3's
reading)."""

from __future__ import annotations

from blowbyblow.domain.system import GameSystem, RosterShape, SetupChoice
from blowbyblow.domain.wh40k.commands import COMMAND_TYPES, Wh40kCommand
from blowbyblow.domain.wh40k.demo import RULESET_ID, demo
from blowbyblow.domain.wh40k.events import EVENT_TYPES
from blowbyblow.domain.wh40k.legal import legal_commands
from blowbyblow.domain.wh40k.narration import narrate
from blowbyblow.domain.wh40k.odds import ODDS
from blowbyblow.domain.wh40k.procedure import procedure
from blowbyblow.domain.wh40k.projection import describe_state, evolve, view
from blowbyblow.domain.wh40k.rulebook import RULEBOOK
from blowbyblow.domain.wh40k.rulings import RULINGS
from blowbyblow.domain.wh40k.setup import Wh40kSetup, validate_setup
from blowbyblow.domain.wh40k.state import Wh40kState, initial_state

# An army's models, and the weapon profiles they carry (``models[].weapons`` names them by id).
ROSTER = RosterShape(members=("models",), side_field="player", shared=(("weapons", "weapons"),))


def _weapon(label: str, **profile: object) -> SetupChoice:
    return SetupChoice(label=label, value=profile)


# The close combat weapons whose profile the rules texts give (the Parry rule: "a sword,
# including chain, power and force swords"; the chainsword S4, D1, save -1 with Parry; the power
# axe S5, save -2, two-handed S6, save -3; "as user" blades, the wielder's S and save modifier).
# A value they do not give is left for the player to type from the codex: an empty Damage,
# which the setup refuses until it is typed; an empty Strength is "as user".
WEAPONS = (
    _weapon(
        "chainsword",
        id="chainsword",
        name="chainsword",
        strength=4,
        damage=1,
        save_modifier=-1,
        parry=True,
    ),
    _weapon(
        "power sword (Parry; type its profile)",
        id="power-sword",
        name="power sword",
        parry=True,
        damage=None,
    ),
    _weapon(
        "force sword (Parry; type its profile)",
        id="force-sword",
        name="force sword",
        parry=True,
        damage=None,
    ),
    _weapon(
        "power axe (type its D)",
        id="power-axe",
        name="power axe",
        strength=5,
        save_modifier=-2,
        damage=None,
    ),
    _weapon(
        "power axe, two-handed (type its D)",
        id="power-axe-2h",
        name="power axe (two-handed)",
        strength=6,
        save_modifier=-3,
        damage=None,
    ),
    _weapon("blade as user (type its D)", id="blade", name="blade (as user)", damage=None),
)
SETUP_CHOICES = {"weapons[]": WEAPONS}

GAME_SYSTEM: GameSystem[Wh40kSetup, Wh40kState, Wh40kCommand] = GameSystem(
    id=RULESET_ID,
    game="wh40k",
    version="1.4",
    title="Warhammer 40,000 2nd edition: Hand-to-Hand Combat",
    rulebook=RULEBOOK,
    rulings=RULINGS,
    setup_type=Wh40kSetup,
    state_type=Wh40kState,
    command_types=COMMAND_TYPES,
    event_types=EVENT_TYPES,
    initial_state=initial_state,
    evolve=evolve,
    procedure=procedure,
    narrate=narrate,
    describe_state=describe_state,
    view=view,
    legal_commands=legal_commands,
    demo=demo,
    validate_setup=validate_setup,
    odds=ODDS,
    roster=ROSTER,
    setup_choices=SETUP_CHOICES,
    reads_versions=("1.0", "1.1", "1.2", "1.3"),
)

__all__ = ["GAME_SYSTEM"]
