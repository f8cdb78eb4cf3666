"""The rule-step events of Necromunda close combat. Each names the rule it applies (``rule``,
e.g. "N23 CC 5") and the numbers it used. Names follow the design card (HitRolled,
InterferenceApplied, ...)."""

from __future__ import annotations

from typing import Literal

import msgspec

from blowbyblow.domain.core import Modifier, RuleEvent
from blowbyblow.domain.necromunda.state import Facing, Status

FightKind = Literal["fight", "free fight (charge)", "reaction", "granted attack"]
GrantSource = Literal["skill", "gang tactic", "Mounted"]
InjuryResult = Literal["Flesh Wound", "Serious Injury", "Out of Action"]
Location = Literal["Body", "Drive", "Engine"]


class DiceGroup(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Attack dice of one weapon (or ``unarmed``) against one target."""

    weapon: str
    target: str
    dice: int


class WeaponDice(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    weapon: str
    dice: int


class FightDeclared(RuleEvent, frozen=True, kw_only=True):
    """A fighter begins a close combat attack sequence (a Fight action, or Reaction attacks)."""

    fighter: str
    kind: FightKind
    charging: bool = False
    engaged_with: tuple[str, ...] = ()


class Charged(RuleEvent, frozen=True, kw_only=True):
    """A Charge (Double) action moved the fighter into engagement with its targets."""

    fighter: str
    targets: list[str]
    out_of_sight: tuple[str, ...] = ()


class EngagementFormed(RuleEvent, frozen=True, kw_only=True):
    a: str
    b: str
    across: str | None = None
    facing: Facing | None = None


class EngagementEnded(RuleEvent, frozen=True, kw_only=True):
    a: str
    b: str
    reason: str


class VisionChanged(RuleEvent, frozen=True, kw_only=True):
    fighter: str
    in_arc: list[str]
    reason: str


class TurnedToFace(RuleEvent, frozen=True, kw_only=True):
    """Step 1: the fighter turned (or counts as having turned); -1 to its hit rolls."""

    fighter: str
    in_arc: list[str]
    modifier: int = -1
    counted: bool = False  # True when it only *counts as* having turned (charged while Prone)


class WeaponsChosen(RuleEvent, frozen=True, kw_only=True):
    fighter: str
    weapons: list[str]  # weapon ids, or ["unarmed"]


class AttackDiceAllocated(RuleEvent, frozen=True, kw_only=True):
    """Step 3: the Attacks characteristic, its modifiers, the total, the split per weapon."""

    fighter: str
    attacks: int
    modifiers: list[Modifier]
    total: int
    split: list[WeaponDice]
    odd_die: str | None = None  # the weapon the player gave the odd die to, if there was a choice


class TargetsDeclared(RuleEvent, frozen=True, kw_only=True):
    fighter: str
    groups: list[DiceGroup]


class AssistClaimed(RuleEvent, frozen=True, kw_only=True):
    attacker: str
    target: str
    assisting: str
    modifier: int = 1


class InterferenceApplied(RuleEvent, frozen=True, kw_only=True):
    attacker: str
    target: str
    interfering: str
    modifier: int = -1


class HitRolled(RuleEvent, frozen=True, kw_only=True):
    attacker: str
    target: str
    weapon: str
    die: int  # 1-based number of the die within its weapon/target group
    natural: int
    modifiers: list[Modifier]
    target_number: int
    total: int
    hit: bool
    note: str = ""


class AmmoChecked(RuleEvent, frozen=True, kw_only=True):
    """Legacy pistols at close quarters: the Firepower dice showed the ammo symbol."""

    fighter: str
    weapon: str
    firepower_natural: int
    ammo_symbol: bool
    natural: int | None = None
    target_number: int | None = None
    out_of_ammo: bool = False


class HitDiscarded(RuleEvent, frozen=True, kw_only=True):
    attacker: str
    target: str
    weapon: str
    reason: str


class WoundRolled(RuleEvent, frozen=True, kw_only=True):
    attacker: str
    target: str
    weapon: str
    natural: int
    strength: int
    toughness: int
    target_number: int
    wounded: bool


class LocationRolled(RuleEvent, frozen=True, kw_only=True):
    """A hit on a vehicle: Location dice (one extra in close combat), one result chosen."""

    attacker: str
    target: str
    naturals: list[int]
    results: list[Location]
    chosen: Location


class SaveRolled(RuleEvent, frozen=True, kw_only=True):
    target: str
    natural: int
    save: int
    modifiers: list[Modifier]
    target_number: int
    saved: bool


class DamageInflicted(RuleEvent, frozen=True, kw_only=True):
    attacker: str
    target: str
    weapon: str
    damage: int
    wounds_before: int
    wounds_after: int
    injury_dice: int


class InjuryRolled(RuleEvent, frozen=True, kw_only=True):
    target: str
    die: int
    natural: int
    result: InjuryResult


class FleshWoundSuffered(RuleEvent, frozen=True, kw_only=True):
    fighter: str
    flesh_wounds: int
    toughness: int
    reason: str = ""


class StatusChanged(RuleEvent, frozen=True, kw_only=True):
    fighter: str
    before: Status
    after: Status
    cause: str


class BrokenChanged(RuleEvent, frozen=True, kw_only=True):
    fighter: str
    broken: bool
    cause: str


class NerveTested(RuleEvent, frozen=True, kw_only=True):
    fighter: str
    cause: str
    naturals: list[int]
    modifiers: list[Modifier]
    target_number: int
    total: int
    passed: bool


class NerveTestSkipped(RuleEvent, frozen=True, kw_only=True):
    fighter: str
    cause: str
    reason: str


class ReactionAttacksBegun(RuleEvent, frozen=True, kw_only=True):
    attacker: str
    reactors: list[str]


class ReactionForgone(RuleEvent, frozen=True, kw_only=True):
    fighter: str
    reason: str


class CoupDeGrace(RuleEvent, frozen=True, kw_only=True):
    fighter: str
    target: str
    effect: str  # the ruling in force: "out-of-action" | "injury-dice"
    weapon: str = ""


class Consolidated(RuleEvent, frozen=True, kw_only=True):
    fighter: str
    inches: int
    left_contact_with: list[str]


class Step8Forgone(RuleEvent, frozen=True, kw_only=True):
    fighter: str
    reason: str


class AttackGranted(RuleEvent, frozen=True, kw_only=True):
    """A skill, a gang tactic or the Mounted condition lets the fighter make a close combat
    attack outside the normal sequence of the battle (the close combat sequence follows)."""

    fighter: str
    granted_by: str  # the skill's or the tactic's name, or "Mounted"
    source: GrantSource


class VehicleLeavesEngagement(RuleEvent, frozen=True, kw_only=True):
    """A vehicle moves out of engagement range of the enemy fighters within 1" of it
    (``fighters``); each may test its Initiative to make Reaction attacks against it first."""

    vehicle: str
    fighters: list[str]
    attacks: bool  # whether those fighters may test for Reaction attacks (a ruling before 2023)


class InitiativeTested(RuleEvent, frozen=True, kw_only=True):
    """An Initiative test: D6 against the fighter's Initiative (pass on the target or more)."""

    fighter: str
    cause: str
    natural: int
    target_number: int
    passed: bool


class VehicleDamaged(RuleEvent, frozen=True, kw_only=True):
    """A hit's Damage applied to the Location chosen from the Location dice: each point of
    Damage removes a Hull Point (none left: Wrecked)."""

    attacker: str
    vehicle: str
    weapon: str
    location: Location
    damage: int
    hull_points_before: int
    hull_points_after: int


EVENT_TYPES: tuple[type[RuleEvent], ...] = (
    FightDeclared,
    Charged,
    EngagementFormed,
    EngagementEnded,
    VisionChanged,
    TurnedToFace,
    WeaponsChosen,
    AttackDiceAllocated,
    TargetsDeclared,
    AssistClaimed,
    InterferenceApplied,
    HitRolled,
    AmmoChecked,
    HitDiscarded,
    WoundRolled,
    LocationRolled,
    SaveRolled,
    DamageInflicted,
    InjuryRolled,
    FleshWoundSuffered,
    StatusChanged,
    BrokenChanged,
    NerveTested,
    NerveTestSkipped,
    ReactionAttacksBegun,
    ReactionForgone,
    CoupDeGrace,
    Consolidated,
    Step8Forgone,
    AttackGranted,
    VehicleLeavesEngagement,
    InitiativeTested,
    VehicleDamaged,
)
