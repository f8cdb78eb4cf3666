"""Commands a Necromunda player gives in close combat. Scenario files name them by ``type``:
``fight``, ``charge``, ``coup-de-grace``, ``granted-attack``, ``leave-engagement``."""

from __future__ import annotations

import msgspec

from blowbyblow.domain.core import Command
from blowbyblow.domain.necromunda.state import Facing


class Allocation(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``dice`` Attack dice of ``weapon`` (a weapon id or "unarmed") against ``target``."""

    weapon: str
    target: str
    dice: int


class Fight(Command, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A Fight (Basic) action. ``weapons``: up to two Melee/Sidearm weapon ids (empty: unarmed).
    ``targets``: who to attack when all dice go to one target; otherwise give ``allocation``.
    ``turn_to_face``: turn before attacking (-1 to hit) and list who is in the vision arc after.
    ``odd_die``: the weapon that takes an odd Attack die (asked if not given).
    ``charging`` / ``charged_out_of_sight``: this is the free Fight of a charge made outside
    this log (a ``charge`` command sets these itself)."""

    attacker: str
    weapons: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    allocation: tuple[Allocation, ...] = ()
    turn_to_face: list[str] | None = None
    odd_die: str | None = None
    charging: bool = False
    charged_out_of_sight: tuple[str, ...] = ()


class Charge(Command, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A Charge (Double) action that ends in engagement with ``targets``, then the free Fight.

    ``out_of_sight``: charged targets the charger could not draw line of sight to (-1 to the free
    Fight's hits). ``across``: target id -> barricade id it is fought across. ``facing``: vehicle
    target id -> the facing the charger ends in contact with. The fight fields are as in ``fight``;
    ``fight_targets`` defaults to the charged targets."""

    attacker: str
    targets: list[str]
    out_of_sight: tuple[str, ...] = ()
    across: dict[str, str] = msgspec.field(default_factory=dict)
    facing: dict[str, Facing] = msgspec.field(default_factory=dict)
    weapons: tuple[str, ...] = ()
    fight_targets: tuple[str, ...] = ()
    allocation: tuple[Allocation, ...] = ()
    turn_to_face: list[str] | None = None
    odd_die: str | None = None


class CoupDeGraceAction(
    Command, frozen=True, kw_only=True, forbid_unknown_fields=True, tag="coup-de-grace"
):
    """A Coup de Grace (Simple) action against a Prone & Seriously Injured enemy in contact."""

    attacker: str
    target: str
    weapon: str | None = None


class GrantedAttack(
    Command, frozen=True, kw_only=True, forbid_unknown_fields=True, tag="granted-attack"
):
    """A close combat attack outside the normal sequence of the battle, which a skill, a gang
    tactic or the Mounted condition allows: ``granted_by`` names the fighter's skill, its
    gang's tactic, or "Mounted". The close combat sequence follows (steps 1 to 8); the other
    fields are as in ``fight``."""

    attacker: str
    granted_by: str
    weapons: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    allocation: tuple[Allocation, ...] = ()
    turn_to_face: list[str] | None = None
    odd_die: str | None = None


class LeaveEngagement(
    Command, frozen=True, kw_only=True, forbid_unknown_fields=True, tag="leave-engagement"
):
    """A vehicle moves out of engagement range of every enemy fighter within 1" of it; each of
    them may test its Initiative and, if it passes, make Reaction attacks against it."""

    vehicle: str


NecromundaCommand = Fight | Charge | CoupDeGraceAction | GrantedAttack | LeaveEngagement
COMMAND_TYPES: tuple[type[Command], ...] = (
    Fight,
    Charge,
    CoupDeGraceAction,
    GrantedAttack,
    LeaveEngagement,
)
