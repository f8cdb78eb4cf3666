"""Every ASL CC event in words, citing its A11 section: one narrator per event type."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from blowbyblow.domain.asl import events as ev
from blowbyblow.domain.core import Event, Modifier


def _mods(mods: tuple[Modifier, ...]) -> str:
    if not mods:
        return "no modifiers"
    return ", ".join(f"{m.value:+d} {m.cause}" for m in mods)


def _phase_begun(e: ev.CloseCombatPhaseBegun) -> str:
    melee = f", in Melee since Player Turn {e.melee_since}" if e.in_melee else ""
    return (
        f"CCPh of Player Turn {e.turn} (ATTACKER {e.attacker}): Close Combat in "
        f"{e.location}{melee} (A11.12)."
    )


def _paatc(e: ev.PAATCTaken) -> str:
    result = "passes" if e.passed else f"fails: pinned, stays in {e.back_to}"
    return (
        f"PAATC of {e.unit}: DR {e.original} ({_mods(e.modifiers)}) = {e.final} vs Morale "
        f"{e.morale}: {result} (A11.6)."
    )


def _withdrawal_attempted(e: ev.WithdrawalAttempted) -> str:
    forced = " (broken, must withdraw)" if e.forced else ""
    return (
        f"{e.side} {e.unit} announces Withdrawal from Melee to {e.to}{forced}; attacks on "
        f"it get {e.drm:+d} (-2, +1 x {e.standing} standing) ({e.rule})."
    )


def _withdrew(e: ev.Withdrew) -> str:
    keep = ", keeping its '?'" if e.keeps_concealment else ""
    return f"{e.unit} withdraws ({e.kind}) to {e.to}{keep} ({e.rule})."


def _ambush_status(e: ev.AmbushStatusRolled) -> str:
    parts = "; ".join(
        f"{r.side} dr {r.original} ({_mods(r.modifiers)}) = {r.final}" for r in e.rolls
    )
    result = f"{e.ambusher} Ambushes" if e.ambusher else "no Ambush"
    return f"Ambush status drs: {parts}: {result} (A11.4, {e.threshold})."


def _ambush_declared(e: ev.AmbushDeclared) -> str:
    return (
        f"AMBUSH: {e.ambusher} ({e.ambusher_final}) Ambushes {e.ambushed} "
        f"({e.ambushed_final}): -1 to its attacks, +1 to attacks on it, it resolves its "
        "attacks first (A11.4, A11.32)."
    )


def _designated(e: ev.AttackDesignated) -> str:
    what = "Capture attempt" if e.capture else "attack"
    return (
        f"{e.side} designates {what} {e.attack}: {', '.join(e.attackers)} vs "
        f"{', '.join(e.targets)} ({e.sequence}, {e.rule})."
    )


def _odds(e: ev.OddsCalculated) -> str:
    halved = f" (after halving: {'; '.join(e.halvings)})" if e.halvings else ""
    what = "CCV" if e.rule == "A11.62" else "FP"
    return (
        f"Attack {e.attack}: {e.attack_fp} FP{halved} vs {e.defense_fp} {what} -> column "
        f"{e.column}, {e.kn_color} Kill Number {e.kill_number} ({e.rule})."
    )


def _ccv(e: ev.CCVCalculated) -> str:
    return (
        f"Attack {e.attack} vs {e.vehicle}: CCV {e.base} ({_mods(e.adjustments)}) = "
        f"{e.ccv} is the Kill Number (A11.5)."
    )


def _atmm(e: ev.ATMMChecked) -> str:
    return (
        f"ATMM check of {e.unit}: dr {e.original} ({_mods(e.modifiers)}) = {e.final}: "
        f"{e.result} (C13.7)."
    )


def _cc_rolled(e: ev.CCAttackRolled) -> str:
    return (
        f"Attack {e.attack}: CC DR colored {e.colored} + white {e.white} = Original "
        f"{e.original} ({e.rule})."
    )


def _cc_resolved(e: ev.CloseCombatResolved) -> str:
    parts = "; ".join(
        f"{o.unit}: {e.original} {_mods(o.modifiers)} = {o.final_dr} -> {o.result}"
        for o in e.outcomes
    )
    return f"Attack {e.attack} at {e.column} (KN {e.kill_number}): {parts} ({e.rule})."


def _vehicle_resolved(e: ev.VehicleCCResolved) -> str:
    return (
        f"Attack {e.attack} vs {e.vehicle}: Original {e.original} ({_mods(e.modifiers)}) "
        f"= {e.final_dr} vs CCV {e.ccv}: {e.result} (A11.5)."
    )


def _partial_kill(e: ev.PartialKill) -> str:
    return (
        f"Partial Kill (Final DR = KN {e.kill_number}) in attack {e.attack}: "
        f"Casualty Reduction among {', '.join(e.eligible)} (A11.11)."
    )


def _random_selection(e: ev.RandomSelectionRolled) -> str:
    drs = ", ".join(f"{u} {d}" for u, d in zip(e.units, e.drs, strict=True))
    return f"Random Selection ({e.purpose}): {drs}: {', '.join(e.selected)} (A.9)."


def _wound(e: ev.WoundSeverityRolled) -> str:
    return (
        f"Wound Severity dr for {e.unit}: {e.original} ({_mods(e.modifiers)}) = {e.final}: "
        f"{e.result} (A17.11)."
    )


def _status_changed(e: ev.UnitStatusChanged) -> str:
    status = "broken" if e.broken else "pinned" if e.pinned else "Good Order"
    return f"{e.unit} is now {status}: {e.cause} ({e.rule})."


def _sw_lost(e: ev.SupportWeaponLost) -> str:
    return (
        f"{e.unit}'s {e.sw} is eliminated too: colored dr {e.colored_dr}, dr {e.dr} < "
        f"KN {e.kill_number} (A11.13)."
    )


def _close_defense(e: ev.CloseDefenseWeaponFired) -> str:
    effect = "attacks" if e.effective else "has no effect on"
    return (
        f"{e.vehicle} fires its sN: IFT Original DR {e.original} vs Usage {e.usage}: it "
        f"{effect} {', '.join(e.targets) or 'nobody'} with 16 FP (A11.622)."
    )


def _melee_locked(e: ev.MeleeLocked) -> str:
    held = f", held by {', '.join(e.vehicles)}" if e.vehicles else ""
    return f"{e.location} is locked in Melee: {', '.join(e.units)}{held} (A11.15)."


def _melee_continued(e: ev.MeleeContinued) -> str:
    return (
        f"The Melee in {e.location} (since Player Turn {e.since}) carries on: "
        f"{', '.join(e.units)} (A11.15)."
    )


def _advanced(e: ev.Advanced) -> str:
    into = (
        f"reinforcing the Melee in {e.to}: it must engage in CC (A11.15)"
        if e.reinforcing
        else f"into {e.to} (A4.7)"
    )
    return f"APh of Player Turn {e.turn}: {e.unit} advances from {e.came_from} {into}."


def _moved(e: ev.Moved) -> str:
    if e.kind == "unload":
        return f"{e.unit} unloads from its vehicle in {e.to} ({e.rule})."
    if e.kind == "street-fighting":
        return f"{e.unit} moves from {e.came_from} onto the vehicle in {e.to} to attack it (A11.8)."
    carrying = f" carrying {', '.join(e.carries)}" if e.carries else ""
    return f"MPh of Player Turn {e.turn}: {e.unit}{carrying} moves from {e.came_from} to {e.to} ({e.rule})."


def _reaction_fire(e: ev.ReactionFireDeclared) -> str:
    street = f" from {e.came_from}, Street Fighting" if e.came_from != e.location else ""
    return (
        f"Reaction Fire in the MPh of Player Turn {e.turn}: {', '.join(e.by)} attack "
        f"{e.vehicle} in {e.location}{street}; it has no CC attack back (A11.8)."
    )


def _melee_fired_on(e: ev.MeleeFiredOn) -> str:
    who = f"the {e.side} Sniper" if e.sniper else ", ".join(e.by)
    return (
        f"Player Turn {e.turn}: {who} fire into the Melee in {e.location}, attacking "
        f"{', '.join(e.targets) or 'nobody'} (the IFT result of each entered; {e.rule})."
    )


def _restacked(e: ev.Restacked) -> str:
    onto = f"stacked on {e.onto}" if e.onto else "on no MMC"
    return f"{e.unit} is re-arranged in {e.location}: now {onto}, and defends so (A11.14)."


def _vehicle_eliminated(e: ev.VehicleEliminated) -> str:
    return f"{e.vehicle} is eliminated{' and burns' if e.burning else ''} (A11.5)."


NARRATORS: dict[type[Event], Callable[[Any], str]] = {
    ev.CloseCombatPhaseBegun: _phase_begun,
    ev.PAATCTaken: _paatc,
    ev.DummyRemoved: lambda e: f"Dummy {e.unit} is removed before designation (A11.19).",
    ev.ConcealmentRevealed: lambda e: (
        f"Concealed {e.unit} reveals its strength: {e.name} ({e.fp} FP), keeping its '?' (A11.19)."
    ),
    ev.ConcealmentLost: lambda e: f"{e.unit} loses its concealment: {e.cause} ({e.rule}).",
    ev.WithdrawalAttempted: _withdrawal_attempted,
    ev.Withdrew: _withdrew,
    ev.CXPlaced: lambda e: (
        f"{e.unit} enters {e.location} only by placing a CX counter: it is CX ({e.rule}, A4.72)."
    ),
    ev.CXRemoved: lambda e: (
        f"Player Turn {e.turn}: the CX counter of {', '.join(e.units)} is removed ({e.rule})."
    ),
    ev.AmbushStatusRolled: _ambush_status,
    ev.AmbushDeclared: _ambush_declared,
    ev.AttackDesignated: _designated,
    ev.CaptureAttempted: lambda e: (
        f"Attack {e.attack} is a Capture attempt vs {', '.join(e.targets)} (A20.22)."
    ),
    ev.OddsCalculated: _odds,
    ev.CCVCalculated: _ccv,
    ev.ATMMChecked: _atmm,
    ev.CCAttackRolled: _cc_rolled,
    ev.CloseCombatResolved: _cc_resolved,
    ev.VehicleCCResolved: _vehicle_resolved,
    ev.UnlikelyKillRolled: lambda e: f"Unlikely Kill dr {e.dr}: {e.result} (A11.501).",
    ev.VehicleImmobilized: lambda e: f"{e.vehicle} is Immobilized (A11.5).",
    ev.VehicleEliminated: _vehicle_eliminated,
    ev.PartialKill: _partial_kill,
    ev.RandomSelectionRolled: _random_selection,
    ev.CasualtyReduced: lambda e: (
        f"{e.unit} ({e.from_name}) is Reduced to {e.to_name} ({e.cause}; {e.rule})."
    ),
    ev.WoundSeverityRolled: _wound,
    ev.UnitEliminated: lambda e: f"{e.unit} is eliminated: {e.cause} ({e.rule}).",
    ev.UnitStatusChanged: _status_changed,
    ev.SupportWeaponLost: _sw_lost,
    ev.SupportWeaponDropped: lambda e: (
        f"{e.unit}'s {e.sw} stays unpossessed in {e.location} (A11.13)."
    ),
    ev.Infiltrated: lambda e: (
        f"Infiltration on an Original {e.original}: {e.unit} withdraws to {e.to} (A11.22)."
    ),
    ev.AttackForfeited: lambda e: (
        f"Attack {e.attack} by {', '.join(e.units)} is forfeited: {e.cause} (A11.3)."
    ),
    ev.UnitCaptured: lambda e: f"{e.unit} is captured, guarded by {e.guard} (A20.22).",
    ev.CaptureVoided: lambda e: (
        f"The capture of {e.unit} does not count: its captors were wiped out (A20.221)."
    ),
    ev.PrisonerReleased: lambda e: f"Prisoner {e.unit} is released: {e.cause} ({e.rule}, ruling).",
    ev.CloseDefenseWeaponFired: _close_defense,
    ev.FailureToRout: lambda e: (
        f"Broken {e.unit} could not withdraw from Melee: eliminated for Failure to Rout (A11.16)."
    ),
    ev.MeleeLocked: _melee_locked,
    ev.MeleeContinued: _melee_continued,
    ev.MeleeEnded: lambda e: f"No Melee remains in {e.location} ({e.rule}).",
    ev.CloseCombatEnded: lambda e: f"CC in {e.location} is over for Player Turn {e.turn} (A11.12).",
    ev.Advanced: _advanced,
    ev.Moved: _moved,
    ev.MeleeFreed: lambda e: (
        f"{', '.join(e.freed) or 'Nobody'} in {e.location} no longer held in Melee: {e.cause} "
        f"({e.rule})."
    ),
    ev.Restacked: _restacked,
    ev.ReactionFireDeclared: _reaction_fire,
    ev.MeleeFiredOn: _melee_fired_on,
    ev.VehicleCaptured: lambda e: f"{e.vehicle} is captured by the {e.by}: {e.cause} ({e.rule}).",
}


def narrate(event: Event) -> str | None:
    """The event in words, or None for an event that is not one of ASL CC's."""
    narrator = NARRATORS.get(type(event))
    return narrator(event) if narrator is not None else None
