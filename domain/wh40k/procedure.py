"""The procedures of 40K 2nd edition hand-to-hand combat, one per command: Charge (Movement Phase),
Break Off (declared before the model's Combat Round), Fight (the Combat Rounds of one combat,
a Multiple Combat as a series of one-on-one duels), Follow-Up Move, End Turn.

Every illegal command raises RuleViolation before anything is yielded.
"""

from __future__ import annotations

from decimal import Decimal

from blowbyblow.domain.core import Context, Procedure, RuleViolation, ask, emit, roll
from blowbyblow.domain.wh40k.combat import Gen, combat_round
from blowbyblow.domain.wh40k.commands import BreakOff, Charge, EndTurn, Fight, FollowUp
from blowbyblow.domain.wh40k.events import (
    RULE_BREAK_OFF,
    RULE_CHARGE,
    RULE_FOLLOW_UP,
    RULE_MULTIPLE,
    RULE_TURN,
    RULE_WHO,
    BreakOffAttempted,
    BrokeOff,
    Charged,
    FollowUpAllowed,
    FollowUpMove,
    MultipleCombatBegun,
    TurnBegun,
)
from blowbyblow.domain.wh40k.models import Wh40kState
from blowbyblow.domain.wh40k.rulings import FOLLOW_UP_FIGHTS, FOLLOW_UP_WHO

MAX_FOLLOW_UP = Decimal(2)


def _known(state: Wh40kState, model: str, rule: str) -> None:
    if model not in state.models:
        raise RuleViolation(rule, f"there is no model {model!r}")


def _living(state: Wh40kState, model: str, rule: str) -> None:
    _known(state, model, rule)
    if not state.alive(model):
        raise RuleViolation(rule, f"{model} has been slain")


# --- Movement Phase: charging -------------------------------------------------------------------


def check_charge(state: Wh40kState, command: Charge) -> None:
    """40K2 HtH: Charging. Only the player whose turn it is charges, in the Movement Phase, with
    a living, unbroken model not already in hand-to-hand combat, at a living enemy model."""
    _living(state, command.model, RULE_CHARGE)
    _living(state, command.target, RULE_CHARGE)
    charger, target = state.profile(command.model), state.profile(command.target)
    if charger.player == target.player:
        raise RuleViolation(RULE_CHARGE, f"{command.target} is not an enemy of {command.model}")
    if charger.player != state.player:
        raise RuleViolation(
            RULE_CHARGE,
            f"it is {state.player}'s turn; {command.model} ({charger.player}) may not charge",
        )
    if state.phase != "movement":
        raise RuleViolation(
            RULE_CHARGE, "charges are made in the Movement Phase, before hand-to-hand combat"
        )
    if state.models[command.model].broken:
        raise RuleViolation(RULE_CHARGE, f"{command.model} is Broken and may not charge")
    if state.opponents(command.model):
        raise RuleViolation(
            RULE_CHARGE,
            f"{command.model} is already in hand-to-hand combat with "
            f"{', '.join(state.opponents(command.model))}",
        )


def charge(state: Wh40kState, command: Charge, ctx: Context) -> Procedure:
    check_charge(state, command)
    yield from emit(
        Charged(rule=RULE_CHARGE, model=command.model, target=command.target, turn=state.turn),
        Wh40kState,
    )


# --- Breaking Off -------------------------------------------------------------------------------


def check_break_off(state: Wh40kState, command: BreakOff) -> None:
    """40K2 HtH: Breaking Off. Declared before that model's Combat Round: it must be in
    hand-to-hand combat and must not have fought this phase."""
    _living(state, command.model, RULE_BREAK_OFF)
    if not state.opponents(command.model):
        raise RuleViolation(RULE_BREAK_OFF, f"{command.model} is not in hand-to-hand combat")
    if command.model in state.breaking_off:
        raise RuleViolation(RULE_BREAK_OFF, f"{command.model} has already declared a break off")
    if any(command.model in p for p in state.fought):
        raise RuleViolation(
            RULE_BREAK_OFF,
            f"{command.model} has already fought this phase; a break off must be declared "
            "before its Combat Round",
        )


def break_off(state: Wh40kState, command: BreakOff, ctx: Context) -> Procedure:
    check_break_off(state, command)
    yield from emit(
        BreakOffAttempted(
            rule=RULE_BREAK_OFF,
            model=command.model,
            opponents=tuple(state.opponents(command.model)),
        ),
        Wh40kState,
    )


def escape(state: Wh40kState, model: str, away_from: tuple[str, ...]) -> Gen:
    """40K2 HtH: Breaking Off. The escaping model survived: it moves 2D6" directly away; it and
    its squad are Broken and may not Rally until the following turn."""
    dice = yield from roll(f"breakoff/{model}", 2, 6, purpose=f'{model} breaks off (2D6")')
    squad = state.profile(model).squad
    broken = [model]
    if squad:
        broken += [
            m.id
            for m in state.setup.models
            if m.squad == squad and m.id != model and state.alive(m.id)
        ]
    state = yield from emit(
        BrokeOff(
            rule=RULE_BREAK_OFF,
            model=model,
            away_from=away_from,
            dice=dice,
            inches=sum(dice),
            broken=tuple(broken),
            turn=state.turn,
        ),
        Wh40kState,
    )
    return state


# --- Hand-to-Hand Combat Phase: a fight ----------------------------------------------------------


def combat_of(state: Wh40kState, command: Fight) -> tuple[str | None, list[str]]:
    """40K2 HtH: Who Fights / Multiple Combat. The combat ``command.model`` is in: (lone model,
    its opponents) when two or more enemies are in contact with one model (the named model, else
    its single opponent), or (None, [model, opponent]) for a one-on-one fight."""
    model = command.model
    _living(state, model, RULE_WHO)
    mine = state.unfought_opponents(model)
    if not mine:
        raise RuleViolation(
            RULE_WHO,
            f"{model} is not in base contact with an enemy it has not fought this phase",
        )
    if len(mine) >= 2:
        lone: str | None = model
    elif len(state.unfought_opponents(mine[0])) >= 2:
        lone = mine[0]
    else:
        lone = None
    if lone is None:
        if command.order:
            raise RuleViolation(RULE_MULTIPLE, "order is only for a Multiple Combat")
        return None, [model, mine[0]]
    opponents = state.unfought_opponents(lone)
    if command.order and sorted(command.order) != sorted(opponents):
        raise RuleViolation(
            RULE_MULTIPLE,
            f"order must list each model fighting {lone} once: {', '.join(opponents)}",
        )
    return lone, opponents


def choose_order(lone: str, opponents: list[str], given: tuple[str, ...]) -> Gen:
    """40K2 HtH: Multiple Combat. The outnumbering player chooses the order of the duels (the
    command's ``order``, else ask ``order/<n>`` for each place; default: contact order)."""
    if given:
        return list(given)
    left = list(opponents)
    order: list[str] = []
    n = 1
    while len(left) > 1:
        pick = yield from ask(
            f"order/{n}",
            tuple(left),
            default=left[0],
            prompt=f"Multiple Combat against {lone}: which model fights duel {n}?",
        )
        order.append(pick)
        left.remove(pick)
        n += 1
    order += left
    return order


def fight(state: Wh40kState, command: Fight, ctx: Context) -> Procedure:
    """40K2 HtH: Combat Rounds, Multiple Combat, then Breaking Off and Follow-Up Moves."""
    lone, models = combat_of(state, command)
    before = state
    if lone is None:
        participants = list(models)
        state = yield from combat_round(state, models[0], models[1], 0, {}, ctx)
    else:
        order = yield from choose_order(lone, models, command.order)
        participants = [*order, lone]
        state = yield from emit(
            MultipleCombatBegun(
                rule=RULE_MULTIPLE,
                lone=lone,
                order=tuple(order),
                outnumbering_player=state.profile(order[0]).player,
            ),
            Wh40kState,
        )
        for k, other in enumerate(order, start=1):
            if not state.alive(lone):
                break
            state = yield from combat_round(state, other, lone, k, {other: k - 1}, ctx)
    state = yield from after_fight(state, before, participants, ctx)


def after_fight(
    state: Wh40kState, before: Wh40kState, participants: list[str], ctx: Context
) -> Gen:
    """40K2 HtH: Breaking Off (a surviving escaper moves away, Broken) and Follow-Up Moves (a
    model that has killed all its opponents may move up to 2" at once)."""
    for m in participants:
        if m in state.breaking_off and state.alive(m) and state.opponents(m):
            state = yield from escape(state, m, tuple(state.opponents(m)))
    who = ctx.rulings[FOLLOW_UP_WHO.name]
    for m in participants:
        if not state.alive(m) or state.opponents(m):
            continue
        had = before.opponents(m)
        if not had or not all(not state.alive(o) for o in had):
            continue
        if who == "killer" and not all(state.models[o].slain_by == m for o in had):
            continue
        state = yield from emit(
            FollowUpAllowed(
                rule=RULE_FOLLOW_UP,
                model=m,
                killed=tuple(had),
                ruling=f"follow-up-who={who}",
            ),
            Wh40kState,
        )
    return state


# --- Follow-Up Moves ----------------------------------------------------------------------------


def check_follow_up(state: Wh40kState, command: FollowUp) -> None:
    """40K2 HtH: Follow-Up Moves. Only a model that has just killed all its opponents, up to 2",
    engaging living enemies only."""
    _living(state, command.model, RULE_FOLLOW_UP)
    if command.model not in state.follow_up:
        raise RuleViolation(
            RULE_FOLLOW_UP,
            f"{command.model} may not make a Follow-Up Move now (only immediately after it has "
            "killed all its hand-to-hand opponents)",
        )
    if not Decimal(0) <= command.inches <= MAX_FOLLOW_UP:
        raise RuleViolation(RULE_FOLLOW_UP, f'a Follow-Up Move is up to 2", not {command.inches}"')
    player = state.profile(command.model).player
    for other in command.engage:
        _living(state, other, RULE_FOLLOW_UP)
        if state.profile(other).player == player:
            raise RuleViolation(RULE_FOLLOW_UP, f"{other} is not an enemy of {command.model}")
    if len(set(command.engage)) != len(command.engage):
        raise RuleViolation(RULE_FOLLOW_UP, "engage lists a model twice")


def follow_up(state: Wh40kState, command: FollowUp, ctx: Context) -> Procedure:
    check_follow_up(state, command)
    yield from emit(
        FollowUpMove(
            rule=RULE_FOLLOW_UP,
            model=command.model,
            inches=command.inches,
            engaged=tuple(command.engage),
            fights_this_phase=ctx.rulings[FOLLOW_UP_FIGHTS.name] == "this-phase",
        ),
        Wh40kState,
    )


# --- End of turn --------------------------------------------------------------------------------


def check_end_turn(state: Wh40kState) -> None:
    """40K2 HtH: Who Fights. Combat is mandatory: every pair in base contact must have fought."""
    waiting = [p for p in state.contacts if p not in state.fought]
    if waiting:
        raise RuleViolation(
            RULE_WHO,
            "combat is mandatory; still to fight: " + ", ".join(f"{a} and {b}" for a, b in waiting),
        )


def end_turn(state: Wh40kState, command: EndTurn, ctx: Context) -> Procedure:
    check_end_turn(state)
    players = state.players()
    nxt = players[(players.index(state.player) + 1) % len(players)] if players else ""
    yield from emit(TurnBegun(rule=RULE_TURN, turn=state.turn + 1, player=nxt), Wh40kState)


def procedure(state: Wh40kState, command: object, ctx: Context) -> Procedure:
    """Dispatch a command to its procedure."""
    if isinstance(command, Charge):
        return charge(state, command, ctx)
    if isinstance(command, BreakOff):
        return break_off(state, command, ctx)
    if isinstance(command, Fight):
        return fight(state, command, ctx)
    if isinstance(command, FollowUp):
        return follow_up(state, command, ctx)
    if isinstance(command, EndTurn):
        return end_turn(state, command, ctx)
    raise RuleViolation("40K2", f"not a 40K 2nd edition command: {command!r}")


__all__ = ["procedure"]
