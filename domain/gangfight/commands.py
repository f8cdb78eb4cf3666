"""What a player can order. ``weapons`` names one or two of the model's carried weapons (none:
its first weapon that is not a shield, or bare hands).

There is no map: what only the table can see (line of sight, a distance no gap records, how near
an obstacle is, who stands beside a line of fire) is given in the command, in inches measured to
the half inch, and the rules are applied to it."""

from __future__ import annotations

import msgspec

from blowbyblow.domain.core import Command
from blowbyblow.domain.gangfight.setup import CoverKind, Inches, Terrain


class Cover(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """An obstacle between a model and a ranged attack (Combat, Cover), as the table sees it:
    ``soft`` (forests, shrubs, fences) or ``hard`` (rock and brick walls, large stones, corners of
    walls), ``inches`` from the model, and whether it covers at least half the model's volume."""

    kind: CoverKind
    inches: Inches = 0
    covers_half: bool = True


class Movement(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Part of an action's movement: ``inches`` moved, ``to`` the new gap to each model it
    changes, ``through`` the enemies whose threat range it crosses without stopping in it."""

    inches: Inches
    to: dict[str, Inches] = msgspec.field(default_factory=dict)
    through: tuple[str, ...] = ()


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
    """A Special Action: successes are inches the attacker may move, with no Free Strike from
    the model attacked. With no ``to``, it moves straight away from that model (as many inches as
    its player picks). ``to`` gives where it means to go instead (the new gap to each model it
    changes; the model attacked may be among them, and named in ``through``): it goes there when
    its successes reach that far, and stays put otherwise. It may not move through another
    enemy's threat range."""

    attacker: str
    target: str
    weapons: tuple[str, ...] = ()
    to: dict[str, Inches] = msgspec.field(default_factory=dict)
    through: tuple[str, ...] = ()


class Slam(Command, frozen=True, kw_only=True, tag="slam", forbid_unknown_fields=True):
    """Slam! (Large or Huge models): a Power Attack whose successes also wound. ``approach`` is
    the movement that brings the model to its target, ``follow_through`` the rest of its
    movement after the attack (together at most MOV inches)."""

    attacker: str
    target: str
    weapons: tuple[str, ...] = ()
    approach: Movement | None = None
    follow_through: Movement | None = None


class Trample(Command, frozen=True, kw_only=True, tag="trample", forbid_unknown_fields=True):
    """Trample (Large or Huge models): attack every smaller model in threat range, then move on.
    ``approach`` and ``follow_through`` as for Slam!."""

    attacker: str
    weapons: tuple[str, ...] = ()
    approach: Movement | None = None
    follow_through: Movement | None = None


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
    inches: Inches
    to: dict[str, Inches] = msgspec.field(default_factory=dict)
    through: tuple[str, ...] = ()


class StandUp(Command, frozen=True, kw_only=True, tag="stand-up", forbid_unknown_fields=True):
    """A Prone model spends an action point to stand."""

    fighter: str


class Fall(Command, frozen=True, kw_only=True, tag="fall", forbid_unknown_fields=True):
    """A model falls ``inches`` (to the half inch)."""

    fighter: str
    inches: Inches


class Shoot(Command, frozen=True, kw_only=True, tag="shoot", forbid_unknown_fields=True):
    """Shoot! (a Standard Action): Ranged Combat steps 1-9 with a loaded ranged ``weapon`` (none
    named: the first loaded one carried). ``distance``: inches to the target as the table
    measures it, when no gap records it. ``line_of_sight`` and ``cover`` are what the table
    sees."""

    shooter: str
    target: str
    weapon: str = ""
    distance: Inches | None = None
    line_of_sight: bool = True
    cover: Cover | None = None


class AreaAttack(Command, frozen=True, kw_only=True, tag="area-attack", forbid_unknown_fields=True):
    """An Area of Effect attack (a Shoot! with an area weapon) on the nominated ``target``.
    ``near``: the other models the area may reach, each with its distance in inches: from the
    line drawn to the target (a Direct Area of Effect) or from the target (an Indirect one).
    ``cover``: the cover of any model in the area, by model."""

    attacker: str
    target: str
    weapon: str = ""
    distance: Inches | None = None
    line_of_sight: bool = True
    near: dict[str, Inches] = msgspec.field(default_factory=dict)
    cover: dict[str, Cover] = msgspec.field(default_factory=dict)


class Charge(Command, frozen=True, kw_only=True, tag="charge", forbid_unknown_fields=True):
    """Charge! (Actions and Action Points): roll MOV dice (TN by ``terrain``), each success one
    inch more than MOV; the model moves towards ``target`` (in sight) to the gaps in ``to`` (the
    target's defaults to base contact), or as far as it gets; an enemy then in its threat range
    gets a free Fight! with ``weapons``. ``distance``: inches to the target now, when no gap
    records it; ``through`` as for Move."""

    fighter: str
    target: str
    terrain: Terrain = "open"
    distance: Inches | None = None
    line_of_sight: bool = True
    to: dict[str, Inches] = msgspec.field(default_factory=dict)
    through: tuple[str, ...] = ()
    weapons: tuple[str, ...] = ()


class Reload(Command, frozen=True, kw_only=True, tag="reload", forbid_unknown_fields=True):
    """Reload (Actions and Action Points): a model loads a fired ``weapon`` again."""

    fighter: str
    weapon: str


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
    | Shoot
    | AreaAttack
    | Charge
    | Reload
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
    Shoot,
    AreaAttack,
    Charge,
    Reload,
)
