"""The game systems this engine can run, found by entry point: every installed distribution may
register ``GameSystem`` objects under the group ``blowbyblow.game_systems`` (the entry point's
name is the system's id), so a system from another package plugs in without touching this one.

Systems load lazily: naming the known ids imports nothing; a system's modules are imported the
first time it is asked for."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.domain.system import ENTRY_POINT_GROUP, AnyGameSystem, GameSystem

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint


class UnknownGameSystem(BlowByBlowError):
    pass


@cache
def _entry_points() -> dict[str, EntryPoint]:
    # imported here, when a system is first asked for: importing importlib.metadata alone costs
    # as much as starting Python (`bxb at` names its system without it: cli/quick.py)
    from importlib.metadata import entry_points

    found: dict[str, EntryPoint] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        # The same distribution seen twice on sys.path (an editable install and a build tree)
        # registers the same target: keep the first; two different targets for one id is an error.
        if ep.name in found and found[ep.name].value != ep.value:
            raise UnknownGameSystem(
                f"two installed packages register game system {ep.name!r}: "
                f"{found[ep.name].value} and {ep.value}"
            )
        found.setdefault(ep.name, ep)
    return found


def game_system_ids() -> list[str]:
    """The ids of every registered game system, sorted, without importing any of them."""
    return sorted(_entry_points())


@cache
def get_game_system(system_id: str) -> AnyGameSystem:
    """The game system registered as ``system_id``; its modules are imported now."""
    eps = _entry_points()
    try:
        ep = eps[system_id]
    except KeyError:
        raise UnknownGameSystem(
            f"unknown ruleset {system_id!r}; known: {', '.join(sorted(eps)) or 'none installed'}"
        ) from None
    system = ep.load()
    if not isinstance(system, GameSystem):
        raise UnknownGameSystem(
            f"entry point {system_id!r} ({ep.value}) is not a GameSystem but {type(system).__name__}"
        )
    if system.id != system_id:
        raise UnknownGameSystem(
            f"entry point {system_id!r} ({ep.value}) loads game system {system.id!r}: "
            "the entry point's name must be the system's id"
        )
    return system


def game_systems() -> dict[str, AnyGameSystem]:
    """Every registered game system by id (imports them all)."""
    return {system_id: get_game_system(system_id) for system_id in game_system_ids()}


def forget_registrations() -> None:
    """Read the installed entry points again (after installing a system in this process)."""
    _entry_points.cache_clear()
    get_game_system.cache_clear()
