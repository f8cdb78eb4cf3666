"""Plain words for every 40K 2nd edition hand-to-hand event (``bxb log``). Each sentence ends
with the rule it applies, as the event cites it; events of other kinds are left to the engine."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from blowbyblow.domain.core import Event, Modifier
from blowbyblow.domain.wh40k.events import (
    AttackDiceRolled,
    BaseContactLeft,
    BreakOffAttempted,
    BrokeOff,
    Charged,
    CombatRoundBegun,
    CombatScoreCalculated,
    CriticalHitsCounted,
    FollowUpAllowed,
    FollowUpMove,
    FumblesCounted,
    HitsScored,
    LeftCombat,
    ModelSlain,
    MultipleCombatBegun,
    NoSave,
    ParriesCompared,
    ParryDeclined,
    ParryUsed,
    RoundWon,
    SaveRolled,
    Stalemate,
    TurnBegun,
    WoundRolled,
    WoundsLost,
)


def _dice(values: tuple[int, ...]) -> str:
    return " ".join(str(v) for v in values) or "none"


def _mods(mods: tuple[Modifier, ...]) -> str:
    return "".join(f" {m.value:+d} ({m.cause})" for m in mods)


def _signed(m: Modifier) -> str:
    return f"{m.value:+d} ({m.cause})" if m.value else f"0 ({m.cause})"


# --- the turn, charges, break off declarations, Multiple Combat -----------------------------------


def _turn_begun(e: TurnBegun) -> str:
    return f"Turn {e.turn} begins: {e.player} to move"


def _charged(e: Charged) -> str:
    return f"{e.model} charges {e.target} into base-to-base contact"


def _break_off_attempted(e: BreakOffAttempted) -> str:
    return f"{e.model} will try to break off from {', '.join(e.opponents)} (WS 0, no parry)"


def _left_combat(e: LeftCombat) -> str:
    return (
        f"{e.model}, {e.what}, moves out of Hand-to-Hand Combat with {', '.join(e.away_from)} "
        "in its Movement Phase; it may then Charge or Shoot as normal"
    )


def _multiple_combat_begun(e: MultipleCombatBegun) -> str:
    return (
        f"Multiple Combat: {e.lone} is outnumbered; the {e.outnumbering_player} player "
        f"sends in {', then '.join(e.order)}"
    )


# --- a Combat Round: attack dice, parries, Fumbles and Critical Hits, scores, the winner ----------


def _combat_round_begun(e: CombatRoundBegun) -> str:
    extras = [f"{m} charging" for m in e.charging]
    extras += [f"{m} breaking off" for m in e.breaking_off]
    duel = f" (duel {e.duel})" if e.duel else ""
    return f"Combat Round{duel}: {e.models[0]} against {e.models[1]}" + (
        f" [{', '.join(extras)}]" if extras else ""
    )


def _attack_dice_rolled(e: AttackDiceRolled) -> str:
    return (
        f"{e.model} rolls {e.count} Attack dice (A {e.attacks}{_mods(e.modifiers)}): "
        f"{_dice(e.dice)}"
    )


def _parries_compared(e: ParriesCompared) -> str:
    return (
        f"Parries: {e.models[0]} {e.parries[0]}, {e.models[1]} {e.parries[1]}; they cancel one "
        f"for one, leaving {e.models[0]} {e.net[0]} and {e.models[1]} {e.net[1]}"
        + (f" ({'; '.join(e.notes)})" if e.notes else "")
    )


def _parry_declined(e: ParryDeclined) -> str:
    return f"{e.parrier} chooses not to parry {e.opponent}'s {e.highest}"


def _parry_used(e: ParryUsed) -> str:
    if e.response == "reroll":
        how = f"re-rolls its {e.highest}: {e.rerolled}, which stands"
    else:
        how = f"sets its {e.highest} aside and uses its next-highest die"
    return f"{e.parrier} parries: {e.opponent} {how} (dice now {_dice(e.dice_after)})"


def _fumbles_counted(e: FumblesCounted) -> str:
    return f"{e.model} fumbles {e.fumbles} (1s among {_dice(e.dice)}): +{e.fumbles} to {e.opponent}"


def _critical_hits_counted(e: CriticalHitsCounted) -> str:
    return (
        f"{e.model} rolled {e.sixes} sixes: the first has no effect, {e.critical_hits} "
        f"Critical Hit(s) +{e.critical_hits}"
    )


def _combat_score_calculated(e: CombatScoreCalculated) -> str:
    ws = f"WS {e.ws}" + (f" (not {e.profile_ws}: breaking off)" if e.ws != e.profile_ws else "")
    return (
        f"{e.model}'s Combat Score: highest die {e.highest} + {ws}{_mods(e.modifiers)} = {e.score}"
    )


def _round_won(e: RoundWon) -> str:
    if e.by_initiative:
        return (
            f"Scores tied at {e.winner_score}: {e.winner} has the higher Initiative "
            f"({e.winner_initiative} against {e.loser_initiative}) and scores 1 hit on "
            f"{e.loser}"
        )
    return (
        f"{e.winner} wins {e.winner_score} to {e.loser_score} and scores {e.hits} "
        f"hit(s) on {e.loser}"
    )


def _stalemate(e: Stalemate) -> str:
    return (
        f"Scores tied at {e.score} and Initiative tied at {e.initiative}: stalemate, "
        f"no hits between {e.models[0]} and {e.models[1]}"
    )


# --- hits: wounds, saves, damage ----------------------------------------------------------------


def _hits_scored(e: HitsScored) -> str:
    weapon = e.weapon or "its own Strength"
    return (
        f"{e.winner} strikes {e.loser} {e.hits} time(s) with {weapon}: S {e.strength}, "
        f"damage {e.damage}, save modifier {_signed(e.save_modifier)}"
    )


def _wound_rolled(e: WoundRolled) -> str:
    if e.needed is None:
        return f"Hit {e.hit}: S {e.strength} against T {e.toughness} cannot wound {e.target}"
    verdict = "wounds" if e.wounded else "fails to wound"
    return (
        f"Hit {e.hit}: S {e.strength} against T {e.toughness} needs {e.needed}+, rolled "
        f"{e.natural}: {verdict} {e.target}"
    )


def _save_rolled(e: SaveRolled) -> str:
    verdict = "saved" if e.saved else "failed"
    return (
        f"{e.model}'s armour save {e.save}+ with {_signed(e.modifier)} needs {e.needed}+, "
        f"rolled {e.natural}: {verdict}"
    )


def _no_save(e: NoSave) -> str:
    return f"{e.model} has no save against hit {e.hit} ({e.reason})"


def _wounds_lost(e: WoundsLost) -> str:
    dice = f" (rolled {_dice(e.damage_dice)})" if e.damage_dice else ""
    return f"{e.model} loses {e.damage} wound(s){dice}: {e.wounds_before} -> {e.wounds_left}"


def _model_slain(e: ModelSlain) -> str:
    return f"{e.model} is slain by {e.by}"


# --- after the fight: breaking off, follow-up moves -----------------------------------------------


def _broke_off(e: BrokeOff) -> str:
    return (
        f'{e.model} survives and breaks off {e.inches}" ({_dice(e.dice)}) away from '
        f"{', '.join(e.away_from)}; Broken: {', '.join(e.broken)} (no Rally before next turn)"
    )


def _follow_up_allowed(e: FollowUpAllowed) -> str:
    return f'{e.model} has killed all its opponents ({", ".join(e.killed)}) and may follow up 2"'


def _follow_up_move(e: FollowUpMove) -> str:
    if e.engaged:
        after = f", engaging {', '.join(e.engaged)} (no charge bonus)"
    else:
        after = ", engaging no one: it may Move and Shoot normally in its next turn"
    return f'{e.model} makes a Follow-Up Move of {e.inches}"{after}'


def _base_contact_left(e: BaseContactLeft) -> str:
    return (
        f"{e.model}'s Follow-Up Move leaves base contact with {', '.join(e.left)} (no Weapon "
        "Skill value: not a Hand-to-Hand Combat opponent)"
    )


NARRATORS: dict[type[Event], Callable[[Any], str]] = {
    TurnBegun: _turn_begun,
    Charged: _charged,
    BreakOffAttempted: _break_off_attempted,
    LeftCombat: _left_combat,
    MultipleCombatBegun: _multiple_combat_begun,
    CombatRoundBegun: _combat_round_begun,
    AttackDiceRolled: _attack_dice_rolled,
    ParriesCompared: _parries_compared,
    ParryDeclined: _parry_declined,
    ParryUsed: _parry_used,
    FumblesCounted: _fumbles_counted,
    CriticalHitsCounted: _critical_hits_counted,
    CombatScoreCalculated: _combat_score_calculated,
    RoundWon: _round_won,
    Stalemate: _stalemate,
    HitsScored: _hits_scored,
    WoundRolled: _wound_rolled,
    SaveRolled: _save_rolled,
    NoSave: _no_save,
    WoundsLost: _wounds_lost,
    ModelSlain: _model_slain,
    BrokeOff: _broke_off,
    FollowUpAllowed: _follow_up_allowed,
    FollowUpMove: _follow_up_move,
    BaseContactLeft: _base_contact_left,
}
"""One narrator per event type of the system (``EVENT_TYPES``)."""


def narrate(event: Event) -> str | None:
    """The event in plain words, ending with ``[rule]``; None for an event of another kind."""
    words = NARRATORS.get(type(event))
    if words is None:
        return None
    text = words(event)
    rule = getattr(event, "rule", "")
    return f"{text} [{rule}]" if rule else text


__all__ = ["NARRATORS", "narrate"]
