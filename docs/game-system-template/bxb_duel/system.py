"""The binding: everything the engine and front ends need of Duel, as one typed GameSystem.
Registered as ``duel`` under the entry-point group ``blowbyblow.game_systems`` (pyproject.toml)."""

from __future__ import annotations

from blowbyblow.domain.system import GameSystem

from bxb_duel.commands import COMMAND_TYPES, DuelCommand
from bxb_duel.demo import demo
from bxb_duel.events import EVENT_TYPES
from bxb_duel.legal import legal_commands
from bxb_duel.narration import narrate
from bxb_duel.odds import ODDS
from bxb_duel.procedure import procedure
from bxb_duel.projection import describe_state, evolve, view
from bxb_duel.rulebook import RULEBOOK
from bxb_duel.rulings import RULINGS
from bxb_duel.setup import DuelSetup, validate_setup
from bxb_duel.state import DuelState, initial_state

# copy me: the id is what players type (`bxb demo --ruleset duel`) and what every battle records;
# it must be the entry point's name. Bump `version` (MAJOR.MINOR) when the rules' outcomes change.
GAME_SYSTEM: GameSystem[DuelSetup, DuelState, DuelCommand] = GameSystem(
    id="duel",
    game="duel",
    version="1.0",
    title="Duel: a two-fighter melee (the template game system)",
    rulebook=RULEBOOK,
    rulings=RULINGS,
    setup_type=DuelSetup,
    state_type=DuelState,
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
)
