"""Why the front door said no: typed refusals, each naming the field at fault and the rule, with
nothing written. Front ends turn them into their own words: the command line prints the message,
the server maps each kind to one HTTP status in one place (``web/errors.py``)."""

from __future__ import annotations

from typing import Literal

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.store.log import StaleVersion

# invalid: the input is wrong (422); conflict: right input, wrong moment (409);
# not_found: no such battle or table (404); unavailable: the store cannot be reached (503);
# forbidden: not this caller's to do (403).
Kind = Literal["invalid", "conflict", "not_found", "unavailable", "forbidden"]


class Refused(BlowByBlowError):
    """A use case refused: ``kind``, the ``field`` at fault, the ``rule`` broken, ``message``.
    Nothing was written."""

    def __init__(self, kind: Kind, field: str, rule: str, message: str) -> None:
        super().__init__(message)
        self.kind: Kind = kind
        self.field = field
        self.rule = rule
        self.message = message


class Behind(Refused, StaleVersion):
    """Someone wrote to the battle since it was read: nothing was written; read it again (a
    ``StaleVersion`` of the store, as the door says it)."""

    def __init__(self, message: str, field: str = "version") -> None:
        super().__init__("conflict", field, "play from the battle as it stands", message)

    @classmethod
    def seen(cls, at: int, seen: int, done: str = "played") -> Behind:
        """A request made at version ``seen`` of a battle now at version ``at``: written past,
        or a version the battle never had (ahead of it: a client's mistake, not a race)."""
        why = f"version {seen} is ahead of it" if seen > at else f"someone has {done} since"
        return cls(f"the battle is at version {at}, not {seen}: {why}; nothing was written")


class Unreachable(Refused):
    """The store cannot be reached: nothing was written; try again."""

    def __init__(self, detail: str) -> None:
        super().__init__(
            "unavailable",
            "store",
            "the store must be reachable",
            f"the store is not reachable; nothing was written, try again ({detail})",
        )


__all__ = ["Behind", "Kind", "Refused", "Unreachable"]
