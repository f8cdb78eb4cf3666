"""The projection of 40K 2nd edition hand-to-hand combat.

``evolve`` folds events into the state, one fold per concern: model status (wounds, slain, Broken,
charged), base-to-base contacts, and the turn and phase bookkeeping (pairs fought, break-off
declarations, pending Follow-Up Moves); events it does not know are ignored. ``view`` gives the
state as any front end renders it, ``describe_state`` in plain words (``bxb at``)."""

from __future__ import annotations

from typing import Any

import msgspec

from blowbyblow.domain.core import CommandIssued, Event
from blowbyblow.domain.system import (
    Concern,
    LockView,
    Stat,
    StateView,
    UnitView,
    fold_by_event_type,
)
from blowbyblow.domain.wh40k.commands import FollowUp
from blowbyblow.domain.wh40k.events import (
    BaseContactLeft,
    BreakOffAttempted,
    BrokeOff,
    Charged,
    CombatRoundBegun,
    FollowUpAllowed,
    FollowUpMove,
    LeftCombat,
    ModelSlain,
    TurnBegun,
    WoundsLost,
)
from blowbyblow.domain.wh40k.setup import ModelProfile
from blowbyblow.domain.wh40k.state import PHASE_WORDS, Pair, Wh40kState, pair
from blowbyblow.domain.wh40k.who_fights import still_to_fight


def _add(items: tuple[Pair, ...], new: Pair) -> tuple[Pair, ...]:
    return items if new in items else (*items, new)


def _set_model(state: Wh40kState, model: str, **changes: Any) -> Wh40kState:
    models = dict(state.models)
    models[model] = msgspec.structs.replace(models[model], **changes)
    return msgspec.structs.replace(state, models=models)


def _without_contacts_of(contacts: tuple[Pair, ...], model: str) -> tuple[Pair, ...]:
    return tuple(p for p in contacts if model not in p)


# --- model status -------------------------------------------------------------------------------


def evolve_status(state: Wh40kState, event: Event) -> Wh40kState:
    """Wounds, Slain, Broken, the turn each model last charged in, moved out of combat in, and
    may Move and Shoot normally in after a Follow-Up Move that engaged no one."""
    if isinstance(event, Charged):
        return _set_model(state, event.model, charged_turn=event.turn, charged=event.target)
    if isinstance(event, WoundsLost):
        return _set_model(state, event.model, wounds=event.wounds_left)
    if isinstance(event, ModelSlain):
        return _set_model(state, event.model, slain=True, slain_by=event.by, wounds=0)
    if isinstance(event, BrokeOff):
        models = dict(state.models)
        for m in event.broken:
            models[m] = msgspec.structs.replace(models[m], broken=True, broken_turn=event.turn)
        return msgspec.structs.replace(state, models=models)
    if isinstance(event, LeftCombat):
        return _set_model(state, event.model, left_combat_turn=event.turn)
    if isinstance(event, FollowUpMove) and not event.engaged:
        # "If the model does not end its Follow-Up Move engaged in Hand-to-Hand Combat, it may
        # Move and Shoot normally in its next turn."
        return _set_model(state, event.model, move_and_shoot_turn=_next_turn_of(state, event.model))
    return state


def _next_turn_of(state: Wh40kState, model: str) -> int:
    """The number of the next turn of ``model``'s player after the current one."""
    players = state.players()
    mine = state.profile(model).player
    at = players.index(state.player)
    for k in range(1, len(players) + 1):
        if players[(at + k) % len(players)] == mine:
            return state.turn + k
    return state.turn + len(players)


# --- engagement (base contact) --------------------------------------------------------------------


def evolve_contacts(state: Wh40kState, event: Event) -> Wh40kState:
    """Pairs of enemies in base-to-base contact: made by charges and follow-up moves, ended when
    a model is slain, breaks off or moves out of combat, or a Follow-Up Move leaves a model with
    no Weapon Skill value (ruling no-ws-opponents)."""
    if isinstance(event, Charged):
        return msgspec.structs.replace(
            state, contacts=_add(state.contacts, pair(event.model, event.target))
        )
    if isinstance(event, ModelSlain | BrokeOff | LeftCombat):
        return msgspec.structs.replace(
            state, contacts=_without_contacts_of(state.contacts, event.model)
        )
    if isinstance(event, BaseContactLeft):
        gone = {pair(event.model, other) for other in event.left}
        return msgspec.structs.replace(
            state, contacts=tuple(p for p in state.contacts if p not in gone)
        )
    if isinstance(event, FollowUpMove):
        contacts = state.contacts
        for other in event.engaged:
            contacts = _add(contacts, pair(event.model, other))
        return msgspec.structs.replace(state, contacts=contacts)
    return state


# --- turn and phase bookkeeping -----------------------------------------------------------------


def evolve_phase(state: Wh40kState, event: Event) -> Wh40kState:
    """Whose turn, which phase, the pairs fought this phase, break-off declarations and the
    models that may make a Follow-Up Move now (only until the next command that is not one)."""
    if isinstance(event, CommandIssued):
        if state.follow_up and not isinstance(event.command, FollowUp):
            return msgspec.structs.replace(state, follow_up=())
        return state
    if isinstance(event, TurnBegun):
        return msgspec.structs.replace(
            state,
            turn=event.turn,
            player=event.player,
            phase="movement",
            fought=(),
            breaking_off=(),
            follow_up=(),
        )
    if isinstance(event, BreakOffAttempted):
        return msgspec.structs.replace(
            state,
            phase="hand-to-hand",
            breaking_off=(*state.breaking_off, event.model)
            if event.model not in state.breaking_off
            else state.breaking_off,
        )
    if isinstance(event, CombatRoundBegun):
        a, b = event.models
        rounds = state.multiple_rounds
        if event.duel:  # a round of a Multiple Combat: b is the outnumbered model
            rounds = {**rounds, b: event.duel}
        return msgspec.structs.replace(
            state,
            phase="hand-to-hand",
            fought=_add(state.fought, pair(a, b)),
            multiple_rounds=rounds,
        )
    if isinstance(event, BrokeOff):
        return msgspec.structs.replace(
            state, breaking_off=tuple(m for m in state.breaking_off if m != event.model)
        )
    if isinstance(event, FollowUpAllowed):
        if event.model in state.follow_up:
            return state
        return msgspec.structs.replace(state, follow_up=(*state.follow_up, event.model))
    if isinstance(event, FollowUpMove):
        fought = state.fought
        if not event.fights_this_phase:
            for other in event.engaged:
                fought = _add(fought, pair(event.model, other))
        return msgspec.structs.replace(
            state,
            fought=fought,
            follow_up=tuple(m for m in state.follow_up if m != event.model),
        )
    return state


def evolve_multiple_combat(state: Wh40kState) -> Wh40kState:
    """A Multiple Combat lasts while its model stays outnumbered: its count of rounds goes once
    the model is slain or has fewer than two enemies to fight."""
    if not state.multiple_rounds:
        return state
    lasting = {
        m: n
        for m, n in state.multiple_rounds.items()
        if state.alive(m) and len(state.hth_opponents(m)) >= 2
    }
    if lasting == state.multiple_rounds:
        return state
    return msgspec.structs.replace(state, multiple_rounds=lasting)


FOLDS = (
    Concern(
        evolve_status,
        reads=(Charged, WoundsLost, ModelSlain, BrokeOff, LeftCombat, FollowUpMove),
    ),
    Concern(
        evolve_contacts,
        reads=(Charged, ModelSlain, BrokeOff, LeftCombat, FollowUpMove, BaseContactLeft),
    ),
    Concern(
        evolve_phase,
        reads=(
            CommandIssued,
            TurnBegun,
            BreakOffAttempted,
            CombatRoundBegun,
            BrokeOff,
            FollowUpAllowed,
            FollowUpMove,
        ),
    ),
)

# A Multiple Combat's count of rounds follows the state alone: checked after every event that
# changes the state (after any other, the state is as the last check left it).
evolve = fold_by_event_type(*FOLDS, after_each=evolve_multiple_combat)


# --- what a front end shows -----------------------------------------------------------------------


def phase_words(state: Wh40kState) -> str:
    return f"Turn {state.turn}, {state.player} player: {PHASE_WORDS[state.phase]}"


def _stats(state: Wh40kState, m: ModelProfile) -> tuple[Stat, ...]:
    weapons = ", ".join(state.weapon(w).label for w in m.weapons) or "none"
    return (
        Stat(name="wounds", value=f"{state.models[m.id].wounds}/{m.w}"),
        Stat(name="WS", value=str(m.ws)),
        *((Stat(name="may leave combat", value=m.leaves_combat),) if m.leaves_combat else ()),
        Stat(name="S", value=str(m.s)),
        Stat(name="T", value=str(m.t)),
        Stat(name="I", value=str(m.i)),
        Stat(name="A", value=str(m.a)),
        Stat(name="save", value=f"{m.save}+" if m.save is not None else "none"),
        Stat(name="weapons", value=weapons),
    )


def _flags(state: Wh40kState, model: str) -> tuple[str, ...]:
    ms = state.models[model]
    marks = (
        (ms.slain and bool(ms.slain_by), f"slain by {ms.slain_by}"),
        (ms.broken, f"Broken (turn {ms.broken_turn})"),
        (state.alive(model) and state.charged_this_turn(model), "charged this turn"),
        (model in state.breaking_off, "breaking off"),
        (state.alive(model) and state.has_fought(model), "fought this phase"),
        (model in state.follow_up, "may follow up"),
        (
            state.alive(model) and ms.left_combat_turn == state.turn,
            "moved out of combat this turn (may Charge or Shoot as normal)",
        ),
        (_may_move_and_shoot(state, model), _move_and_shoot_words(state, model)),
        (not state.fights(model), "no Weapon Skill: does not fight"),
    )
    return tuple(text for on, text in marks if on)


def _may_move_and_shoot(state: Wh40kState, model: str) -> bool:
    """After a Follow-Up Move that engaged no one, until the end of its next turn, while it is
    not in base contact again."""
    ms = state.models[model]
    return (
        state.alive(model) and state.turn <= ms.move_and_shoot_turn and not state.opponents(model)
    )


def _move_and_shoot_words(state: Wh40kState, model: str) -> str:
    turn = state.models[model].move_and_shoot_turn
    when = "this turn" if turn == state.turn else f"in its next turn (turn {turn})"
    return f"may Move and Shoot normally {when} (Follow-Up Move that engaged no one)"


def _unit(state: Wh40kState, m: ModelProfile) -> UnitView:
    return UnitView(
        id=m.id,
        name=m.label,
        side=m.player,
        status=state.status(m.id),
        stats=_stats(state, m),
        flags=_flags(state, m.id),
        location=f"squad {m.squad}" if m.squad else "",
    )


def _locks(state: Wh40kState) -> tuple[LockView, ...]:
    """Each pair in base contact is a combat; a model touched by two or more enemies is in a
    Multiple Combat."""
    locks = [_contact_lock(state, p) for p in state.contacts]
    for m in state.setup.models:
        opponents = state.hth_opponents(m.id)
        if len(opponents) >= 2:
            locks.append(
                LockView(
                    kind="multiple combat",
                    members=(m.id, *opponents),
                    detail=f"{m.id} is outnumbered",
                )
            )
    return tuple(locks)


def _contact_lock(state: Wh40kState, p: Pair) -> LockView:
    """A pair in base contact: a combat, or, when one of them has no Weapon Skill value, only
    base contact (no Combat Round)."""
    idle = [m for m in p if not state.fights(m)]
    if idle:
        return LockView(
            kind="base contact",
            members=p,
            detail=f"does not fight: {', '.join(idle)} has no Weapon Skill value",
        )
    return LockView(
        kind="combat",
        members=p,
        detail="fought this phase" if p in state.fought else "to fight this phase",
    )


def _notes(state: Wh40kState) -> tuple[str, ...]:
    notes: list[str] = []
    waiting = still_to_fight(state)
    if waiting:
        pairs = ", ".join(f"{a} and {b}" for a, b in waiting)
        notes.append(f"combat is mandatory; still to fight: {pairs}")
    if state.follow_up:
        notes.append(f"may make a Follow-Up Move now: {', '.join(state.follow_up)}")
    return tuple(notes)


def view(state: Wh40kState) -> StateView:
    """Every model with its side, status, characteristics and marks; the pairs in base contact
    (combats) and Multiple Combats; whose turn and which phase."""
    return StateView(
        sides=tuple(state.players()),
        units=tuple(_unit(state, m) for m in state.setup.models),
        locks=_locks(state),
        phase=phase_words(state),
        notes=_notes(state),
    )


def _model_line(state: Wh40kState, m: ModelProfile) -> str:
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
        if ms.left_combat_turn == state.turn:
            status += ", moved out of combat this turn"
        if _may_move_and_shoot(state, m.id):
            status += f", {_move_and_shoot_words(state, m.id)}"
    weapons = ", ".join(state.weapon(w).label for w in m.weapons) or "no weapons"
    return (
        f"  {m.id} ({m.player}{', ' + m.squad if m.squad else ''}): WS {m.ws} S {m.s} T {m.t} "
        f"I {m.i} A {m.a}, {weapons}: {status}"
    )


def describe_state(state: Wh40kState) -> str:
    lines = [f"Turn {state.turn} (player: {state.player}), {state.phase} phase"]
    lines += [_model_line(state, m) for m in state.setup.models]
    if state.contacts:
        lines.append("  In base contact:")
        for a, b in state.contacts:
            done = " (fought this phase)" if (a, b) in state.fought else ""
            lines.append(f"    {a} and {b}{done}")
    else:
        lines.append("  No models in base contact")
    return "\n".join(lines)


__all__ = [
    "FOLDS",
    "describe_state",
    "evolve",
    "evolve_contacts",
    "evolve_multiple_combat",
    "evolve_phase",
    "evolve_status",
    "view",
]
