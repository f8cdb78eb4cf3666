"""Folds for 40K 2nd edition hand-to-hand combat: model status (wounds, slain, Broken, charged),
base-to-base contacts, and the Hand-to-Hand phase bookkeeping (pairs fought, break-off
declarations, pending Follow-Up Moves). Pure; events it does not know are ignored."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from blowbyblow.domain.core import CommandIssued, Event
from blowbyblow.domain.wh40k.commands import FollowUp
from blowbyblow.domain.wh40k.events import (
    BreakOffAttempted,
    BrokeOff,
    Charged,
    CombatRoundBegun,
    FollowUpAllowed,
    FollowUpMove,
    ModelSlain,
    TurnBegun,
    WoundsLost,
)
from blowbyblow.domain.wh40k.models import ModelState, Pair, Wh40kState, pair


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
    """Wounds, Slain, Broken and the turn each model last charged in."""
    if isinstance(event, Charged):
        return _set_model(state, event.model, charged_turn=event.turn)
    if isinstance(event, WoundsLost):
        return _set_model(state, event.model, wounds=event.wounds_left)
    if isinstance(event, ModelSlain):
        return _set_model(state, event.model, slain=True, slain_by=event.by, wounds=0)
    if isinstance(event, BrokeOff):
        models = dict(state.models)
        for m in event.broken:
            models[m] = msgspec.structs.replace(models[m], broken=True, broken_turn=event.turn)
        return msgspec.structs.replace(state, models=models)
    return state


# --- engagement (base contact) --------------------------------------------------------------------


def evolve_contacts(state: Wh40kState, event: Event) -> Wh40kState:
    """Pairs of enemies in base-to-base contact: made by charges and follow-up moves, ended when
    a model is slain or breaks off."""
    if isinstance(event, Charged):
        return msgspec.structs.replace(
            state, contacts=_add(state.contacts, pair(event.model, event.target))
        )
    if isinstance(event, ModelSlain | BrokeOff):
        return msgspec.structs.replace(
            state, contacts=_without_contacts_of(state.contacts, event.model)
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
        return msgspec.structs.replace(
            state, phase="hand-to-hand", fought=_add(state.fought, pair(a, b))
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


FOLDS: tuple[Callable[[Wh40kState, Event], Wh40kState], ...] = (
    evolve_status,
    evolve_contacts,
    evolve_phase,
)


def evolve(state: Wh40kState, event: Event) -> Wh40kState:
    for fold in FOLDS:
        state = fold(state, event)
    return state


__all__ = ["FOLDS", "ModelState", "evolve", "evolve_contacts", "evolve_phase", "evolve_status"]
