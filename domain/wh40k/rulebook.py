"""The published rules ``wh40k-2e`` cites: the Warhammer 40,000 rulebook (2nd edition, 1993),
its Hand-to-Hand Combat chapter.

Every rule-step event names the section it applies in ``rule``, in a short form recorded in the
log: ``"40K2 HtH: <section>"`` (the chapter's headings), ``"40K2 Turn Sequence"``, and a
``" (ruling <name>)"`` suffix where a ruling decided the step. ``RULEBOOK.section`` reads that
short form as the section in words; ``RULEBOOK.cite`` adds the book's title.
"""

from __future__ import annotations

from blowbyblow.domain.system import Rulebook

TITLE = "Warhammer 40,000 Rulebook (2nd edition, 1993)"

# --- the short references events carry (recorded in every log: never change them) -------------

RULE_GAME = "40K2"
RULE_TURN = "40K2 Turn Sequence"
RULE_CHARGE = "40K2 HtH: Charging"
RULE_WHO = "40K2 HtH: Who Fights"
RULE_ROUNDS = "40K2 HtH: Combat Rounds"
RULE_ATTACK_DICE = "40K2 HtH: Roll Attack Dice"
RULE_SCORE = "40K2 HtH: Calculate Combat Score"
RULE_WINNER = "40K2 HtH: Determine the Winner"
RULE_HITS = "40K2 HtH: Resolve Hits & Damage"
RULE_FUMBLES = "40K2 HtH: Fumbles"
RULE_CRITICALS = "40K2 HtH: Critical Hits"
RULE_PARRY = "40K2 HtH: Parrying"
RULE_MULTIPLE = "40K2 HtH: Multiple Combat"
RULE_BREAK_OFF = "40K2 HtH: Breaking Off"
RULE_FOLLOW_UP = "40K2 HtH: Follow-Up Moves"

_HTH = "Hand-to-Hand Combat"
_ROUND = f"{_HTH}, Combat Rounds"
_MODIFIERS = f"{_HTH}, Combat Score Modifiers"

SECTIONS: dict[str, str] = {
    RULE_GAME: _HTH,
    RULE_TURN: "The Turn (each player's Movement Phase, then the Hand-to-Hand Combat Phase)",
    RULE_CHARGE: "Movement Phase, Charge, and the Combat Score Modifier for charging",
    RULE_WHO: f"{_HTH}, Who Fights",
    RULE_ROUNDS: _ROUND,
    RULE_ATTACK_DICE: f"{_ROUND}, step 1 (Roll Attack Dice)",
    RULE_SCORE: f"{_ROUND}, step 2 (Calculate Combat Score)",
    RULE_WINNER: f"{_ROUND}, step 3 (Determine the Winner)",
    RULE_HITS: f"{_ROUND}, step 4 (Resolve Hits & Damage)",
    RULE_FUMBLES: f"{_MODIFIERS} (Fumbles)",
    RULE_CRITICALS: f"{_MODIFIERS} (Critical Hits)",
    RULE_PARRY: f"{_MODIFIERS} (Parrying)",
    RULE_MULTIPLE: f"{_HTH}, Multiple Combat",
    RULE_BREAK_OFF: f"{_HTH}, Breaking Off",
    RULE_FOLLOW_UP: f"{_HTH}, Follow-Up Moves",
}

_RULING = " (ruling "


def section(rule: str) -> str:
    """A short reference in words: ``"40K2 HtH: Parrying"`` -> "Hand-to-Hand Combat, Combat
    Score Modifiers (Parrying)"; ``"40K2 HtH: Charging (ruling charge-bonus)"`` -> the section,
    then "as ruling charge-bonus decides". A reference it does not know is given as written."""
    base, found, ruling = rule.partition(_RULING)
    words = SECTIONS.get(base, base)
    if found and ruling.endswith(")"):
        return f"{words}, as ruling {ruling[:-1]} decides"
    return words if not found else rule


RULEBOOK = Rulebook(title=TITLE, section=section)

__all__ = [
    "RULEBOOK",
    "RULE_ATTACK_DICE",
    "RULE_BREAK_OFF",
    "RULE_CHARGE",
    "RULE_CRITICALS",
    "RULE_FOLLOW_UP",
    "RULE_FUMBLES",
    "RULE_GAME",
    "RULE_HITS",
    "RULE_MULTIPLE",
    "RULE_PARRY",
    "RULE_ROUNDS",
    "RULE_SCORE",
    "RULE_TURN",
    "RULE_WHO",
    "RULE_WINNER",
    "SECTIONS",
    "section",
]
