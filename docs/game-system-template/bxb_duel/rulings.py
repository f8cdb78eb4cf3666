"""The rulings of Duel: where the rulebook is ambiguous or offers a variant, a named decision with
a default. The values in force are recorded when a battle starts; the rules read them only as
``ctx.ruling(CONSTANT)``.
"""

from __future__ import annotations

from blowbyblow.domain.core import Ruling

# copy me: one constant per ruling. ``name``: lower-case words joined by hyphens; ``rule``: the
# section it stands for, as events cite it; ``note``: why it is a ruling, in words (the
# ambiguity, the variant, or "unconfirmed: ..." for a value no source you hold confirms).
TIES = Ruling(
    name="ties",
    default="defender",
    choices=("defender", "attacker"),
    summary=(
        "A to-hit total equal to the target's Defence: defender, the strike misses (the text "
        "of D2.1, 'beats'); attacker, it hits (the example of D2.4)."
    ),
    rule="D2.1",
    note=(
        "D2.1 says a total must beat the Defence, but the example of D2.4 counts a total equal "
        "to it as a hit; the book does not settle ties. The default follows the text."
    ),
)

SHORT_GUARD = Ruling(
    name="short-guard",
    default="off",
    choices=("off", "on"),
    summary=(
        "off: a Guard lasts until the start of the guarding fighter's next turn (D1.3). on: the "
        "first strike at the guarding fighter, hit or miss, also lowers it (D2.5)."
    ),
    rule="D2.5",
    note="A variant the book offers (D2.5, Short Guard), for the players to agree on before the duel.",
)

RULINGS: tuple[Ruling, ...] = (TIES, SHORT_GUARD)
