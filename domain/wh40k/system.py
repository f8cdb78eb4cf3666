"""The binding of Warhammer 40,000 2nd edition (1993) hand-to-hand combat: ``wh40k-2e``.

Version 1.1 adds the ``leavecombat`` command, the profile's ``leaves_combat`` and ``ws = "-"``,
and the ruling ``multiple-combat-rounds`` (since 1.1, its ``before`` is 1.0's count), so battles
recorded under 1.0 still re-adjudicate exactly (``reads_versions``). Version 1.2 adds the
ruling ``dice-counted`` (its ``before`` is 1.1's count on the final dice); version 1.3 the ruling
``parry-dice`` (its ``before`` is 1.2's then-highest die)."""

from __future__ import annotations

from blowbyblow.domain.system import GameSystem, RosterShape
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

GAME_SYSTEM: GameSystem[Wh40kSetup, Wh40kState, Wh40kCommand] = GameSystem(
    id=RULESET_ID,
    game="wh40k",
    version="1.3",
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
    reads_versions=("1.0", "1.1", "1.2"),
)

__all__ = ["GAME_SYSTEM"]
