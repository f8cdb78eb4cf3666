"""What reading a recorded battle asks of a shipped game system (its setup, state, command and
event types, its fold, narration and description of a state), imported alone: not the rest of
the system (its procedure, legal commands, odds, demo), and without reading every installed
package's entry points to find it (``importlib.metadata``, which alone costs about as much as
starting Python). ``bxb at`` reads through it (``cli/quick.py``); everything else asks the
registry for the whole system.

Each shipped system keeps these parts in the modules docs/adding-a-game-system.md lays out
(``events.EVENT_TYPES``, ``commands.COMMAND_TYPES``, ``state.initial_state``,
``projection.evolve`` and ``describe_state``, ``narration.narrate``), and its setup and state
types under names of its own, listed here; ``tests/core/test_quick_at.py`` checks each part is
the very object its ``GameSystem`` holds, for every shipped system."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any, Union, cast

if TYPE_CHECKING:
    from blowbyblow.domain.system import AnyGameSystem

# system id -> (its package under blowbyblow.domain, its setup type, its state type)
SHIPPED = {
    "asl": ("asl", "Setup", "State"),
    "gangfight": ("gangfight", "GangfightSetup", "GangfightState"),
    "necromunda-2023": ("necromunda", "NecromundaSetup", "NecromundaState"),
    "necromunda-legacy": ("necromunda", "NecromundaSetup", "NecromundaState"),
    "wh40k-2e": ("wh40k", "Wh40kSetup", "Wh40kState"),
}


class NotShipped(LookupError):
    """A system this table does not hold: ask the registry for it."""


class ReadingParts:
    """The parts of a game system that reading a battle uses, under the names ``GameSystem``
    gives them."""

    def __init__(self, system_id: str, package: str, setup: str, state: str) -> None:
        def part(module: str, name: str) -> Any:
            return getattr(import_module(f"blowbyblow.domain.{package}.{module}"), name)

        self.id = system_id
        self.setup_type = part("setup", setup)
        self.state_type = part("state", state)
        self.command_types: tuple[Any, ...] = part("commands", "COMMAND_TYPES")
        self.event_types: tuple[Any, ...] = part("events", "EVENT_TYPES")
        self.initial_state = part("state", "initial_state")
        self.evolve = part("projection", "evolve")
        self.describe_state = part("projection", "describe_state")
        self.narrate = part("narration", "narrate")

    @property
    def command_type(self) -> Any:
        """As ``GameSystem.command_type``: the tagged union of the system's commands."""
        if len(self.command_types) == 1:
            return self.command_types[0]
        return Union[tuple(self.command_types)]  # noqa: UP007 - built at run time


_READ: dict[str, AnyGameSystem] = {}


def reading_parts(system_id: str) -> AnyGameSystem:
    """The reading parts of the shipped system ``system_id``, typed as the system they are part
    of: a caller that asks them for anything else (its procedure, its rulings) gets an
    AttributeError. NotShipped for any other id."""
    found = _READ.get(system_id)
    if found is None:
        if system_id not in SHIPPED:
            raise NotShipped(system_id)
        parts = ReadingParts(system_id, *SHIPPED[system_id])
        found = _READ[system_id] = cast("AnyGameSystem", parts)
    return found


__all__ = ["SHIPPED", "NotShipped", "ReadingParts", "reading_parts"]
