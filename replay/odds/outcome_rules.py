"""The shipped game systems' outcome rules: their tallies, their scale of statuses, and the rolls
whose order their rules ignore.

This is the one place the odds know anything about a particular game, and only by the names the
systems publish (event types, status words, roll keys): nothing here imports a game system. A
system shipped elsewhere registers its own with ``outcomes.register_outcome_rules``.

Order-insensitive rolls are claims about the rules, checked by ``tests/odds``: the exact odds with
the roll explored as multisets equal the odds with every ordering explored."""

from __future__ import annotations

from typing import Any

from blowbyblow.replay.odds.outcomes import OutcomeRules, Tally, register_outcome_rules


def _one(e: Any) -> int:
    return 1


def _flag(name: str) -> Any:
    return lambda e: 1 if getattr(e, name) else 0


def _field(name: str) -> Any:
    return lambda e: int(getattr(e, name))


def _status_to(status: str) -> Any:
    return lambda e: 1 if e.after == status else 0


NECROMUNDA = OutcomeRules(
    tallies=(
        Tally("hits", {"HitRolled": _flag("hit")}),
        Tally("wounds", {"WoundRolled": _flag("wounded")}),
        Tally("unsaved", {"SaveRolled": lambda e: 0 if e.saved else 1}),
        Tally("seriously injured", {"StatusChanged": _status_to("Prone & Seriously Injured")}),
        Tally("out of action", {"StatusChanged": _status_to("Out of Action")}),
        Tally("coups de grace", {"CoupDeGrace": _one}),
    ),
    severity={
        "Prone & Pinned": 1,
        "Prone & Seriously Injured": 2,
        "Out of Action": 3,
        "Wrecked": 3,
    },
    flag_severity={"Broken": 1},
    # Hit rolls: each die is a hit or a miss and the hits are numbered in turn; a Nerve test is
    # the sum of its 2D6. (Injury dice are applied in order, so they are not here.)
    order_insensitive=("hit/*", "*/hit/*", "nerve/*", "*/nerve/*"),
)

WH40K = OutcomeRules(
    tallies=(
        Tally("hits", {"HitsScored": _field("hits")}),
        Tally("wounds lost", {"WoundsLost": _field("damage")}),
        Tally("kills", {"ModelSlain": _one}),
        Tally("fumbles", {"FumblesCounted": _field("fumbles")}),
    ),
    severity={"Broken": 1, "slain": 3},
    flag_severity={"Broken": 1},
    # Attack dice: the highest die, the 1s (fumbles) and the 6s (critical hits) count; a parry
    # re-rolls the highest. Breaking off moves 2D6".
    order_insensitive=("*/attack/*", "breakoff/*"),
)

GANGFIGHT = OutcomeRules(
    tallies=(
        Tally(
            "hits",
            {"AttackRolled": lambda e: int(e.test.successes)},
        ),
        Tally("wounds taken", {"WoundsApplied": _field("wounds")}),
        Tally("knocked down", {"KnockedDown": _one}),
        Tally("incapacitated", {"Incapacitated": _one}),
        Tally("kills", {"Killed": _one}),
    ),
    severity={"prone": 1, "incapacitated": 2, "dead": 3},
    # Every Gangfight roll is a dice pool: successes and Critical Successes are counted.
    order_insensitive=("*",),
)

ASL = OutcomeRules(
    tallies=(
        Tally("kills", {"UnitEliminated": _one}),
        Tally("Partial Kills", {"PartialKill": _one}),
        Tally("casualty reductions", {"CasualtyReduced": _one}),
        Tally("captures", {"UnitCaptured": _one}),
        Tally("ambushes", {"AmbushDeclared": _one}),
    ),
    severity={"pinned": 1, "broken": 1, "prisoner": 3, "eliminated": 3},
    # None: the colored die of a CC DR matters on its own (A11.13), and a Random Selection is
    # one dr per unit.
)

register_outcome_rules("necromunda-2023", NECROMUNDA)
register_outcome_rules("necromunda-legacy", NECROMUNDA)
register_outcome_rules("wh40k-2e", WH40K)
register_outcome_rules("gangfight", GANGFIGHT)
register_outcome_rules("asl", ASL)

__all__ = ["ASL", "GANGFIGHT", "NECROMUNDA", "WH40K"]
