"""What a number on the command line names in a battle: an event's position, or a command that
stands. A number the battle lacks is a usage error, exit 2, as a battle the store lacks is
(docs/store.md), whichever command it is given to; checked here, before anything is done. A
number the battle has, given at the wrong moment (a command that is not the last, to void), is
the command's own refusal, exit 1."""

from __future__ import annotations

from typing import TYPE_CHECKING

from blowbyblow.cli.app import _events, fail
from blowbyblow.projections.disputes import command_position

if TYPE_CHECKING:
    from uuid import UUID

    from blowbyblow.replay.store.log import BattleStore, LoggedEvent


def require_position(store: BattleStore, battle: UUID, position: int, what: str) -> None:
    """Fail (exit 2) unless the battle has an event at ``position`` (from 1, its start)."""
    total = store.version(battle)
    if not 1 <= position <= total:
        fail(f"{what}: battle {battle} has events 1 to {total}, not {position}")


def require_command(
    store: BattleStore,
    battle: UUID,
    number: int,
    what: str,
    events: list[LoggedEvent] | None = None,
) -> list[LoggedEvent]:
    """Fail (exit 2) unless command ``number`` stands in the battle (as `bxb log` numbers
    them); the battle's events, read here (or ``events``, read already), for the command to
    use rather than read them again."""
    events = _events(store, battle) if events is None else events
    try:
        command_position([e.event for e in events], number)
    except ValueError as e:
        fail(f"{what}: {str(e).removeprefix('command: ')}")
    return events
