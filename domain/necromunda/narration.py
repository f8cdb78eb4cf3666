"""Plain-words narration of every Necromunda close-combat event, each ending with its rule
reference: one small function per event type, found by the event's type."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from blowbyblow.domain.core import Event, Modifier, RuleEvent
from blowbyblow.domain.necromunda import events as ev

_FIGHT_KINDS = {
    "fight": "makes a Fight (Basic) action",
    "free fight (charge)": "makes the free Fight (Basic) action of its charge",
    "reaction": "makes Reaction attacks",
    "granted attack": "makes a close combat attack outside the normal sequence",
}


def _mods(mods: list[Modifier]) -> str:
    if not mods:
        return "no modifiers"
    return ", ".join(f"{m.value:+d} {m.cause}" for m in mods)


def _fight_declared(e: ev.FightDeclared) -> str:
    vs = f" (engaged with {', '.join(e.engaged_with)})" if e.engaged_with else ""
    return f"{e.fighter} {_FIGHT_KINDS.get(e.kind, e.kind)}{vs}"


def _charged(e: ev.Charged) -> str:
    unseen = f"; could not see {', '.join(e.out_of_sight)}" if e.out_of_sight else ""
    return f"{e.fighter} charges {', '.join(e.targets)}{unseen}"


def _engagement_formed(e: ev.EngagementFormed) -> str:
    how = f" across {e.across}" if e.across else ""
    how += f" (vehicle facing {e.facing})" if e.facing else ""
    return f"{e.a} and {e.b} are now in contact{how}"


def _engagement_ended(e: ev.EngagementEnded) -> str:
    return f"{e.a} and {e.b} are no longer in contact: {e.reason}"


def _vision_changed(e: ev.VisionChanged) -> str:
    return f"{e.fighter} {e.reason}; in its vision arc: {', '.join(e.in_arc) or 'no one'}"


def _turned_to_face(e: ev.TurnedToFace) -> str:
    if e.counted:
        return (
            f"{e.fighter} counts as having turned to face (charged while Prone & Pinned); "
            f"{e.modifier:+d} to its Reaction hit rolls"
        )
    return (
        f"{e.fighter} turns to face ({', '.join(e.in_arc)} now in its vision arc); "
        f"{e.modifier:+d} to its hit rolls"
    )


def _weapons_chosen(e: ev.WeaponsChosen) -> str:
    return f"{e.fighter} fights with {' and '.join(e.weapons)}"


def _attack_dice_allocated(e: ev.AttackDiceAllocated) -> str:
    split = ", ".join(f"{s.dice} with {s.weapon}" for s in e.split)
    odd = f"; the odd die goes to {e.odd_die}" if e.odd_die else ""
    mods = "".join(f" {m.value:+d} {m.cause}" for m in e.modifiers)
    return f"{e.fighter}: A {e.attacks}{mods} = {e.total} Attack dice: {split}{odd}"


def _targets_declared(e: ev.TargetsDeclared) -> str:
    groups = "; ".join(f"{g.dice} {g.weapon} dice at {g.target}" for g in e.groups)
    return f"{e.fighter} declares {groups}"


def _assist_claimed(e: ev.AssistClaimed) -> str:
    return f"{e.attacker} claims an assist from {e.assisting} against {e.target}: +1"


def _interference_applied(e: ev.InterferenceApplied) -> str:
    return f"{e.interfering} interferes with {e.attacker}'s attacks on {e.target}: -1"


def _hit_rolled(e: ev.HitRolled) -> str:
    verdict = "HIT" if e.hit else "miss"
    note = f" ({e.note})" if e.note else ""
    return (
        f"{e.attacker} {e.weapon} die {e.die} at {e.target}: rolled {e.natural}, "
        f"{_mods(e.modifiers)} = {e.total} against WS {e.target_number}+: {verdict}{note}"
    )


def _ammo_checked(e: ev.AmmoChecked) -> str:
    if not e.ammo_symbol:
        return f"{e.fighter} {e.weapon}: Firepower dice {e.firepower_natural}, no ammo symbol"
    return (
        f"{e.fighter} {e.weapon}: ammo symbol; Ammo check rolled {e.natural} against "
        f"{e.target_number}+: {'OUT OF AMMO' if e.out_of_ammo else 'passed'}"
    )


def _hit_discarded(e: ev.HitDiscarded) -> str:
    return f"{e.attacker}'s {e.weapon} hit on {e.target} is lost: {e.reason}"


def _wound_rolled(e: ev.WoundRolled) -> str:
    return (
        f"wound roll, {e.attacker} {e.weapon} (S {e.strength}) against {e.target} "
        f"(T {e.toughness}): needs {e.target_number}+, rolled {e.natural}: "
        f"{'WOUNDS' if e.wounded else 'no wound'}"
    )


def _location_rolled(e: ev.LocationRolled) -> str:
    return (
        f"Location dice against {e.target}: {e.naturals} = {', '.join(e.results)}; "
        f"{e.chosen} applies"
    )


def _save_rolled(e: ev.SaveRolled) -> str:
    return (
        f"{e.target} save {e.save}+: rolled {e.natural}, {_mods(e.modifiers)}: "
        f"{'SAVED' if e.saved else 'failed'}"
        f"{' (natural 1 always fails)' if e.natural == 1 else ''}"
    )


def _damage_inflicted(e: ev.DamageInflicted) -> str:
    dmg = "-" if e.damage == 0 else str(e.damage)
    dice = f"; {e.injury_dice} Injury dice" if e.injury_dice else ""
    return (
        f"{e.target} takes Damage {dmg} from {e.attacker}'s {e.weapon}: wounds "
        f"{e.wounds_before} -> {e.wounds_after}{dice}"
    )


def _injury_rolled(e: ev.InjuryRolled) -> str:
    return f"{e.target} Injury dice {e.die}: rolled {e.natural} = {e.result}"


def _flesh_wound_suffered(e: ev.FleshWoundSuffered) -> str:
    return (
        f"{e.fighter} suffers a Flesh Wound ({e.reason}): {e.flesh_wounds} flesh wound(s), "
        f"Toughness now {e.toughness}"
    )


def _status_changed(e: ev.StatusChanged) -> str:
    return f"{e.fighter}: {e.before} -> {e.after} ({e.cause})"


def _broken_changed(e: ev.BrokenChanged) -> str:
    return f"{e.fighter} is {'now Broken' if e.broken else 'no longer Broken'} ({e.cause})"


def _nerve_tested(e: ev.NerveTested) -> str:
    return (
        f"{e.fighter} Nerve test ({e.cause}): rolled {e.naturals}, {_mods(e.modifiers)} = "
        f"{e.total} against Cool {e.target_number}+: {'passed' if e.passed else 'FAILED'}"
    )


def _nerve_test_skipped(e: ev.NerveTestSkipped) -> str:
    return f"{e.fighter} takes no Nerve test ({e.cause}): {e.reason}"


def _reaction_attacks_begun(e: ev.ReactionAttacksBegun) -> str:
    return f"Reaction attacks against {e.attacker} by {', '.join(e.reactors)}"


def _reaction_forgone(e: ev.ReactionForgone) -> str:
    return f"{e.fighter} makes no Reaction attacks: {e.reason}"


def _coup_de_grace(e: ev.CoupDeGrace) -> str:
    how = "Out of Action at once" if e.effect == "out-of-action" else "Injury dice"
    return f"{e.fighter} performs a Coup de Grace on {e.target} ({how})"


def _consolidated(e: ev.Consolidated) -> str:
    left = f", leaving contact with {', '.join(e.left_contact_with)}" if e.left_contact_with else ""
    return f'{e.fighter} consolidates up to {e.inches}"{left}'


def _step8_forgone(e: ev.Step8Forgone) -> str:
    return f"{e.fighter} neither consolidates nor makes a Coup de Grace: {e.reason}"


def _attack_granted(e: ev.AttackGranted) -> str:
    what = "the Mounted condition" if e.source == "Mounted" else f"the {e.source} {e.granted_by}"
    return f"{e.fighter} may make a close combat attack outside the normal sequence: {what}"


def _vehicle_leaves_engagement(e: ev.VehicleLeavesEngagement) -> str:
    then = (
        "each may test its Initiative to make Reaction attacks against it"
        if e.attacks
        else "none may attack it"
    )
    return f"{e.vehicle} moves out of engagement range of {', '.join(e.fighters)}; {then}"


def _initiative_tested(e: ev.InitiativeTested) -> str:
    return (
        f"{e.fighter} Initiative test ({e.cause}): rolled {e.natural} against "
        f"{e.target_number}+: {'passed' if e.passed else 'failed'}"
    )


def _vehicle_damaged(e: ev.VehicleDamaged) -> str:
    dmg = "-" if e.damage == 0 else str(e.damage)
    return (
        f"{e.attacker}'s {e.weapon} damages {e.vehicle}'s {e.location} (Damage {dmg}): hull "
        f"points {e.hull_points_before} -> {e.hull_points_after}"
    )


NARRATORS: Mapping[type[Event], Callable[[Any], str]] = {
    ev.FightDeclared: _fight_declared,
    ev.Charged: _charged,
    ev.EngagementFormed: _engagement_formed,
    ev.EngagementEnded: _engagement_ended,
    ev.VisionChanged: _vision_changed,
    ev.TurnedToFace: _turned_to_face,
    ev.WeaponsChosen: _weapons_chosen,
    ev.AttackDiceAllocated: _attack_dice_allocated,
    ev.TargetsDeclared: _targets_declared,
    ev.AssistClaimed: _assist_claimed,
    ev.InterferenceApplied: _interference_applied,
    ev.HitRolled: _hit_rolled,
    ev.AmmoChecked: _ammo_checked,
    ev.HitDiscarded: _hit_discarded,
    ev.WoundRolled: _wound_rolled,
    ev.LocationRolled: _location_rolled,
    ev.SaveRolled: _save_rolled,
    ev.DamageInflicted: _damage_inflicted,
    ev.InjuryRolled: _injury_rolled,
    ev.FleshWoundSuffered: _flesh_wound_suffered,
    ev.StatusChanged: _status_changed,
    ev.BrokenChanged: _broken_changed,
    ev.NerveTested: _nerve_tested,
    ev.NerveTestSkipped: _nerve_test_skipped,
    ev.ReactionAttacksBegun: _reaction_attacks_begun,
    ev.ReactionForgone: _reaction_forgone,
    ev.CoupDeGrace: _coup_de_grace,
    ev.Consolidated: _consolidated,
    ev.Step8Forgone: _step8_forgone,
    ev.AttackGranted: _attack_granted,
    ev.VehicleLeavesEngagement: _vehicle_leaves_engagement,
    ev.InitiativeTested: _initiative_tested,
    ev.VehicleDamaged: _vehicle_damaged,
}


def narrate(event: Event) -> str | None:
    """The event in words with its rule reference, or None for an event of another kind."""
    narrator = NARRATORS.get(type(event))
    if narrator is None or not isinstance(event, RuleEvent):
        return None
    return f"{narrator(event)} [{event.rule}]"
