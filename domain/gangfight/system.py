"""The Gangfight game system: the binding of its rules, fold, view, narration and demo."""

from __future__ import annotations

from blowbyblow.domain.gangfight.commands import COMMAND_TYPES, GangfightCommand
from blowbyblow.domain.gangfight.demo import demo
from blowbyblow.domain.gangfight.events import EVENT_TYPES
from blowbyblow.domain.gangfight.legal import legal_commands
from blowbyblow.domain.gangfight.narration import narrate
from blowbyblow.domain.gangfight.odds import ODDS
from blowbyblow.domain.gangfight.procedure import procedure
from blowbyblow.domain.gangfight.projection import describe_state, evolve, view
from blowbyblow.domain.gangfight.rulebook import RULEBOOK
from blowbyblow.domain.gangfight.rulings import RULINGS
from blowbyblow.domain.gangfight.setup import KNOWN_PERKS, GangfightSetup, validate_setup
from blowbyblow.domain.gangfight.state import GangfightState, initial_state
from blowbyblow.domain.system import GameSystem, RosterShape, SetupChoice

# A side's models, and the weapons they carry (``fighters[].weapons`` names them by id).
SETUP_CHOICES = {"fighters[].perks[]": tuple(SetupChoice(label=p, value=p) for p in KNOWN_PERKS)}
ROSTER = RosterShape(members=("fighters",), side_field="side", shared=(("weapons", "weapons"),))

GAME_SYSTEM: GameSystem[GangfightSetup, GangfightState, GangfightCommand] = GameSystem(
    id="gangfight",
    game="gangfight",
    # 1.1: ranged combat, Area of Effect, cover, Charge!, Reload, movement in Slam!/Trample and
    # Finesse Attacks, half inches; its new rulings give 1.0's rules with their ``before``.
    # 1.2: the ruling area-point-blank, whose ``before`` is 1.1's reading.
    # 1.3: the rulings power-no-success and shot-damage, whose ``before`` are 1.2's readings.
    version="1.4",
    title=(
        "Gangfight: Combat (melee, ranged, Area of Effect, cover, special attacks, Slam!/Trample, "
        "Charge!, falling)"
    ),
    rulebook=RULEBOOK,
    rulings=RULINGS,
    setup_type=GangfightSetup,
    state_type=GangfightState,
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
