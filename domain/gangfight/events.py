"""Rule-step events, EVENT_TYPES. Each names its rule and carries the numbers it used; a
dice-pool test's numbers are one shared :class:`PoolTest` record (pool and its modifiers,
Target Number and its modifiers, dice dropped, natural values, successes, criticals)."""

from __future__ import annotations

from typing import Literal

import msgspec

from blowbyblow.domain.core import Modifier, RuleEvent
from blowbyblow.domain.gangfight.setup import AreaKind, CoverKind, Inches, Size, Terrain
from blowbyblow.domain.gangfight.state import Gap

# What kind of attack an Attack Roll is for: Fight!, a Power or Finesse Attack, Slam!, Trample,
# a Free Strike. (A charge's free Fight! is a "fight"; shots have their own Marksmanship roll.)
AttackKind = Literal["fight", "power", "finesse", "slam", "trample", "free-strike"]


class PoolTest(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One test (Game Terms): roll ``dice`` D6 of a ``pool`` against a Target Number.

    ``tn`` = max(2, ``tn_base`` + modifiers). Above 6, ``dropped_forced`` dice bring it to 6
    (one per point); ``dropped_chosen`` further dice lower it one point each. ``sixes_only`` when
    it could not be brought to 6. ``final_tn`` is what each die needed (a natural 1 never
    succeeds; a natural 6 always does and is a Critical Success)."""

    pool_base: int
    pool_modifiers: tuple[Modifier, ...] = ()
    pool: int
    tn_base: int
    tn_modifiers: tuple[Modifier, ...] = ()
    tn: int
    may_drop: bool = True
    dropped_forced: int = 0
    dropped_chosen: int = 0
    dice: int
    final_tn: int
    sixes_only: bool = False
    natural: tuple[int, ...] = ()
    successes: int = 0
    criticals: int = 0


class TurnStarted(RuleEvent, frozen=True, kw_only=True):
    """A new turn: every model still in the fight has its IV in action points again (Actions
    and Action Points)."""

    turn: int


class ActionPointsSpent(RuleEvent, frozen=True, kw_only=True):
    """An action's cost comes off the model's action points (Actions and Action Points)."""

    fighter: str
    action: str
    cost: int
    before: int
    after: int


class InThreatRange(RuleEvent, frozen=True, kw_only=True):
    """GF Melee 1: the target is within the attacker's threat range."""

    attacker: str
    target: str
    inches: Inches
    threat: Inches


class AttackRolled(RuleEvent, frozen=True, kw_only=True):
    """GF Melee 2: ATT dice against the target's DEF. ``attack`` is fight, power, finesse,
    slam, trample or free-strike."""

    attacker: str
    target: str
    attack: AttackKind
    weapons: tuple[str, ...]
    test: PoolTest


class WoundsInflicted(RuleEvent, frozen=True, kw_only=True):
    """GF Melee 3: each success is a Wound, unless a special attack turns it into its effect."""

    attacker: str
    target: str
    successes: int
    wounds: int
    effect: int


class ArmourRolled(RuleEvent, frozen=True, kw_only=True):
    """GF Melee 4: ARM dice against the attacker's modified DAM (``against`` is the attacker,
    or "fall")."""

    fighter: str
    against: str
    wounds: int
    test: PoolTest


class WoundsNegated(RuleEvent, frozen=True, kw_only=True):
    """GF Melee 5: each Armour success negates one Wound."""

    fighter: str
    wounds: int
    successes: int
    negated: int
    remaining: int


class WoundsApplied(RuleEvent, frozen=True, kw_only=True):
    """GF Melee 6: the rest come off Endurance."""

    fighter: str
    wounds: int
    before: int
    after: int
    en: int
    en_left: int


class Incapacitated(RuleEvent, frozen=True, kw_only=True):
    """GF Melee 6 or GF Incapacitation (ruling incapacitation): replaced by a token."""

    fighter: str
    wounds: int
    en: int
    ruling: str


class Killed(RuleEvent, frozen=True, kw_only=True):
    """GF Incapacitation: damage sustained while Incapacitated: the model is Dead."""

    fighter: str
    wounds: int


class KnockedBack(RuleEvent, frozen=True, kw_only=True):
    """GF Power Attacks / GF Slam!: the model is knocked back ``inches`` from ``by``."""

    fighter: str
    by: str
    inches: int
    gap_before: Inches
    gap_after: Inches


class KnockedDown(RuleEvent, frozen=True, kw_only=True):
    """The model is Prone (GF Knocked Down)."""

    fighter: str
    by: str


class Disengaged(RuleEvent, frozen=True, kw_only=True):
    """GF Finesse Attacks: the attacker moves up to ``allowed`` inches, no Free Strike."""

    fighter: str
    from_fighter: str
    allowed: int
    inches: int
    gap_before: Inches
    gap_after: Inches


class FreeStrike(RuleEvent, frozen=True, kw_only=True):
    """GF Free Strikes: ``striker`` gets a free attack on ``target`` (no dice dropped)."""

    striker: str
    target: str
    reason: str


class FreeStrikeDeclined(RuleEvent, frozen=True, kw_only=True):
    """GF Free Strikes: no Free Strike is made (declined, or the striker cannot make one)."""

    striker: str
    target: str
    reason: str


class Slammed(RuleEvent, frozen=True, kw_only=True):
    """GF Slam!: a Large or Huge model slams one of the same size or larger."""

    attacker: str
    target: str
    attacker_size: Size
    target_size: Size
    modifiers: tuple[Modifier, ...] = ()


class SlamTreatedAsTrample(RuleEvent, frozen=True, kw_only=True):
    """GF Slam!: a Slam! on a smaller model is a Trample instead."""

    attacker: str
    target: str
    attacker_size: Size
    target_size: Size


class Trampled(RuleEvent, frozen=True, kw_only=True):
    """GF Trample: every smaller model in threat range is struck; ``level`` points off each
    Target Number cost ``level`` dice per model (``dropped``); ``pool`` dice are left."""

    attacker: str
    targets: tuple[str, ...]
    level: int
    dropped: int
    pool: int


class FallingDamage(RuleEvent, frozen=True, kw_only=True):
    """GF Falling: one Damage 4 hit per increment of the model's height."""

    fighter: str
    size: Size
    inches: Inches
    height_half_inches: int
    hits: int
    damage: int


class StoodUp(RuleEvent, frozen=True, kw_only=True):
    """GF Knocked Down: a Prone model spends an action point to stand up."""

    fighter: str


class Moved(RuleEvent, frozen=True, kw_only=True):
    """Move (Actions and Action Points): the model moves up to MOV inches; ``gaps`` are its new
    distances."""

    fighter: str
    inches: Inches
    gaps: tuple[Gap, ...]


class DisengagedTo(RuleEvent, frozen=True, kw_only=True):
    """GF Finesse Attacks: the attacker moves where its command said (``gaps``) when its
    ``allowed`` inches reach the ``needed`` ones (``moved``); otherwise it stays put."""

    fighter: str
    from_fighter: str
    allowed: int
    needed: Inches
    moved: bool
    gaps: tuple[Gap, ...]


class TargetInSight(RuleEvent, frozen=True, kw_only=True):
    """GF Ranged 1 (or GF Area of Effect): the target is in the shooter's line of sight,
    ``inches`` away; the weapon's range is ``weapon_range``."""

    shooter: str
    target: str
    weapon: str
    inches: Inches
    weapon_range: Inches


class CoverChecked(RuleEvent, frozen=True, kw_only=True):
    """GF Cover: a model targeted by a ranged attack benefits from ``cover`` ``inches`` away
    when it is within 3" and covers at least half of it (``benefit``): +``defense`` DEF and
    +``armour`` ARM."""

    fighter: str
    cover: CoverKind
    inches: Inches
    covers_half: bool
    benefit: bool
    defense: int
    armour: int


class MarksmanshipRolled(RuleEvent, frozen=True, kw_only=True):
    """GF Ranged 2-5: MRK dice (Point Blank, Long Range, at most 3 into close combat) against
    the target's DEF."""

    shooter: str
    target: str
    weapon: str
    test: PoolTest


class WeaponReloaded(RuleEvent, frozen=True, kw_only=True):
    """Reload (Actions and Action Points): a fired weapon is loaded again."""

    fighter: str
    weapon: str


class AreaCovered(RuleEvent, frozen=True, kw_only=True):
    """GF Direct / Indirect Area of Effect: ``successes`` make the line ``size`` inches wide (a
    model within half of it from the line is under it) or the blast ``size`` inches in radius;
    ``caught`` are under it, ``clear`` are the models named near it that are not."""

    attacker: str
    target: str
    area: AreaKind
    successes: int
    size: Inches
    caught: tuple[str, ...]
    clear: tuple[str, ...]


class DodgeRolled(RuleEvent, frozen=True, kw_only=True):
    """GF Area of Effect: a model caught makes an Opposed Initiative Value Test against the
    attack's ``hits``: more successes dodge it completely (``dodged``); otherwise each success
    reduces the attack's damage by one (``reduction``)."""

    fighter: str
    against: str
    hits: int
    test: PoolTest
    dodged: bool
    reduction: int


class ChargeRolled(RuleEvent, frozen=True, kw_only=True):
    """Charge!: MOV dice against the ground's Target Number; each success adds 1" to MOV
    (``reach``); the charge gets where it meant to (``reached``) when ``needed`` is within it.
    ``distance``: how far the target was."""

    fighter: str
    target: str
    terrain: Terrain
    distance: Inches
    test: PoolTest
    mov: int
    reach: Inches
    needed: Inches
    reached: bool


EVENT_TYPES = (
    TurnStarted,
    ActionPointsSpent,
    InThreatRange,
    AttackRolled,
    WoundsInflicted,
    ArmourRolled,
    WoundsNegated,
    WoundsApplied,
    Incapacitated,
    Killed,
    KnockedBack,
    KnockedDown,
    Disengaged,
    FreeStrike,
    FreeStrikeDeclined,
    Slammed,
    SlamTreatedAsTrample,
    Trampled,
    FallingDamage,
    StoodUp,
    Moved,
    DisengagedTo,
    TargetInSight,
    CoverChecked,
    MarksmanshipRolled,
    WeaponReloaded,
    AreaCovered,
    DodgeRolled,
    ChargeRolled,
)
