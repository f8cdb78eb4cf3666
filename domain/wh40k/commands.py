"""Player commands of 40K 2nd edition hand-to-hand combat (``type`` tag in a scenario's
``[[actions]]``): ``charge``, ``breakoff``, ``leavecombat``, ``fight``, ``followup``,
``endturn``."""

from __future__ import annotations

from decimal import Decimal

from blowbyblow.domain.core import Command


class Charge(Command, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Movement Phase: ``model`` (of the player whose turn it is) charges into base-to-base
    contact with the enemy ``target``."""

    model: str
    target: str


class BreakOff(Command, frozen=True, kw_only=True, forbid_unknown_fields=True, tag="breakoff"):
    """Declare, before ``model``'s Combat Round, that it tries to break off and escape."""

    model: str


class LeaveCombat(
    Command, frozen=True, kw_only=True, forbid_unknown_fields=True, tag="leavecombat"
):
    """Movement Phase: ``model`` (a Robot, a Dreadnought, a Greater Daemon or a Chaos Champion
    riding a Juggernaut, of the player whose turn it is) moves out of Hand-to-Hand Combat; it may
    then charge as normal."""

    model: str


class Fight(Command, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Hand-to-Hand Combat Phase: resolve every Combat Round of the combat ``model`` is in that
    has not been fought this phase. When two or more enemies are in contact with one model it is
    a Multiple Combat: ``order`` (optional) lists the outnumbering models in the order they duel;
    if left out, the outnumbering player is asked for each place in turn (key ``order/<n>``)."""

    model: str
    order: tuple[str, ...] = ()


class FollowUp(Command, frozen=True, kw_only=True, forbid_unknown_fields=True, tag="followup"):
    """A Follow-Up Move of up to 2" by a model that has just killed all its opponents;
    ``engage`` lists enemy models it ends in base contact with."""

    model: str
    inches: Decimal = Decimal(2)
    engage: tuple[str, ...] = ()


class EndTurn(Command, frozen=True, kw_only=True, forbid_unknown_fields=True, tag="endturn"):
    """End the player turn (every pair in base contact must have fought) and begin the other
    player's turn."""


Wh40kCommand = Charge | BreakOff | LeaveCombat | Fight | FollowUp | EndTurn
COMMAND_TYPES = (Charge, BreakOff, LeaveCombat, Fight, FollowUp, EndTurn)
