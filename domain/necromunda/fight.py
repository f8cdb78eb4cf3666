"""Close Combat steps 1 to 4 (Necromunda Core Rulebook (2023), Close Combat; the older rules'
steps are the same): 1 Turn to Face, 2 Choose Weapons, 3 Determine Attack Dice, 4 Declare
Targets.

A Fight (Basic) action is checked whole before anything is rolled: each step has a pure
function that decides it and raises RuleViolation when the command asks for something the step
does not allow (``plan_fight`` runs them in the book's order), and a ``step…`` procedure that
records it.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

from blowbyblow.domain.core import Modifier, RuleViolation, Step, ask
from blowbyblow.domain.necromunda.combat import Attack, emit, note_once
from blowbyblow.domain.necromunda.commands import Allocation, Charge, Fight, GrantedAttack
from blowbyblow.domain.necromunda.editions import Edition
from blowbyblow.domain.necromunda.events import (
    AttackDiceAllocated,
    DiceGroup,
    FightKind,
    TargetsDeclared,
    TurnedToFace,
    WeaponDice,
    WeaponsChosen,
)
from blowbyblow.domain.necromunda.state import (
    UNARMED,
    WRECKED,
    FighterState,
    Link,
    NecromundaState,
    WeaponState,
    wide,
)

# --- weapons as used in an attack (step 2) ----------------------------------------------------


@dataclass(frozen=True)
class Profile:
    """A weapon as used in one attack: a weapon of the fighter, or unarmed attacks (the
    fighter's unmodified Strength, no AP, Damage 1)."""

    id: str
    strength: int
    ap: int
    damage: int
    traits: tuple[str, ...]
    versatile_tenths: int  # how far a Versatile weapon reaches across a barricade; else 0

    @property
    def sidearm(self) -> bool:
        return "Sidearm" in self.traits


def weapon_profile(fighter: FighterState, weapon: WeaponState | None) -> Profile:
    if weapon is None:
        return Profile(
            id=UNARMED, strength=fighter.s, ap=0, damage=1, traits=(), versatile_tenths=0
        )
    return Profile(
        id=weapon.id,
        strength=weapon.s if weapon.s is not None else fighter.s + weapon.s_bonus,
        ap=weapon.ap,
        damage=weapon.d,
        traits=weapon.traits,
        versatile_tenths=weapon.versatile_tenths if weapon.has("Versatile") else 0,
    )


def profile(fighter: FighterState, weapon_id: str) -> Profile:
    if weapon_id == UNARMED:
        return weapon_profile(fighter, None)
    w = fighter.weapon(weapon_id)
    if w is None:
        raise KeyError(weapon_id)
    return weapon_profile(fighter, w)


def weapon_choices(fighter: FighterState) -> list[tuple[str, ...]]:
    """Every choice step 2 allows the fighter: pairs of Melee/Sidearm weapons (neither
    Unwieldy), each such weapon alone, then unarmed (``()``); weapons out of ammo excluded."""
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


def choice_name(weapons: tuple[str, ...]) -> str:
    """A weapons choice as players name it: "knife+laspistol", or "unarmed"."""
    return "+".join(weapons) if weapons else UNARMED


# --- what a Fight asks for --------------------------------------------------------------------


@dataclass(frozen=True)
class FightOrder:
    """What a Fight (Basic) action asks for, from a ``fight`` command or a ``charge`` (its free
    Fight), or a close combat attack outside the sequence (``granted-attack``)."""

    attacker: str
    weapons: tuple[str, ...]
    targets: tuple[str, ...]
    allocation: tuple[Allocation, ...]
    turn_to_face: tuple[str, ...] | None  # the vision arc after turning, if the fighter turns
    odd_die: str | None
    charging: bool
    out_of_sight: tuple[str, ...]  # charged fighters it could not see (the free Fight's -1)
    kind: FightKind

    @classmethod
    def of_fight(cls, command: Fight) -> FightOrder:
        return cls(
            attacker=command.attacker,
            weapons=tuple(command.weapons),
            targets=tuple(command.targets),
            allocation=tuple(command.allocation),
            turn_to_face=None if command.turn_to_face is None else tuple(command.turn_to_face),
            odd_die=command.odd_die,
            charging=command.charging,
            out_of_sight=tuple(command.charged_out_of_sight),
            kind="free fight (charge)" if command.charging else "fight",
        )

    @classmethod
    def of_charge(cls, command: Charge) -> FightOrder:
        """The free Fight of a charge: at the charged targets unless told otherwise."""
        targets = command.fight_targets or (() if command.allocation else tuple(command.targets))
        return cls(
            attacker=command.attacker,
            weapons=tuple(command.weapons),
            targets=tuple(targets),
            allocation=tuple(command.allocation),
            turn_to_face=None if command.turn_to_face is None else tuple(command.turn_to_face),
            odd_die=command.odd_die,
            charging=True,
            out_of_sight=tuple(command.out_of_sight),
            kind="free fight (charge)",
        )

    @classmethod
    def of_granted(cls, command: GrantedAttack) -> FightOrder:
        """A close combat attack a skill, a gang tactic or the Mounted condition allows."""
        return cls(
            attacker=command.attacker,
            weapons=tuple(command.weapons),
            targets=tuple(command.targets),
            allocation=tuple(command.allocation),
            turn_to_face=None if command.turn_to_face is None else tuple(command.turn_to_face),
            odd_die=command.odd_die,
            charging=False,
            out_of_sight=(),
            kind="granted attack",
        )

    def arc(self, state: NecromundaState) -> tuple[str, ...]:
        """The attacker's vision arc when it attacks."""
        if self.turn_to_face is not None:
            return self.turn_to_face
        return state.vision.get(self.attacker, ())


@dataclass(frozen=True)
class AttackDice:
    """Step 3: the number of Attack dice and the modifiers to the Attacks characteristic."""

    total: int
    modifiers: tuple[Modifier, ...]


@dataclass(frozen=True)
class Targets:
    """Step 4: the targets, and the dice per weapon and target when the player splits them."""

    targets: tuple[str, ...]
    allocation: tuple[Allocation, ...]  # empty: every die at targets[0]
    odd_die: str | None  # the weapon taking the odd die, when known before asking


@dataclass(frozen=True)
class FightPlan:
    """A Fight checked against steps 1 to 4, ready to record."""

    order: FightOrder
    weapons: tuple[Profile, ...]
    dice: AttackDice
    targets: Targets


def known_fighter(state: NecromundaState, fid: str, rule: str, role: str) -> FighterState:
    f = state.fighters.get(fid)
    if f is None:
        raise RuleViolation(rule, f"unknown {role} {fid!r}")
    return f


def arc_with(state: NecromundaState, fighter: str, more: Sequence[str]) -> tuple[str, ...]:
    """The fighter's vision arc once it faces ``more`` as well (in order, without repeats)."""
    return tuple(dict.fromkeys((*state.vision.get(fighter, ()), *more)))


def plan_fight(state: NecromundaState, edition: Edition, order: FightOrder) -> FightPlan:
    """Check a Fight against steps 1 to 4, in the book's order; raise RuleViolation if the
    command asks for something the rules do not allow."""
    me = may_fight(state, edition, order.attacker)
    check_turn_to_face(state, edition, order)
    weapons = choose_weapons(edition, me, order.weapons)
    dice = attack_dice(edition, me, weapons, charging=order.charging)
    if dice.total < 1:
        raise RuleViolation(edition.rule("CC 3"), f"{order.attacker} has no Attack dice")
    targets = declare_targets(state, edition, order, weapons, dice)
    for fid in order.out_of_sight:
        known_fighter(state, fid, edition.rule("Charge"), "charged target")
    return FightPlan(order=order, weapons=weapons, dice=dice, targets=targets)


def may_fight(state: NecromundaState, edition: Edition, attacker: str) -> FighterState:
    """Only a Standing fighter that is not Broken makes close combat attacks; vehicles make none
    here."""
    rule = edition.rule("CC")
    me = known_fighter(state, attacker, rule, "attacker")
    if me.is_vehicle:
        raise RuleViolation(edition.rule("CC 7"), "vehicles do not make close combat attacks here")
    if not me.standing:
        raise RuleViolation(rule, f"{attacker} is {me.status}; only a Standing fighter can fight")
    if me.broken:
        raise RuleViolation(
            edition.rule("Broken"), f"{attacker} is Broken and must Run for Cover, not Fight"
        )
    return me


# --- step 1: Turn to Face ----------------------------------------------------------------------


def check_turn_to_face(state: NecromundaState, edition: Edition, order: FightOrder) -> None:
    """Step 1: the fighter may turn to face any direction; the command lists the models in its
    vision arc after turning."""
    for fid in order.turn_to_face or ():
        known_fighter(state, fid, edition.rule("CC 1"), "model in the vision arc")


def step1_turn_to_face(
    at: Attack, state: NecromundaState, arc: Sequence[str]
) -> Generator[Step, Any, NecromundaState]:
    """Step 1 Turn to Face: doing so gives -1 to the fighter's Hit rolls, cumulative with any
    other modifier."""
    return (
        yield from emit(TurnedToFace(rule=at.rule("CC 1"), fighter=at.attacker, in_arc=list(arc)))
    )


# --- step 2: Choose Weapons --------------------------------------------------------------------


def choose_weapons(
    edition: Edition, fighter: FighterState, weapon_ids: Sequence[str]
) -> tuple[Profile, ...]:
    """Step 2: up to two Melee or Sidearm weapons, only one if it is Unwieldy; none means
    unarmed attacks (unmodified Strength, no AP, Damage 1)."""
    rule = edition.rule("CC 2")
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
        chosen.append(weapon_profile(fighter, w))
    if len(chosen) == 2 and any("Unwieldy" in w.traits for w in chosen):
        raise RuleViolation(rule, "an Unwieldy weapon can only be used on its own")
    return tuple(chosen)


def step2_choose_weapons(
    at: Attack, state: NecromundaState, weapons: Sequence[Profile]
) -> Generator[Step, Any, NecromundaState]:
    """Step 2 Choose Weapons (checked by :func:`choose_weapons`)."""
    state = yield from emit(
        WeaponsChosen(
            rule=at.rule("CC 2"), fighter=at.attacker, weapons=[w.id for w in weapons] or [UNARMED]
        )
    )
    note_once(at.combat.chose_weapons, at.attacker)
    return state


# --- step 3: Determine Attack Dice ---------------------------------------------------------------


def attack_dice(
    edition: Edition, fighter: FighterState, weapons: Sequence[Profile], *, charging: bool
) -> AttackDice:
    """Step 3: Attacks, +1 for dual Melee/Sidearm weapons, +1 when charging."""
    rule = edition.rule("CC 3")
    mods: list[Modifier] = []
    if len(weapons) == 2:
        mods.append(Modifier(value=1, cause="dual weapons", rule=rule))
    if charging:
        mods.append(Modifier(value=1, cause="charging", rule=rule))
    return AttackDice(total=fighter.a + sum(m.value for m in mods), modifiers=tuple(mods))


def split_attack_dice(
    weapons: Sequence[Profile], total: int, odd_die: str | None
) -> list[tuple[str, int]]:
    """Step 3: split as evenly as possible; a Sidearm takes at most one die, the rest go to
    the Melee weapon, or to unarmed attacks if there is none (Pistols at Close Quarters).
    ``odd_die`` names the weapon that takes an odd die between two weapons that could both
    take it."""
    if not weapons:
        return [(UNARMED, total)]
    if len(weapons) == 1:
        return _split_one(weapons[0], total)
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


def _split_one(weapon: Profile, total: int) -> list[tuple[str, int]]:
    if not weapon.sidearm:
        return [(weapon.id, total)]
    side = min(1, total)
    out = [(weapon.id, side)]
    if total - side:
        out.append((UNARMED, total - side))
    return out


def needs_odd_choice(weapons: Sequence[Profile], total: int) -> bool:
    """Two weapons that could both take the odd die of an odd number of Attack dice."""
    return len(weapons) == 2 and not any(w.sidearm for w in weapons) and total % 2 == 1


def step3_determine_attack_dice(
    at: Attack,
    state: NecromundaState,
    weapons: Sequence[Profile],
    dice: AttackDice,
    odd_die: str | None,
) -> Generator[Step, Any, tuple[NecromundaState, list[tuple[str, int]]]]:
    """Step 3 Determine Attack Dice: the controlling player picks the weapon for an odd die
    (asked unless the command gave it). No Accuracy modifiers in close combat."""
    fighter = state.fighters[at.attacker]
    if needs_odd_choice(weapons, dice.total) and odd_die is None:
        odd_die = yield from ask(
            at.key + "odd-die",
            tuple(w.id for w in weapons),
            default=weapons[0].id,
            prompt=f"{fighter.label}: which weapon takes the odd Attack die?",
        )
    elif not needs_odd_choice(weapons, dice.total):
        odd_die = None
    split = [(w, n) for w, n in split_attack_dice(weapons, dice.total, odd_die) if n > 0]
    state = yield from emit(
        AttackDiceAllocated(
            rule=at.rule("CC 3"),
            fighter=fighter.id,
            attacks=fighter.a,
            modifiers=list(dice.modifiers),
            total=dice.total,
            split=[WeaponDice(weapon=w, dice=n) for w, n in split],
            odd_die=odd_die,
        )
    )
    return state, split


# --- step 4: Declare Targets ---------------------------------------------------------------------


def _reaches_across(state: NecromundaState, link: Link, weapon: Profile) -> bool:
    """Fighting Across Barricades: a Versatile weapon reaches across a barricade no wider than
    its Long range."""
    return weapon.versatile_tenths >= state.barricades.get(link.across or "", 0)


def eligible_targets(
    state: NecromundaState, attacker: str, arc: Sequence[str], weapons: Sequence[Profile] | None
) -> list[str]:
    """Step 4: enemy models within the attacker's vision arc that it is Engaging: Standing
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


def declare_targets(
    state: NecromundaState,
    edition: Edition,
    order: FightOrder,
    weapons: tuple[Profile, ...],
    dice: AttackDice,
) -> Targets:
    """Step 4: eligible targets only; the dice may be split between several targets as the
    player wishes (``allocation``), as long as each weapon keeps its share of step 3."""
    arc = order.arc(state)
    eligible = eligible_targets(state, order.attacker, arc, weapons)
    if not eligible:
        raise _no_eligible_target(state, edition, order, arc)
    declaring = _Declaring(state, edition, order, weapons, dice.total, tuple(eligible))
    odd_die = declaring.odd_die()
    if order.allocation:
        return declaring.allocated(odd_die)
    return declaring.single_target(odd_die)


def _no_eligible_target(
    state: NecromundaState, edition: Edition, order: FightOrder, arc: Sequence[str]
) -> RuleViolation:
    why = [
        f"{o} ({state.fighters[o].status}" + ("" if o in arc else ", outside its vision arc") + ")"
        for o in state.linked(order.attacker)
    ]
    return RuleViolation(
        edition.rule("CC 4"),
        f"{order.attacker} has no eligible target (an enemy it is Engaging, inside its vision arc)"
        + (f"; in contact: {', '.join(why)}" if why else "; it is in contact with no enemy")
        + ("; turn to face?" if order.turn_to_face is None and why else ""),
    )


@dataclass(frozen=True)
class _Declaring:
    """Step 4 being checked: the order, its weapons and Attack dice, the eligible targets."""

    state: NecromundaState
    edition: Edition
    order: FightOrder
    weapons: tuple[Profile, ...]
    total: int
    eligible: tuple[str, ...]

    def odd_die(self) -> str | None:
        """Step 3's odd die, if the command names it: only a weapon that could take it."""
        odd_die = self.order.odd_die
        ids = {w.id for w in self.weapons} or {UNARMED}
        if odd_die is not None and (
            odd_die not in ids or not needs_odd_choice(self.weapons, self.total)
        ):
            raise RuleViolation(
                self.edition.rule("CC 3"), f"odd_die {odd_die!r}: there is no odd die to give it"
            )
        return odd_die

    def single_target(self, odd_die: str | None) -> Targets:
        rule = self.edition.rule("CC 4")
        targets = self.order.targets
        if not targets:
            if len(self.eligible) != 1:
                raise RuleViolation(
                    rule, f"choose targets among {', '.join(self.eligible)} (or give allocation)"
                )
            targets = (self.eligible[0],)
        if len(targets) != 1:
            raise RuleViolation(rule, "split dice between several targets with allocation")
        if targets[0] not in self.eligible:
            raise RuleViolation(
                rule,
                f"{targets[0]} is not an eligible target of {self.order.attacker} "
                f"(eligible: {', '.join(self.eligible)})",
            )
        return Targets(targets=targets, allocation=(), odd_die=odd_die)

    def allocated(self, odd_die: str | None) -> Targets:
        if self.order.targets:
            raise RuleViolation(
                self.edition.rule("CC 4"), "give either targets or allocation, not both"
            )
        merged: dict[tuple[str, str], int] = {}
        for al in self.order.allocation:  # the same weapon and target named twice: one group
            merged[(al.weapon, al.target)] = merged.get((al.weapon, al.target), 0) + al.dice
        allocation = tuple(Allocation(weapon=w, target=t, dice=n) for (w, t), n in merged.items())
        per_weapon: dict[str, int] = {}
        for al in allocation:
            self._check_group(al)
            per_weapon[al.weapon] = per_weapon.get(al.weapon, 0) + al.dice
        odd_die = self._odd_die_of(per_weapon, odd_die)
        split = {
            k: v for k, v in dict(split_attack_dice(self.weapons, self.total, odd_die)).items() if v
        }
        if per_weapon != split:
            raise RuleViolation(
                self.edition.rule("CC 3"),
                f"the allocation gives {per_weapon} but the Attack dice split as "
                f"{split} (as evenly as possible; a Sidearm takes at "
                "most one die, the rest go to a Melee weapon or unarmed)",
            )
        targets = tuple(dict.fromkeys(al.target for al in allocation))
        return Targets(targets=targets, allocation=allocation, odd_die=odd_die)

    def _check_group(self, al: Allocation) -> None:
        rule = self.edition.rule("CC 4")
        attacker = self.order.attacker
        if al.target not in self.eligible:
            raise RuleViolation(rule, f"{al.target} is not an eligible target of {attacker}")
        if al.dice < 1:
            raise RuleViolation(rule, "each allocation needs at least one die")
        link = self.state.link(attacker, al.target)
        if link is not None and wide(self.state, link):
            ids = {w.id for w in self.weapons} or {UNARMED}
            me = self.state.fighters[attacker]
            w = profile(me, al.weapon) if al.weapon in ids else None
            if w is None or not _reaches_across(self.state, link, w):
                raise RuleViolation(
                    self.edition.rule("CC Fighting Across Barricades"),
                    f"only a Versatile weapon reaching across {link.across} can attack {al.target}",
                )

    def _odd_die_of(self, per_weapon: dict[str, int], odd_die: str | None) -> str | None:
        """With two weapons and an odd number of dice, the allocation says who takes the odd
        one; a named odd_die must agree."""
        if not needs_odd_choice(self.weapons, self.total):
            return odd_die
        bigger = [w.id for w in self.weapons if per_weapon.get(w.id, 0) > self.total // 2]
        inferred = bigger[0] if len(bigger) == 1 else None
        if odd_die is not None and inferred != odd_die:
            raise RuleViolation(self.edition.rule("CC 3"), "odd_die disagrees with the allocation")
        return inferred


def step4_declare_targets(
    at: Attack,
    state: NecromundaState,
    split: Sequence[tuple[str, int]],
    targets: Sequence[str],
    allocation: Sequence[Allocation],
) -> Generator[Step, Any, tuple[NecromundaState, list[DiceGroup]]]:
    """Step 4 Declare Targets (checked by :func:`declare_targets`): the dice groups, one per
    weapon and target."""
    if allocation:
        groups = [DiceGroup(weapon=a.weapon, target=a.target, dice=a.dice) for a in allocation]
    else:
        groups = [DiceGroup(weapon=w, target=targets[0], dice=n) for w, n in split]
    state = yield from emit(
        TargetsDeclared(rule=at.rule("CC 4"), fighter=at.attacker, groups=groups)
    )
    return state, groups
