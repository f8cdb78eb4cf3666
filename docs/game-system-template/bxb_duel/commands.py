"""The commands of Duel, one per thing a fighter may do in its turn (D1.2). The ``type`` tag of
each, as scenario files write it in ``[[actions]]``: ``strike``, ``guard``, ``rise``."""

from __future__ import annotations

from blowbyblow.domain.core import Command

# copy me: one Struct per command; the tag is the class name lower-cased unless you give ``tag=``.
# Never rename a command, its tag or its fields once battles are recorded: logs hold them.


class Strike(Command, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """D2: ``attacker`` strikes at ``target``."""

    attacker: str
    target: str


class Guard(Command, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """D1.3: ``fighter`` takes Guard until the start of its next turn."""

    fighter: str


class Rise(Command, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """D1.4: ``fighter``, Down, gets up."""

    fighter: str


DuelCommand = Strike | Guard | Rise
COMMAND_TYPES = (Strike, Guard, Rise)
