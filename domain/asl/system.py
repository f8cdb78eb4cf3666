"""Binding of ASL chapter A11 (Close Combat) to the engine."""

from __future__ import annotations

from typing import Any

from blowbyblow.domain.asl import events as ev
from blowbyblow.domain.asl.commands import COMMAND_TYPES, Attack, CloseCombat, Withdrawal
from blowbyblow.domain.asl.phase import procedure
from blowbyblow.domain.asl.projection import evolve, prisoners_of, unit_line
from blowbyblow.domain.asl.rulings import RULINGS
from blowbyblow.domain.asl.units import (
    TERRAINS,
    UNIT_KINDS,
    LocationSetup,
    Setup,
    State,
    UnitSetup,
    initial_state,
    is_smc,
)
from blowbyblow.domain.core import Event, Modifier, SetupError
from blowbyblow.domain.system import GameSystem, Rulebook, Scenario


def _mods(mods: tuple[Modifier, ...]) -> str:
    if not mods:
        return "no modifiers"
    return ", ".join(f"{m.value:+d} {m.cause}" for m in mods)


def narrate(event: Event) -> str | None:
    e: Any = event
    match event:
        case ev.CloseCombatPhaseBegun():
            melee = f", in Melee since Player Turn {e.melee_since}" if e.in_melee else ""
            return (
                f"CCPh of Player Turn {e.turn} (ATTACKER {e.attacker}): Close Combat in "
                f"{e.location}{melee} (A11.12)."
            )
        case ev.PAATCTaken():
            result = "passes" if e.passed else f"fails: pinned, stays in {e.back_to}"
            return (
                f"PAATC of {e.unit}: DR {e.original} ({_mods(e.modifiers)}) = {e.final} vs Morale "
                f"{e.morale}: {result} (A11.6)."
            )
        case ev.DummyRemoved():
            return f"Dummy {e.unit} is removed before designation (A11.19)."
        case ev.ConcealmentRevealed():
            return f"Concealed {e.unit} reveals its strength: {e.name} ({e.fp} FP), keeping its '?' (A11.19)."
        case ev.ConcealmentLost():
            return f"{e.unit} loses its concealment: {e.cause} ({e.rule})."
        case ev.WithdrawalAttempted():
            forced = " (broken, must withdraw)" if e.forced else ""
            return (
                f"{e.side} {e.unit} announces Withdrawal from Melee to {e.to}{forced}; attacks on "
                f"it get {e.drm:+d} (-2, +1 x {e.standing} standing) ({e.rule})."
            )
        case ev.Withdrew():
            keep = ", keeping its '?'" if e.keeps_concealment else ""
            return f"{e.unit} withdraws ({e.kind}) to {e.to}{keep} ({e.rule})."
        case ev.AmbushStatusRolled():
            parts = "; ".join(
                f"{r.side} dr {r.original} ({_mods(r.modifiers)}) = {r.final}" for r in e.rolls
            )
            result = f"{e.ambusher} Ambushes" if e.ambusher else "no Ambush"
            return f"Ambush status drs: {parts}: {result} (A11.4, {e.threshold})."
        case ev.AmbushDeclared():
            return (
                f"AMBUSH: {e.ambusher} ({e.ambusher_final}) Ambushes {e.ambushed} "
                f"({e.ambushed_final}): -1 to its attacks, +1 to attacks on it, it resolves its "
                "attacks first (A11.4, A11.32)."
            )
        case ev.AttackDesignated():
            what = "Capture attempt" if e.capture else "attack"
            return (
                f"{e.side} designates {what} {e.attack}: {', '.join(e.attackers)} vs "
                f"{', '.join(e.targets)} ({e.sequence}, {e.rule})."
            )
        case ev.CaptureAttempted():
            return f"Attack {e.attack} is a Capture attempt vs {', '.join(e.targets)} (A20.22)."
        case ev.OddsCalculated():
            halved = f" (after halving: {'; '.join(e.halvings)})" if e.halvings else ""
            what = "CCV" if e.rule == "A11.62" else "FP"
            return (
                f"Attack {e.attack}: {e.attack_fp} FP{halved} vs {e.defense_fp} {what} -> column "
                f"{e.column}, {e.kn_color} Kill Number {e.kill_number} ({e.rule})."
            )
        case ev.CCVCalculated():
            return (
                f"Attack {e.attack} vs {e.vehicle}: CCV {e.base} ({_mods(e.adjustments)}) = "
                f"{e.ccv} is the Kill Number (A11.5)."
            )
        case ev.ATMMChecked():
            return (
                f"ATMM check of {e.unit}: dr {e.original} ({_mods(e.modifiers)}) = {e.final}: "
                f"{e.result} (C13.7)."
            )
        case ev.CCAttackRolled():
            return (
                f"Attack {e.attack}: CC DR colored {e.colored} + white {e.white} = Original "
                f"{e.original} ({e.rule})."
            )
        case ev.CloseCombatResolved():
            parts = "; ".join(
                f"{o.unit}: {e.original} {_mods(o.modifiers)} = {o.final_dr} -> {o.result}"
                for o in e.outcomes
            )
            return f"Attack {e.attack} at {e.column} (KN {e.kill_number}): {parts} ({e.rule})."
        case ev.VehicleCCResolved():
            return (
                f"Attack {e.attack} vs {e.vehicle}: Original {e.original} ({_mods(e.modifiers)}) "
                f"= {e.final_dr} vs CCV {e.ccv}: {e.result} (A11.5)."
            )
        case ev.UnlikelyKillRolled():
            return f"Unlikely Kill dr {e.dr}: {e.result} (A11.501)."
        case ev.VehicleImmobilized():
            return f"{e.vehicle} is Immobilized (A11.5)."
        case ev.VehicleEliminated():
            return f"{e.vehicle} is eliminated{' and burns' if e.burning else ''} (A11.5)."
        case ev.PartialKill():
            return (
                f"Partial Kill (Final DR = KN {e.kill_number}) in attack {e.attack}: "
                f"Casualty Reduction among {', '.join(e.eligible)} (A11.11)."
            )
        case ev.RandomSelectionRolled():
            drs = ", ".join(f"{u} {d}" for u, d in zip(e.units, e.drs, strict=True))
            return f"Random Selection ({e.purpose}): {drs}: {', '.join(e.selected)} (A.9)."
        case ev.CasualtyReduced():
            return f"{e.unit} ({e.from_name}) is Reduced to {e.to_name} ({e.cause}; {e.rule})."
        case ev.WoundSeverityRolled():
            return (
                f"Wound Severity dr for {e.unit}: {e.original} ({_mods(e.modifiers)}) = {e.final}: "
                f"{e.result} (A17.11)."
            )
        case ev.UnitEliminated():
            return f"{e.unit} is eliminated: {e.cause} ({e.rule})."
        case ev.UnitStatusChanged():
            status = "broken" if e.broken else "pinned" if e.pinned else "Good Order"
            return f"{e.unit} is now {status}: {e.cause} ({e.rule})."
        case ev.SupportWeaponLost():
            return (
                f"{e.unit}'s {e.sw} is eliminated too: colored dr {e.colored_dr}, dr {e.dr} < "
                f"KN {e.kill_number} (A11.13)."
            )
        case ev.SupportWeaponDropped():
            return f"{e.unit}'s {e.sw} stays unpossessed in {e.location} (A11.13)."
        case ev.Infiltrated():
            return (
                f"Infiltration on an Original {e.original}: {e.unit} withdraws to {e.to} (A11.22)."
            )
        case ev.AttackForfeited():
            return f"Attack {e.attack} by {', '.join(e.units)} is forfeited: {e.cause} (A11.3)."
        case ev.UnitCaptured():
            return f"{e.unit} is captured, guarded by {e.guard} (A20.22)."
        case ev.CaptureVoided():
            return f"The capture of {e.unit} does not count: its captors were wiped out (A20.221)."
        case ev.PrisonerReleased():
            return f"Prisoner {e.unit} is released: {e.cause} ({e.rule}, ruling)."
        case ev.CloseDefenseWeaponFired():
            effect = "attacks" if e.effective else "has no effect on"
            return (
                f"{e.vehicle} fires its sN: IFT Original DR {e.original} vs Usage {e.usage}: it "
                f"{effect} {', '.join(e.targets) or 'nobody'} with 16 FP (A11.622)."
            )
        case ev.FailureToRout():
            return f"Broken {e.unit} could not withdraw from Melee: eliminated for Failure to Rout (A11.16)."
        case ev.MeleeLocked():
            held = f", held by {', '.join(e.vehicles)}" if e.vehicles else ""
            return f"{e.location} is locked in Melee: {', '.join(e.units)}{held} (A11.15)."
        case ev.MeleeContinued():
            return (
                f"The Melee in {e.location} (since Player Turn {e.since}) carries on: "
                f"{', '.join(e.units)} (A11.15)."
            )
        case ev.MeleeEnded():
            return f"No Melee remains in {e.location} (A11.15)."
        case ev.CloseCombatEnded():
            return f"CC in {e.location} is over for Player Turn {e.turn} (A11.12)."
    return None


def describe_state(state: State) -> str:
    if state.attacker is None:
        head = "ASL Close Combat - before the first CCPh"
    else:
        head = f"ASL Close Combat - Player Turn {state.turn}, ATTACKER {state.attacker}"
    lines = [head]
    for loc in state.locations.values():
        units = [u for u in state.units.values() if u.location == loc.id and u.status == "active"]
        vehicles = [v for v in state.vehicles.values() if v.location == loc.id]
        lock = state.melee.get(loc.id)
        if not units and not vehicles and lock is None:
            continue
        head = f"{loc.id} ({loc.terrain})"
        if lock is not None:
            held = ", ".join(lock.units)
            by = f"; held by {', '.join(lock.vehicles)}" if lock.vehicles else ""
            head += f"  MELEE since Player Turn {lock.since}: {held}{by}"
        lines.append(head)
        for u in units:
            guard = f" PRISONER of {u.guard}" if u.guard else ""
            lines.append(f"  {unit_line(u)}{guard}")
        for v in vehicles:
            bits = [
                b
                for b, on in (
                    ("CE" if v.ce else "BU", v.afv),
                    ("Immobile", not v.mobile),
                    ("Motion", v.motion),
                    (v.status, v.status != "active"),
                )
                if on
            ]
            lines.append(f"  {v.id} {v.name} ({v.side}, vehicle) [{', '.join(bits)}]")
    concealed = [u.id for u in state.units.values() if u.status == "active" and u.concealed]
    lines.append(f"Concealed: {', '.join(concealed) or 'none'}")
    prisoners = prisoners_of(state)
    if prisoners:
        lines.append(
            "Prisoners: " + "; ".join(f"{g} guards {', '.join(p)}" for g, p in prisoners.items())
        )
    gone = [
        f"{u.id} ({u.status})"
        for u in state.units.values()
        if u.status not in ("active", "captured")
    ]
    if gone:
        lines.append(f"Out of play: {', '.join(gone)}")
    return "\n".join(lines)


def validate_setup(setup: Any) -> None:
    if not isinstance(setup, Setup):
        raise SetupError("asl: the setup is not an ASL setup")
    if len(setup.sides) != 2 or setup.sides[0] == setup.sides[1]:
        raise SetupError("asl: sides must name two different sides")
    locs: set[str] = set()
    for loc in setup.locations:
        if loc.id in locs:
            raise SetupError(f"asl: duplicate Location {loc.id!r}")
        if loc.terrain not in TERRAINS:
            raise SetupError(f"asl: Location {loc.id}: terrain {loc.terrain!r} not in {TERRAINS}")
        locs.add(loc.id)
    for loc in setup.locations:
        for a in loc.adjacent:
            if a not in locs:
                raise SetupError(f"asl: Location {loc.id}: unknown adjacent Location {a!r}")
    ids: set[str] = set()
    placed = [(u.id, u.side, u.location) for u in setup.units]
    placed += [(v.id, v.side, v.location) for v in setup.vehicles]
    for uid, side, location in placed:
        if uid in ids:
            raise SetupError(f"asl: duplicate unit id {uid!r}")
        ids.add(uid)
        if side not in setup.sides:
            raise SetupError(f"asl: {uid}: unknown side {side!r}")
        if location not in locs:
            raise SetupError(f"asl: {uid}: unknown Location {location!r}")
    units = {u.id: u for u in setup.units}
    for u in setup.units:
        if u.kind not in UNIT_KINDS:
            raise SetupError(f"asl: {u.id}: kind {u.kind!r} not in {UNIT_KINDS}")
        if not is_smc(u) and u.fp <= 0 and not u.dummy:
            raise SetupError(f"asl: {u.id}: an MMC needs its FP")
        if u.stacked_on is not None:
            base = units.get(u.stacked_on)
            if not is_smc(u) or base is None or is_smc(base) or base.location != u.location:
                raise SetupError(f"asl: {u.id}: stacked_on must name an MMC in its Location")
            if base.side != u.side:
                raise SetupError(f"asl: {u.id}: stacked on an enemy unit")
        if u.street_fighting_from is not None and u.street_fighting_from not in locs:
            raise SetupError(f"asl: {u.id}: unknown street_fighting_from Location")
    for v in setup.vehicles:
        for p in v.passengers:
            if p not in units:
                raise SetupError(f"asl: {v.id}: unknown passenger {p!r}")
    for m in setup.melee:
        if m.location not in locs:
            raise SetupError(f"asl: melee in unknown Location {m.location!r}")


# --- the demo ---------------------------------------------------------------------------------


def _squad(uid: str, side: str, name: str, **more: Any) -> UnitSetup:
    """A demo squad in X3: 4 FP, Morale 7, Reduced to a 2-4-7 HS."""
    return UnitSetup(
        id=uid,
        side=side,
        kind="squad",
        name=name,
        fp=4,
        morale=7,
        hs_fp=2,
        hs_name="2-4-7",
        location="X3",
        **more,
    )


def demo_setup() -> Setup:
    return Setup(
        sides=["German", "Russian"],
        locations=[
            LocationSetup(id="X3", terrain="building", adjacent=["X2", "Y3"]),
            LocationSetup(id="X2", terrain="woods", adjacent=["X3"]),
            LocationSetup(id="Y3", terrain="open", adjacent=["X3"]),
        ],
        units=[
            _squad("g-467a", "German", "4-6-7", concealed=True),
            UnitSetup(
                id="g-81",
                side="German",
                kind="leader",
                name="8-1",
                fp=0,
                morale=8,
                leadership=-1,
                location="X3",
                stacked_on="g-467a",
                concealed=True,
            ),
            _squad("g-467b", "German", "4-6-7", concealed=True),
            _squad("r-447a", "Russian", "4-4-7"),
            _squad("r-447b", "Russian", "4-4-7", sws=["LMG"]),
        ],
    )


DEMO_DICE = [
    # Player Turn 1, German CCPh in X3. Ambush drs: German 1 (-2 concealed, -1 leader) = -2,
    # Russian 5: the German Ambushes; Russians resolve after him (A11.32).
    1,
    5,
    # attack 1: g-467a + 8-1 vs r-447a, 5 vs 4 = 1-1 (KN 5), -1 leader -1 Ambush: 3 + 4 = 7 -> 5:
    # Partial Kill, r-447a Reduced to a HS; the German stack loses its "?" (A11.4).
    3,
    4,
    # attack 2: the Reduced r-447a (2 FP) vs g-467a + 8-1 (5): 1-4 (KN 3), +1 Ambush: 5 + 4.
    5,
    4,
    # attack 3: r-447b vs the concealed g-467b: 4 halved = 2 vs 4, 1-2 (KN 4), +1: 6 + 2, no
    # effect; g-467b never attacked, keeps its "?" and is not locked in Melee (A11.15).
    6,
    2,
    # Player Turn 2, Russian CCPh, Melee: r-447a announces Withdrawal to X2.
    # attack 1: r-447b vs g-467a + 8-1, 4 vs 5 = 1-2 (KN 4): 4 + 5, no effect.
    4,
    5,
    # attack 2: g-467a + 8-1 vs the withdrawing HS, 5 vs 2 = 2-1 (KN 7), -1 leader, -2
    # withdrawing +1 (r-447b stands): 6 + 5 = 11 -> 9, no effect: the HS withdraws.
    6,
    5,
]


def demo() -> Scenario[Setup, CloseCombat]:
    """Turn 1: the concealed German stack Ambushes, a Partial Kill Reduces a Russian squad, the
    Russians strike back and X3 locks in Melee. Turn 2: the Russian HS tries to Withdraw from
    the Melee, which carries on."""
    return Scenario[Setup, CloseCombat](
        ruleset="asl",
        label="X3: Ambush, Partial Kill, Melee and a Withdrawal attempt",
        setup=demo_setup(),
        commands=[
            CloseCombat(
                turn=1,
                attacker="German",
                location="X3",
                attacks=[
                    Attack(by=["g-467a", "g-81"], targets=["r-447a"]),
                    Attack(by=["r-447a"], targets=["g-467a"]),
                    Attack(by=["r-447b"], targets=["g-467b"]),
                ],
            ),
            CloseCombat(
                turn=2,
                attacker="Russian",
                location="X3",
                withdrawals=[Withdrawal(unit="r-447a", to="X2")],
                attacks=[
                    Attack(by=["r-447b"], targets=["g-467a"]),
                    Attack(by=["g-467a", "g-81"], targets=["r-447a"]),
                ],
            ),
        ],
        dice=list(DEMO_DICE),
    )


GAME_SYSTEM = GameSystem(
    id="asl",
    game="asl",
    version="1.0",
    title="Advanced Squad Leader, chapter A11: Close Combat",
    rulebook=Rulebook(title="ASL Rulebook (2nd edition), chapter A"),
    rulings=RULINGS,
    setup_type=Setup,
    command_types=COMMAND_TYPES,
    event_types=ev.EVENT_TYPES,
    state_type=State,
    initial_state=initial_state,
    evolve=evolve,
    procedure=procedure,
    narrate=narrate,
    describe_state=describe_state,
    demo=demo,
    validate_setup=validate_setup,
)
