"""The rule-step events of ASL Close Combat, each naming its rule and the numbers it used."""

from __future__ import annotations

from typing import Literal

import msgspec

from blowbyblow.domain.asl.setup import UnitKind
from blowbyblow.domain.asl.state import UnitState
from blowbyblow.domain.core import Modifier, RuleEvent

WithdrawalKind = Literal["melee", "ambush", "infiltration", "street-fighting"]
MoveKind = Literal["move", "unload", "street-fighting"]
Sequence = Literal["simultaneous", "ambush", "vehicle", "prisoners"]  # A11.12, A11.31-A11.33
KnColor = Literal["black", "red"]  # A11.11: red in Hand-to-Hand CC
CCResult = Literal["eliminated", "partial", "none", "captured", "partial-capture"]
VehicleResult = Literal["burning", "eliminated", "immobilized", "none"]
ATMMResult = Literal["atmm", "pinned", "none"]
WoundResult = Literal["wounded", "killed"]


class CloseCombatPhaseBegun(RuleEvent, frozen=True, kw_only=True):
    turn: int
    attacker: str
    defender: str
    location: str
    in_melee: bool
    melee_since: int | None = None


class PAATCTaken(RuleEvent, frozen=True, kw_only=True):
    """A11.6: DR <= Morale passes (a 1TC, +1, for Inexperienced); failure pins the unit, which
    stays where it came from."""

    unit: str
    original: int
    modifiers: tuple[Modifier, ...]
    final: int
    morale: int
    passed: bool
    back_to: str | None


class DummyRemoved(RuleEvent, frozen=True, kw_only=True):
    unit: str
    location: str


class ConcealmentRevealed(RuleEvent, frozen=True, kw_only=True):
    """A11.19: a concealed unit reveals its Strength Factor before designation (keeps its "?")."""

    unit: str
    name: str
    fp: int


class ConcealmentLost(RuleEvent, frozen=True, kw_only=True):
    unit: str
    cause: str


class WithdrawalAttempted(RuleEvent, frozen=True, kw_only=True):
    """A11.2: announced before designation; attacks on the unit get -2, +1 per friendly unit in
    the Melee not withdrawing."""

    unit: str
    side: str
    to: str
    with_unit: str | None
    forced: bool  # broken Infantry in Melee must attempt it (A11.16)
    standing: int
    drm: int


class Withdrew(RuleEvent, frozen=True, kw_only=True):
    """A unit leaves the CC Location: kind is melee (A11.2), ambush (A11.41), infiltration
    (A11.22) or street-fighting (A11.8 return)."""

    unit: str
    kind: WithdrawalKind
    to: str
    keeps_concealment: bool


class CXPlaced(RuleEvent, frozen=True, kw_only=True):
    """A11.21: ``unit`` withdrew into ``location``, Accessible to it only by placing a CX counter
    ("even if it requires placement of a CX counter; 4.72"): it is CX from Player Turn
    ``turn``."""

    unit: str
    location: str
    turn: int


class CXRemoved(RuleEvent, frozen=True, kw_only=True):
    """Ruling withdrawal-cx: the CX counters a withdrawal placed on ``units`` are removed as
    their side's next Player Turn ``turn`` begins (its next MPh)."""

    units: tuple[str, ...]
    turn: int


class AmbushRoll(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    side: str
    original: int
    modifiers: tuple[Modifier, ...]
    final: int


class AmbushStatusRolled(RuleEvent, frozen=True, kw_only=True):
    rolls: tuple[AmbushRoll, ...]
    threshold: str
    ambusher: str | None


class AmbushDeclared(RuleEvent, frozen=True, kw_only=True):
    """A11.4: ``ambusher`` Ambushes ``ambushed``: -1 to its attacks, +1 to attacks on it,
    sequential CC (A11.32), may withdraw (A11.41); the ambushed side loses concealment."""

    ambusher: str
    ambushed: str
    ambusher_final: int
    ambushed_final: int


class AttackDesignated(RuleEvent, frozen=True, kw_only=True):
    attack: int
    side: str
    attackers: tuple[str, ...]
    targets: tuple[str, ...]
    leader: str | None
    capture: bool
    vs_vehicle: bool
    sequence: Sequence


class CaptureAttempted(RuleEvent, frozen=True, kw_only=True):
    attack: int
    side: str
    targets: tuple[str, ...]


class OddsCalculated(RuleEvent, frozen=True, kw_only=True):
    attack: int
    attack_fp: str
    defense_fp: str
    halvings: tuple[str, ...]
    column: str
    kill_number: int
    kn_color: KnColor


class CCVCalculated(RuleEvent, frozen=True, kw_only=True):
    """A11.5: the Basic Kill Number vs a vehicle is the attackers' CCV."""

    attack: int
    vehicle: str
    base: int
    adjustments: tuple[Modifier, ...]
    ccv: int


class ATMMChecked(RuleEvent, frozen=True, kw_only=True):
    attack: int
    unit: str
    original: int
    modifiers: tuple[Modifier, ...]
    final: int
    result: ATMMResult


class CCAttackRolled(RuleEvent, frozen=True, kw_only=True):
    """The CC DR: colored and white dice kept apart (A11.13 needs the colored dr)."""

    attack: int
    colored: int
    white: int
    original: int


class TargetOutcome(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    unit: str
    modifiers: tuple[Modifier, ...]
    final_dr: int
    result: CCResult  # captured, partial-capture: the results of a Capture attempt


class CloseCombatResolved(RuleEvent, frozen=True, kw_only=True):
    attack: int
    side: str
    column: str
    kill_number: int
    original: int
    outcomes: tuple[TargetOutcome, ...]


class VehicleCCResolved(RuleEvent, frozen=True, kw_only=True):
    attack: int
    vehicle: str
    ccv: int
    original: int
    modifiers: tuple[Modifier, ...]
    final_dr: int
    result: VehicleResult


class UnlikelyKillRolled(RuleEvent, frozen=True, kw_only=True):
    attack: int
    dr: int
    result: VehicleResult


class VehicleImmobilized(RuleEvent, frozen=True, kw_only=True):
    vehicle: str


class VehicleEliminated(RuleEvent, frozen=True, kw_only=True):
    vehicle: str
    burning: bool


class PartialKill(RuleEvent, frozen=True, kw_only=True):
    """A11.11: Final DR = KN; one or more of ``eligible`` suffer Casualty Reduction."""

    attack: int
    kill_number: int
    eligible: tuple[str, ...]


class RandomSelectionRolled(RuleEvent, frozen=True, kw_only=True):
    """A.9: one dr per unit; the highest (all ties) are selected."""

    purpose: str
    units: tuple[str, ...]
    drs: tuple[int, ...]
    selected: tuple[str, ...]


class CasualtyReduced(RuleEvent, frozen=True, kw_only=True):
    unit: str
    from_name: str
    to_kind: UnitKind
    to_name: str
    to_fp: int
    cause: str


class WoundSeverityRolled(RuleEvent, frozen=True, kw_only=True):
    unit: str
    original: int
    modifiers: tuple[Modifier, ...]
    final: int
    result: WoundResult


class UnitEliminated(RuleEvent, frozen=True, kw_only=True):
    unit: str
    cause: str


class UnitStatusChanged(RuleEvent, frozen=True, kw_only=True):
    unit: str
    broken: bool
    pinned: bool
    cause: str


class SupportWeaponLost(RuleEvent, frozen=True, kw_only=True):
    unit: str
    sw: str
    colored_dr: int
    dr: int
    kill_number: int


class SupportWeaponDropped(RuleEvent, frozen=True, kw_only=True):
    unit: str
    sw: str
    location: str


class Infiltrated(RuleEvent, frozen=True, kw_only=True):
    """A11.22: after an Original 2 (attacker) or 12 (attacked units) the unit may withdraw."""

    unit: str
    original: int
    to: str


class AttackForfeited(RuleEvent, frozen=True, kw_only=True):
    attack: int
    units: tuple[str, ...]
    cause: str


class UnitCaptured(RuleEvent, frozen=True, kw_only=True):
    unit: str
    guard: str
    created: UnitState | None = None  # the HS Prisoner split from a squad


class CaptureVoided(RuleEvent, frozen=True, kw_only=True):
    unit: str
    restored: UnitState | None  # the squad the HS Prisoner rejoins, as it was


class PrisonerReleased(RuleEvent, frozen=True, kw_only=True):
    unit: str
    cause: str


class CloseDefenseWeaponFired(RuleEvent, frozen=True, kw_only=True):
    attack: int
    vehicle: str
    original: int
    usage: int
    effective: bool
    targets: tuple[str, ...]


class FailureToRout(RuleEvent, frozen=True, kw_only=True):
    unit: str


class MeleeLocked(RuleEvent, frozen=True, kw_only=True):
    location: str
    since: int
    units: tuple[str, ...]
    vehicles: tuple[str, ...]


class MeleeContinued(RuleEvent, frozen=True, kw_only=True):
    location: str
    since: int
    units: tuple[str, ...]
    vehicles: tuple[str, ...]


class MeleeEnded(RuleEvent, frozen=True, kw_only=True):
    location: str


class CloseCombatEnded(RuleEvent, frozen=True, kw_only=True):
    location: str
    turn: int


# --- between phases: how units come into a Location -------------------------------------------


class Advanced(RuleEvent, frozen=True, kw_only=True):
    """A4.7: ``unit`` advanced in the APh of Player Turn ``turn``; into a Location locked in
    Melee it is ``reinforcing`` it (A11.15: no Ambush, it must engage in CC)."""

    turn: int
    attacker: str
    unit: str
    came_from: str
    to: str
    reinforcing: bool


class Moved(RuleEvent, frozen=True, kw_only=True):
    """``unit`` entered ``to`` in the MPh (``move``; a vehicle with the PRC it ``carries``),
    unloaded from its vehicle (``unload``, A11.71), or was moved onto a vehicle to attack it
    with Street Fighting procedures (``street-fighting``, A11.8)."""

    turn: int
    attacker: str
    unit: str
    kind: MoveKind
    came_from: str
    to: str
    carries: tuple[str, ...] = ()


class MeleeFreed(RuleEvent, frozen=True, kw_only=True):
    """The enemy units in ``location`` are no longer held in Melee: no friendly unit stayed
    behind (A11.71), or the vehicle that held them is no longer stopped (A11.7)."""

    location: str
    freed: tuple[str, ...]
    cause: str


class Restacked(RuleEvent, frozen=True, kw_only=True):
    """A11.14: the SMC ``unit`` is now stacked on ``onto`` (None: on no MMC)."""

    turn: int
    attacker: str
    unit: str
    location: str
    onto: str | None


class ReactionFireDeclared(RuleEvent, frozen=True, kw_only=True):
    """A11.8: in the MPh of Player Turn ``turn``, ``by`` attack ``vehicle`` in ``location`` with
    Street Fighting CC procedures (from ``came_from``, their building Location, when they
    Street Fight onto a road)."""

    turn: int
    attacker: str
    vehicle: str
    location: str
    by: tuple[str, ...]
    came_from: str


class MeleeFiredOn(RuleEvent, frozen=True, kw_only=True):
    """A11.15: in Player Turn ``turn`` (its ATTACKER ``attacker``), ``side``'s non-Melee units
    ``by`` (none: its Sniper, ``sniper``) attack the Melee in ``location``: ``targets`` are
    every friendly Melee and enemy unit there (a Sniper's: the enemy units only)."""

    turn: int
    attacker: str
    side: str
    location: str
    by: tuple[str, ...]
    sniper: bool
    targets: tuple[str, ...]


class VehicleCaptured(RuleEvent, frozen=True, kw_only=True):
    """A11.52: ``vehicle`` is captured by ``by`` (a side)."""

    vehicle: str
    by: str
    cause: str


EVENT_TYPES = (
    CloseCombatPhaseBegun,
    PAATCTaken,
    DummyRemoved,
    ConcealmentRevealed,
    ConcealmentLost,
    WithdrawalAttempted,
    Withdrew,
    AmbushStatusRolled,
    AmbushDeclared,
    AttackDesignated,
    CaptureAttempted,
    OddsCalculated,
    CCVCalculated,
    ATMMChecked,
    CCAttackRolled,
    CloseCombatResolved,
    VehicleCCResolved,
    UnlikelyKillRolled,
    VehicleImmobilized,
    VehicleEliminated,
    PartialKill,
    RandomSelectionRolled,
    CasualtyReduced,
    WoundSeverityRolled,
    UnitEliminated,
    UnitStatusChanged,
    SupportWeaponLost,
    SupportWeaponDropped,
    Infiltrated,
    AttackForfeited,
    UnitCaptured,
    CaptureVoided,
    PrisonerReleased,
    CloseDefenseWeaponFired,
    FailureToRout,
    MeleeLocked,
    MeleeContinued,
    MeleeEnded,
    CloseCombatEnded,
    Advanced,
    Moved,
    MeleeFreed,
    Restacked,
    ReactionFireDeclared,
    MeleeFiredOn,
    VehicleCaptured,
    CXPlaced,
    CXRemoved,
)
