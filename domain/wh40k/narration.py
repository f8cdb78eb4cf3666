"""Plain words for the 40K 2nd edition hand-to-hand events (``bxb log``) and the state
(``bxb at``). Each sentence ends with the rule it applies."""

from __future__ import annotations

from blowbyblow.domain.core import Event, Modifier
from blowbyblow.domain.wh40k.events import (
    AttackDiceRolled,
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
from blowbyblow.domain.wh40k.models import Wh40kState


def _dice(values: tuple[int, ...]) -> str:
    return " ".join(str(v) for v in values) or "none"


def _mods(mods: tuple[Modifier, ...]) -> str:
    return "".join(f" {m.value:+d} ({m.cause})" for m in mods)


def _signed(m: Modifier) -> str:
    return f"{m.value:+d} ({m.cause})" if m.value else f"0 ({m.cause})"


def narrate(event: Event) -> str | None:
    e = event
    if isinstance(e, TurnBegun):
        text = f"Turn {e.turn} begins: {e.player} to move"
    elif isinstance(e, Charged):
        text = f"{e.model} charges {e.target} into base-to-base contact"
    elif isinstance(e, BreakOffAttempted):
        text = f"{e.model} will try to break off from {', '.join(e.opponents)} (WS 0, no parry)"
    elif isinstance(e, MultipleCombatBegun):
        text = (
            f"Multiple Combat: {e.lone} is outnumbered; the {e.outnumbering_player} player "
            f"sends in {', then '.join(e.order)}"
        )
    elif isinstance(e, CombatRoundBegun):
        extras = [f"{m} charging" for m in e.charging]
        extras += [f"{m} breaking off" for m in e.breaking_off]
        duel = f" (duel {e.duel})" if e.duel else ""
        text = f"Combat Round{duel}: {e.models[0]} against {e.models[1]}" + (
            f" [{', '.join(extras)}]" if extras else ""
        )
    elif isinstance(e, AttackDiceRolled):
        text = (
            f"{e.model} rolls {e.count} Attack dice (A {e.attacks}{_mods(e.modifiers)}): "
            f"{_dice(e.dice)}"
        )
    elif isinstance(e, ParriesCompared):
        text = (
            f"Parries: {e.models[0]} {e.parries[0]}, {e.models[1]} {e.parries[1]}; they cancel one "
            f"for one, leaving {e.models[0]} {e.net[0]} and {e.models[1]} {e.net[1]}"
            + (f" ({'; '.join(e.notes)})" if e.notes else "")
        )
    elif isinstance(e, ParryDeclined):
        text = f"{e.parrier} chooses not to parry {e.opponent}'s {e.highest}"
    elif isinstance(e, ParryUsed):
        if e.response == "reroll":
            how = f"re-rolls its {e.highest}: {e.rerolled}, which stands"
        else:
            how = f"sets its {e.highest} aside and uses its next-highest die"
        text = f"{e.parrier} parries: {e.opponent} {how} (dice now {_dice(e.dice_after)})"
    elif isinstance(e, FumblesCounted):
        text = (
            f"{e.model} fumbles {e.fumbles} (1s among {_dice(e.dice)}): +{e.fumbles} to "
            f"{e.opponent}"
        )
    elif isinstance(e, CriticalHitsCounted):
        text = (
            f"{e.model} rolled {e.sixes} sixes: the first has no effect, {e.critical_hits} "
            f"Critical Hit(s) +{e.critical_hits}"
        )
    elif isinstance(e, CombatScoreCalculated):
        ws = f"WS {e.ws}" + (f" (not {e.profile_ws}: breaking off)" if e.ws != e.profile_ws else "")
        text = (
            f"{e.model}'s Combat Score: highest die {e.highest} + {ws}{_mods(e.modifiers)} "
            f"= {e.score}"
        )
    elif isinstance(e, RoundWon):
        if e.by_initiative:
            text = (
                f"Scores tied at {e.winner_score}: {e.winner} has the higher Initiative "
                f"({e.winner_initiative} against {e.loser_initiative}) and scores 1 hit on "
                f"{e.loser}"
            )
        else:
            text = (
                f"{e.winner} wins {e.winner_score} to {e.loser_score} and scores {e.hits} "
                f"hit(s) on {e.loser}"
            )
    elif isinstance(e, Stalemate):
        text = (
            f"Scores tied at {e.score} and Initiative tied at {e.initiative}: stalemate, "
            f"no hits between {e.models[0]} and {e.models[1]}"
        )
    elif isinstance(e, HitsScored):
        weapon = e.weapon or "its own Strength"
        text = (
            f"{e.winner} strikes {e.loser} {e.hits} time(s) with {weapon}: S {e.strength}, "
            f"damage {e.damage}, save modifier {_signed(e.save_modifier)}"
        )
    elif isinstance(e, WoundRolled):
        if e.needed is None:
            text = f"Hit {e.hit}: S {e.strength} against T {e.toughness} cannot wound {e.target}"
        else:
            verdict = "wounds" if e.wounded else "fails to wound"
            text = (
                f"Hit {e.hit}: S {e.strength} against T {e.toughness} needs {e.needed}+, rolled "
                f"{e.natural}: {verdict} {e.target}"
            )
    elif isinstance(e, SaveRolled):
        verdict = "saved" if e.saved else "failed"
        text = (
            f"{e.model}'s armour save {e.save}+ with {_signed(e.modifier)} needs {e.needed}+, "
            f"rolled {e.natural}: {verdict}"
        )
    elif isinstance(e, NoSave):
        text = f"{e.model} has no save against hit {e.hit} ({e.reason})"
    elif isinstance(e, WoundsLost):
        dice = f" (rolled {_dice(e.damage_dice)})" if e.damage_dice else ""
        text = f"{e.model} loses {e.damage} wound(s){dice}: {e.wounds_before} -> {e.wounds_left}"
    elif isinstance(e, ModelSlain):
        text = f"{e.model} is slain by {e.by}"
    elif isinstance(e, BrokeOff):
        text = (
            f'{e.model} survives and breaks off {e.inches}" ({_dice(e.dice)}) away from '
            f"{', '.join(e.away_from)}; Broken: {', '.join(e.broken)} (no Rally before next turn)"
        )
    elif isinstance(e, FollowUpAllowed):
        text = (
            f'{e.model} has killed all its opponents ({", ".join(e.killed)}) and may follow up 2"'
        )
    elif isinstance(e, FollowUpMove):
        engaged = f", engaging {', '.join(e.engaged)} (no charge bonus)" if e.engaged else ""
        text = f'{e.model} makes a Follow-Up Move of {e.inches}"{engaged}'
    else:
        return None
    rule = getattr(e, "rule", "")
    return f"{text} [{rule}]" if rule else text


def describe_state(state: Wh40kState) -> str:
    lines = [f"Turn {state.turn} (player: {state.player}), {state.phase} phase"]
    for m in state.setup.models:
        ms = state.models[m.id]
        if ms.slain:
            status = f"slain by {ms.slain_by}" if ms.slain_by else "slain"
        else:
            status = f"W {ms.wounds}/{m.w}"
            if ms.broken:
                status += f", Broken (turn {ms.broken_turn})"
            if ms.charged_turn == state.turn:
                status += ", charged this turn"
            if m.id in state.breaking_off:
                status += ", breaking off"
            if m.id in state.follow_up:
                status += ", may follow up"
        weapons = ", ".join(state.weapon(w).label for w in m.weapons) or "no weapons"
        lines.append(
            f"  {m.id} ({m.player}{', ' + m.squad if m.squad else ''}): WS {m.ws} S {m.s} T {m.t} "
            f"I {m.i} A {m.a}, {weapons}: {status}"
        )
    if state.contacts:
        lines.append("  In base contact:")
        for a, b in state.contacts:
            done = " (fought this phase)" if (a, b) in state.fought else ""
            lines.append(f"    {a} and {b}{done}")
    else:
        lines.append("  No models in base contact")
    return "\n".join(lines)
