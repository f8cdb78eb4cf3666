"""What the rules allow: ``validate`` refuses a command the rules do not allow
(``RuleViolation``, before anything is written), one named check per rule (those between phases
in ``legal_moves``); ``legal_commands`` offers the commands a front end may give in a state and
``command_from_option`` builds them.

An offered ``closecombat`` fixes ``turn``, ``attacker`` and ``location`` and lists, for one side,
``attacks.by`` (units that may attack) and ``attacks.targets`` (what they may attack), and
``solo`` (its SMC that must announce a solo attack first, A11.14). One attack of the first ``by``
against the first target, with the first ``solo`` announced, is always legal."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import msgspec

from blowbyblow.domain.asl.commands import (
    WEAPONS,
    Advance,
    AslCommand,
    Attack,
    CloseCombat,
    FireIntoMelee,
    Move,
    ReactionFire,
    Restack,
)
from blowbyblow.domain.asl.designation import expand_targets
from blowbyblow.domain.asl.fire import validate_fire
from blowbyblow.domain.asl.legal_moves import (
    between_phase_command,
    between_phase_options,
    contested,
    player_turns,
    validate_advance,
    validate_move,
    validate_reaction,
    validate_restack,
)
from blowbyblow.domain.asl.rulings import (
    ATMM_CHECK,
    BERSERK_CAPTURE,
    PRISONER_ATTACKS,
    REINFORCING_ATTACK,
    RULINGS,
    UNARMED_VEHICLE_CAPTURE,
)
from blowbyblow.domain.asl.setup import is_mmc, is_smc
from blowbyblow.domain.asl.state import (
    State,
    aboard,
    capturable_passenger,
    carrier,
    is_prisoner,
    known,
    other_side,
    present,
    side_of,
    still_here,
    units_in,
    vehicles_in,
)
from blowbyblow.domain.asl.streets import check_street_fighters
from blowbyblow.domain.asl.vehicles import usable_fp
from blowbyblow.domain.asl.withdrawal import check_cx_needed, destinations
from blowbyblow.domain.core import Context, RuleViolation
from blowbyblow.domain.system import CommandOption

Role = Literal["ATTACKER", "DEFENDER"]


@dataclass
class _Check:
    """One command being checked: what it announced so far (withdrawals, A11.2), who has
    attacked or been attacked this CCPh (A11.12), which vehicle weapons are used (A11.62)."""

    state: State
    command: CloseCombat
    ctx: Context
    withdrawing: dict[str, str | None] = field(default_factory=dict)
    attacked: set[str] = field(default_factory=set)
    attacked_by: set[str] = field(default_factory=set)
    weapons_used: set[tuple[str, str]] = field(default_factory=set)

    @property
    def loc(self) -> str:
        return self.command.location

    def unit_here(self, uid: str, rule: str) -> None:
        if uid not in self.state.units or not present(self.state, uid, self.loc):
            raise RuleViolation(rule, f"{uid!r} is not a unit in {self.loc}")

    def once(self, seen: set[str], unit: str, what: str) -> None:
        """A11.12: a unit attacks, and is attacked, at most once per CCPh; ``seen`` records it."""
        if unit in seen:
            raise RuleViolation("A11.12", f"{what} more than once this CCPh")
        seen.add(unit)


def validate(state: State, command: AslCommand, ctx: Context) -> None:
    """Refuse ``command`` if the rules do not allow it in ``state``: for a ``closecombat``, the
    checks of ``CHECKS`` in order, the first refusal wins; the commands between phases are
    checked by ``legal_moves``."""
    if isinstance(command, Advance):
        validate_advance(state, command)
    elif isinstance(command, Move):
        validate_move(state, command)
    elif isinstance(command, Restack):
        validate_restack(state, command)
    elif isinstance(command, ReactionFire):
        validate_reaction(state, command, ctx)
    elif isinstance(command, FireIntoMelee):
        validate_fire(state, command)
    else:
        check = _Check(state=state, command=command, ctx=ctx)
        for step in CHECKS:
            step(check)


# --- the Player Turn and the Location (A11.1, A11.12) -----------------------------------------


def _check_player_turn(chk: _Check) -> None:
    state, c = chk.state, chk.command
    if c.location not in state.locations:
        raise RuleViolation("A11.1", f"unknown Location {c.location!r}")
    if c.attacker not in state.sides:
        raise RuleViolation("A11.12", f"{c.attacker!r} is not a side ({', '.join(state.sides)})")
    if c.turn < state.turn:
        raise RuleViolation("A11.12", f"Player Turn {c.turn} is before the current {state.turn}")
    if c.turn != state.turn:
        return
    if state.attacker is not None and c.attacker != state.attacker:
        raise RuleViolation("A11.12", f"{state.attacker} is the ATTACKER of Player Turn {c.turn}")
    if c.location in state.resolved:
        raise RuleViolation("A11.12", f"CC in {c.location} is already resolved this Player Turn")
    chk.attacked = set(state.phase_targets)
    chk.attacked_by = set(state.phase_attackers)


# --- announcements before designation ---------------------------------------------------------


def _check_paatc(chk: _Check) -> None:
    """A11.6: a PAATC once per unit, vs a manned enemy AFV here; SMC, Fanatic, Berserk exempt."""
    state, c = chk.state, chk.command
    afv_here = [v for v in vehicles_in(state, c.location) if v.afv and v.crewed and not v.abandoned]
    checked: set[str] = set()
    for check in c.paatc:
        chk.unit_here(check.unit, "A11.6")
        u = state.units[check.unit]
        if check.unit in checked or not any(v.side != u.side for v in afv_here):
            raise RuleViolation("A11.6", f"{check.unit}: no (second) PAATC here")
        if is_smc(u) or u.fanatic or u.berserk:
            raise RuleViolation("A11.6", f"{check.unit} is exempt from PAATC")
        if check.from_location not in state.locations or check.from_location == c.location:
            raise RuleViolation("A11.6", f"{check.unit}: unknown Location {check.from_location!r}")
        checked.add(check.unit)


def _check_withdrawals(chk: _Check) -> None:
    """A11.2: only units engaged in Melee here, not pinned or berserk, once each; A11.21: into
    an adjacent Location free of Known enemy units."""
    state, c = chk.state, chk.command
    lock = state.melee.get(c.location)
    for w in c.withdrawals:
        chk.unit_here(w.unit, "A11.2")
        u = state.units[w.unit]
        if w.unit in chk.withdrawing:
            raise RuleViolation("A11.2", f"{w.unit} announced twice")
        if lock is None or w.unit not in lock.units:
            raise RuleViolation("A11.2", f"{w.unit} is not engaged in Melee in {c.location}")
        if u.pinned or u.berserk:
            raise RuleViolation("A11.2", f"{w.unit} is pinned or berserk and may not withdraw")
        dests = destinations(state, u, c.location)
        if w.to not in dests:
            raise RuleViolation(
                "A11.21",
                f"{w.unit} cannot withdraw to {w.to!r}; possible: {', '.join(dests) or 'none'}",
            )
        chk.withdrawing[w.unit] = w.with_unit


def _check_withdrawal_partners(chk: _Check) -> None:
    """A11.2: an SMC may withdraw with an MMC withdrawing to the same Location."""
    c = chk.command
    for w in c.withdrawals:
        if w.with_unit is None:
            continue
        partner = next((x for x in c.withdrawals if x.unit == w.with_unit), None)
        if not is_smc(chk.state.units[w.unit]) or partner is None or partner.to != w.to:
            raise RuleViolation(
                "A11.2",
                f"{w.unit} may withdraw with {w.with_unit} only as an SMC with a "
                "withdrawing MMC going to the same Location",
            )


def _check_solo(chk: _Check) -> None:
    """A11.14: only an SMC here announces a solo attack."""
    for s in chk.command.solo:
        chk.unit_here(s, "A11.14")
        if not is_smc(chk.state.units[s]):
            raise RuleViolation("A11.14", f"{s} is not an SMC")


def _check_no_passengers(chk: _Check) -> None:
    """A11.611: Passengers share the fate of their vehicle: never singled out [EXC: capturing
    Passengers; 11.52]: A11.52 (ruling unarmed-vehicle-capture) lets Infantry attempt to capture
    the Passengers of an unarmored stationary vehicle, and them attack their would-be captors."""
    on_board = aboard(chk.state)
    a1152 = chk.ctx.ruling(UNARMED_VEHICLE_CAPTURE) == "captured-when-alone"
    for a in chk.command.attacks:
        for x in a.targets:
            if x in on_board and not (a1152 and a.capture and capturable_passenger(chk.state, x)):
                raise RuleViolation(
                    "A11.611",
                    f"{x} is a Passenger: it shares its vehicle's fate (only the Passengers of "
                    "an unarmored stationary vehicle may be the target of a Capture attempt, "
                    "A11.52)",
                )
        for x in a.by:
            if x in on_board and not (a1152 and _against_captors(chk, a, x)):
                raise RuleViolation(
                    "A11.611",
                    f"{x} is a Passenger: it attacks only those attempting to capture it (A11.52)",
                )


def _against_captors(chk: _Check, a: Attack, passenger: str) -> bool:
    """A11.52: Passengers of an unarmored stationary vehicle attack only units making a Capture
    attempt on its Passengers in this CC."""
    v = carrier(chk.state, passenger)
    if v is None or not capturable_passenger(chk.state, passenger):
        return False
    captors = {
        b
        for other in chk.command.attacks
        if other.capture and any(t in v.passengers for t in other.targets)
        for b in other.by
    }
    return bool(a.targets) and all(t in captors for t in a.targets)


def _check_no_dummies(chk: _Check) -> None:
    """A11.19: Dummies are removed before designation."""
    units = chk.state.units
    for a in chk.command.attacks:
        for x in [*a.by, *a.targets]:
            if x in units and units[x].dummy:
                raise RuleViolation("A11.19", f"Dummy {x} is removed before designation")


# --- each attack (A11.12) ---------------------------------------------------------------------


def _check_attacks(chk: _Check) -> None:
    for number, a in enumerate(chk.command.attacks, start=1):
        _check_attack(chk, a, f"attack {number}")


def _check_attack(chk: _Check, a: Attack, where: str) -> None:
    state, loc = chk.state, chk.loc
    if not a.by:
        raise RuleViolation("A11.12", f"{where}: no attacker")
    if all(is_prisoner(state, b) and state.units[b].location == loc for b in a.by):
        _check_prisoner_attack(chk, a, where)
        return
    for b in a.by:
        if not present(state, b, loc):
            raise RuleViolation("A11.1", f"{where}: {b!r} is not in {loc}")
    sides = {side_of(state, b) for b in a.by}
    if len(sides) != 1:
        raise RuleViolation("A11.12", f"{where}: attackers of both sides")
    side = sides.pop()
    if any(b in state.vehicles for b in a.by):
        _check_vehicle_attack(chk, a, side, where)
        return
    _check_infantry_attackers(chk, a, where)
    if not a.targets:
        raise RuleViolation("A11.12", f"{where}: no target")
    if any(t in state.vehicles for t in a.targets):
        _check_vs_vehicle(chk, a, side, where)
        return
    _check_smc_targets(chk, a, side, where)
    _check_smc_attackers(chk, a, side, where)
    if a.leader is not None and (a.leader not in a.by or state.units[a.leader].kind != "leader"):
        raise RuleViolation("A11.141", f"{where}: {a.leader} is not a leader in the attack")
    if a.atmm is not None:
        raise RuleViolation("C13.7", f"{where}: ATMM only in an attack vs an AFV")
    solo = set(chk.command.solo)
    expanded = expand_targets(state, loc, a.targets, solo, chk.withdrawing)
    if a.capture:
        _check_capture_targets(chk, expanded, where)
    for t in expanded:
        chk.once(chk.attacked, t, f"{where}: {t} is attacked")


def _check_capture_targets(chk: _Check, targets: tuple[str, ...], where: str) -> None:
    """A20.2 (ruling berserk-capture): berserk units never become prisoners."""
    if chk.ctx.ruling(BERSERK_CAPTURE) != "refused":
        return
    for t in targets:
        if chk.state.units[t].berserk:
            raise RuleViolation("A20.2", f"{where}: berserk {t} cannot be captured")


def _check_infantry_attackers(chk: _Check, a: Attack, where: str) -> None:
    """A11.16 broken units never attack; A11.2 withdrawing units neither; A11.12 once per CCPh;
    A20.2 a berserk unit never captures."""
    for b in a.by:
        u = chk.state.units[b]
        if u.broken:
            raise RuleViolation("A11.16", f"{where}: broken {b} may never attack")
        if b in chk.withdrawing:
            raise RuleViolation("A11.2", f"{where}: withdrawing {b} may not attack")
        chk.once(chk.attacked_by, b, f"{where}: {b} attacks")
        if a.capture and u.berserk:
            raise RuleViolation("A20.2", f"{where}: berserk {b} may not capture")


def _check_prisoner_attack(chk: _Check, a: Attack, where: str) -> None:
    """A11.33/A20.55 (ruling prisoner-attacks): prisoners may attack only their captor."""
    state = chk.state
    if chk.ctx.ruling(PRISONER_ATTACKS) == "not-allowed":
        raise RuleViolation("A20.55", f"{where}: prisoners may not attack (prisoner-attacks)")
    guards = {state.units[b].guard for b in a.by}
    if not a.targets or any(t not in guards or not present(state, t, chk.loc) for t in a.targets):
        raise RuleViolation("A11.33", f"{where}: prisoners may attack only their captor here")
    if a.capture or a.atmm or a.weapons:
        raise RuleViolation("A11.33", f"{where}: a prisoners' attack is a plain CC attack")
    for b in a.by:
        chk.once(chk.attacked_by, b, f"{where}: {b} attacks")
    for t in a.targets:
        chk.once(chk.attacked, t, f"{where}: {t} is attacked")


def _smc_free(chk: _Check, target: str, side: str) -> bool:
    """A11.14: an SMC may be singled out only if no enemy MMC is here, it attacks solo, it
    withdraws alone, or it is not stacked on (or not concealed like) an MMC here."""
    state = chk.state
    u = state.units[target]
    enemy_mmc = [x.id for x in units_in(state, chk.loc) if x.side != side and is_mmc(x)]
    return (
        not enemy_mmc
        or target in chk.command.solo
        or (target in chk.withdrawing and chk.withdrawing[target] is None)
        or u.stacked_on not in enemy_mmc
        or u.concealed != state.units[u.stacked_on].concealed
    )


def _check_smc_targets(chk: _Check, a: Attack, side: str, where: str) -> None:
    """A11.1: enemy units here; A11.14: an SMC is attacked with the MMC it defends with."""
    state, loc = chk.state, chk.loc
    for t in a.targets:
        if t not in state.units or not present(state, t, loc):
            raise RuleViolation("A11.1", f"{where}: target {t!r} is not in {loc}")
        u = state.units[t]
        if u.side == side:
            raise RuleViolation("A11.1", f"{where}: {t} is not an enemy unit")
        if is_smc(u) and not _smc_free(chk, t, side):
            raise RuleViolation(
                "A11.14", f"{where}: SMC {t} defends with {u.stacked_on}; attack that MMC"
            )


def _check_smc_attackers(chk: _Check, a: Attack, side: str, where: str) -> None:
    """A11.14: an SMC attacking alone beside friendly MMC announces it; combining with MMC, it
    attacks with the MMC it is stacked on."""
    state, by, solo = chk.state, a.by, chk.command.solo
    friendly_mmc = [u.id for u in units_in(state, chk.loc, side) if is_mmc(u)]
    smc = [b for b in by if is_smc(state.units[b])]
    mmc = [b for b in by if is_mmc(state.units[b])]
    if len(by) == 1 and smc and friendly_mmc and by[0] not in solo:
        raise RuleViolation("A11.14", f"{where}: {by[0]} must announce its solo attack (solo)")
    for s in smc:
        if mmc and by and s not in solo:
            base = state.units[s].stacked_on
            if base in friendly_mmc and base not in mmc:
                raise RuleViolation(
                    "A11.14", f"{where}: {s} must attack with the MMC it is stacked on ({base})"
                )


def _check_vs_vehicle(chk: _Check, a: Attack, side: str, where: str) -> None:
    """A11.5: one enemy vehicle, at most two attackers one of them an SMC; A11.52: no capture;
    C13.7: the ATMM check (ruling atmm-check) by an attacker vs an AFV."""
    state = chk.state
    if len(a.targets) != 1:
        raise RuleViolation(
            "A11.5", f"{where}: one attack cannot affect a vehicle and anything else"
        )
    v = state.vehicles[a.targets[0]]
    if v.side == side or not present(state, v.id, chk.loc):
        raise RuleViolation("A11.5", f"{where}: {v.id} is not an enemy vehicle in {chk.loc}")
    by = a.by
    if len(by) > 2 or (len(by) == 2 and not any(is_smc(state.units[b]) for b in by)):
        raise RuleViolation(
            "A11.5", f"{where}: at most two units, one of them an SMC, combine vs a vehicle"
        )
    if a.capture:
        raise RuleViolation(
            "A11.52",
            f"{where}: no Capture attempt on a manned AFV or a Motion vehicle; an unarmored "
            "vehicle is captured with its Passengers or when alone (A11.52); an Abandoned AFV "
            "(A21.2) is not covered",
        )
    if a.atmm is None:
        return
    if chk.ctx.ruling(ATMM_CHECK) == "not-allowed":
        raise RuleViolation("C13.7", f"{where}: ATMM not allowed (ruling atmm-check)")
    if a.atmm not in by or not v.afv:
        raise RuleViolation("C13.7", f"{where}: the ATMM check is made by an attacker vs an AFV")


def _check_vehicle_attack(chk: _Check, a: Attack, side: str, where: str) -> None:
    """A11.62: a vehicle attacks on its own, crewed and able, with its usable MG FP, enemy
    Personnel here; each weapon once; A11.622 the sN alone, BU; A20.22 no capture."""
    state = chk.state
    if len(a.by) != 1:
        raise RuleViolation("A11.62", f"{where}: a vehicle's CC attack is its own")
    v = state.vehicles[a.by[0]]
    if not v.crewed or v.abandoned or v.shocked or v.stunned:
        raise RuleViolation("A11.62", f"{where}: {v.id} cannot attack in CC")
    if a.capture:
        raise RuleViolation("A20.22", f"{where}: a vehicle may not capture")
    for w in a.weapons:
        if w not in WEAPONS:
            raise RuleViolation("A11.62", f"{where}: unknown weapon {w!r} ({', '.join(WEAPONS)})")
    if "sn" in a.weapons:
        if len(a.weapons) != 1:
            raise RuleViolation("A11.622", f"{where}: the sN cannot combine with other FP")
        if v.close_defense_usage <= 0 or v.ce:
            raise RuleViolation("A11.622", f"{where}: {v.id} has no sN or is not BU")
    else:
        _check_vehicle_targets(chk, a, side, where)
    for weapon in a.weapons or ["cmg", "aamg", "rmg"]:
        if (v.id, weapon) in chk.weapons_used:
            raise RuleViolation("A11.62", f"{where}: {v.id} {weapon} already used")
        chk.weapons_used.add((v.id, weapon))


def _check_vehicle_targets(chk: _Check, a: Attack, side: str, where: str) -> None:
    state, v = chk.state, chk.state.vehicles[a.by[0]]
    if usable_fp(state, v, tuple(a.weapons)) <= 0:
        raise RuleViolation("A11.62", f"{where}: {v.id} has no usable CC FP")
    if not a.targets:
        raise RuleViolation("A11.12", f"{where}: no target")
    for t in a.targets:
        if t not in state.units or not present(state, t, chk.loc) or state.units[t].side == side:
            raise RuleViolation("A11.62", f"{where}: {t!r} is not enemy Personnel in {chk.loc}")


def _check_reinforcements(chk: _Check) -> None:
    """A11.15: the Known units that advanced into this Melee this Player Turn must engage in CC:
    each makes or joins an attack (ruling reinforcing-attack; may-decline: none must)."""
    if chk.ctx.ruling(REINFORCING_ATTACK) == "may-decline":
        return
    attacking = {b for a in chk.command.attacks for b in a.by}
    for uid in obliged(chk.state, chk.loc, chk.command.turn):
        if uid not in attacking:
            raise RuleViolation(
                "A11.15",
                f"{uid} advanced into the Melee in {chk.loc}: it must engage in CC (only a "
                "concealed unit may decline)",
            )


CHECKS: tuple[Callable[[_Check], None], ...] = (
    _check_player_turn,
    _check_paatc,
    _check_withdrawals,
    _check_withdrawal_partners,
    check_cx_needed,
    _check_solo,
    _check_no_passengers,
    _check_no_dummies,
    _check_attacks,
    _check_reinforcements,
    check_street_fighters,
)


# --- legal_commands: what a front end may offer -----------------------------------------------


def legal_commands(
    state: State, rulings: Mapping[str, str] | None = None
) -> tuple[CommandOption, ...]:
    """A ``closecombat`` for each Location holding units of both sides whose CC is still to be
    resolved (A11.12), for the ATTACKER of the current Player Turn; once every such Location is
    resolved, for the next Player Turn, whose ATTACKER is the other side (before the first CCPh,
    either side). Per Location, one option per side that may attack: its attackers and what they
    may attack (the ATTACKER's option is there even when neither side may attack: the Location's
    CC still runs its withdrawals and Melee). Then the commands between phases (``advance``,
    ``move``, ``reactionfire``, ``restack``) of ``legal_moves``."""
    # ATMM and Capture attempts are not offered: the rulings bear on what is (prisoners' attacks).
    ctx = Context(
        rulings={**{r.name: r.default for r in RULINGS}, **(rulings or {})}, command_index=0
    )
    options: list[CommandOption] = []
    for turn, attacker in player_turns(state):
        for loc in state.locations:
            if (turn == state.turn and loc in state.resolved) or not contested(state, loc):
                continue
            base = CloseCombat(turn=turn, attacker=attacker, location=loc)
            options += _location_options(state, ctx, base)
    options += between_phase_options(state, ctx.rulings)
    return tuple(options)


def obliged(state: State, location: str, turn: int) -> list[str]:
    """A11.15: the Known units that advanced into ``location``'s Melee this Player Turn: "New
    units may advance into a Melee hex but must engage in CC (though a concealed unit may elect
    not to attack in an attempt to retain its concealment)"."""
    if turn != state.turn:
        return []
    return [
        uid
        for uid, arrival in state.arrivals.items()
        if arrival.reinforcing
        and arrival.location == location
        and still_here(state, uid, location)
        and known(state.units[uid])
        and not state.units[uid].dummy
        and not state.units[uid].broken
    ]


@dataclass(frozen=True)
class _Offer:
    """One side's option in a Location: ``joined`` units (obliged to attack, A11.15) join the
    picked attack, or make the ``fixed`` attack of their own beside it."""

    base: CloseCombat
    side: str
    joined: tuple[str, ...] = ()
    fixed: Attack | None = None

    def attacks(self, by: str, target: str) -> list[Attack]:
        if self.joined:
            return [Attack(by=[by, *[j for j in self.joined if j != by]], targets=[target])]
        return [*([self.fixed] if self.fixed else []), Attack(by=[by], targets=[target])]


def _location_options(state: State, ctx: Context, base: CloseCombat) -> list[CommandOption]:
    fields = {"turn": str(base.turn), "attacker": base.attacker, "location": base.location}
    must = obliged(state, base.location, base.turn)
    fixed = _obliged_attack(state, ctx, base, must) if must else None
    out: list[CommandOption] = []
    roles: tuple[tuple[str, Role], ...] = (
        (base.attacker, "ATTACKER"),
        (other_side(state, base.attacker), "DEFENDER"),
    )
    for side, role in roles:
        offer = _Offer(base=base, side=side)
        if must and role == "ATTACKER":
            offer = _Offer(base=base, side=side, joined=tuple(must))
        elif must:
            offer = _Offer(base=base, side=side, fixed=fixed)
        allowed = _attack_options(state, ctx, offer)
        more = dict(fields)
        if must and fixed is None:
            continue  # the units that must engage have no attack the rules allow
        if must and role == "ATTACKER" and not allowed:
            offer = _Offer(base=base, side=side, fixed=fixed)
        if not allowed and role == "DEFENDER":
            continue
        if offer.joined:
            more["attacks.with"] = ",".join(offer.joined)
        elif offer.fixed is not None:
            more["attacks.with"] = ",".join(offer.fixed.by)
            more["attacks.with_target"] = offer.fixed.targets[0]
        out.append(
            CommandOption(
                type="closecombat",
                side=side,
                fields=more,
                options=allowed,
                summary=(
                    f"CC in {base.location}, Player Turn {base.turn}: {side} ({role}) "
                    "designates its attacks"
                ),
            )
        )
    return out


def _obliged_attack(
    state: State, ctx: Context, base: CloseCombat, must: list[str]
) -> Attack | None:
    """The units that must engage (A11.15) against the first enemy unit they may attack."""
    side = state.units[must[0]].side
    for target in _candidates(state, base.location, other_side(state, side)):
        attack = Attack(by=list(must), targets=[target])
        if _allowed(state, ctx, msgspec.structs.replace(base, attacks=[attack])):
            return attack
    return None


def _allowed(state: State, ctx: Context, command: CloseCombat) -> bool:
    try:
        validate(state, command, ctx)
    except RuleViolation:
        return False
    return True


def _by_kind(state: State, uid: str) -> int:
    """Attackers and targets are offered MMC first, then SMC, then vehicles."""
    u = state.units.get(uid)
    if u is None:
        return 2
    return 0 if is_mmc(u) else 1


def _candidates(state: State, location: str, side: str) -> list[str]:
    here = [u.id for u in units_in(state, location, side)]
    here += [v.id for v in vehicles_in(state, location, side)]
    return sorted(here, key=lambda uid: _by_kind(state, uid))


def _prisoners(state: State, location: str, side: str) -> list[str]:
    """Prisoners of ``side`` in ``location`` (they may attack their captor, A11.33)."""
    return [
        u.id
        for u in state.units.values()
        if is_prisoner(state, u.id) and u.location == location and u.side == side
    ]


def _needs_solo(state: State, location: str, uid: str) -> bool:
    """A11.14: an SMC beside a friendly MMC announces a solo attack before designation."""
    u = state.units.get(uid)
    if u is None or not is_smc(u) or is_prisoner(state, uid):
        return False
    return any(is_mmc(x) for x in units_in(state, location, u.side))


def _legal_attack(state: State, ctx: Context, offer: _Offer, pair: tuple[str, str]) -> bool:
    by, target = pair
    attacks = offer.attacks(by, target)
    alone = not offer.joined
    solo = [by] if alone and _needs_solo(state, offer.base.location, by) else []
    return _allowed(state, ctx, msgspec.structs.replace(offer.base, solo=solo, attacks=attacks))


def _attack_options(state: State, ctx: Context, offer: _Offer) -> dict[str, tuple[str, ...]]:
    """One unit of the side against one enemy unit, each pair as ``validate`` judges it: the
    attackers with a legal target, the targets with a legal attacker (the first attacker's
    first), and the SMC among the attackers that must announce a solo attack."""
    loc, side = offer.base.location, offer.side
    attackers = _candidates(state, loc, side) + _prisoners(state, loc, side)
    targets = _candidates(state, loc, other_side(state, side))
    legal = [(b, t) for b in attackers for t in targets if _legal_attack(state, ctx, offer, (b, t))]
    if not legal:
        return {}
    by = tuple(dict.fromkeys(b for b, _ in legal))
    first = [t for b, t in legal if b == by[0]]
    rest = [t for _, t in legal if t not in first]
    options = {"attacks.by": by, "attacks.targets": tuple(dict.fromkeys([*first, *rest]))}
    solo = tuple(b for b in by if not offer.joined and _needs_solo(state, loc, b))
    if solo:
        options["solo"] = solo
    return options


def command_from_option(option: CommandOption, picks: Mapping[str, str]) -> AslCommand:
    """The command an option stands for. A ``closecombat``: one attack by the unit picked for
    ``attacks.by`` on the one picked for ``attacks.targets`` (the first of each by default),
    announced solo when the attacker is an SMC that must (A11.14); the units of
    ``attacks.with`` (obliged to engage, A11.15) join it, or attack ``attacks.with_target`` of
    their own; no attack when the option offers none (the Location's CC still runs its
    withdrawals and Melee). The others: ``legal_moves.between_phase_command``."""
    if option.type != "closecombat":
        return between_phase_command(option, picks)
    fields = option.fields
    joined = [x for x in fields.get("attacks.with", "").split(",") if x]
    with_target = fields.get("attacks.with_target")
    attacks: list[Attack] = []
    if joined and with_target:
        attacks.append(Attack(by=joined, targets=[with_target]))
        joined = []
    solo: list[str] = []
    if option.options.get("attacks.by") and option.options.get("attacks.targets"):
        by = picks.get("attacks.by", option.options["attacks.by"][0])
        target = picks.get("attacks.targets", option.options["attacks.targets"][0])
        attacks.append(Attack(by=[by, *[j for j in joined if j != by]], targets=[target]))
        solo = [by] if by in option.options.get("solo", ()) else []
    return CloseCombat(
        turn=int(fields["turn"]),
        attacker=fields["attacker"],
        location=fields["location"],
        solo=solo,
        attacks=attacks,
    )
