"""The rule-step events of 40K 2nd edition hand-to-hand combat, ``EVENT_TYPES``. Each names the
rulebook section it applies (``rule="40K2 HtH: <section>"``, see ``rulebook``) and carries the
numbers it used."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from blowbyblow.domain.core import Modifier, RuleEvent

ParryResponse = Literal["reroll", "next-highest"]
# how a parried model gives up its highest Attack die (ruling parry-response)

WoundChart = Literal["difference", "ratio"]
# the Strength against Toughness chart in force (ruling to-wound-chart)


class TurnBegun(RuleEvent, frozen=True, kw_only=True):
    """A new player turn: the Movement Phase (charges) comes before the Hand-to-Hand Phase."""

    turn: int
    player: str


class Charged(RuleEvent, frozen=True, kw_only=True):
    """``model`` charged ``target`` and is now in base-to-base contact with it."""

    model: str
    target: str
    turn: int


class BreakOffAttempted(RuleEvent, frozen=True, kw_only=True):
    """``model`` declared, before its Combat Round, that it tries to break off from
    ``opponents``: it will fight with WS 0 and may not parry."""

    model: str
    opponents: tuple[str, ...]


class LeftCombat(RuleEvent, frozen=True, kw_only=True):
    """``model`` (``what`` it is: a Robot, a Dreadnought...) moved out of Hand-to-Hand Combat with
    ``away_from`` in its Movement Phase; it may then Charge or Shoot as normal."""

    model: str
    what: str
    away_from: tuple[str, ...]
    turn: int


class MultipleCombatBegun(RuleEvent, frozen=True, kw_only=True):
    """Two or more enemies are in base contact with ``lone``: the fight is a series of one-on-one
    duels in ``order``, chosen by ``outnumbering_player``; round k gives them k-1 extra dice."""

    lone: str
    order: tuple[str, ...]
    outnumbering_player: str


class CombatRoundBegun(RuleEvent, frozen=True, kw_only=True):
    """A Combat Round between two models in base contact. ``duel`` is its place in a Multiple
    Combat (1 for the first duel, 0 when it is a one-on-one fight)."""

    models: tuple[str, str]
    duel: int
    charging: tuple[str, ...]
    breaking_off: tuple[str, ...]


class AttackDiceRolled(RuleEvent, frozen=True, kw_only=True):
    """``model`` rolled ``attacks`` (its A) plus each modifier in D6 as its Attack dice."""

    model: str
    opponent: str
    attacks: int
    modifiers: tuple[Modifier, ...]
    count: int
    dice: tuple[int, ...]


class ParriesCompared(RuleEvent, frozen=True, kw_only=True):
    """Both models' parries (one per weapon with the Parry rule; none while breaking off) cancel
    one for one; ``net`` is what each keeps, in the order of ``models``."""

    models: tuple[str, str]
    parries: tuple[int, int]
    net: tuple[int, int]
    notes: tuple[str, ...] = ()


class ParryDeclined(RuleEvent, frozen=True, kw_only=True):
    """``parrier`` chose not to use its ``parry``-th parry (parrying is always optional)."""

    parrier: str
    opponent: str
    parry: int
    highest: int


class ParryUsed(RuleEvent, frozen=True, kw_only=True):
    """``parrier`` forced ``opponent`` to give up its highest Attack die (``highest``):
    ``response`` is "reroll" (``rerolled`` is the new die, which stands) or "next-highest"
    (the highest die is set aside and the next-highest original die is used)."""

    parrier: str
    opponent: str
    parry: int
    highest: int
    response: ParryResponse
    rerolled: int | None
    dice_before: tuple[int, ...]
    dice_after: tuple[int, ...]


class FumblesCounted(RuleEvent, frozen=True, kw_only=True):
    """Each 1 among ``model``'s Attack dice is a Fumble: +1 to ``opponent``'s Combat Score."""

    model: str
    opponent: str
    dice: tuple[int, ...]
    fumbles: int


class CriticalHitsCounted(RuleEvent, frozen=True, kw_only=True):
    """The first 6 among ``model``'s Attack dice has no effect; each further 6 is a Critical
    Hit, +1 to its own Combat Score."""

    model: str
    dice: tuple[int, ...]
    sixes: int
    critical_hits: int


class CombatScoreCalculated(RuleEvent, frozen=True, kw_only=True):
    """score = highest (natural, the single highest Attack die) + ws + the modifiers.
    ``ws`` is the Weapon Skill used (``profile_ws`` the model's own: 0 when breaking off)."""

    model: str
    opponent: str
    dice: tuple[int, ...]
    highest: int
    profile_ws: int
    ws: int
    modifiers: tuple[Modifier, ...]
    score: int


class RoundWon(RuleEvent, frozen=True, kw_only=True):
    """The higher Combat Score wins and scores the difference in hits; on equal scores the higher
    Initiative wins and scores one hit (``by_initiative``)."""

    winner: str
    loser: str
    winner_score: int
    loser_score: int
    winner_initiative: int
    loser_initiative: int
    by_initiative: bool
    hits: int


class Stalemate(RuleEvent, frozen=True, kw_only=True):
    """Equal Combat Scores and equal Initiative: no hits."""

    models: tuple[str, str]
    score: int
    initiative: int


class HitsScored(RuleEvent, frozen=True, kw_only=True):
    """``loser`` sustains ``hits`` hits from ``winner``, resolved with ``weapon`` (empty: its own
    Strength) at ``strength``, ``damage`` and ``save_modifier``."""

    winner: str
    loser: str
    hits: int
    weapon: str
    strength: int
    damage: int | str
    save_modifier: Modifier


class WoundRolled(RuleEvent, frozen=True, kw_only=True):
    """To wound: a D6 scoring ``needed`` or more wounds (``needed`` None: the hit cannot wound
    and no die is rolled; ``natural`` is None then)."""

    attacker: str
    target: str
    hit: int
    natural: int | None
    strength: int
    toughness: int
    chart: WoundChart
    needed: int | None
    wounded: bool


class SaveRolled(RuleEvent, frozen=True, kw_only=True):
    """An armour save: ``save`` + the hit's save modifier gives ``needed``."""

    model: str
    hit: int
    natural: int
    save: int
    modifier: Modifier
    needed: int
    saved: bool


class NoSave(RuleEvent, frozen=True, kw_only=True):
    """No armour save is possible (``reason``)."""

    model: str
    hit: int
    save: int | None
    modifier: Modifier
    reason: str


class WoundsLost(RuleEvent, frozen=True, kw_only=True):
    """An unsaved wound takes ``damage`` wounds (``damage_dice`` when the weapon rolls for it)."""

    model: str
    hit: int
    damage: int
    damage_dice: tuple[int, ...]
    wounds_before: int
    wounds_left: int


class ModelSlain(RuleEvent, frozen=True, kw_only=True):
    """``model`` has no wounds left and is removed."""

    model: str
    by: str


class BrokeOff(RuleEvent, frozen=True, kw_only=True):
    """The escaping model survived: it moves ``inches`` (2D6: ``dice``) directly away from
    ``away_from`` and ``broken`` (it and its squad) are Broken, not to Rally before next turn."""

    model: str
    away_from: tuple[str, ...]
    dice: tuple[int, ...]
    inches: int
    broken: tuple[str, ...]
    turn: int


class FollowUpAllowed(RuleEvent, frozen=True, kw_only=True):
    """``model`` has no Hand-to-Hand opponent left (``killed`` died in this fight) and may make a
    Follow-Up Move at once."""

    model: str
    killed: tuple[str, ...]
    ruling: str


class FollowUpMove(RuleEvent, frozen=True, kw_only=True):
    """``model`` moved up to 2" (``inches``); it engages ``engaged`` without the charge bonus."""

    model: str
    inches: Decimal
    engaged: tuple[str, ...]
    fights_this_phase: bool


class BaseContactLeft(RuleEvent, frozen=True, kw_only=True):
    """``model``'s Follow-Up Move takes it out of base contact with ``left``: enemies with no
    Weapon Skill value, which were not its Hand-to-Hand Combat opponents (ruling
    no-ws-opponents = ignored) and which it does not engage again."""

    model: str
    left: tuple[str, ...]


EVENT_TYPES = (
    TurnBegun,
    Charged,
    BreakOffAttempted,
    LeftCombat,
    MultipleCombatBegun,
    CombatRoundBegun,
    AttackDiceRolled,
    ParriesCompared,
    ParryDeclined,
    ParryUsed,
    FumblesCounted,
    CriticalHitsCounted,
    CombatScoreCalculated,
    RoundWon,
    Stalemate,
    HitsScored,
    WoundRolled,
    SaveRolled,
    NoSave,
    WoundsLost,
    ModelSlain,
    BrokeOff,
    FollowUpAllowed,
    FollowUpMove,
    BaseContactLeft,
)

Wh40kEvent = (
    TurnBegun
    | Charged
    | BreakOffAttempted
    | LeftCombat
    | MultipleCombatBegun
    | CombatRoundBegun
    | AttackDiceRolled
    | ParriesCompared
    | ParryDeclined
    | ParryUsed
    | FumblesCounted
    | CriticalHitsCounted
    | CombatScoreCalculated
    | RoundWon
    | Stalemate
    | HitsScored
    | WoundRolled
    | SaveRolled
    | NoSave
    | WoundsLost
    | ModelSlain
    | BrokeOff
    | FollowUpAllowed
    | FollowUpMove
    | BaseContactLeft
)
