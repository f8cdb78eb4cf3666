"""Commands: the Close Combat of one Location in one CCPh (A11.12), with the players' decisions
that the rules let them make in advance: Withdrawal announcements (A11.2), solo SMC attacks
(A11.14) and the attack designations (A11.12). Decisions that depend on dice (Infiltration,
Ambush Withdrawal, the captured unit on a Partial Kill, Morale Check results of an IFT attack)
are asked through ``Ask``.

Between phases, how units come into a Location, which decides Ambush (A11.4) and reinforcing a
Melee (A11.15): ``advance`` (APh), ``move`` (MPh; a Mobile vehicle and its PRC leave a Melee,
A11.71, Passengers unload); ``restack`` (A11.14, before the Location's CC); ``reactionfire``
(A11.8: Infantry attack a vehicle in the MPh with Street Fighting CC procedures)."""

from __future__ import annotations

from typing import Literal, get_args

import msgspec

from blowbyblow.domain.core import Command

# a vehicle's CC armament (A11.62, A11.622); "passengers": a CE halftrack's Passengers' FP (A11.62)
Weapon = Literal["cmg", "aamg", "rmg", "sn", "passengers"]
WEAPONS: tuple[Weapon, ...] = get_args(Weapon)


class Withdrawal(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A11.2: ``unit`` attempts to Withdraw from Melee into the adjacent Location ``to``; an SMC
    may withdraw ``with_unit`` (an MMC also withdrawing), so it defends with it. ``cx``: ``to``
    is Accessible to it under normal APh conditions only by placing a CX counter (A11.21,
    A4.72); if it withdraws, it is CX."""

    unit: str
    to: str
    with_unit: str | None = None
    cx: bool = False


class CxNeeded(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A11.21 for a withdrawal whose destination is asked during the CC (Infiltration, A11.22;
    Ambush Withdrawal, A11.41): should ``unit`` withdraw into ``to``, that Location is
    Accessible to it under normal APh conditions only by placing a CX counter (A4.72); it is
    then CX."""

    unit: str
    to: str


class Paatc(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A11.6: ``unit`` advanced from ``from_location`` into a Location with a manned Known enemy
    AFV and takes its Pre-AFV Advance Task Check, aided by ``leader`` (default: the best Good
    Order leader of its side in either Location)."""

    unit: str
    from_location: str
    leader: str | None = None


class ExtraDrm(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A DRM from outside chapter A11 (e.g. Wire, B26.41), given with its cause and rule."""

    value: int
    cause: str
    rule: str = "other"


class Attack(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    """One CC attack (A11.12): ``by`` units (or one vehicle) against ``targets`` (Personnel, or
    one vehicle). ``leader`` names the directing leader (A11.141; default: the best eligible one).
    ``capture``: a Capture attempt (A20.22). ``hth``: Hand-to-Hand (red KN) where the ruling
    allows declaring it. ``atmm``: the unit making an ATMM check first (vs an AFV).
    ``weapons``: for a vehicle, which of cmg/aamg/rmg/sn/passengers it uses (default: every
    usable MG)."""

    by: list[str]
    targets: list[str]
    leader: str | None = None
    capture: bool = False
    hth: bool = False
    atmm: str | None = None  # the unit making an ATMM check (C13.7) before an attack vs an AFV
    weapons: list[Weapon] = []
    extra: list[ExtraDrm] = []


class CloseCombat(
    Command, frozen=True, kw_only=True, forbid_unknown_fields=True, tag="closecombat"
):
    """CC in ``location`` during the CCPh of Player Turn ``turn`` whose ATTACKER is ``attacker``."""

    turn: int
    attacker: str
    location: str
    paatc: list[Paatc] = msgspec.field(default_factory=list)
    withdrawals: list[Withdrawal] = msgspec.field(default_factory=list)
    cx_needed: list[CxNeeded] = msgspec.field(default_factory=list)  # A11.21, asked withdrawals
    solo: list[str] = msgspec.field(default_factory=list)  # SMC announcing a solo attack (A11.14)
    attacks: list[Attack] = msgspec.field(default_factory=list)
    ambush_possible: bool | None = None  # default: A11.4 conditions from the Location


class Advance(Command, frozen=True, kw_only=True, forbid_unknown_fields=True, tag="advance"):
    """APh of Player Turn ``turn``: the ATTACKER's ``units`` advance together from their Location
    into the adjacent Location ``to`` (A4.7); into an enemy's Location they advance into CC
    (A11.4), into a Location locked in Melee they reinforce it (A11.15). An MMC advancing into
    a manned enemy AFV's Location takes its PAATC first, aided by ``leader`` (default: the best
    Good Order leader of its side in either Location, A11.6)."""

    turn: int
    attacker: str
    units: list[str]
    to: str
    leader: str | None = None


class Move(Command, frozen=True, kw_only=True, forbid_unknown_fields=True, tag="move"):
    """MPh of Player Turn ``turn``: the ATTACKER's ``units`` (Personnel moving together, or one
    vehicle, whose Passengers and Riders go with it) enter the adjacent Location ``to``. A
    Passenger or Rider whose ``to`` is its vehicle's own Location unloads there (A11.71)."""

    turn: int
    attacker: str
    units: list[str]
    to: str


class Restack(Command, frozen=True, kw_only=True, forbid_unknown_fields=True, tag="restack"):
    """A11.14: before both sides declare CC attacks in its Location, the SMC ``unit`` is
    stacked on the MMC ``onto`` (None: on no MMC); a Known SMC and a concealed MMC (or the
    reverse) pair only by the concealed one forfeiting its concealment."""

    turn: int
    attacker: str
    unit: str
    onto: str | None = None


class ReactionFire(
    Command, frozen=True, kw_only=True, forbid_unknown_fields=True, tag="reactionfire"
):
    """A11.8/D7.2: in the MPh of Player Turn ``turn``, the DEFENDER's Infantry ``by`` (one unit,
    or two with one an SMC, A11.5) attack the ``vehicle`` that moved, with Street Fighting CC
    procedures: from an adjacent building Location onto a road (or at a vehicle in Bypass), or
    in its own Location (CC Reaction Fire). The vehicle has no CC attack back; Crew Small Arms
    applies (A11.621). ``non_stopped``: the vehicle is non-stopped (+2, A11.51; it holds no one
    in Melee, A11.7). ``atmm``: the unit making an ATMM check first (C13.7)."""

    turn: int
    attacker: str
    vehicle: str
    by: list[str]
    non_stopped: bool = True
    atmm: str | None = None
    extra: list[ExtraDrm] = msgspec.field(default_factory=list)


class FireIntoMelee(Command, frozen=True, kw_only=True, forbid_unknown_fields=True, tag="fire"):
    """A11.15: in a fire phase (or the ATTACKER's MPh) of Player Turn ``turn``, before its APh,
    the non-Melee units ``by`` (of one side; Personnel or vehicles) attack the Melee in
    ``location`` ("all friendly Melee and enemy units in the Location must be attacked"), or,
    ``sniper`` naming a side, that side's Sniper does ("without harming friendly units"). The
    attack itself (IFT, LOS, TEM, A7; Snipers, A14) is outside chapter A11: each unit's result
    is entered."""

    turn: int
    attacker: str
    location: str
    by: list[str] = msgspec.field(default_factory=list)
    sniper: str | None = None


AslCommand = CloseCombat | Advance | Move | Restack | ReactionFire | FireIntoMelee
COMMAND_TYPES: tuple[type[Command], ...] = (
    CloseCombat,
    Advance,
    Move,
    Restack,
    ReactionFire,
    FireIntoMelee,
)
BETWEEN_PHASES = Advance | Move | Restack | ReactionFire | FireIntoMelee
