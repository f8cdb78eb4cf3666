"""Plain-words narration of Necromunda close-combat events, each with its rule reference."""

from __future__ import annotations

from blowbyblow.domain.core import Event, Modifier
from blowbyblow.domain.necromunda import events as ev


def _mods(mods: list[Modifier]) -> str:
    if not mods:
        return "no modifiers"
    return ", ".join(f"{m.value:+d} {m.cause}" for m in mods)


def narrate(event: Event) -> str | None:
    e = event
    if isinstance(e, ev.FightDeclared):
        what = {
            "fight": "makes a Fight (Basic) action",
            "free fight (charge)": "makes the free Fight (Basic) action of its charge",
            "reaction": "makes Reaction attacks",
        }.get(e.kind, e.kind)
        vs = f" (engaged with {', '.join(e.engaged_with)})" if e.engaged_with else ""
        return f"{e.fighter} {what}{vs} [{e.rule}]"
    if isinstance(e, ev.Charged):
        unseen = f"; could not see {', '.join(e.out_of_sight)}" if e.out_of_sight else ""
        return f"{e.fighter} charges {', '.join(e.targets)}{unseen} [{e.rule}]"
    if isinstance(e, ev.EngagementFormed):
        how = f" across {e.across}" if e.across else ""
        how += f" (vehicle facing {e.facing})" if e.facing else ""
        return f"{e.a} and {e.b} are now in contact{how} [{e.rule}]"
    if isinstance(e, ev.EngagementEnded):
        return f"{e.a} and {e.b} are no longer in contact: {e.reason} [{e.rule}]"
    if isinstance(e, ev.VisionChanged):
        return f"{e.fighter} {e.reason}; in its vision arc: {', '.join(e.in_arc) or 'no one'} [{e.rule}]"
    if isinstance(e, ev.TurnedToFace):
        if e.counted:
            return (
                f"{e.fighter} counts as having turned to face (charged while Prone & Pinned); "
                f"{e.modifier:+d} to its Reaction hit rolls [{e.rule}]"
            )
        return (
            f"{e.fighter} turns to face ({', '.join(e.in_arc)} now in its vision arc); "
            f"{e.modifier:+d} to its hit rolls [{e.rule}]"
        )
    if isinstance(e, ev.WeaponsChosen):
        return f"{e.fighter} fights with {' and '.join(e.weapons)} [{e.rule}]"
    if isinstance(e, ev.AttackDiceAllocated):
        split = ", ".join(f"{s.dice} with {s.weapon}" for s in e.split)
        odd = f"; the odd die goes to {e.odd_die}" if e.odd_die else ""
        mods = "".join(f" {m.value:+d} {m.cause}" for m in e.modifiers)
        return f"{e.fighter}: A {e.attacks}{mods} = {e.total} Attack dice: {split}{odd} [{e.rule}]"
    if isinstance(e, ev.TargetsDeclared):
        groups = "; ".join(f"{g.dice} {g.weapon} dice at {g.target}" for g in e.groups)
        return f"{e.fighter} declares {groups} [{e.rule}]"
    if isinstance(e, ev.AssistClaimed):
        return f"{e.attacker} claims an assist from {e.assisting} against {e.target}: +1 [{e.rule}]"
    if isinstance(e, ev.InterferenceApplied):
        return (
            f"{e.interfering} interferes with {e.attacker}'s attacks on {e.target}: -1 [{e.rule}]"
        )
    if isinstance(e, ev.HitRolled):
        verdict = "HIT" if e.hit else "miss"
        note = f" ({e.note})" if e.note else ""
        return (
            f"{e.attacker} {e.weapon} die {e.die} at {e.target}: rolled {e.natural}, "
            f"{_mods(e.modifiers)} = {e.total} against WS {e.target_number}+: {verdict}{note} "
            f"[{e.rule}]"
        )
    if isinstance(e, ev.AmmoChecked):
        if not e.ammo_symbol:
            return f"{e.fighter} {e.weapon}: Firepower dice {e.firepower_natural}, no ammo symbol [{e.rule}]"
        return (
            f"{e.fighter} {e.weapon}: ammo symbol; Ammo check rolled {e.natural} against "
            f"{e.target_number}+: {'OUT OF AMMO' if e.out_of_ammo else 'passed'} [{e.rule}]"
        )
    if isinstance(e, ev.HitDiscarded):
        return f"{e.attacker}'s {e.weapon} hit on {e.target} is lost: {e.reason} [{e.rule}]"
    if isinstance(e, ev.WoundRolled):
        return (
            f"wound roll, {e.attacker} {e.weapon} (S {e.strength}) against {e.target} "
            f"(T {e.toughness}): needs {e.target_number}+, rolled {e.natural}: "
            f"{'WOUNDS' if e.wounded else 'no wound'} [{e.rule}]"
        )
    if isinstance(e, ev.LocationRolled):
        return (
            f"Location dice against {e.target}: {e.naturals} = {', '.join(e.results)}; "
            f"{e.chosen} applies [{e.rule}]"
        )
    if isinstance(e, ev.SaveRolled):
        return (
            f"{e.target} save {e.save}+: rolled {e.natural}, {_mods(e.modifiers)}: "
            f"{'SAVED' if e.saved else 'failed'}"
            f"{' (natural 1 always fails)' if e.natural == 1 else ''} [{e.rule}]"
        )
    if isinstance(e, ev.DamageInflicted):
        dmg = "-" if e.damage == 0 else str(e.damage)
        dice = f"; {e.injury_dice} Injury dice" if e.injury_dice else ""
        return (
            f"{e.target} takes Damage {dmg} from {e.attacker}'s {e.weapon}: wounds "
            f"{e.wounds_before} -> {e.wounds_after}{dice} [{e.rule}]"
        )
    if isinstance(e, ev.InjuryRolled):
        return f"{e.target} Injury dice {e.die}: rolled {e.natural} = {e.result} [{e.rule}]"
    if isinstance(e, ev.FleshWoundSuffered):
        return (
            f"{e.fighter} suffers a Flesh Wound ({e.reason}): {e.flesh_wounds} flesh wound(s), "
            f"Toughness now {e.toughness} [{e.rule}]"
        )
    if isinstance(e, ev.StatusChanged):
        return f"{e.fighter}: {e.before} -> {e.after} ({e.cause}) [{e.rule}]"
    if isinstance(e, ev.BrokenChanged):
        return f"{e.fighter} is {'now Broken' if e.broken else 'no longer Broken'} ({e.cause}) [{e.rule}]"
    if isinstance(e, ev.NerveTested):
        return (
            f"{e.fighter} Nerve test ({e.cause}): rolled {e.naturals}, {_mods(e.modifiers)} = "
            f"{e.total} against Cool {e.target_number}+: {'passed' if e.passed else 'FAILED'} "
            f"[{e.rule}]"
        )
    if isinstance(e, ev.NerveTestSkipped):
        return f"{e.fighter} takes no Nerve test ({e.cause}): {e.reason} [{e.rule}]"
    if isinstance(e, ev.ReactionAttacksBegun):
        return f"Reaction attacks against {e.attacker} by {', '.join(e.reactors)} [{e.rule}]"
    if isinstance(e, ev.ReactionForgone):
        return f"{e.fighter} makes no Reaction attacks: {e.reason} [{e.rule}]"
    if isinstance(e, ev.CoupDeGrace):
        how = "Out of Action at once" if e.effect == "out-of-action" else "Injury dice"
        return f"{e.fighter} performs a Coup de Grace on {e.target} ({how}) [{e.rule}]"
    if isinstance(e, ev.Consolidated):
        left = (
            f", leaving contact with {', '.join(e.left_contact_with)}"
            if e.left_contact_with
            else ""
        )
        return f'{e.fighter} consolidates up to {e.inches}"{left} [{e.rule}]'
    if isinstance(e, ev.Step8Forgone):
        return f"{e.fighter} neither consolidates nor makes a Coup de Grace: {e.reason} [{e.rule}]"
    return None
