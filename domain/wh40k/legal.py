"""The commands the 40K 2nd edition hand-to-hand rules allow in a state, as a front end offers
them (``legal_commands``).

- ``followup``: a model that has just killed all its opponents, straight after the fight.
- ``charge``: in the Movement Phase, each living model (unbroken, ruling broken-charge) of the
  player whose turn it is that is not in base contact, at any living enemy model (the target may
  already be fighting another model: that makes a Multiple Combat).
- ``breakoff``: a model in base contact that has not fought this phase and has not declared one.
- ``leavecombat``: in the Movement Phase, a Robot, Dreadnought, Greater Daemon or Juggernaut
  rider of the player whose turn it is, in base contact with enemies none of which is one.
- ``fight``: one option per combat still to fight (a one-on-one pair or a Multiple Combat),
  named by its lone model in a Multiple Combat; the order of the duels is asked when fought.
- ``endturn``: once every pair in base contact has fought (combat is mandatory).

Every option is checked with the procedure's own checks, so no option is refused when played.
Order: follow-ups, charges, leaving combat, break offs, fights, end of turn; models in setup
order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from blowbyblow.domain.core import Context, RuleViolation
from blowbyblow.domain.system import CommandOption
from blowbyblow.domain.wh40k.breaking_off import check_break_off
from blowbyblow.domain.wh40k.charging import check_charge
from blowbyblow.domain.wh40k.commands import Charge, FollowUp, LeaveCombat
from blowbyblow.domain.wh40k.follow_up import check_follow_up
from blowbyblow.domain.wh40k.leaving_combat import check_leave_combat
from blowbyblow.domain.wh40k.rulings import RULINGS
from blowbyblow.domain.wh40k.state import Pair, Wh40kState, pair
from blowbyblow.domain.wh40k.who_fights import check_end_turn, find_combat


def _allowed(check: Callable[..., None], *args: object) -> bool:
    """Whether the procedure's ``check`` lets the command through."""
    try:
        check(*args)
    except RuleViolation:
        return False
    return True


def _living(state: Wh40kState) -> list[str]:
    return [m.id for m in state.setup.models if state.alive(m.id)]


def follow_up_options(state: Wh40kState) -> list[CommandOption]:
    options: list[CommandOption] = []
    for m in state.follow_up:
        if not _allowed(check_follow_up, state, FollowUp(model=m)):
            continue
        options.append(
            CommandOption(
                type="followup",
                side=state.profile(m).player,
                actor=m,
                fields={"model": m},
                summary=f'{m} may make a Follow-Up Move of up to 2" now, and may engage enemies',
            )
        )
    return options


DEFAULTS = Context(rulings={r.name: r.default for r in RULINGS}, command_index=0)


def charge_options(state: Wh40kState, ctx: Context = DEFAULTS) -> list[CommandOption]:
    options: list[CommandOption] = []
    for m in _living(state):
        targets = tuple(
            t
            for t in state.enemies(m)
            if _allowed(check_charge, state, Charge(model=m, target=t), ctx)
        )
        if targets:
            options.append(
                CommandOption(
                    type="charge",
                    side=state.player,
                    actor=m,
                    fields={"model": m},
                    options={"target": targets},
                    summary=f"{m} charges an enemy model into base-to-base contact",
                )
            )
    return options


def leave_combat_options(state: Wh40kState) -> list[CommandOption]:
    return [
        CommandOption(
            type="leavecombat",
            side=state.player,
            actor=m,
            fields={"model": m},
            summary=(
                f"{m} moves out of Hand-to-Hand Combat with "
                f"{', '.join(state.opponents(m))}; it may then charge as normal"
            ),
        )
        for m in _living(state)
        if _allowed(check_leave_combat, state, LeaveCombat(model=m))
    ]


def break_off_options(state: Wh40kState) -> list[CommandOption]:
    return [
        CommandOption(
            type="breakoff",
            side=state.profile(m).player,
            actor=m,
            fields={"model": m},
            summary=f'{m} tries to break off (WS 0, no parry; if it survives, 2D6" away, Broken)',
        )
        for m in _living(state)
        if _allowed(check_break_off, state, m)
    ]


def _combat(state: Wh40kState, model: str) -> tuple[str, frozenset[Pair]] | None:
    """The model a ``fight`` is best named by (the lone model of a Multiple Combat) and the
    pairs it fights, when a ``fight`` naming ``model`` is allowed."""
    try:
        combat = find_combat(state, model)
    except RuleViolation:
        return None
    if combat.lone is None:
        return model, frozenset({pair(*combat.models)})
    return combat.lone, frozenset(pair(combat.lone, o) for o in combat.models)


def fight_options(state: Wh40kState) -> list[CommandOption]:
    options: list[CommandOption] = []
    offered: list[frozenset[Pair]] = []
    for m in _living(state):
        found = _combat(state, m)
        if found is None or found[1] in offered:
            continue
        actor, pairs = found
        offered.append(pairs)
        against = [x for x in state.unfought_opponents(actor)]
        multiple = " (a Multiple Combat)" if len(pairs) > 1 else ""
        options.append(
            CommandOption(
                type="fight",
                side=state.player,
                actor=actor,
                fields={"model": actor},
                summary=f"{actor} fights {', '.join(against)}{multiple}",
            )
        )
    return options


def end_turn_options(state: Wh40kState) -> list[CommandOption]:
    if not _allowed(check_end_turn, state):
        return []
    return [
        CommandOption(
            type="endturn",
            side=state.player,
            summary=f"{state.player} ends the turn",
        )
    ]


def legal_commands(
    state: Wh40kState, rulings: Mapping[str, str] | None = None
) -> tuple[CommandOption, ...]:
    """Who may act now and with what, under ``rulings`` (default: each ruling's default): of
    them only broken-charge decides who may act (a Broken model's charge)."""
    ctx = Context(rulings={**DEFAULTS.rulings, **(rulings or {})}, command_index=0)
    return (
        *follow_up_options(state),
        *charge_options(state, ctx),
        *leave_combat_options(state),
        *break_off_options(state),
        *fight_options(state),
        *end_turn_options(state),
    )


__all__ = [
    "break_off_options",
    "charge_options",
    "end_turn_options",
    "fight_options",
    "follow_up_options",
    "leave_combat_options",
    "legal_commands",
]
