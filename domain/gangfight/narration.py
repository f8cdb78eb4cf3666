"""Every Gangfight rule-step event in plain words, one sentence each, opening with the rule it
cites; ``narrate`` dispatches on the event's type."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from blowbyblow.domain.core import Event, Modifier
from blowbyblow.domain.gangfight import events as ev
from blowbyblow.domain.gangfight.cover import WITHIN


def _mods(mods: tuple[Modifier, ...]) -> str:
    return "".join(f", {m.value:+d} {m.cause} ({m.rule})" for m in mods)


def _test(t: ev.PoolTest, pool_name: str, tn_name: str) -> str:
    words = f"{t.pool} dice ({pool_name} {t.pool_base}{_mods(t.pool_modifiers)})"
    words += f" against {tn_name} {t.tn_base}{_mods(t.tn_modifiers)}: TN {t.tn}+"
    if t.dropped_forced:
        words += f"; {t.dropped_forced} dropped to bring it to 6"
    if t.dropped_chosen:
        words += f"; {t.dropped_chosen} more dropped to lower it"
    if t.sixes_only:
        words += "; it cannot be brought to 6, so only 6s succeed"
    if not t.may_drop:
        words += " (no dice may be dropped)"
    if t.dice == 0:
        return words + "; no dice left to roll: 0 successes"
    rolled = " ".join(str(v) for v in t.natural)
    words += f"; {t.dice} rolled at {t.final_tn}+: {rolled} = {t.successes} success(es)"
    if t.criticals:
        words += f", {t.criticals} Critical Success(es)"
    return words


def _turn_started(e: ev.TurnStarted) -> str:
    return f"{e.rule}: turn {e.turn} begins; every model in the fight has IV action points."


def _action_points_spent(e: ev.ActionPointsSpent) -> str:
    return f"{e.rule}: {e.fighter} spends {e.cost} AP on {e.action} ({e.before} -> {e.after})."


def _in_threat_range(e: ev.InThreatRange) -> str:
    return (
        f'{e.rule}: {e.target} is {e.inches}" from {e.attacker}, '
        f'within its threat range of {e.threat}".'
    )


def _attack_rolled(e: ev.AttackRolled) -> str:
    weapons = "+".join(e.weapons) or "bare hands"
    return (
        f"{e.rule}: {e.attacker} makes a {e.attack} attack on {e.target} "
        f"with {weapons}: {_test(e.test, 'ATT', 'DEF')}."
    )


def _wounds_inflicted(e: ev.WoundsInflicted) -> str:
    words = f"{e.rule}: {e.successes} success(es): {e.wounds} Wound(s) on {e.target}"
    if e.effect:
        words += f", {e.effect} to the attack's effect"
    return words + "."


def _armour_rolled(e: ev.ArmourRolled) -> str:
    dam = "the fall's Damage" if e.against == "fall" else f"{e.against}'s DAM"
    return (
        f"{e.rule}: {e.fighter} rolls Armour against {e.wounds} Wound(s): "
        f"{_test(e.test, 'ARM', dam)}."
    )


def _wounds_negated(e: ev.WoundsNegated) -> str:
    return (
        f"{e.rule}: {e.negated} of {e.wounds} Wound(s) negated; "
        f"{e.remaining} remain on {e.fighter}."
    )


def _wounds_applied(e: ev.WoundsApplied) -> str:
    return (
        f"{e.rule}: {e.fighter} takes {e.wounds} Wound(s) off EN {e.en} "
        f"({e.after} sustained, {e.en_left} left)."
    )


def _incapacitated(e: ev.Incapacitated) -> str:
    return (
        f"{e.rule}: {e.fighter} is Incapacitated ({e.wounds} wounds, EN "
        f"{e.en}, ruling incapacitation={e.ruling}): replaced by a token."
    )


def _killed(e: ev.Killed) -> str:
    return f"{e.rule}: {e.fighter} took {e.wounds} Wound(s) while Incapacitated and is Dead."


def _knocked_back(e: ev.KnockedBack) -> str:
    return (
        f'{e.rule}: {e.fighter} is knocked back {e.inches}" by {e.by} '
        f'({e.gap_before}" -> {e.gap_after}" apart).'
    )


def _knocked_down(e: ev.KnockedDown) -> str:
    return f"{e.rule}: {e.fighter} is knocked down: Prone (DEF 2)."


def _disengaged(e: ev.Disengaged) -> str:
    return (
        f'{e.rule}: {e.fighter} moves {e.inches}" of {e.allowed}" away from '
        f'{e.from_fighter} ({e.gap_before}" -> {e.gap_after}"), no Free Strike.'
    )


def _free_strike(e: ev.FreeStrike) -> str:
    return f"{e.rule}: {e.striker} makes a Free Strike on {e.target} ({e.reason})."


def _free_strike_declined(e: ev.FreeStrikeDeclined) -> str:
    return f"{e.rule}: {e.striker} makes no Free Strike on {e.target} ({e.reason})."


def _slammed(e: ev.Slammed) -> str:
    return (
        f"{e.rule}: {e.attacker} ({e.attacker_size}) slams {e.target} "
        f"({e.target_size}){_mods(e.modifiers)}."
    )


def _slam_treated_as_trample(e: ev.SlamTreatedAsTrample) -> str:
    return (
        f"{e.rule}: {e.target} ({e.target_size}) is smaller than "
        f"{e.attacker} ({e.attacker_size}): the Slam! is a Trample instead."
    )


def _trampled(e: ev.Trampled) -> str:
    return (
        f"{e.rule}: {e.attacker} tramples {', '.join(e.targets)}: TN lowered "
        f"by {e.level} at {e.dropped} dice; {e.pool} dice against each."
    )


def _falling_damage(e: ev.FallingDamage) -> str:
    return (
        f'{e.rule}: {e.fighter} ({e.size}, {e.height_half_inches / 2:g}" '
        f'tall) falls {e.inches}": {e.hits} Damage {e.damage} hit(s).'
    )


def _stood_up(e: ev.StoodUp) -> str:
    return f"{e.rule}: {e.fighter} stands up."


def _moved(e: ev.Moved) -> str:
    gaps = ", ".join(f'{g.a}-{g.b} {g.inches}"' for g in e.gaps) or "no gaps changed"
    return f'{e.rule}: {e.fighter} moves {e.inches}" ({gaps}).'


def _disengaged_to(e: ev.DisengagedTo) -> str:
    if not e.moved:
        return (
            f'{e.rule}: {e.fighter} has {e.allowed}" to move but needs {e.needed}" to get where '
            "it meant to: it stays where it is."
        )
    gaps = ", ".join(f'{g.a}-{g.b} {g.inches}"' for g in e.gaps)
    return (
        f'{e.rule}: {e.fighter} moves {e.needed}" of {e.allowed}" ({gaps}), no Free Strike '
        f"from {e.from_fighter}."
    )


def _target_in_sight(e: ev.TargetInSight) -> str:
    return (
        f"{e.rule}: {e.target} is in {e.shooter}'s Line of Sight, {e.inches}\" away "
        f'({e.weapon}, range {e.weapon_range}").'
    )


def _cover_checked(e: ev.CoverChecked) -> str:
    where = f'{e.cover} cover {e.inches}" away'
    if not e.benefit:
        why = f'more than {WITHIN}" away' if e.inches > WITHIN else "covering less than half of it"
        return f"{e.rule}: {e.fighter} has {where}, {why}: no benefit."
    return f"{e.rule}: {e.fighter} is behind {where}: +{e.defense} DEF, +{e.armour} ARM."


def _marksmanship_rolled(e: ev.MarksmanshipRolled) -> str:
    return (
        f"{e.rule}: {e.shooter} shoots at {e.target} with {e.weapon}: "
        f"{_test(e.test, 'MRK', 'DEF')}."
    )


def _weapon_reloaded(e: ev.WeaponReloaded) -> str:
    return f"{e.rule}: {e.fighter} reloads {e.weapon}."


def _area_covered(e: ev.AreaCovered) -> str:
    if not e.successes:
        return f"{e.rule}: no success: the Area of Effect hits nothing."
    shape = f'a line {e.size}" wide' if e.area == "direct" else f'a blast {e.size}" in radius'
    words = f"{e.rule}: {e.successes} success(es): {shape}; under it: {', '.join(e.caught)}"
    if e.clear:
        words += f"; clear of it: {', '.join(e.clear)}"
    return words + "."


def _dodge_rolled(e: ev.DodgeRolled) -> str:
    words = f"{e.rule}: {e.fighter} tries to dodge {e.hits} hit(s): {_test(e.test, 'IV', 'the dodge TN')}"
    if e.dodged:
        return words + ": dodged completely."
    return words + f": hit, the damage reduced by {e.reduction}."


def _charge_rolled(e: ev.ChargeRolled) -> str:
    outcome = "it gets there" if e.reached else "it falls short and moves its full distance"
    return (
        f'{e.rule}: {e.fighter} charges {e.target} ({e.distance}" away, {e.terrain} ground): '
        f'{_test(e.test, "MOV", "the ground")}; it reaches {e.reach}" (MOV {e.mov}), '
        f'needs {e.needed}": {outcome}.'
    )


NARRATORS: dict[type[Event], Callable[[Any], str]] = {
    ev.TurnStarted: _turn_started,
    ev.ActionPointsSpent: _action_points_spent,
    ev.InThreatRange: _in_threat_range,
    ev.AttackRolled: _attack_rolled,
    ev.WoundsInflicted: _wounds_inflicted,
    ev.ArmourRolled: _armour_rolled,
    ev.WoundsNegated: _wounds_negated,
    ev.WoundsApplied: _wounds_applied,
    ev.Incapacitated: _incapacitated,
    ev.Killed: _killed,
    ev.KnockedBack: _knocked_back,
    ev.KnockedDown: _knocked_down,
    ev.Disengaged: _disengaged,
    ev.FreeStrike: _free_strike,
    ev.FreeStrikeDeclined: _free_strike_declined,
    ev.Slammed: _slammed,
    ev.SlamTreatedAsTrample: _slam_treated_as_trample,
    ev.Trampled: _trampled,
    ev.FallingDamage: _falling_damage,
    ev.StoodUp: _stood_up,
    ev.Moved: _moved,
    ev.DisengagedTo: _disengaged_to,
    ev.TargetInSight: _target_in_sight,
    ev.CoverChecked: _cover_checked,
    ev.MarksmanshipRolled: _marksmanship_rolled,
    ev.WeaponReloaded: _weapon_reloaded,
    ev.AreaCovered: _area_covered,
    ev.DodgeRolled: _dodge_rolled,
    ev.ChargeRolled: _charge_rolled,
}


def narrate(event: Event) -> str | None:
    """The event in words, or None for an event this system does not define."""
    told = NARRATORS.get(type(event))
    return told(event) if told is not None else None
