"""What a game system hands the engine: the binding between its rules (``domain/``), its folds
(``projections/``) and the generic machinery in ``replay/``. The engine knows nothing else of it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from blowbyblow.domain.core import Command, Context, Event, Procedure, Ruling, RulingError


class Scenario(msgspec.Struct, frozen=True, kw_only=True):
    """A battle ready to record: a game system, its rulings, its setup and the commands to play.

    ``dice`` lists physical dice values in the order they are asked for; ``seed`` selects seeded
    digital dice instead."""

    ruleset: str
    label: str
    rulings: dict[str, str] = {}
    setup: Any
    commands: list[Any]
    dice: list[int] | None = None
    seed: str | None = None
    choices: dict[str, str] = {}


@dataclass(frozen=True)
class Ruleset:
    """One game system (one version of it)."""

    id: str
    version: str
    title: str
    source: str  # the seed file of the rules text, under shared/seeds/
    rulings: tuple[Ruling, ...]
    setup_type: type[Any]
    command_types: tuple[type[Command], ...]
    event_types: tuple[type[Event], ...]
    state_type: type[Any]
    initial_state: Callable[[Any], Any]
    evolve: Callable[[Any, Event], Any]
    procedure: Callable[[Any, Any, Context], Procedure]
    narrate: Callable[[Event], str | None]
    describe_state: Callable[[Any], str]
    demo: Callable[[], Scenario]
    validate_setup: Callable[[Any], None] = field(default=lambda setup: None)

    def resolve_rulings(self, given: Mapping[str, str]) -> dict[str, str]:
        """Every ruling of this system with its value: ``given`` where set, the default otherwise.
        Unknown names and values a ruling does not take are refused."""
        known = {r.name: r for r in self.rulings}
        for name in given:
            if name not in known:
                raise RulingError(
                    f"{self.id} has no ruling {name!r}; it has: {', '.join(sorted(known)) or 'none'}"
                )
        return {r.name: r.check(str(given.get(r.name, r.default))) for r in self.rulings}
