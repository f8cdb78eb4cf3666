"""Named rulings where chapter A11 of the ASL Rulebook is ambiguous, has variants, or relies on a
value no published source we could check confirms. Every default reproduces the rulebook's worked
examples (the EX of A11.141, A11.41 and A11.622, and the A11 comprehensive CC example).

Rules read a ruling only as ``ctx.ruling(CONSTANT)``."""

from __future__ import annotations

from blowbyblow.domain.core import Ruling

AMBUSH_THRESHOLD = Ruling(
    name="ambush-threshold",
    default="at-least-3",
    choices=("at-least-3", "more-than-3"),
    summary=(
        "A11.4 'rolls at least three < the other', compared on Final drs. at-least-3: Final dr "
        "<= the other's - 3 (the A11 comprehensive example, hex G5: 0 against 3 Ambushes; hex "
        "J2). more-than-3: Final dr < the other's - 3 (the aside of the A11.41 EX, 'an original "
        "dr of < 2' with -2 drm against a 3)."
    ),
    rule="A11.4",
    note=(
        "The A11.4 text and its examples read two ways; unconfirmed: no published source we "
        "could check states the threshold in numbers. The default follows the comprehensive "
        "example (hex G5)."
    ),
)

AMBUSH_CONCEALED_DRM = Ruling(
    name="ambush-concealed-drm",
    default="-2",
    choices=("-2", "0"),
    summary="Concealed drm to the Ambush dr: -2 as printed in the A11.4 drm table.",
    rule="A11.4",
    note=(
        "Unconfirmed: only the A11.4 drm table as transcribed gives -2, no other published source "
        "we could check confirms it; the default -2 is what the A11.41 EX and the comprehensive "
        "example (hex G5) use."
    ),
)

ODDS_ABOVE_TEN = Ruling(
    name="odds-above-10",
    default="beyond",
    choices=("beyond", "round-down"),
    summary=(
        "Odds between 10-1 and 11-1. beyond: any ratio above exactly 10-1 uses the '>10-1' "
        "column (as the Close Combat Table is transcribed). round-down: 10.x-1 rounds down to "
        "10-1 like every other ratio (A11.11 'rounded down')."
    ),
    rule="A11.11",
    note=(
        "The CCT's '>10-1' column and A11.11's 'rounded down' disagree for ratios between 10 and "
        "11 to 1; unconfirmed: only secondary sources discuss it, none we could check settles it."
    ),
)

HAND_TO_HAND = Ruling(
    name="hand-to-hand",
    default="never",
    choices=("never", "declared", "always"),
    summary=(
        "Red Kill Numbers (black + 2) of Hand-to-Hand CC (J2.31). never: black only (A11.11 "
        "'normally'). declared: an attack with hth=true uses red. always: every "
        "Infantry-vs-Infantry attack uses red (a scenario special rule)."
    ),
    rule="A11.11",
    note=(
        "A11.11 defers to J2.31 for when Hand-to-Hand CC applies; unconfirmed: we could not check "
        "the J2.31 text, and secondary sources disagree on what triggers it."
    ),
)

BURN_DR = Ruling(
    name="burn-dr",
    default="original",
    choices=("original", "final"),
    summary=(
        "A11.5 'burning wreck if the CC DR is <= half of the CCV': judged on the Original DR "
        "(the A11.622 PzIVJ EX: CCV 6 with -1 DRM 'burns on an Original DR <= 3') or on the "
        "Final DR."
    ),
    rule="A11.5",
    note=(
        "A11.5 says 'the CC DR' without saying Original or Final; the A11.622 EX reads it as "
        "the Original DR."
    ),
)

SW_LOSS_DR = Ruling(
    name="sw-loss-dr",
    default="below-kn",
    choices=("below-kn", "at-most-kn"),
    summary=(
        "A11.13: after an Original colored dr of 1, each SW of a unit eliminated in CC is lost "
        "on a subsequent dr < the black KN (the A11.13 text); at-most-kn: dr <= KN."
    ),
    rule="A11.13",
    note=(
        "The A11.13 text says '<'; a secondary source says 'no higher than'. Unconfirmed: no "
        "other published source we could check settles it; the default follows the A11.13 text."
    ),
)

ATMM_CHECK = Ruling(
    name="atmm-check",
    default="final-3-original-6-pins",
    choices=("final-3-original-6-pins", "not-allowed"),
    summary=(
        "ATMM (C13.7): an attack vs an AFV may make an ATMM check dr (+2 if made by a leader); "
        "Final dr <= 3 gives a -3 DRM, an Original 6 pins the unit (CCV -1). As the A11 "
        "comprehensive example uses it (hex F4: Original 3 gives -3; hex I5: Original 6 pins). "
        "not-allowed: refuse atmm attacks."
    ),
    rule="C13.7",
    note=(
        "Unconfirmed: we could not check the C13.7 text; the values are those the A11 "
        "comprehensive example applies (hexes F4 and I5)."
    ),
)

CAPTURE_VOIDED = Ruling(
    name="capture-voided",
    default="wiped-out-side",
    choices=("wiped-out-side", "never"),
    summary=(
        "A20.221: in simultaneous CC a side wiped out (eliminated/captured) in the Location "
        "has its own captures of that phase voided; never: captures always stand."
    ),
    rule="A20.221",
    note=(
        "A variant: A20.221 voids the captures of a side wiped out in simultaneous CC, as the "
        "A11 comprehensive example (hex G3) reads it ('would have eliminated the 4-6-7 and thus "
        "would not have been Captured'); 'never' lets every capture stand."
    ),
)

AMBUSH_DRM_COUNT = Ruling(
    name="ambush-drm-count",
    default="per-cause",
    choices=("per-cause", "per-unit"),
    summary=(
        "A11.4 '+1 CX, Lax, broken, pinned, or berserk (each)': per-cause counts each cause once "
        "if any unit of the force qualifies ('even if only a portion of a player's CC force is "
        "qualified'); per-unit adds +1 for every qualifying unit."
    ),
    rule="A11.4",
    note=(
        "A11.4's '(each)' reads per cause or per unit; unconfirmed: only secondary sources read "
        "it per cause, none we could check is the rulebook's own word."
    ),
)

PRISONER_ATTACKS = Ruling(
    name="prisoner-attacks",
    default="captor-first",
    choices=("captor-first", "not-allowed"),
    summary=(
        "A11.33: 'Prisoners attempting to eliminate their captor may resolve all of their CC "
        "attacks first (20.55).' captor-first: prisoners may attack only their own guard, with "
        "their printed FP, first of all (A11.34: over Ambush and vehicle); a prisoner whose "
        "guard it eliminated is released. not-allowed: prisoners never attack (the default "
        "before version 1.1)."
    ),
    rule="A11.33",
    note=(
        "A11.33 lets prisoners attack their captor and refers to A20.55 for the rest; "
        "unconfirmed: we could not check the A20.55 text, so when prisoners may attack beyond "
        "A11.33 and the release of a prisoner whose guard it eliminated are our reading. A "
        "battle records this ruling's value, so changing the default in 1.1 changes no "
        "recorded battle."
    ),
)


# --- rulings added in version 1.1: each reproduces version 1.0 with its ``before`` value ------

AMBUSH_VEHICLE_SIDE = Ruling(
    name="ambush-vehicle-side",
    default="takes-part",
    choices=("takes-part", "as-1.0"),
    summary=(
        "A11.4 with a side that has only vehicles in the Location (Infantry advancing against a "
        "lone AFV). takes-part: that side makes its Ambush status dr too, with the drm table's "
        "+2 Vehicle and +1 BU/Stunned AFV, and may Ambush or be Ambushed (A11.622: an AFV "
        "'qualifies as the Ambusher'); ambush_possible given with the command is obeyed. as-1.0: "
        "version 1.0, no Ambush dr unless both sides have Personnel there, whatever the command "
        "says."
    ),
    rule="A11.4",
    note=(
        "A correction: version 1.0 required Personnel on both sides; the A11.4 drm table "
        "('+2 Vehicle', '+1 BU or Stunned AFV') and A11.622 show a side of vehicles alone takes "
        "part. as-1.0 re-adjudicates battles recorded under 1.0."
    ),
    since="1.1",
    before="as-1.0",
)

PASSENGERS_INSIDE = Ruling(
    name="passengers-inside",
    default="inside",
    choices=("inside", "as-1.0"),
    summary=(
        "Passengers (not Riders) inside an armored, not open-topped vehicle. inside: they are BU "
        "with it, so they are no Personnel Escort (A11.51 '... unless they are BU') and the sN "
        "does not attack them (A11.622: only unarmored units and Vulnerable PRC); the PRC of a "
        "Mobile vehicle are neither held in Melee nor hold anyone (A11.7, A11.71). as-1.0: "
        "version 1.0, Passengers counted as ordinary Infantry of the Location."
    ),
    rule="A11.51",
    note=(
        "A correction: version 1.0 treated Passengers as ordinary Infantry of the Location; "
        "A11.51, A11.622, A11.7 and A11.71 set them apart. as-1.0 re-adjudicates battles "
        "recorded under 1.0."
    ),
    since="1.1",
    before="as-1.0",
)

BERSERK_CAPTURE = Ruling(
    name="berserk-capture",
    default="refused",
    choices=("refused", "as-1.0"),
    summary=(
        "A20.2: berserk units neither take nor become prisoners. refused: a Capture attempt "
        "against a berserk unit (or a stack holding one) is refused, as one by a berserk "
        "attacker is. as-1.0: version 1.0, only berserk attackers were refused."
    ),
    rule="A20.2",
    note=(
        "A correction: version 1.0 let a berserk target be captured; A20.2 says berserk units "
        "never become prisoners. as-1.0 re-adjudicates battles recorded under 1.0."
    ),
    since="1.1",
    before="as-1.0",
)

LEADER_DIRECTION = Ruling(
    name="leader-direction",
    default="with-its-mmc",
    choices=("with-its-mmc", "not-alone"),
    summary=(
        "A11.141: 'One leader may direct the CC attack of the MMC it defends with'. "
        "with-its-mmc: the leadership DRM applies only to an attack that includes an MMC (an "
        "SMC combining with an MMC defends with it, A11.14); SMC attacking together without "
        "one get none. not-alone: any attack of two or more units may be directed (version "
        "1.0, reading only 'may not ... if he attacks alone')."
    ),
    rule="A11.141",
    note=(
        "A11.141's first sentence ties direction to the MMC the leader defends with, its "
        "second forbids only an attack alone; two leaders attacking together fit the second "
        "and not the first. not-alone is how version 1.0 adjudicated."
    ),
    since="1.1",
    before="not-alone",
)

UNARMED_VEHICLE_CAPTURE = Ruling(
    name="unarmed-vehicle-capture",
    default="captured-when-alone",
    choices=("captured-when-alone", "as-1.0"),
    summary=(
        "A11.52: 'An unarmed, stopped/non-Motion vehicle without Personnel Escort is captured "
        "instantly in any CCPh in which it is alone with opposing Infantry.' "
        "captured-when-alone: so it is, at the start of that Location's CC. as-1.0: version "
        "1.0, which did not cover it."
    ),
    rule="A11.52",
    note=(
        "Version 1.0 did not cover A11.52; a battle it recorded with such a vehicle is "
        "re-adjudicated with as-1.0."
    ),
    since="1.1",
    before="as-1.0",
)

INFILTRATION_ON_12 = Ruling(
    name="infiltration-on-12",
    default="attacked-units",
    choices=("attacked-units", "attacked-side"),
    summary=(
        "Who may withdraw after an Original 12 CC DR. attacked-units: 'Any Infantry/Cavalry "
        "unit(s) attacked by an Original 12' (the A11.22 text). attacked-side: every unit of "
        "the attacked side in the Location, as the A11 comprehensive example (hex K4) lets "
        "'either or both squads' withdraw after a 12 against one of them."
    ),
    rule="A11.22",
    note=(
        "The A11.22 text and the K4 example disagree: the German attacks only the 4-4-7, yet "
        "the Russian may withdraw 'either or both squads'. The default follows the text."
    ),
    since="1.1",
    before="attacked-units",
)

# --- version 1.2: readings 1.1 fixed, made choices (each ``before`` gives 1.1 exactly) --------

LEADER_CHOICE = Ruling(
    name="leader-choice",
    default="asked",
    choices=("asked", "always"),
    summary=(
        "A11.141: 'One leader may direct the CC attack of the MMC it defends with'. asked: "
        "when a leader with a leadership DRM may direct an attack the command does not name a "
        "leader for, his owner is asked (ask direct/<attack>: a leader, or none; default the "
        "best modifier), and only the answer's leader applies his DRM (A11.141, A11.51). "
        "always: the best one always directs (version 1.1)."
    ),
    rule="A11.141",
    note=(
        "'may direct' gives the owner the choice, which matters for a leader with a positive "
        "DRM; version 1.1 applied the best modifier without asking."
    ),
    since="1.2",
    before="always",
)

STREET_FIGHTING_ROAD = Ruling(
    name="street-fighting-road",
    default="both-sides",
    choices=("both-sides", "attacker-building"),
    summary=(
        "A11.8: 'Any vehicle in a road hex and ADJACENT to a building hex on both sides of "
        "that road'. both-sides: Street Fighting and its Reaction Fire need the road Location's "
        "road_sides to name a building hex on each side, the attacker's among them. "
        "attacker-building: only the attacker's ground-level building Location ADJACENT to the "
        "road is checked (version 1.1)."
    ),
    rule="A11.8",
    note=(
        "A correction: version 1.1 checked only the attacker's building. Setups of 1.1 give no "
        "road_sides; attacker-building re-adjudicates their battles."
    ),
    since="1.2",
    before="attacker-building",
)

REINFORCING_ATTACK = Ruling(
    name="reinforcing-attack",
    default="must-attack",
    choices=("must-attack", "may-decline"),
    summary=(
        "A11.15: 'New units may advance into a Melee hex but must engage in CC (though a "
        "concealed unit may elect not to attack in an attempt to retain its concealment)'. "
        "must-attack: a Known unit that reinforced a Melee this Player Turn must make or join "
        "an attack in that CC (the parenthesis excuses only a concealed one). may-decline: "
        "'engage' is being in the CC (attacked, then held in Melee); attacking is optional."
    ),
    rule="A11.15",
    note=(
        "'engage in CC' is not defined; the parenthesis implies that declining to attack is "
        "the concealed unit's exception. must-attack is how version 1.1 read it."
    ),
    since="1.2",
    before="must-attack",
)

DISRUPTED_IN_MELEE = Ruling(
    name="disrupted-in-melee",
    default="stays",
    choices=("stays", "failure-to-rout"),
    summary=(
        "A11.16: broken Infantry in Melee 'must attempt to Withdraw from Melee (11.2) unless "
        "Disrupted or guarding prisoners. Any other broken unit unable to withdraw from Melee "
        "is eliminated at the end of that CCPh for Failure to Rout.' stays: a Disrupted unit "
        "neither must withdraw nor is eliminated; it stays in the Melee ('other' excludes it). "
        "failure-to-rout: it need not attempt to withdraw, but unless it withdraws it is "
        "eliminated for Failure to Rout ('other' means other than those withdrawing)."
    ),
    rule="A11.16",
    note=(
        "'Any other broken unit' reads two ways: other than those excused (Disrupted, guards), "
        "or other than those that withdraw. stays is how version 1.1 read it."
    ),
    since="1.2",
    before="stays",
)

# --- version 1.3 ------------------------------------------------------------------------------

PINNED_LEADER_DIRECTS = Ruling(
    name="pinned-leader-directs",
    default="no",
    choices=("no", "yes"),
    summary=(
        "Whether a pinned leader attacking with his MMC may direct the attack (A11.141). no: "
        "he may not (A7.831, as secondary sources read it; version 1.2). yes: A11.141 names no "
        "such limit; he directs as any leader (his FP is halved as pinned all the same, A7.8)."
    ),
    rule="A11.141",
    note=(
        "A11.141 does not mention pinned leaders and the A7.831 text is not among the sources "
        "we could check; the A11.4 drm table's 'best unpinned Good Order leader' speaks only of "
        "the Ambush dr. no is how versions 1.0 to 1.2 read it."
    ),
    since="1.3",
    before="no",
)

WITHDRAWAL_CX = Ruling(
    name="withdrawal-cx",
    default="next-player-turn",
    choices=("next-player-turn", "kept"),
    summary=(
        "How long the CX counter a unit places to withdraw (A11.21) lasts. next-player-turn: it "
        "is removed as its side's next Player Turn begins (its next MPh). kept: it stays for "
        "the rest of the battle record, as on a unit the setup makes cx."
    ),
    rule="A11.21",
    note=(
        "unconfirmed: A11.21 lets a unit withdraw into a Location Accessible to it 'even if it "
        "requires placement of a CX counter; 4.72', but when a CX counter is removed is A4.51, "
        "whose text is not among the sources we could check; the default is how secondary "
        "sources read it (removed at the start of the side's next MPh). No battle before 1.4 "
        "places one."
    ),
    since="1.4",
    before="next-player-turn",
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
    AMBUSH_VEHICLE_SIDE,
    PASSENGERS_INSIDE,
    BERSERK_CAPTURE,
    LEADER_DIRECTION,
    UNARMED_VEHICLE_CAPTURE,
    INFILTRATION_ON_12,
    LEADER_CHOICE,
    STREET_FIGHTING_ROAD,
    REINFORCING_ATTACK,
    DISRUPTED_IN_MELEE,
    PINNED_LEADER_DIRECTS,
    WITHDRAWAL_CX,
)
