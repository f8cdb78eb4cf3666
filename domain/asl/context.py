"""What the rules of one ``closecombat`` command know besides the state: the rulings in force and
the command's number (the engine's ``Context``), and which CC it is: the Location, the Player
Turn and its ATTACKER (A11.12: each Location's CC is resolved completely, one at a time), and
the Locations its units would enter only by placing a CX counter, should they withdraw by a
choice made during the CC (A11.21)."""

from __future__ import annotations

from blowbyblow.domain.asl.commands import CloseCombat
from blowbyblow.domain.core import Context


class CCContext(Context, frozen=True, kw_only=True):
    """The CC of one Location in one CCPh; ``ruling(CONSTANT)`` reads a ruling in force."""

    location: str
    turn: int
    attacker: str
    cx_needed: frozenset[tuple[str, str]] = frozenset()  # (unit, Location): A11.21, 4.72

    @classmethod
    def of(cls, ctx: Context, command: CloseCombat) -> CCContext:
        return cls(
            rulings=ctx.rulings,
            command_index=ctx.command_index,
            location=command.location,
            turn=command.turn,
            attacker=command.attacker,
            cx_needed=frozenset((n.unit, n.to) for n in command.cx_needed),
        )
