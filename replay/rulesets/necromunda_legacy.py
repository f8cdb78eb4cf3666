"""Binding of Necromunda close combat before the 2023 books (N17/N18): ``necromunda-legacy``.
The same setup, commands, events, state and folds as ``necromunda-2023``; the procedure runs with
the legacy Edition (see domain/necromunda/legacy.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

from blowbyblow.domain.core import Context, Procedure
from blowbyblow.domain.necromunda import n23
from blowbyblow.domain.necromunda.legacy import LEGACY, legacy_rulings
from blowbyblow.domain.necromunda.model import NecromundaState
from blowbyblow.projections.necromunda import evolve
from blowbyblow.replay.ruleset import Scenario
from blowbyblow.replay.rulesets.necromunda_2023 import RULESET as N23_RULESET
from blowbyblow.replay.rulesets.necromunda_2023 import demo_scenario

# Seeded demo: the same battle as the necromunda-2023 demo, under the older rules. The seed was
# found by searching "necromunda-legacy-demo-N" for a log with every event kind the issue asks
# for (tests/necromunda/test_necro_legacy.py checks it still does).
DEMO_SEED = "necromunda-legacy-demo-1"


def procedure(state: NecromundaState, command: Any, ctx: Context) -> Procedure:
    return n23.procedure(state, command, ctx, LEGACY, evolve)


def demo() -> Scenario:
    return demo_scenario(
        "necromunda-legacy",
        "Demo: Krug the Bruiser charges into the Escher (Necromunda before 2023)",
        DEMO_SEED,
    )


RULESET = dataclasses.replace(
    N23_RULESET,
    id="necromunda-legacy",
    version="1.0",
    title="Necromunda before 2023 (N17/N18 with FAQs): close combat",
    source="necromunda-legacy-close-combat.md",
    rulings=legacy_rulings(),
    procedure=procedure,
    demo=demo,
)
