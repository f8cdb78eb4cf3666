"""The setup of a duel: what a scenario file gives (D1.1), and the checks its types cannot make.

In a scenario file every top-level key other than the engine's own (ruleset, label, rulings,
seed, dice, choices, actions) is a field of ``DuelSetup``: ``first`` and ``[[fighters]]``.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from blowbyblow.domain.core import SetupError

# copy me: the closed ranges of your profiles. msgspec checks them when a file is read, and they
# appear in the JSON Schema a page builds its form from.
Skill = Annotated[int, msgspec.Meta(ge=0, le=3)]
Defence = Annotated[int, msgspec.Meta(ge=2, le=6)]
Wounds = Annotated[int, msgspec.Meta(ge=1, le=5)]


class Fighter(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """D1.1: a fighter's profile."""

    id: str
    name: str
    side: str
    skill: Skill = 0
    defence: Defence = 4
    wounds: Wounds = 3


class DuelSetup(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Two fighters (D1.1) and who takes the first turn (D1.2; default: the first listed)."""

    fighters: tuple[Fighter, ...]
    first: str = ""


def validate_setup(setup: DuelSetup) -> None:
    """Raise SetupError, naming the field, for a setup the rules cannot start from."""
    try:  # a setup built in Python has not been through msgspec's checks of the ranges
        msgspec.convert(msgspec.to_builtins(setup), DuelSetup)
    except msgspec.ValidationError as e:
        raise SetupError(str(e)) from None
    if len(setup.fighters) != 2:
        raise SetupError(f"fighters: a duel has two fighters (D1.1), not {len(setup.fighters)}")
    a, b = setup.fighters
    for n, f in enumerate(setup.fighters):
        if not f.id or not f.side:
            raise SetupError(f"fighters[{n}]: id and side must not be empty")
    if a.id == b.id:
        raise SetupError(f"fighters[1]: duplicate fighter id {b.id!r}")
    if a.side == b.side:
        raise SetupError(f"fighters[1]: both fighters are on side {b.side!r} (D1.1)")
    if setup.first and setup.first not in (a.id, b.id):
        raise SetupError(f"first: {setup.first!r} is not a fighter; fighters: {a.id}, {b.id}")
