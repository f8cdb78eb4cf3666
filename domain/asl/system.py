"""The ``asl`` game system: ASL Rulebook chapter A11, Close Combat, bound to the engine."""

from __future__ import annotations

from blowbyblow.domain.asl.commands import COMMAND_TYPES, AslCommand
from blowbyblow.domain.asl.counters import SETUP_CHOICES
from blowbyblow.domain.asl.demo import demo
from blowbyblow.domain.asl.events import EVENT_TYPES
from blowbyblow.domain.asl.legal import command_from_option, legal_commands
from blowbyblow.domain.asl.narration import narrate
from blowbyblow.domain.asl.odds import ODDS
from blowbyblow.domain.asl.procedure import procedure
from blowbyblow.domain.asl.projection import describe_state, evolve, view
from blowbyblow.domain.asl.rulebook import RULEBOOK
from blowbyblow.domain.asl.rulings import RULINGS
from blowbyblow.domain.asl.setup import Setup, locations_of_units, validate_setup
from blowbyblow.domain.asl.state import State, initial_state
from blowbyblow.domain.system import GameSystem, RosterShape

# A side's Personnel and vehicles; the Locations they stand in come from the scenario's map
# (``locations_of_units`` lists each one, open ground until the setup says otherwise).
ROSTER = RosterShape(
    members=("units", "vehicles"), side_field="side", sides="sides", complete=locations_of_units
)

GAME_SYSTEM: GameSystem[Setup, State, AslCommand] = GameSystem(
    id="asl",
    game="asl",
    version="1.6",
    reads_versions=("1.0", "1.1", "1.2", "1.3", "1.4", "1.5"),
    title="Advanced Squad Leader, chapter A11: Close Combat",
    rulebook=RULEBOOK,
    rulings=RULINGS,
    setup_type=Setup,
    state_type=State,
    command_types=COMMAND_TYPES,
    event_types=EVENT_TYPES,
    initial_state=initial_state,
    evolve=evolve,
    procedure=procedure,
    narrate=narrate,
    describe_state=describe_state,
    view=view,
    legal_commands=legal_commands,
    command_from_option=command_from_option,
    demo=demo,
    validate_setup=validate_setup,
    odds=ODDS,
    roster=ROSTER,
    setup_choices=SETUP_CHOICES,
)
