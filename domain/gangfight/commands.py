"""What a player can order. ``weapons`` names one or two of the model's carried weapons (none:
its first weapon that is not a shield, or bare hands)."""

from __future__ import annotations

import msgspec

from blowbyblow.domain.core import Command


class Fight(Command, frozen=True, kw_only=True, tag="fight", forbid_unknown_fields=True):
    """Fight! (a Standard Action): a melee attack, GF Melee 1-6."""

    attacker: str
    target: str
    weapons: tuple[str, ...] = ()


class PowerAttack(
    Command, frozen=True, kw_only=True, tag="power-attack", forbid_unknown_fields=True
):
    """A Special Action: successes knock the target back that many inches, then down."""

    attacker: str
    target: str
    weapons: tuple[str, ...] = ()


class FinesseAttack(
    Command, frozen=True, kw_only=True, tag="finesse-attack", forbid_unknown_fields=True
):
    """A Special Action: successes are inches the attacker may move away, with no Free Strike."""

    attacker: str
    target: str
    weapons: tuple[str, ...] = ()


class Slam(Command, frozen=True, kw_only=True, tag="slam", forbid_unknown_fields=True):
    """Slam! (Large or Huge models): a Power Attack whose successes also wound."""

    attacker: str
    target: str
    weapons: tuple[str, ...] = ()


class Trample(Command, frozen=True, kw_only=True, tag="trample", forbid_unknown_fields=True):
    """Trample (Large or Huge models): attack every smaller model in threat range."""

    attacker: str
    weapons: tuple[str, ...] = ()


class TakeFreeStrike(
    Command, frozen=True, kw_only=True, tag="free-strike", forbid_unknown_fields=True
):
    """A Free Strike (a free action) the engine could not see coming, e.g. from movement it does
    not model: ``striker`` attacks ``target``, no dice dropped, no action points."""

    striker: str
    target: str
    weapons: tuple[str, ...] = ()
    reason: str = "declared"


class Move(Command, frozen=True, kw_only=True, tag="move", forbid_unknown_fields=True):
    """Move (a Standard Action), up to MOV inches. ``to`` gives the new gap to each model it
    changes (inches; models not named keep theirs); ``through`` names enemies whose threat range
    it crosses without stopping in it. Every enemy whose threat range it leaves or crosses may
    make a Free Strike first."""

    fighter: str
    inches: int
    to: dict[str, int] = msgspec.field(default_factory=dict)
    through: tuple[str, ...] = ()


class StandUp(Command, frozen=True, kw_only=True, tag="stand-up", forbid_unknown_fields=True):
    """A Prone model spends an action point to stand."""

    fighter: str


class Fall(Command, frozen=True, kw_only=True, tag="fall", forbid_unknown_fields=True):
    """A model falls ``inches`` (whole inches)."""

    fighter: str
    inches: int


class NewTurn(Command, frozen=True, kw_only=True, tag="new-turn", forbid_unknown_fields=True):
    """The next turn: action points are restored."""


GangfightCommand = (
    Fight
    | PowerAttack
    | FinesseAttack
    | Slam
    | Trample
    | TakeFreeStrike
    | Move
    | StandUp
    | Fall
    | NewTurn
)

COMMAND_TYPES = (
    Fight,
    PowerAttack,
    FinesseAttack,
    Slam,
    Trample,
    TakeFreeStrike,
    Move,
    StandUp,
    Fall,
    NewTurn,
)
