"""The two Necromunda game systems: ``necromunda-2023`` (the 2023 Core Rulebook) and
``necromunda-legacy`` (the rules before the 2023 Core books). They share setup, commands,
events, state, fold, view, legal commands and narration; each runs the procedure under its own
book and has its own rulings, rulebook and demo seed.

Version 1.1 (both) adds the ``granted-attack`` and ``leave-engagement`` commands and the setup's
``skills``, ``mounted``, ``tactics`` and ``within_6``; what it changed in the adjudication of 1.0's
commands is a ruling with ``since="1.1"`` each (see rulings.py), so battles of 1.0 still
re-adjudicate exactly (``reads_versions``). Version 1.2 (both) adds the ruling
``hit-natural-six`` (its ``before`` is 1.1's reading)."""

from __future__ import annotations

from blowbyblow.domain.necromunda.commands import COMMAND_TYPES, NecromundaCommand
from blowbyblow.domain.necromunda.demo import demo, legacy_demo
from blowbyblow.domain.necromunda.events import EVENT_TYPES
from blowbyblow.domain.necromunda.legal import command_from_option, legal_commands
from blowbyblow.domain.necromunda.narration import narrate
from blowbyblow.domain.necromunda.odds import ODDS
from blowbyblow.domain.necromunda.procedure import legacy_procedure, procedure
from blowbyblow.domain.necromunda.projection import describe_state, evolve, view
from blowbyblow.domain.necromunda.rulebook import RULEBOOK_2023, RULEBOOK_LEGACY
from blowbyblow.domain.necromunda.rulings import RULINGS_2023, RULINGS_LEGACY
from blowbyblow.domain.necromunda.setup import NecromundaSetup, validate_setup
from blowbyblow.domain.necromunda.state import TRAITS, NecromundaState, initial_state
from blowbyblow.domain.system import GameSystem, RosterShape, SetupChoice

# The traits the rules here know, offered for every weapon (others may still be typed).
SETUP_CHOICES = {
    "fighters[].weapons[].traits[]": tuple(SetupChoice(label=t, value=t) for t in TRAITS)
}

# A gang's fighters; the gang is an entry of ``gangs`` (its id, name and tactics).
ROSTER = RosterShape(members=("fighters",), side_field="gang", sides="gangs")

NECROMUNDA_2023: GameSystem[NecromundaSetup, NecromundaState, NecromundaCommand] = GameSystem(
    id="necromunda-2023",
    game="necromunda",
    version="1.2",
    title="Necromunda (2023 Core Rulebook): close combat",
    rulebook=RULEBOOK_2023,
    rulings=RULINGS_2023,
    setup_type=NecromundaSetup,
    state_type=NecromundaState,
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
    reads_versions=("1.0", "1.1"),
)

NECROMUNDA_LEGACY: GameSystem[NecromundaSetup, NecromundaState, NecromundaCommand] = GameSystem(
    id="necromunda-legacy",
    game="necromunda",
    version="1.2",
    title="Necromunda before 2023 (the 2017/2018 rules with FAQs): close combat",
    rulebook=RULEBOOK_LEGACY,
    rulings=RULINGS_LEGACY,
    setup_type=NecromundaSetup,
    state_type=NecromundaState,
    command_types=COMMAND_TYPES,
    event_types=EVENT_TYPES,
    initial_state=initial_state,
    evolve=evolve,
    procedure=legacy_procedure,
    narrate=narrate,
    describe_state=describe_state,
    view=view,
    legal_commands=legal_commands,
    command_from_option=command_from_option,
    demo=legacy_demo,
    validate_setup=validate_setup,
    odds=ODDS,
    roster=ROSTER,
    setup_choices=SETUP_CHOICES,
    reads_versions=("1.0", "1.1"),
)
