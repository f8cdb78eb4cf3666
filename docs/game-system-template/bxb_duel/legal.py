"""The commands the rules allow in a state, as a front end offers them (D1.2, D1.4, D4.1)."""

from __future__ import annotations

from collections.abc import Mapping

from blowbyblow.domain.system import CommandOption

from bxb_duel.state import DuelState


def legal_commands(
    state: DuelState, rulings: Mapping[str, str] | None = None
) -> tuple[CommandOption, ...]:
    """Only the fighter whose turn it is acts (D1.2): it rises if it is Down (D1.4), otherwise it
    strikes at the other fighter or takes Guard. Nobody acts once the duel is over (D4.1). No
    ruling changes who may act, so ``rulings`` is not read."""
    # copy me: offer nothing the procedure would refuse, in a fixed order.
    if state.over:
        return ()
    me = state.active
    side = state.profile(me).side
    if state.fighters[me].status == "down":
        return (
            CommandOption(
                type="rise",
                side=side,
                actor=me,
                fields={"fighter": me},
                summary=f"{me} is Down and can only rise (D1.4)",
            ),
        )
    foe = state.opponent(me)
    return (
        CommandOption(
            type="strike",
            side=side,
            actor=me,
            fields={"attacker": me},
            options={"target": (foe,)},
            summary=f"{me} strikes at {foe} (D2)",
        ),
        CommandOption(
            type="guard",
            side=side,
            actor=me,
            fields={"fighter": me},
            summary=f"{me} takes Guard until its next turn (D1.3)",
        ),
    )
