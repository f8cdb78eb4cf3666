"""Necromunda close combat, as the 2023 Core Rulebook sets it out (seed:
shared/seeds/necromunda-2023-close-combat.md), one function per numbered step:

1. Turn to Face (N23 CC 1)          5. Make Hit Roll(s) (N23 CC 5)
2. Choose Weapons (N23 CC 2)        6. Resolve Hits (N23 CC 6, N23 Resolve Hits)
3. Determine Attack Dice (N23 CC 3) 7. Reaction Attacks (N23 CC 7)
4. Declare Targets (N23 CC 4)       8. Consolidate or Coup de Grace (N23 CC 8)

The procedure is parametrized by an :class:`Edition`, so the older rules
(``necromunda-legacy``, see ``legacy.py``) reuse every step and differ only where the books
differ. Rule references are ``f"{edition.code} CC <n>"``.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

from blowbyblow.domain.common.wound_charts import wound_target_by_ratio
from blowbyblow.domain.core import (
    Context,
    Event,
    Modifier,
    Procedure,
    RuleViolation,
    Ruling,
    Step,
    ask,
    emit,
    roll,
)
from blowbyblow.domain.necromunda.commands import (
    Allocation,
    Charge,
    CoupDeGraceAction,
    Fight,
)
from blowbyblow.domain.necromunda.events import (
    AmmoChecked,
    AssistClaimed,
    AttackDiceAllocated,
    BrokenChanged,
    Charged,
    Consolidated,
    CoupDeGrace,
    DamageInflicted,
    DiceGroup,
    EngagementEnded,
    EngagementFormed,
    FightDeclared,
    FleshWoundSuffered,
    HitDiscarded,
    HitRolled,
    InjuryRolled,
    InterferenceApplied,
    LocationRolled,
    NerveTested,
    NerveTestSkipped,
    ReactionAttacksBegun,
    ReactionForgone,
    SaveRolled,
    StatusChanged,
    Step8Forgone,
    TargetsDeclared,
    TurnedToFace,
    VisionChanged,
    WeaponDice,
    WeaponsChosen,
    WoundRolled,
)
from blowbyblow.domain.necromunda.model import (
    MOBILE,
    OUT_OF_ACTION,
    PRONE_PINNED,
    SERIOUSLY_INJURED,
    STANDING,
    STANDING_ENGAGED,
    UNARMED,
    WRECKED,
    FighterState,
    Link,
    NecromundaState,
    WeaponState,
    engaged_with,
    secondary_statuses,
    wide,
)

Fold = Callable[[NecromundaState, Event], NecromundaState]

FLESH_WOUND = "Flesh Wound"
SERIOUS_INJURY = "Serious Injury"
OUT_OF_ACTION_RESULT = "Out of Action"
_INJURY_LETTERS = {"F": FLESH_WOUND, "S": SERIOUS_INJURY, "O": OUT_OF_ACTION_RESULT}
_LOCATION_LETTERS = {"B": "Body", "D": "Drive", "E": "Engine"}

# --- rulings (shared by both Necromunda rulesets; each names its own defaults) ----------------

R_COUP_DE_GRACE = "coup-de-grace-effect"
R_INJURY_FACES = "injury-dice-faces"
R_EXTRA_SI = "extra-serious-injury"
R_CHARGED_PRONE = "charged-prone-reaction"
R_LOCATION_FACES = "vehicle-location-faces"
R_VEHICLE_INTERFERENCE = "vehicle-target-interference"
R_VEHICLE_DAMAGE = "vehicle-damage"
R_STEP8_DEFAULT = "step8-default"
R_NERVE = "nerve-tests"
R_REACTION_TARGET = "reaction-target"
R_NERVE_AFTER_CDG = "nerve-after-coup-de-grace"
R_FIREPOWER_FACE = "firepower-ammo-face"


def coup_de_grace_ruling(default: str, source: str) -> Ruling:
    return Ruling(
        name=R_COUP_DE_GRACE,
        default=default,
        choices=("out-of-action", "injury-dice"),
        summary=(
            "What a Coup de Grace does. out-of-action: the Seriously Injured target goes Out of "
            "Action at once (the N17 wording). injury-dice: the target takes a hit from the "
            "fighter's weapon (the first chosen in the fight, else unarmed) with no hit, wound "
            "or save roll; roll as many Injury dice as its Damage (at least one)."
        ),
        rule=source,
    )


def injury_faces_ruling(source: str) -> Ruling:
    return Ruling(
        name=R_INJURY_FACES,
        default="FFSSSO",
        choices=("FFSSSO", "FSSSSO", "FFFSSO"),
        summary=(
            "Injury dice faces 1 to 6: F = Flesh Wound, S = Serious Injury, O = Out of Action. "
            "Default 1-2 Flesh Wound, 3-5 Serious Injury, 6 Out of Action (FACTS 2.2: 2/3/1 faces)."
        ),
        rule=source,
    )


def extra_si_ruling(default: str, source: str) -> Ruling:
    return Ruling(
        name=R_EXTRA_SI,
        default=default,
        choices=("flesh-wound", "no-effect"),
        summary=(
            "A second Serious Injury result from one hit, or any Serious Injury on a fighter "
            "already Seriously Injured: a Flesh Wound instead (N23), or no further effect."
        ),
        rule=source,
    )


def location_faces_ruling() -> Ruling:
    return Ruling(
        name=R_LOCATION_FACES,
        default="BBBDDE",
        choices=("BBBDDE", "BBDDEE"),
        summary=(
            "Vehicle Location dice faces 1 to 6: B = Body, D = Drive, E = Engine. The face split "
            "is not confirmed by any source we hold (unconfirmed); the location is recorded but "
            "only Hull Points are modelled."
        ),
        rule="FACTS.md has no Location dice entry [U]",
    )


def vehicle_damage_ruling() -> Ruling:
    return Ruling(
        name=R_VEHICLE_DAMAGE,
        default="wrecked-at-0",
        choices=("wrecked-at-0",),
        summary=(
            "Minimal vehicle model: each point of Damage removes a Hull Point; a vehicle with no "
            "Hull Points left is Wrecked. Vehicle Damage dice and location effects are not modelled."
        ),
        rule="not in the close-combat seed; a modelling limit",
    )


def step8_default_ruling() -> Ruling:
    return Ruling(
        name=R_STEP8_DEFAULT,
        default="coup-de-grace",
        choices=("coup-de-grace", "consolidate", "none"),
        summary=(
            "What step 8 does when the player is not asked (scripted or recorded battles with no "
            "answer): this option if it is allowed, else nothing. The player is always asked "
            "when a prompt is available."
        ),
        rule="a default for an unanswered player choice, not a rule",
    )


def nerve_ruling(default: str, source: str) -> Ruling:
    return Ruling(
        name=R_NERVE,
        default=default,
        choices=("off", "on"),
        summary=(
            "on: when a fighter becomes Seriously Injured or goes Out of Action in close combat, "
            'each friend listed within 3" of it that is Standing and not Broken takes a Nerve test '
            '(2D6 + 1 per other such friend within 3", pass on its Cool); failing makes it Broken. '
            "Running for Cover is not modelled (no table geometry)."
        ),
        rule=source,
    )


# --- the edition object: where the 2023 book and the older one differ ------------------------


@dataclass(frozen=True)
class Edition:
    code: str  # rule reference prefix: "N23" or "N17"
    title: str
    # assists / interference: who else may the helper / interferer not be engaged with?
    #   "target-gang": fighters from the same gang as the target (N23 p122)
    #   "any-enemy": any other enemy fighter (older rules)
    exclusion: str
    barricade_modifier: int  # attacking through a barricade (N17: -1; N23: none)
    vehicle_modifier: int  # attacking a vehicle: +1 in both
    out_of_sight_penalty: bool  # -1 to the free Fight after charging out of LoS (N23 only)
    charged_prone_turn: bool  # a charged Prone & Pinned fighter counts as turned to face (N23)
    step8: str  # "n23" | "legacy"
    pistol_firepower: bool  # Sidearms roll a Firepower dice for ammo in close combat (older)
    modifier_table: str | None  # the section citing every hit modifier (N17: the CC 5 table)
    reaction_target_ruling: str | None  # ruling name for "Reaction attacks must target attacker"
    vehicle_interference_ruling: str | None  # N23: a ruling; legacy: never applies
    nerve_after_cdg_ruling: str | None  # ruling name for the YAQ note, None = always test

    def rule(self, section: str) -> str:
        return f"{self.code} {section}"

    def mod_rule(self, section: str) -> str:
        """Where a hit modifier is granted: its own section, or the edition's modifier table."""
        return self.rule(self.modifier_table or section)


N23 = Edition(
    code="N23",
    title="Necromunda (2023 Core Rulebook)",
    exclusion="target-gang",
    barricade_modifier=0,
    vehicle_modifier=1,
    out_of_sight_penalty=True,
    charged_prone_turn=True,
    step8="n23",
    pistol_firepower=False,
    modifier_table=None,
    reaction_target_ruling=None,
    vehicle_interference_ruling=R_VEHICLE_INTERFERENCE,
    nerve_after_cdg_ruling=None,
)


def n23_rulings() -> tuple[Ruling, ...]:
    return (
        coup_de_grace_ruling(
            "out-of-action",
            "FACTS 2.5: what an N23 Coup de Grace does is unconfirmed [U]; N17 (N7): Out of Action",
        ),
        injury_faces_ruling("FACTS 2.2 (N4 dice faces, N6: 1-2/3-5/6)"),
        extra_si_ruling("flesh-wound", "FACTS 2.2 (N3): extra Serious Injury adds a Flesh Wound"),
        Ruling(
            name=R_CHARGED_PRONE,
            default="counts-as-turned",
            choices=("counts-as-turned", "faces-only"),
            summary=(
                "A Prone & Pinned fighter that is charged becomes Standing & Engaged and 'counts "
                "as having turned to face' for its Reaction attacks. counts-as-turned: the charger "
                "is in its vision arc and its Reaction attacks take the -1 of turning to face. "
                "faces-only: the charger is in its arc, with no -1."
            ),
            rule="N23 CC (box: Charging Prone or Out of Line of Sight Fighters); FACTS 2.3",
        ),
        Ruling(
            name=R_VEHICLE_INTERFERENCE,
            default="applies",
            choices=("applies", "none"),
            summary=(
                "A fighter attacking a vehicle loses assists (N23 CC Attacking Vehicles). Whether "
                "enemy fighters engaging it still interfere is not said: applies (default) or "
                "none. A vehicle itself never interferes, being never engaged."
            ),
            rule="N23 CC Attacking Vehicles (silent on interference)",
        ),
        location_faces_ruling(),
        vehicle_damage_ruling(),
        step8_default_ruling(),
        nerve_ruling("on", "FACTS 2.5 (N3, N8 p128) [C]; outside the close-combat seed"),
    )


# --- small helpers --------------------------------------------------------------------------


class Profile:
    """A weapon as used in one attack: a weapon of the fighter, or unarmed."""

    def __init__(self, fighter: FighterState, weapon: WeaponState | None) -> None:
        self.weapon = weapon
        self.id = weapon.id if weapon is not None else UNARMED
        self.label = (weapon.name or weapon.id) if weapon is not None else UNARMED
        if weapon is None:
            self.strength = fighter.s  # unmodified Strength
            self.ap = 0
            self.damage = 1
            self.traits: tuple[str, ...] = ()
        else:
            self.strength = weapon.s if weapon.s is not None else fighter.s + weapon.s_bonus
            self.ap = weapon.ap
            self.damage = weapon.d
            self.traits = weapon.traits

    @property
    def sidearm(self) -> bool:
        return "Sidearm" in self.traits

    @property
    def versatile_tenths(self) -> int:
        if self.weapon is None or "Versatile" not in self.traits:
            return 0
        return self.weapon.versatile_tenths


def profile(fighter: FighterState, weapon_id: str) -> Profile:
    if weapon_id == UNARMED:
        return Profile(fighter, None)
    w = fighter.weapon(weapon_id)
    if w is None:
        raise KeyError(weapon_id)
    return Profile(fighter, w)


def wound_target(strength: int, toughness: int) -> int:
    """N23 Resolve Hits (wound chart): S at least twice T 2+, S > T 3+, S = T 4+, S < T 5+,
    S at most half T 6+."""
    return wound_target_by_ratio(strength, toughness)


def injury_dice_count(wounds: int, damage: int) -> int:
    """N23 Resolve Hits 3: one Injury dice for the point of Damage that takes the fighter to 0
    Wounds, one more for each further point. Damage "-" (0) removes no wound, rolls one dice."""
    if damage == 0:
        return 1
    if wounds > damage:
        return 0
    if wounds <= 0:
        return damage
    return damage - wounds + 1


def split_attack_dice(
    weapons: Sequence[Profile], total: int, odd_die: str | None
) -> list[tuple[str, int]]:
    """N23 CC 3: split as evenly as possible; a Sidearm takes at most one die, the rest go to
    the Melee weapon, or to unarmed attacks if there is none. ``odd_die`` names the weapon that
    takes an odd die between two weapons that could both take it."""
    if not weapons:
        return [(UNARMED, total)]
    if len(weapons) == 1:
        w = weapons[0]
        if w.sidearm:
            side = min(1, total)
            out = [(w.id, side)]
            if total - side:
                out.append((UNARMED, total - side))
            return out
        return [(w.id, total)]
    a, b = weapons
    if a.sidearm and b.sidearm:
        first = min(1, total)
        second = min(1, total - first)
        out = [(a.id, first), (b.id, second)]
        if total - first - second:
            out.append((UNARMED, total - first - second))
        return out
    if a.sidearm or b.sidearm:
        pistol = a if a.sidearm else b
        s_dice = min(1, total)
        return [(w.id, s_dice if w is pistol else total - s_dice) for w in (a, b)]
    half, odd = divmod(total, 2)
    extra = odd_die if odd else None
    return [(w.id, half + (1 if w.id == extra else 0)) for w in (a, b)]


def needs_odd_choice(weapons: Sequence[Profile], total: int) -> bool:
    return len(weapons) == 2 and not any(w.sidearm for w in weapons) and total % 2 == 1


# --- planning (validation before anything is yielded) ----------------------------------------


@dataclass(frozen=True)
class FightPlan:
    attacker: str
    weapons: tuple[Profile, ...]
    total: int
    modifiers: tuple[Modifier, ...]
    arc: tuple[str, ...] | None  # the arc after turning to face, if the fighter turns
    targets: tuple[str, ...]
    allocation: tuple[Allocation, ...]  # empty: all dice to targets[0] after the split
    odd_die: str | None  # known before asking (from the command or the allocation)
    charging: bool
    out_of_sight: tuple[str, ...]
    kind: str


def _arc_with(state: NecromundaState, fighter: str, more: Sequence[str]) -> tuple[str, ...]:
    """The fighter's vision arc once it faces ``more`` as well (in order, without repeats)."""
    return tuple(dict.fromkeys((*state.vision.get(fighter, ()), *more)))


def _fighter(state: NecromundaState, fid: str, rule: str, role: str) -> FighterState:
    f = state.fighters.get(fid)
    if f is None:
        raise RuleViolation(rule, f"unknown {role} {fid!r}")
    return f


def _reaches_across(state: NecromundaState, link: Link, weapon: Profile) -> bool:
    """N23 CC Fighting Across Barricades: a Versatile weapon reaches across a barricade no wider
    than its Long range."""
    return weapon.versatile_tenths >= state.barricades.get(link.across or "", 0)


def eligible_targets(
    state: NecromundaState, attacker: str, arc: Sequence[str], weapons: Sequence[Profile] | None
) -> list[str]:
    """N23 CC 4: enemy models within the attacker's vision arc that it is Engaging: Standing
    fighters in base contact or across a barricade under 1" wide; across a wider barricade only
    with Versatile weapons reaching across; a vehicle the fighter is within 1" of."""
    me = state.fighters[attacker]
    out: list[str] = []
    for link in state.links:
        if not link.touches(attacker):
            continue
        other = state.fighters[link.other(attacker)]
        if other.gang == me.gang or other.id not in arc:
            continue
        if other.is_vehicle:
            if other.status != WRECKED:
                out.append(other.id)
            continue
        if not other.standing:
            continue
        if wide(state, link) and not (
            weapons and all(_reaches_across(state, link, w) for w in weapons)
        ):
            continue
        out.append(other.id)
    return out


def choose_weapons(
    state: NecromundaState, fighter: FighterState, weapon_ids: Sequence[str], ed: Edition
) -> tuple[Profile, ...]:
    """N23 CC 2: up to two Melee or Sidearm weapons, only one if it is Unwieldy; none means
    unarmed attacks (unmodified Strength, no AP, Damage 1)."""
    rule = ed.rule("CC 2")
    if len(weapon_ids) > 2:
        raise RuleViolation(rule, "a fighter can use at most two weapons in close combat")
    if len(set(weapon_ids)) != len(weapon_ids):
        raise RuleViolation(rule, "the same weapon is chosen twice")
    chosen: list[Profile] = []
    for wid in weapon_ids:
        if wid == UNARMED:
            raise RuleViolation(rule, "choose no weapons to make unarmed attacks")
        w = fighter.weapon(wid)
        if w is None:
            raise RuleViolation(rule, f"{fighter.id} has no weapon {wid!r}")
        if not (w.has("Melee") or w.has("Sidearm")):
            raise RuleViolation(rule, f"{wid} has neither the Melee nor the Sidearm trait")
        if w.out_of_ammo:
            raise RuleViolation(rule, f"{wid} is out of ammo")
        chosen.append(Profile(fighter, w))
    if len(chosen) == 2 and any("Unwieldy" in w.traits for w in chosen):
        raise RuleViolation(rule, "an Unwieldy weapon can only be used on its own")
    return tuple(chosen)


def attack_dice(
    fighter: FighterState, weapons: Sequence[Profile], charging: bool, ed: Edition
) -> tuple[int, tuple[Modifier, ...]]:
    """N23 CC 3: Attacks, +1 for dual Melee/Sidearm weapons, +1 when charging."""
    rule = ed.rule("CC 3")
    mods: list[Modifier] = []
    if len(weapons) == 2:
        mods.append(Modifier(value=1, cause="dual weapons", rule=rule))
    if charging:
        mods.append(Modifier(value=1, cause="charging", rule=rule))
    return fighter.a + sum(m.value for m in mods), tuple(mods)


def plan_fight(
    state: NecromundaState,
    ed: Edition,
    *,
    attacker: str,
    weapon_ids: Sequence[str],
    targets: Sequence[str],
    allocation: Sequence[Allocation],
    turn_to_face: Sequence[str] | None,
    odd_die: str | None,
    charging: bool,
    out_of_sight: Sequence[str],
    kind: str,
) -> FightPlan:
    rule = ed.rule("CC")
    me = _fighter(state, attacker, rule, "attacker")
    if me.is_vehicle:
        raise RuleViolation(ed.rule("CC 7"), "vehicles do not make close combat attacks here")
    if not me.standing:
        raise RuleViolation(rule, f"{attacker} is {me.status}; only a Standing fighter can fight")
    if me.broken:
        raise RuleViolation(
            ed.rule("Broken"), f"{attacker} is Broken and must Run for Cover, not Fight"
        )
    if turn_to_face is not None:
        for fid in turn_to_face:
            _fighter(state, fid, ed.rule("CC 1"), "model in the vision arc")
    arc = tuple(turn_to_face) if turn_to_face is not None else state.vision.get(attacker, ())
    weapons = choose_weapons(state, me, weapon_ids, ed)
    total, mods = attack_dice(me, weapons, charging, ed)
    if total < 1:
        raise RuleViolation(ed.rule("CC 3"), f"{attacker} has no Attack dice")
    eligible = eligible_targets(state, attacker, arc, weapons)
    t_rule = ed.rule("CC 4")
    if not eligible:
        why = [
            f"{o} ({state.fighters[o].status}"
            + ("" if o in arc else ", outside its vision arc")
            + ")"
            for o in state.linked(attacker)
        ]
        raise RuleViolation(
            t_rule,
            f"{attacker} has no eligible target (an enemy it is Engaging, inside its vision arc)"
            + (f"; in contact: {', '.join(why)}" if why else "; it is in contact with no enemy")
            + ("; turn to face?" if turn_to_face is None and why else ""),
        )
    ids = {w.id for w in weapons} or {UNARMED}
    if odd_die is not None and (odd_die not in ids or not needs_odd_choice(weapons, total)):
        raise RuleViolation(ed.rule("CC 3"), f"odd_die {odd_die!r}: there is no odd die to give it")
    if allocation:
        if targets:
            raise RuleViolation(t_rule, "give either targets or allocation, not both")
        merged: dict[tuple[str, str], int] = {}
        for al in allocation:  # the same weapon and target named twice: one group
            merged[(al.weapon, al.target)] = merged.get((al.weapon, al.target), 0) + al.dice
        allocation = [Allocation(weapon=w, target=t, dice=n) for (w, t), n in merged.items()]
        per_weapon: dict[str, int] = {}
        for al in allocation:
            if al.target not in eligible:
                raise RuleViolation(t_rule, f"{al.target} is not an eligible target of {attacker}")
            if al.dice < 1:
                raise RuleViolation(t_rule, "each allocation needs at least one die")
            per_weapon[al.weapon] = per_weapon.get(al.weapon, 0) + al.dice
            link = state.link(attacker, al.target)
            if link is not None and wide(state, link):
                w = profile(me, al.weapon) if al.weapon in ids else None
                if w is None or not _reaches_across(state, link, w):
                    raise RuleViolation(
                        ed.rule("CC Fighting Across Barricades"),
                        f"only a Versatile weapon reaching across {link.across} can attack "
                        f"{al.target}",
                    )
        if needs_odd_choice(weapons, total):
            bigger = [w.id for w in weapons if per_weapon.get(w.id, 0) > total // 2]
            inferred = bigger[0] if len(bigger) == 1 else None
            if odd_die is not None and inferred != odd_die:
                raise RuleViolation(ed.rule("CC 3"), "odd_die disagrees with the allocation")
            odd_die = inferred
        split = {k: v for k, v in dict(split_attack_dice(weapons, total, odd_die)).items() if v}
        if per_weapon != split:
            raise RuleViolation(
                ed.rule("CC 3"),
                f"the allocation gives {per_weapon} but the Attack dice split as "
                f"{split} (as evenly as possible; a Sidearm takes at "
                "most one die, the rest go to a Melee weapon or unarmed)",
            )
        chosen_targets: tuple[str, ...] = tuple(dict.fromkeys(al.target for al in allocation))
    else:
        if not targets:
            if len(eligible) != 1:
                raise RuleViolation(
                    t_rule, f"choose targets among {', '.join(eligible)} (or give allocation)"
                )
            targets = [eligible[0]]
        if len(targets) != 1:
            raise RuleViolation(t_rule, "split dice between several targets with allocation")
        if targets[0] not in eligible:
            raise RuleViolation(
                t_rule,
                f"{targets[0]} is not an eligible target of {attacker} "
                f"(eligible: {', '.join(eligible)})",
            )
        chosen_targets = tuple(targets)
    for fid in out_of_sight:
        _fighter(state, fid, ed.rule("Charge"), "charged target")
    return FightPlan(
        attacker=attacker,
        weapons=weapons,
        total=total,
        modifiers=mods,
        arc=tuple(turn_to_face) if turn_to_face is not None else None,
        targets=chosen_targets,
        allocation=tuple(allocation),
        odd_die=odd_die,
        charging=charging,
        out_of_sight=tuple(out_of_sight),
        kind=kind,
    )


# --- the steps -------------------------------------------------------------------------------


def step1_turn_to_face(
    state: NecromundaState, fighter: str, arc: Sequence[str], ed: Edition, *, counted: bool = False
) -> Generator[Step, Any, NecromundaState]:
    """N23 CC 1 Turn to Face: the fighter may turn to face any direction; doing so gives -1 to
    its Hit rolls, cumulative with any other modifier."""
    return (
        yield from emit(
            TurnedToFace(rule=ed.rule("CC 1"), fighter=fighter, in_arc=list(arc), counted=counted),
            NecromundaState,
        )
    )


def step2_choose_weapons(
    state: NecromundaState, fighter: str, weapons: Sequence[Profile], ed: Edition
) -> Generator[Step, Any, NecromundaState]:
    """N23 CC 2 Choose Weapons (validated by :func:`choose_weapons`)."""
    return (
        yield from emit(
            WeaponsChosen(
                rule=ed.rule("CC 2"),
                fighter=fighter,
                weapons=[w.id for w in weapons] or [UNARMED],
            ),
            NecromundaState,
        )
    )


def step3_attack_dice(
    state: NecromundaState,
    fighter: FighterState,
    weapons: Sequence[Profile],
    total: int,
    modifiers: Sequence[Modifier],
    odd_die: str | None,
    ed: Edition,
    key: str,
) -> Generator[Step, Any, tuple[NecromundaState, list[tuple[str, int]]]]:
    """N23 CC 3 Determine Attack Dice: A +1 dual weapons +1 charging; split as evenly as possible
    between two weapons, the controlling player picks the weapon for an odd die; Pistols at
    Close Quarters: a Sidearm takes one die at most, the rest go to a Melee weapon or unarmed.
    No Accuracy modifiers in close combat."""
    if needs_odd_choice(weapons, total) and odd_die is None:
        odd_die = yield from ask(
            key + "odd-die",
            tuple(w.id for w in weapons),
            default=weapons[0].id,
            prompt=f"{fighter.label}: which weapon takes the odd Attack die?",
        )
    elif not needs_odd_choice(weapons, total):
        odd_die = None
    split = [(w, n) for w, n in split_attack_dice(weapons, total, odd_die) if n > 0]
    state = yield from emit(
        AttackDiceAllocated(
            rule=ed.rule("CC 3"),
            fighter=fighter.id,
            attacks=fighter.a,
            modifiers=list(modifiers),
            total=total,
            split=[WeaponDice(weapon=w, dice=n) for w, n in split],
            odd_die=odd_die,
        ),
        NecromundaState,
    )
    return state, split


def step4_declare_targets(
    state: NecromundaState,
    fighter: str,
    split: Sequence[tuple[str, int]],
    targets: Sequence[str],
    allocation: Sequence[Allocation],
    ed: Edition,
) -> Generator[Step, Any, tuple[NecromundaState, list[DiceGroup]]]:
    """N23 CC 4 Declare Targets: eligible targets only (validated by :func:`plan_fight`); the
    dice may be split between several targets as the player wishes."""
    if allocation:
        groups = [DiceGroup(weapon=a.weapon, target=a.target, dice=a.dice) for a in allocation]
    else:
        groups = [DiceGroup(weapon=w, target=targets[0], dice=n) for w, n in split]
    state = yield from emit(
        TargetsDeclared(rule=ed.rule("CC 4"), fighter=fighter, groups=groups), NecromundaState
    )
    return state, groups


def _engaged_only_with(state: NecromundaState, fid: str, one: str, ed: Edition) -> bool:
    """Is ``fid`` engaged with no fighter but ``one``? N23 CC Assists / Interference count only
    the other fighters from ``one``'s gang; the older rules count any other enemy."""
    gang = state.fighters[one].gang
    others = [o for o in engaged_with(state, fid) if o != one]
    if ed.exclusion == "target-gang":
        others = [o for o in others if state.fighters[o].gang == gang]
    return not others


def assists(state: NecromundaState, attacker: str, target: str, ed: Edition) -> list[str]:
    """N23 CC Assists: each other friendly fighter engaged with the target and not engaged with
    any other fighter from the target's gang (older rules: with any other enemy). No assists
    against a vehicle; a vehicle never assists."""
    me = state.fighters[attacker]
    tgt = state.fighters[target]
    if tgt.is_vehicle:
        return []
    out: list[str] = []
    for fid in engaged_with(state, target):
        f = state.fighters[fid]
        if fid == attacker or f.gang != me.gang or f.is_vehicle:
            continue
        if _engaged_only_with(state, fid, target, ed):
            out.append(fid)
    return out


def interference(
    state: NecromundaState, attacker: str, target: str, ed: Edition, rulings: dict[str, str]
) -> list[str]:
    """N23 CC Interference: each enemy fighter other than the target engaged with the attacker
    and not engaged with any other fighter from the attacker's gang (older rules: any other
    enemy). A vehicle is never engaged, so never interferes."""
    tgt = state.fighters[target]
    if tgt.is_vehicle:
        if ed.vehicle_interference_ruling is None:
            return []  # older rules: "Vehicles: Interference does not apply"
        if rulings.get(ed.vehicle_interference_ruling, "applies") == "none":
            return []
    out: list[str] = []
    for fid in engaged_with(state, attacker):
        if fid == target:
            continue
        if _engaged_only_with(state, fid, attacker, ed):
            out.append(fid)
    return out


@dataclass(frozen=True)
class Hit:
    weapon: str
    target: str
    n: int  # running number of the hit in this attack sequence


def step5_hit_rolls(
    state: NecromundaState,
    attacker: str,
    groups: Sequence[DiceGroup],
    ed: Edition,
    ctx: Context,
    key: str,
    *,
    turned: str | None,
    reaction: bool,
    out_of_sight: bool,
) -> Generator[Step, Any, tuple[NecromundaState, list[Hit]]]:
    """N23 CC 5 Make Hit Roll(s): a Weapon Skill test per Attack dice, rolled separately per
    weapon and per target. Modifiers: -1 turned to face (CC 1), +1 per assist, -1 per
    interference, -1 on the free Fight after charging a fighter out of line of sight, -2 for a
    Broken fighter's Reaction attacks, +1 attacking a vehicle (older rules also: -1 through a
    barricade). A natural 1 always misses."""
    rule = ed.rule("CC 5")
    me = state.fighters[attacker]
    base: list[Modifier] = []
    if turned is not None:
        base.append(Modifier(value=-1, cause=turned, rule=ed.mod_rule("CC 1")))
    if reaction and me.broken:
        base.append(
            Modifier(value=-2, cause="Broken (Reaction attacks)", rule=ed.mod_rule("CC 1 example"))
        )
    if out_of_sight and ed.out_of_sight_penalty:
        base.append(
            Modifier(
                value=-1,
                cause="free Fight after charging out of line of sight",
                rule=ed.mod_rule("CC Charging Out of Line of Sight"),
            )
        )
    hits: list[Hit] = []
    per_target: dict[str, list[Modifier]] = {}
    for group in groups:
        if group.target not in per_target:
            mods: list[Modifier] = []
            tgt = state.fighters[group.target]
            for helper in assists(state, attacker, group.target, ed):
                state = yield from emit(
                    AssistClaimed(
                        rule=ed.rule("CC Assists"),
                        attacker=attacker,
                        target=group.target,
                        assisting=helper,
                    ),
                    NecromundaState,
                )
                mods.append(
                    Modifier(value=1, cause=f"assist by {helper}", rule=ed.mod_rule("CC Assists"))
                )
            for enemy in interference(state, attacker, group.target, ed, ctx.rulings):
                state = yield from emit(
                    InterferenceApplied(
                        rule=ed.rule("CC Interference"),
                        attacker=attacker,
                        target=group.target,
                        interfering=enemy,
                    ),
                    NecromundaState,
                )
                mods.append(
                    Modifier(
                        value=-1,
                        cause=f"interference by {enemy}",
                        rule=ed.mod_rule("CC Interference"),
                    )
                )
            if tgt.is_vehicle and ed.vehicle_modifier:
                mods.append(
                    Modifier(
                        value=ed.vehicle_modifier,
                        cause="attacking a vehicle",
                        rule=ed.mod_rule("CC Attacking Vehicles"),
                    )
                )
            link = state.link(attacker, group.target)
            if ed.barricade_modifier and link is not None and link.across is not None:
                mods.append(
                    Modifier(
                        value=ed.barricade_modifier,
                        cause=f"attacking through a barricade ({link.across})",
                        rule=ed.mod_rule("CC 5"),
                    )
                )
            per_target[group.target] = mods
        modifiers = base + per_target[group.target]
        values = yield from roll(
            f"{key}hit/{group.weapon}/{group.target}",
            group.dice,
            purpose=f"{me.label}: hit rolls with {group.weapon} against {group.target}",
        )
        if ed.pistol_firepower and group.weapon != UNARMED:
            w = me.weapon(group.weapon)
            if w is not None and w.has("Sidearm"):
                state = yield from ammo_check(state, me, w, ed, ctx, key)
        for i, natural in enumerate(values, start=1):
            total = natural + sum(m.value for m in modifiers)
            hit = natural != 1 and total >= me.ws
            note = "natural 1 always misses" if natural == 1 else ""
            state = yield from emit(
                HitRolled(
                    rule=rule,
                    attacker=attacker,
                    target=group.target,
                    weapon=group.weapon,
                    die=i,
                    natural=natural,
                    modifiers=modifiers,
                    target_number=me.ws,
                    total=total,
                    hit=hit,
                    note=note,
                ),
                NecromundaState,
            )
            if hit:
                hits.append(Hit(weapon=group.weapon, target=group.target, n=len(hits) + 1))
    return state, hits


def ammo_check(
    state: NecromundaState,
    me: FighterState,
    w: WeaponState,
    ed: Edition,
    ctx: Context,
    key: str,
) -> Generator[Step, Any, NecromundaState]:
    """Older rules, Pistols at Close Quarters: pistols used in close combat roll the Firepower
    dice to see whether they run out of ammo (the ammo symbol: an Ammo check, D6 against the
    weapon's Ammo value; a failure leaves it out of ammo)."""
    rule = ed.rule("CC Pistols at Close Quarters")
    face = int(ctx.rulings.get(R_FIREPOWER_FACE, "6"))
    (fp,) = yield from roll(
        f"{key}firepower/{w.id}", 1, purpose=f"{me.label}: Firepower dice for {w.id}"
    )
    if fp != face:
        return (
            yield from emit(
                AmmoChecked(
                    rule=rule, fighter=me.id, weapon=w.id, firepower_natural=fp, ammo_symbol=False
                ),
                NecromundaState,
            )
        )
    target = w.ammo if w.ammo is not None else 7
    (nat,) = yield from roll(f"{key}ammo/{w.id}", 1, purpose=f"{me.label}: Ammo check for {w.id}")
    out = nat < target
    return (
        yield from emit(
            AmmoChecked(
                rule=rule,
                fighter=me.id,
                weapon=w.id,
                firepower_natural=fp,
                ammo_symbol=True,
                natural=nat,
                target_number=target,
                out_of_ammo=out,
            ),
            NecromundaState,
        )
    )


def _toughness(state: NecromundaState, attacker: str, target: FighterState) -> int:
    """Toughness after flesh wounds; a vehicle's Toughness of the facing the attacker touches
    (on the vehicle: the lowest)."""
    v = target.vehicle
    if v is None:
        return target.toughness
    link = state.link(attacker, target.id)
    facing = link.facing if link is not None else "front"
    if facing == "side":
        return v.toughness_side
    if facing == "rear":
        return v.toughness_rear
    if facing == "on":
        return min(v.toughness_front, v.toughness_side, v.toughness_rear)
    return v.toughness_front


def resync_events(state: NecromundaState, cause: str, rule: str) -> list[StatusChanged]:
    """Standing fighters become Standing & Engaged or Standing & Active as the engagement graph
    and the statuses of their enemies change (FACTS 2.3)."""
    return [
        StatusChanged(
            rule=rule, fighter=fid, before=state.fighters[fid].status, after=want, cause=cause
        )
        for fid, want in secondary_statuses(state).items()
    ]


def resync_statuses(
    state: NecromundaState, cause: str, rule: str
) -> Generator[Step, Any, NecromundaState]:
    """Emit :func:`resync_events`."""
    for event in resync_events(state, cause, rule):
        state = yield from emit(event, NecromundaState)
    return state


def end_contact(
    state: NecromundaState, fighter: str, others: Sequence[str], rule: str, reason: str
) -> Generator[Step, Any, NecromundaState]:
    """The fighter leaves base contact with each of ``others``."""
    for other in others:
        state = yield from emit(
            EngagementEnded(rule=rule, a=min(fighter, other), b=max(fighter, other), reason=reason),
            NecromundaState,
        )
    return state


def set_status(
    state: NecromundaState,
    fighter: str,
    after: str,
    cause: str,
    rule: str,
    ed: Edition,
    ctx: Context,
    key: str,
    nerve: NerveLog,
) -> Generator[Step, Any, NecromundaState]:
    before = state.fighters[fighter].status
    if before == after:
        return state
    state = yield from emit(
        StatusChanged(rule=rule, fighter=fighter, before=before, after=after, cause=cause),
        NecromundaState,
    )
    if after in (OUT_OF_ACTION, WRECKED):
        state = yield from end_contact(
            state, fighter, state.linked(fighter), rule, f"{fighter} is {after}"
        )
    state = yield from resync_statuses(state, f"{fighter} is {after}", rule)
    if after in (SERIOUSLY_INJURED, OUT_OF_ACTION):
        state = yield from nerve_tests(state, fighter, after, ed, ctx, key, nerve)
    return state


def _within_3_of(state: NecromundaState, fighter: str) -> list[str]:
    """The friends listed within 3" of the fighter (Nerve tests)."""
    return [x if y == fighter else y for x, y in state.within_3 if fighter in (x, y)]


@dataclass
class NerveLog:
    """Which fighters became Seriously Injured during this activation (for the YAQ note)."""

    seriously_injured: set[str]
    coup_de_grace: str | None = None


def nerve_tests(
    state: NecromundaState,
    casualty: str,
    after: str,
    ed: Edition,
    ctx: Context,
    key: str,
    log: NerveLog,
) -> Generator[Step, Any, NecromundaState]:
    """Nerve tests (N23 p128, FACTS 2.5), a ruling (off by default): each friend within 3" of a
    fighter that became Seriously Injured or went Out of Action, Standing and not Broken, tests
    2D6 + 1 per other such friend within 3" of it against its Cool; failure: Broken."""
    if ctx.rulings.get(R_NERVE, "off") != "on":
        return state
    rule = ed.rule("Nerve")
    cause = (
        f"{casualty} {'went Out of Action' if after == OUT_OF_ACTION else 'was Seriously Injured'}"
    )
    if after == SERIOUSLY_INJURED:
        log.seriously_injured.add(casualty)
    friends = sorted(set(_within_3_of(state, casualty)) - {casualty})
    for fid in friends:
        f = state.fighters[fid]
        if f.broken or f.status not in (*STANDING, PRONE_PINNED):
            continue
        if (
            after == OUT_OF_ACTION
            and log.coup_de_grace == casualty
            and casualty in log.seriously_injured
            and ed.nerve_after_cdg_ruling is not None
            and ctx.rulings.get(ed.nerve_after_cdg_ruling, "skip") == "skip"
        ):
            state = yield from emit(
                NerveTestSkipped(
                    rule=ed.rule("CC 8 YAQ"),
                    fighter=fid,
                    cause=cause,
                    reason=(
                        "no second Nerve test: the fighter was Seriously Injured and then taken "
                        "Out of Action by a free Coup de Grace in the same activation"
                    ),
                ),
                NecromundaState,
            )
            continue
        support = [s for s in _within_3_of(state, fid) if s != casualty]
        mods = [
            Modifier(value=1, cause=f'friend {s} within 3"', rule=rule)
            for s in sorted(support)
            if not state.fighters[s].broken
            and state.fighters[s].status not in (SERIOUSLY_INJURED, OUT_OF_ACTION)
        ]
        values = yield from roll(
            f"{key}nerve/{fid}/{casualty}/{after.split()[0].lower()}",
            2,
            purpose=f"{f.label}: Nerve test",
        )
        total = sum(values) + sum(m.value for m in mods)
        passed = total >= f.cl
        state = yield from emit(
            NerveTested(
                rule=rule,
                fighter=fid,
                cause=cause,
                naturals=list(values),
                modifiers=mods,
                target_number=f.cl,
                total=total,
                passed=passed,
            ),
            NecromundaState,
        )
        if not passed:
            state = yield from emit(
                BrokenChanged(rule=rule, fighter=fid, broken=True, cause="failed Nerve test"),
                NecromundaState,
            )
    return state


def step6_resolve_hits(
    state: NecromundaState,
    attacker: str,
    hits: Sequence[Hit],
    ed: Edition,
    ctx: Context,
    key: str,
    nerve: NerveLog,
) -> Generator[Step, Any, NecromundaState]:
    """N23 CC 6 Resolve Hits: each hit is resolved as in Resolving Hits."""
    for hit in hits:
        target = state.fighters[hit.target]
        if target.status in (OUT_OF_ACTION, WRECKED):
            state = yield from emit(
                HitDiscarded(
                    rule=ed.rule("CC 6"),
                    attacker=attacker,
                    target=hit.target,
                    weapon=hit.weapon,
                    reason=f"{hit.target} is already {target.status}",
                ),
                NecromundaState,
            )
            continue
        state = yield from resolve_hit(state, attacker, hit, ed, ctx, key, nerve)
    return state


def resolve_hit(
    state: NecromundaState,
    attacker: str,
    hit: Hit,
    ed: Edition,
    ctx: Context,
    key: str,
    nerve: NerveLog,
) -> Generator[Step, Any, NecromundaState]:
    """N23 Resolve Hits: 1 Wound roll (S vs T chart), 2 one Save roll (AP modifies it, a natural
    1 fails), 3 Damage removes Wounds; Injury dice from the point that takes the fighter to 0."""
    me = state.fighters[attacker]
    target = state.fighters[hit.target]
    prof = profile(me, hit.weapon)
    r_wound = ed.rule("Resolve Hits 1")
    toughness = _toughness(state, attacker, target)
    tn = wound_target(prof.strength, toughness)
    (w_nat,) = yield from roll(
        f"{key}wound/{hit.n}", 1, purpose=f"wound roll against {target.label}"
    )
    wounded = w_nat >= tn
    state = yield from emit(
        WoundRolled(
            rule=r_wound,
            attacker=attacker,
            target=hit.target,
            weapon=hit.weapon,
            natural=w_nat,
            strength=prof.strength,
            toughness=toughness,
            target_number=tn,
            wounded=wounded,
        ),
        NecromundaState,
    )
    if not wounded:
        return state
    if target.is_vehicle:
        faces = ctx.rulings.get(R_LOCATION_FACES, "BBBDDE")
        locs = yield from roll(
            f"{key}location/{hit.n}", 2, purpose="Location dice (one extra in close combat)"
        )
        results = [_LOCATION_LETTERS[faces[v - 1]] for v in locs]
        options = tuple(dict.fromkeys(results))
        chosen = options[0]
        if len(options) > 1:
            chosen = yield from ask(
                f"{key}location-choice/{hit.n}",
                options,
                default=options[0],
                prompt=f"{me.label}: which Location result applies?",
            )
        state = yield from emit(
            LocationRolled(
                rule=ed.rule("CC Attacking Vehicles"),
                attacker=attacker,
                target=hit.target,
                naturals=list(locs),
                results=results,
                chosen=chosen,
            ),
            NecromundaState,
        )
    if target.save is not None and target.save - prof.ap <= 6:  # AP can cancel a save entirely
        r_save = ed.rule("Resolve Hits 2")
        mods = [Modifier(value=prof.ap, cause=f"AP of {prof.id}", rule=r_save)] if prof.ap else []
        (s_nat,) = yield from roll(f"{key}save/{hit.n}", 1, purpose=f"{target.label}: save roll")
        total = s_nat + prof.ap
        saved = s_nat != 1 and total >= target.save
        state = yield from emit(
            SaveRolled(
                rule=r_save,
                target=hit.target,
                natural=s_nat,
                save=target.save,
                modifiers=mods,
                target_number=target.save,
                saved=saved,
            ),
            NecromundaState,
        )
        if saved:
            return state
    r_dmg = ed.rule("Resolve Hits 3")
    target = state.fighters[hit.target]
    before = target.wounds
    after = before if prof.damage == 0 else max(0, before - prof.damage)
    dice = 0 if target.is_vehicle else injury_dice_count(before, prof.damage)
    state = yield from emit(
        DamageInflicted(
            rule=r_dmg,
            attacker=attacker,
            target=hit.target,
            weapon=hit.weapon,
            damage=prof.damage,
            wounds_before=before,
            wounds_after=after,
            injury_dice=dice,
        ),
        NecromundaState,
    )
    if target.is_vehicle:
        if after == 0:
            state = yield from set_status(
                state, hit.target, WRECKED, "no Hull Points left", r_dmg, ed, ctx, key, nerve
            )
        return state
    if dice:
        state = yield from injury_dice(
            state, hit.target, dice, ed, ctx, f"{key}injury/{hit.n}", key, nerve
        )
    return state


def injury_dice(
    state: NecromundaState,
    target: str,
    dice: int,
    ed: Edition,
    ctx: Context,
    roll_key: str,
    key: str,
    nerve: NerveLog,
) -> Generator[Step, Any, NecromundaState]:
    """N23 Resolve Hits 3, Injury dice: Flesh Wound (-1 Toughness; Out of Action at Toughness 0),
    Serious Injury (Prone & Seriously Injured; an extra one, or one on a fighter already Seriously
    Injured, is a Flesh Wound instead), Out of Action."""
    rule = ed.rule("Resolve Hits 3")
    faces = ctx.rulings.get(R_INJURY_FACES, "FFSSSO")
    values = yield from roll(roll_key, dice, purpose=f"{target}: Injury dice")
    results: list[str] = []
    for i, v in enumerate(values, start=1):
        result = _INJURY_LETTERS[faces[v - 1]]
        results.append(result)
        state = yield from emit(
            InjuryRolled(rule=rule, target=target, die=i, natural=v, result=result),
            NecromundaState,
        )
    for result in results:
        f = state.fighters[target]
        if f.status == OUT_OF_ACTION:
            break
        if result == OUT_OF_ACTION_RESULT:
            state = yield from set_status(
                state,
                target,
                OUT_OF_ACTION,
                "Injury dice: Out of Action",
                rule,
                ed,
                ctx,
                key,
                nerve,
            )
        elif result == SERIOUS_INJURY and f.status != SERIOUSLY_INJURED:
            state = yield from set_status(
                state,
                target,
                SERIOUSLY_INJURED,
                "Injury dice: Serious Injury",
                rule,
                ed,
                ctx,
                key,
                nerve,
            )
        elif result == SERIOUS_INJURY and ctx.rulings.get(R_EXTRA_SI, "flesh-wound") == "no-effect":
            continue
        else:
            reason = (
                "Injury dice: Flesh Wound"
                if result == FLESH_WOUND
                else "extra Serious Injury counts as a Flesh Wound"
            )
            state = yield from flesh_wound(state, target, reason, rule, ed, ctx, key, nerve)
    return state


def flesh_wound(
    state: NecromundaState,
    target: str,
    reason: str,
    rule: str,
    ed: Edition,
    ctx: Context,
    key: str,
    nerve: NerveLog,
) -> Generator[Step, Any, NecromundaState]:
    f = state.fighters[target]
    state = yield from emit(
        FleshWoundSuffered(
            rule=rule,
            fighter=target,
            flesh_wounds=f.flesh_wounds + 1,
            toughness=f.toughness - 1,
            reason=reason,
        ),
        NecromundaState,
    )
    if state.fighters[target].toughness <= 0:
        state = yield from set_status(
            state,
            target,
            OUT_OF_ACTION,
            "Toughness reduced to 0 by Flesh Wounds",
            rule,
            ed,
            ctx,
            key,
            nerve,
        )
    return state


def _weapon_options(fighter: FighterState) -> list[tuple[str, ...]]:
    usable = [
        w.id for w in fighter.weapons if (w.has("Melee") or w.has("Sidearm")) and not w.out_of_ammo
    ]
    options: list[tuple[str, ...]] = []
    for i, a in enumerate(usable):
        for b in usable[i + 1 :]:
            wa, wb = fighter.weapon(a), fighter.weapon(b)
            if wa is not None and wb is not None and not (wa.has("Unwieldy") or wb.has("Unwieldy")):
                options.append((a, b))
    options.extend((a,) for a in usable)
    options.append(())
    return options


def _option_name(weapons: tuple[str, ...]) -> str:
    return "+".join(weapons) if weapons else UNARMED


def step7_reaction_attacks(
    state: NecromundaState,
    attacker: str,
    ed: Edition,
    ctx: Context,
    nerve: NerveLog,
) -> Generator[Step, Any, NecromundaState]:
    """N23 CC 7 Reaction Attacks: each enemy still Standing and Engaged with the attacker may
    make Reaction attacks, following steps 1-6. Vehicles never make Reaction attacks (they are
    never engaged). A charged Prone & Pinned fighter counts as having turned to face."""
    rule = ed.rule("CC 7")
    reactors = engaged_with(state, attacker)
    if not reactors:
        return state
    state = yield from emit(
        ReactionAttacksBegun(rule=rule, attacker=attacker, reactors=reactors), NecromundaState
    )
    must_target_attacker = (
        ed.reaction_target_ruling is not None
        and ctx.rulings.get(ed.reaction_target_ruling, "") == "attacker-only"
    )
    for rid in reactors:
        key = f"react/{rid}/"
        if rid not in engaged_with(state, attacker):
            state = yield from emit(
                ReactionForgone(
                    rule=rule,
                    fighter=rid,
                    reason=f"no longer Standing and Engaged with {attacker}",
                ),
                NecromundaState,
            )
            continue
        me = state.fighters[rid]
        answer = yield from ask(
            key + "react",
            ("react", "decline"),
            default="react",
            prompt=f"{me.label}: make Reaction attacks against {attacker}?",
        )
        if answer == "decline":
            state = yield from emit(
                ReactionForgone(rule=rule, fighter=rid, reason="its player declined"),
                NecromundaState,
            )
            continue
        state = yield from emit(
            FightDeclared(
                rule=rule,
                fighter=rid,
                kind="reaction",
                engaged_with=tuple(engaged_with(state, rid)),
            ),
            NecromundaState,
        )
        turned: str | None = None  # me: as it was before FightDeclared used up its mark
        if me.counts_as_turned:
            if ctx.rulings.get(R_CHARGED_PRONE, "counts-as-turned") == "counts-as-turned":
                turned = "counts as having turned to face (charged while Prone & Pinned)"
        elif attacker not in state.vision.get(rid, ()):
            answer = yield from ask(
                key + "turn",
                ("turn-to-face", "do-not-turn"),
                default="turn-to-face",
                prompt=f"{me.label}: turn to face {attacker} (-1 to hit)?",
            )
            if answer == "turn-to-face":
                arc = _arc_with(state, rid, [attacker])
                state = yield from step1_turn_to_face(state, rid, arc, ed)
                turned = "turned to face"
        arc = state.vision.get(rid, ())
        options = _weapon_options(me)
        names = tuple(_option_name(o) for o in options)
        choice = names[0]
        if len(names) > 1:
            choice = yield from ask(
                key + "weapons",
                names,
                default=names[0],
                prompt=f"{me.label}: weapons for Reaction attacks",
            )
        weapons = choose_weapons(state, me, options[names.index(choice)], ed)
        eligible = eligible_targets(state, rid, arc, weapons)
        if must_target_attacker:
            eligible = [e for e in eligible if e == attacker]
        if not eligible:
            state = yield from emit(
                ReactionForgone(
                    rule=ed.rule("CC 4"),
                    fighter=rid,
                    reason="no eligible target in its vision arc"
                    + (
                        " (Reaction attacks must target the attacker)"
                        if must_target_attacker
                        else ""
                    ),
                ),
                NecromundaState,
            )
            continue
        target = eligible[0] if attacker not in eligible else attacker
        if len(eligible) > 1:
            target = yield from ask(
                key + "target",
                tuple(eligible),
                default=target,
                prompt=f"{me.label}: target of the Reaction attacks",
            )
        state = yield from step2_choose_weapons(state, rid, weapons, ed)
        total, mods = attack_dice(me, weapons, False, ed)
        state, split = yield from step3_attack_dice(state, me, weapons, total, mods, None, ed, key)
        state, groups = yield from step4_declare_targets(state, rid, split, [target], [], ed)
        state, hits = yield from step5_hit_rolls(
            state, rid, groups, ed, ctx, key, turned=turned, reaction=True, out_of_sight=False
        )
        state = yield from step6_resolve_hits(state, rid, hits, ed, ctx, key, nerve)
    return state


def step8_consolidate_or_coup_de_grace(
    state: NecromundaState,
    attacker: str,
    opponents: Sequence[str],
    weapon: str,
    ed: Edition,
    ctx: Context,
    nerve: NerveLog,
) -> Generator[Step, Any, NecromundaState]:
    """N23 CC 8: if every enemy the attacker was engaged with is now Prone & Seriously Injured or
    Wrecked, a free Coup de Grace (Simple) against one such fighter; or, if every one is Seriously
    Injured, Out of Action or Wrecked, move up to 2" in any direction (consolidate).
    Older rules (N17 CC 8): if the attacker is no longer Engaged (every enemy it engaged is
    Seriously Injured or Out of Action): a Coup de Grace against a Seriously Injured fighter in
    base contact, or move up to 2"."""
    rule = ed.rule("CC 8")
    me = state.fighters[attacker]
    if not me.standing:
        return (
            yield from emit(
                Step8Forgone(rule=rule, fighter=attacker, reason=f"it is {me.status}"),
                NecromundaState,
            )
        )
    statuses = [state.fighters[o].status for o in opponents]
    in_contact_si = [
        o
        for o in state.linked(attacker)
        if state.fighters[o].status == SERIOUSLY_INJURED and state.fighters[o].gang != me.gang
    ]
    if ed.step8 == "n23":
        cdg_ok = bool(opponents) and all(s in (SERIOUSLY_INJURED, WRECKED) for s in statuses)
        cons_ok = bool(opponents) and all(
            s in (SERIOUSLY_INJURED, OUT_OF_ACTION, WRECKED) for s in statuses
        )
        cdg_targets = [o for o in opponents if state.fighters[o].status == SERIOUSLY_INJURED]
        why = "not every enemy it was engaged with is Seriously Injured, Out of Action or Wrecked"
    else:
        free = not engaged_with(state, attacker)
        done = bool(opponents) and all(
            s in (SERIOUSLY_INJURED, OUT_OF_ACTION, WRECKED) for s in statuses
        )
        cons_ok = free and done
        cdg_targets = in_contact_si
        cdg_ok = cons_ok and bool(cdg_targets)
        why = "it is still Engaged"
    cdg_targets = [o for o in cdg_targets if o in in_contact_si]
    cdg_ok = cdg_ok and bool(cdg_targets)
    options = (("coup-de-grace",) if cdg_ok else ()) + (("consolidate",) if cons_ok else ())
    if not options:
        return (
            yield from emit(Step8Forgone(rule=rule, fighter=attacker, reason=why), NecromundaState)
        )
    options = (*options, "none")
    preferred = ctx.rulings.get(R_STEP8_DEFAULT, "coup-de-grace")
    default = preferred if preferred in options else "none"
    answer = yield from ask(
        "step8",
        options,
        default=default,
        prompt=f'{me.label}: free Coup de Grace, consolidate 2", or nothing?',
    )
    if answer == "none":
        return (
            yield from emit(
                Step8Forgone(rule=rule, fighter=attacker, reason="the player chose neither"),
                NecromundaState,
            )
        )
    if answer == "consolidate":
        left = [o for o in state.linked(attacker)]
        state = yield from emit(
            Consolidated(rule=rule, fighter=attacker, inches=2, left_contact_with=left),
            NecromundaState,
        )
        state = yield from end_contact(state, attacker, left, rule, "consolidated")
        return (yield from resync_statuses(state, f"{attacker} consolidated", rule))
    target = cdg_targets[0]
    if len(cdg_targets) > 1:
        target = yield from ask(
            "coup-de-grace/target",
            tuple(cdg_targets),
            default=target,
            prompt=f"{me.label}: Coup de Grace against whom?",
        )
    return (yield from coup_de_grace(state, attacker, target, weapon, ed, ctx, "", nerve, rule))


def coup_de_grace(
    state: NecromundaState,
    attacker: str,
    target: str,
    weapon: str,
    ed: Edition,
    ctx: Context,
    key: str,
    nerve: NerveLog,
    rule: str,
) -> Generator[Step, Any, NecromundaState]:
    """Coup de Grace (Simple): against a Prone & Seriously Injured enemy in contact; its effect
    is the ruling ``coup-de-grace-effect``."""
    effect = ctx.rulings.get(R_COUP_DE_GRACE, "out-of-action")
    nerve.coup_de_grace = target
    state = yield from emit(
        CoupDeGrace(rule=rule, fighter=attacker, target=target, effect=effect, weapon=weapon),
        NecromundaState,
    )
    if effect == "out-of-action":
        return (
            yield from set_status(
                state, target, OUT_OF_ACTION, "Coup de Grace", rule, ed, ctx, key, nerve
            )
        )
    prof = profile(state.fighters[attacker], weapon)
    return (
        yield from injury_dice(
            state,
            target,
            max(1, prof.damage),
            ed,
            ctx,
            f"{key}coup-de-grace/injury",
            key,
            nerve,
        )
    )


# --- the procedure ---------------------------------------------------------------------------


def fight_sequence(
    state: NecromundaState, plan: FightPlan, ed: Edition, ctx: Context, nerve: NerveLog
) -> Generator[Step, Any, NecromundaState]:
    """The close combat sequence of one Fight (Basic) action, steps 1 to 8."""
    attacker = plan.attacker
    opponents = [
        o
        for o in state.linked(attacker)
        if state.fighters[o].gang != state.fighters[attacker].gang
        and (o in engaged_with(state, attacker) or state.fighters[o].is_vehicle)
    ]
    state = yield from emit(
        FightDeclared(
            rule=ed.rule("CC"),
            fighter=attacker,
            kind=plan.kind,
            charging=plan.charging,
            engaged_with=tuple(opponents),
        ),
        NecromundaState,
    )
    turned: str | None = None
    if plan.arc is not None:
        state = yield from step1_turn_to_face(state, attacker, plan.arc, ed)
        turned = "turned to face"
    state = yield from step2_choose_weapons(state, attacker, plan.weapons, ed)
    me = state.fighters[attacker]
    state, split = yield from step3_attack_dice(
        state, me, plan.weapons, plan.total, plan.modifiers, plan.odd_die, ed, ""
    )
    state, groups = yield from step4_declare_targets(
        state, attacker, split, plan.targets, plan.allocation, ed
    )
    state, hits = yield from step5_hit_rolls(
        state,
        attacker,
        groups,
        ed,
        ctx,
        "",
        turned=turned,
        reaction=False,
        out_of_sight=bool(plan.out_of_sight),
    )
    state = yield from step6_resolve_hits(state, attacker, hits, ed, ctx, "", nerve)
    state = yield from step7_reaction_attacks(state, attacker, ed, ctx, nerve)
    weapon = plan.weapons[0].id if plan.weapons else UNARMED
    return (
        yield from step8_consolidate_or_coup_de_grace(
            state, attacker, opponents, weapon, ed, ctx, nerve
        )
    )


def charge_events(state: NecromundaState, cmd: Charge, ed: Edition, ctx: Context) -> list[Event]:
    """Charge (Double): the fighter moves into engagement with its targets (N23 CC, FACTS 2.5).
    A charged Prone & Pinned fighter becomes Standing & Engaged and counts as having turned to
    face the charger (N23 CC box). Validation happens here, before anything is yielded."""
    rule = ed.rule("Charge")
    me = _fighter(state, cmd.attacker, rule, "charger")
    if me.is_vehicle:
        raise RuleViolation(rule, "vehicles do not charge here")
    if me.status != STANDING[0]:
        raise RuleViolation(
            rule, f"{cmd.attacker} is {me.status}; a charger must be Standing & Active"
        )
    if me.broken:
        raise RuleViolation(ed.rule("Broken"), f"{cmd.attacker} is Broken and cannot charge")
    if not cmd.targets or len(set(cmd.targets)) != len(cmd.targets):
        raise RuleViolation(rule, "name each charged target once")
    for t in cmd.out_of_sight:
        if t not in cmd.targets:
            raise RuleViolation(rule, f"out_of_sight names {t}, which is not charged")
    for t in [*cmd.across, *cmd.facing]:
        if t not in cmd.targets:
            raise RuleViolation(rule, f"{t} is not among the charged targets")
    events: list[Event] = [
        Charged(
            rule=rule,
            fighter=cmd.attacker,
            targets=list(cmd.targets),
            out_of_sight=tuple(cmd.out_of_sight),
        )
    ]
    for t in cmd.targets:
        tgt = _fighter(state, t, rule, "charged target")
        if tgt.gang == me.gang:
            raise RuleViolation(rule, f"{t} is a friend")
        if tgt.status in (OUT_OF_ACTION, WRECKED, SERIOUSLY_INJURED):
            raise RuleViolation(rule, f"{t} is {tgt.status}")
        across = cmd.across.get(t)
        if across is not None and across not in state.barricades:
            raise RuleViolation(rule, f"unknown barricade {across!r}")
        facing = cmd.facing.get(t)
        if tgt.is_vehicle:
            if facing not in ("front", "side", "rear", "on"):
                raise RuleViolation(rule, f"say which facing of {t} the charger ends against")
        elif facing is not None:
            raise RuleViolation(rule, f"{t} is not a vehicle; it has no facing")
        if state.link(cmd.attacker, t) is not None:
            raise RuleViolation(rule, f"{cmd.attacker} is already in contact with {t}")
        events.append(
            EngagementFormed(
                rule=rule,
                a=min(cmd.attacker, t),
                b=max(cmd.attacker, t),
                across=across,
                facing=facing,
            )
        )
    arc = _arc_with(state, cmd.attacker, cmd.targets)
    events.append(
        VisionChanged(
            rule=rule,
            fighter=cmd.attacker,
            in_arc=list(arc),
            reason="faces the fighters it charged",
        )
    )
    for t in cmd.targets:
        tgt = state.fighters[t]
        if tgt.status == PRONE_PINNED:
            # N23: the box "Charging Prone or Out of Line of Sight Fighters". Older rules: only the
            # general status rule (a fighter is never Prone & Pinned and Engaged: N10 errata).
            stand_rule = (
                ed.rule("CC Charging Prone")
                if ed.charged_prone_turn
                else ed.rule("Charge (errata)")
            )
            events.append(
                StatusChanged(
                    rule=stand_rule,
                    fighter=t,
                    before=PRONE_PINNED,
                    after=STANDING_ENGAGED,
                    cause=f"charged by {cmd.attacker} while Prone & Pinned",
                )
            )
            if ed.charged_prone_turn:
                t_arc = _arc_with(state, t, [cmd.attacker])
                events.append(
                    TurnedToFace(
                        rule=ed.rule("CC Charging Prone"),
                        fighter=t,
                        in_arc=list(t_arc),
                        counted=True,
                    )
                )
    return events


def procedure(
    state: NecromundaState, command: Any, ctx: Context, ed: Edition, fold: Fold
) -> Procedure:
    """Run one Necromunda command. ``fold`` is the projection's ``evolve`` (used to check the
    free Fight of a charge against the state after the charge, before anything is yielded)."""
    nerve = NerveLog(seriously_injured=set())
    if isinstance(command, Fight):
        plan = plan_fight(
            state,
            ed,
            attacker=command.attacker,
            weapon_ids=command.weapons,
            targets=command.targets,
            allocation=command.allocation,
            turn_to_face=command.turn_to_face,
            odd_die=command.odd_die,
            charging=command.charging,
            out_of_sight=command.charged_out_of_sight,
            kind="free fight (charge)" if command.charging else "fight",
        )
        yield from fight_sequence(state, plan, ed, ctx, nerve)
        return
    if isinstance(command, Charge):
        events = charge_events(state, command, ed, ctx)
        after = state
        for e in events:
            after = fold(after, e)
        for status_event in resync_events(after, "", ""):
            after = fold(after, status_event)
        plan = plan_fight(
            after,
            ed,
            attacker=command.attacker,
            weapon_ids=command.weapons,
            targets=command.fight_targets or ([] if command.allocation else list(command.targets)),
            allocation=command.allocation,
            turn_to_face=command.turn_to_face,
            odd_die=command.odd_die,
            charging=True,
            out_of_sight=command.out_of_sight,
            kind="free fight (charge)",
        )
        if not command.fight_targets and not command.allocation and len(command.targets) > 1:
            raise RuleViolation(
                ed.rule("CC 4"), "charging several targets: give fight_targets or allocation"
            )
        for e in events:
            state = yield from emit(e, NecromundaState)
        state = yield from resync_statuses(state, f"{command.attacker} charged", ed.rule("Charge"))
        yield from fight_sequence(state, plan, ed, ctx, nerve)
        return
    if isinstance(command, CoupDeGraceAction):
        rule = ed.rule("Coup de Grace")
        me = _fighter(state, command.attacker, rule, "fighter")
        tgt = _fighter(state, command.target, rule, "target")
        if not me.standing or me.is_vehicle:
            raise RuleViolation(rule, f"{me.id} is {me.status}")
        if me.status != STANDING[0]:
            raise RuleViolation(
                rule, "a Coup de Grace (Simple) is an action of a Standing & Active fighter"
            )
        if tgt.gang == me.gang or tgt.status != SERIOUSLY_INJURED:
            raise RuleViolation(rule, f"{tgt.id} is not a Prone & Seriously Injured enemy")
        if state.link(me.id, tgt.id) is None:
            raise RuleViolation(rule, f'{tgt.id} is not within 1" (in contact) of {me.id}')
        weapon = command.weapon or UNARMED
        if weapon != UNARMED and me.weapon(weapon) is None:
            raise RuleViolation(rule, f"{me.id} has no weapon {weapon!r}")
        yield from coup_de_grace(state, me.id, tgt.id, weapon, ed, ctx, "", nerve, rule)
        return
    raise RuleViolation(ed.rule("CC"), f"unknown command {type(command).__name__}")


__all__ = [
    "MOBILE",
    "N23",
    "Edition",
    "procedure",
    "wound_target",
]
