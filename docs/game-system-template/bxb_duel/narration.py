"""Every rule step of Duel in plain words (``bxb log``, ``bxb demo``), each ending with the
section it applies. The engine tells its own events (battle started, dice, choices) itself."""

from __future__ import annotations

from functools import singledispatch

from blowbyblow.domain.core import Event, Modifier, RuleEvent

from bxb_duel.events import (
    GuardLowered,
    GuardTaken,
    HitRolled,
    KnockedDown,
    OutOfAction,
    Rose,
    TurnPassed,
    WoundsLost,
)

# copy me: one small function per event type, registered on ``_tell``.


@singledispatch
def _tell(event: Event) -> str | None:
    return None  # not a Duel rule step


@_tell.register
def _turn_passed(e: TurnPassed) -> str:
    return f"turn {e.turn}: {e.fighter} to act"


@_tell.register
def _guard_taken(e: GuardTaken) -> str:
    return f"{e.fighter} takes Guard: strikes at it take -1 until its next turn"


@_tell.register
def _guard_lowered(e: GuardLowered) -> str:
    return f"{e.fighter}'s Guard is lowered"


@_tell.register
def _rose(e: Rose) -> str:
    return f"{e.fighter} rises"


def _mods(mods: tuple[Modifier, ...]) -> str:
    return "".join(f" {m.value:+d} ({m.cause})" for m in mods)


@_tell.register
def _hit_rolled(e: HitRolled) -> str:
    if e.decided_by == "natural":
        verdict = "a telling blow" if e.hit else "a miss"
        return f"{e.attacker} strikes at {e.target}: a natural {e.natural}, {verdict}"
    if e.decided_by == "tie":
        verdict = f"equals Defence {e.defence}: a tie, which goes to the " + (
            "attacker, a hit" if e.hit else "defender, a miss"
        )
    else:
        verdict = f"{'beats' if e.hit else 'does not beat'} Defence {e.defence}: " + (
            "a hit" if e.hit else "a miss"
        )
    return (
        f"{e.attacker} strikes at {e.target}: rolled {e.natural}{_mods(e.modifiers)} "
        f"= {e.total}, {verdict}"
    )


@_tell.register
def _wounds_lost(e: WoundsLost) -> str:
    return f"{e.fighter} loses {e.wounds} Wound(s) to {e.by}: {e.left} left"


@_tell.register
def _knocked_down(e: KnockedDown) -> str:
    return f"{e.by}'s telling blow knocks {e.fighter} Down"


@_tell.register
def _out_of_action(e: OutOfAction) -> str:
    return f"{e.fighter} is out of action: {e.by} wins the duel"


def narrate(event: Event) -> str | None:
    """The event in words with its section, or None for an event that is not Duel's."""
    text = _tell(event)
    if text is None:
        return None
    return f"{text} [{event.rule}]" if isinstance(event, RuleEvent) else text
