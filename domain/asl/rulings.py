"""Named rulings where the A11 text (shared/seeds/asl-a11-close-combat.txt) is ambiguous, has
variants, or relies on a value shared/rules/FACTS.md marks [U] or [S]. Every default reproduces
the seed's worked examples (tests/asl)."""

from __future__ import annotations

from blowbyblow.domain.core import Ruling

SEED = "shared/seeds/asl-a11-close-combat.txt"

AMBUSH_THRESHOLD = Ruling(
    name="ambush-threshold",
    default="at-least-3",
    choices=("at-least-3", "more-than-3"),
    summary=(
        "A11.4 'rolls at least three < the other', compared on Final drs. at-least-3: Final dr "
        "<= the other's - 3 (the comprehensive example G5: 0 against 3 Ambushes; J2). "
        "more-than-3: Final dr < the other's - 3 (the 4-4-7 example's aside 'an original dr of < 2' "
        "with -2 drm against a 3)."
    ),
    rule=f"{SEED} A11.4 and its EX; comprehensive example G5, J2; FACTS 1.7 [U]",
)

AMBUSH_CONCEALED_DRM = Ruling(
    name="ambush-concealed-drm",
    default="-2",
    choices=("-2", "0"),
    summary="Concealed drm to the Ambush dr: -2 as printed in the seed's A11.4 table (FACTS: [U]).",
    rule=f"{SEED} A11.4 drm table; 4-4-7 EX; G5; FACTS 1.7 [U]",
)

ODDS_ABOVE_TEN = Ruling(
    name="odds-above-10",
    default="beyond",
    choices=("beyond", "round-down"),
    summary=(
        "Odds between 10-1 and 11-1. beyond: any ratio above exactly 10-1 uses the '>10-1' "
        "column (both CCT transcriptions A1/A2). round-down: 10.x-1 rounds down to 10-1 like "
        "every other ratio (A11.11 'rounded down')."
    ),
    rule=f"{SEED} A11.11; FACTS 1.1 note [S]",
)

HAND_TO_HAND = Ruling(
    name="hand-to-hand",
    default="never",
    choices=("never", "declared", "always"),
    summary=(
        "Red Kill Numbers (black + 2) of Hand-to-Hand CC (J2.31, not in the seed). never: black "
        "only (A11.11 'normally'). declared: an attack with hth=true uses red. always: every "
        "Infantry-vs-Infantry attack uses red (an SSR)."
    ),
    rule=f"{SEED} A11.11; FACTS 1.1 HtH trigger [S]/[U]",
)

BURN_DR = Ruling(
    name="burn-dr",
    default="original",
    choices=("original", "final"),
    summary=(
        "A11.5 'burning wreck if the CC DR is <= half of the CCV': judged on the Original DR "
        "(the PzIVJ EX: CCV 6 with -1 DRM 'burns on an Original DR <= 3') or on the Final DR."
    ),
    rule=f"{SEED} A11.5 and the 11.622 EX",
)

SW_LOSS_DR = Ruling(
    name="sw-loss-dr",
    default="below-kn",
    choices=("below-kn", "at-most-kn"),
    summary=(
        "A11.13: after an Original colored dr of 1, each SW of a unit eliminated in CC is lost "
        "on a subsequent dr < the black KN (seed text); at-most-kn: dr <= KN (FACTS 1.2 [S])."
    ),
    rule=f"{SEED} A11.13; FACTS 1.2 [S]",
)

ATMM_CHECK = Ruling(
    name="atmm-check",
    default="final-3-original-6-pins",
    choices=("final-3-original-6-pins", "not-allowed"),
    summary=(
        "ATMM (C13.7, not in the seed): an attack vs an AFV may make an ATMM check dr (+2 if made "
        "by a leader); Final dr <= 3 gives a -3 DRM, an Original 6 pins the unit (CCV -1). As the "
        "comprehensive example uses it (F4: Original 3 gives -3; I5: Original 6 pins). "
        "not-allowed: refuse atmm attacks."
    ),
    rule=f"{SEED} comprehensive example F4 and I5 [U: C13.7 text not retrieved]",
)

CAPTURE_VOIDED = Ruling(
    name="capture-voided",
    default="wiped-out-side",
    choices=("wiped-out-side", "never"),
    summary=(
        "A20.221: in simultaneous CC a side wiped out (eliminated/captured) in the Location "
        "has its own captures of that phase voided; never: captures always stand."
    ),
    rule="FACTS 1.6 A20.221; comprehensive example G3 ('would have eliminated the 4-6-7 "
    "and thus would not have been Captured')",
)

AMBUSH_DRM_COUNT = Ruling(
    name="ambush-drm-count",
    default="per-cause",
    choices=("per-cause", "per-unit"),
    summary=(
        "A11.4 '+1 CX, Lax, broken, pinned, or berserk (each)': per-cause counts each cause once "
        "if any unit of the force qualifies (FACTS 1.7, A8 R29.9; 'even if only a portion of a "
        "player's CC force is qualified'); per-unit adds +1 for every qualifying unit."
    ),
    rule=f"{SEED} A11.4 drm table; FACTS 1.7 [S]",
)

PRISONER_ATTACKS = Ruling(
    name="prisoner-attacks",
    default="not-allowed",
    choices=("not-allowed", "captor-first"),
    summary=(
        "A11.33: prisoners attempting to eliminate their captor resolve all their CC attacks "
        "first (A20.55, whose text was not retrieved). not-allowed: prisoners never attack. "
        "captor-first: prisoners may attack only their own guard, with their printed FP, first "
        "of all (A11.34: over Ambush and vehicle); a prisoner whose guard it eliminated is "
        "released [U]."
    ),
    rule=f"{SEED} A11.33, A11.34 [U: A20.55 not retrieved]",
)

RULINGS: tuple[Ruling, ...] = (
    PRISONER_ATTACKS,
    AMBUSH_DRM_COUNT,
    AMBUSH_THRESHOLD,
    AMBUSH_CONCEALED_DRM,
    ODDS_ABOVE_TEN,
    HAND_TO_HAND,
    BURN_DR,
    SW_LOSS_DR,
    ATMM_CHECK,
    CAPTURE_VOIDED,
)
