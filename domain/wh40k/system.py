"""Binding of Warhammer 40,000 2nd edition (1993) hand-to-hand combat: ruleset ``wh40k-2e``."""

from __future__ import annotations

from decimal import Decimal

from blowbyblow.domain.core import SetupError
from blowbyblow.domain.system import GameSystem, Rulebook, Scenario
from blowbyblow.domain.wh40k.combat import parse_damage
from blowbyblow.domain.wh40k.commands import (
    COMMAND_TYPES,
    BreakOff,
    Charge,
    EndTurn,
    Fight,
    FollowUp,
    Wh40kCommand,
)
from blowbyblow.domain.wh40k.events import EVENT_TYPES
from blowbyblow.domain.wh40k.models import (
    ModelProfile,
    Weapon,
    Wh40kSetup,
    Wh40kState,
    initial_state,
)
from blowbyblow.domain.wh40k.narration import describe_state, narrate
from blowbyblow.domain.wh40k.procedure import procedure
from blowbyblow.domain.wh40k.projection import evolve
from blowbyblow.domain.wh40k.rulings import RULINGS

RULESET_ID = "wh40k-2e"


def _new_id(field: str, n: int, ident: str, seen: list[str], noun: str) -> str:
    """Check the id of ``field[n]`` (not empty, not in ``seen``), add it to ``seen`` and return
    how errors name the entry."""
    if not ident:
        raise SetupError(f"{field}[{n}]: id must not be empty")
    where = f"{field}[{n}] ({ident})"
    if ident in seen:
        raise SetupError(f"{where}: duplicate {noun} id {ident!r}")
    seen.append(ident)
    return where


def validate_setup(setup: Wh40kSetup) -> None:
    """Cross-references and characteristic ranges; raises SetupError naming the field."""
    if not setup.models:
        raise SetupError("models: a battle needs at least one model on each side")
    weapon_ids: list[str] = []
    for n, w in enumerate(setup.weapons):
        where = _new_id("weapons", n, w.id, weapon_ids, "weapon")
        if w.strength is not None and w.strength < 1:
            raise SetupError(f"{where}: strength must be at least 1")
        try:
            fixed, dice, sides = parse_damage(w.damage)
        except ValueError as e:
            raise SetupError(f"{where}: {e}") from None
        if fixed + dice < 1 or (dice and sides < 2):
            raise SetupError(f"{where}: damage {w.damage!r} must be at least 1")
    model_ids: list[str] = []
    for n, m in enumerate(setup.models):
        where = _new_id("models", n, m.id, model_ids, "model")
        if not m.player:
            raise SetupError(f"{where}: player must not be empty")
        for field, value, low in (
            ("ws", m.ws, 0),
            ("s", m.s, 1),
            ("t", m.t, 1),
            ("w", m.w, 1),
            ("i", m.i, 0),
            ("a", m.a, 1),
        ):
            if value < low:
                raise SetupError(f"{where}: {field} must be at least {low}, not {value}")
        if m.save is not None and not 1 <= m.save <= 6:
            raise SetupError(f"{where}: save must be 1 to 6 (a D6 score), not {m.save}")
        for wid in m.weapons:
            if wid not in weapon_ids:
                raise SetupError(
                    f"{where}: unknown weapon {wid!r}; weapons are: "
                    f"{', '.join(weapon_ids) or 'none'}"
                )
        if len(set(m.weapons)) != len(m.weapons):
            raise SetupError(f"{where}: a weapon is listed twice")
    players = {m.id: m.player for m in setup.models}
    if len(set(players.values())) < 2:
        raise SetupError("models: hand-to-hand combat needs models of two players")
    if setup.first_player and setup.first_player not in players.values():
        raise SetupError(f"first_player: {setup.first_player!r} is not the player of any model")
    for n, (a, b) in enumerate(setup.contacts):
        for x in (a, b):
            if x not in players:
                raise SetupError(f"contacts[{n}]: unknown model {x!r}")
        if players[a] == players[b]:
            raise SetupError(f"contacts[{n}]: {a} and {b} are on the same side")


def _ork_boy(ident: str, name: str) -> ModelProfile:
    """An Ork Boy of the demo's mob, with choppa and slugga."""
    return ModelProfile(
        id=ident,
        name=name,
        player="Orks",
        squad="boyz",
        ws=4,
        s=3,
        t=4,
        w=1,
        i=2,
        a=1,
        save=6,
        weapons=["choppa", "slugga"],
    )


def demo() -> Scenario[Wh40kSetup, Wh40kCommand]:
    """Orks charge two Ultramarines: a break off (Cato), then a Multiple Combat around Sergeant
    Varro with a charge bonus, a parry (re-roll), a fumble, a critical hit and the outnumbering
    side's extra Attack die, ending in a Follow-Up Move. Listed physical dice."""
    weapons = [
        Weapon(id="chainsword", name="chainsword", strength=4, save_modifier=-1, parry=True),
        Weapon(id="bolt-pistol", name="bolt pistol", strength=4, save_modifier=-1),
        Weapon(id="choppa", name="choppa (axe, user +1)", strength_bonus=1),
        Weapon(id="slugga", name="slugga (autopistol)", strength=3, save_modifier=0),
        Weapon(id="bolter", name="bolter", close_combat=False, strength=4, save_modifier=-1),
    ]
    models = [
        ModelProfile(
            id="varro",
            name="Sergeant Varro",
            player="Ultramarines",
            squad="tactical",
            ws=5,
            s=4,
            t=4,
            w=1,
            i=5,
            a=2,
            save=3,
            weapons=["chainsword", "bolt-pistol"],
        ),
        ModelProfile(
            id="cato",
            name="Brother Cato",
            player="Ultramarines",
            squad="tactical",
            ws=4,
            s=4,
            t=4,
            w=1,
            i=4,
            a=1,
            save=3,
            weapons=["bolter"],
        ),
        ModelProfile(
            id="gorg",
            name="Nob Gorg",
            player="Orks",
            squad="boyz",
            ws=4,
            s=4,
            t=4,
            w=2,
            i=3,
            a=2,
            save=6,
            weapons=["choppa", "slugga"],
        ),
        _ork_boy("snagga", "Snagga"),
        _ork_boy("zog", "Zog"),
    ]
    return Scenario[Wh40kSetup, Wh40kCommand](
        ruleset=RULESET_ID,
        label="Orks charge the Ultramarines (40K 2nd edition hand-to-hand demo)",
        setup=Wh40kSetup(models=models, weapons=weapons, first_player="Orks"),
        commands=[
            Charge(model="gorg", target="varro"),
            Charge(model="snagga", target="varro"),
            Charge(model="zog", target="cato"),
            BreakOff(model="cato"),
            Fight(model="cato"),
            Fight(model="varro", order=("snagga", "gorg")),
            FollowUp(model="gorg", inches=Decimal(2)),
            EndTurn(),
        ],
        dice=DEMO_DICE,
    )


DEMO_DICE = [
    # Fight cato (breaking off, WS 0) against zog (charging)
    5,  # cato's Attack die
    3,
    1,  # zog's Attack dice (choppa + slugga: +1 die): a Fumble
    3,
    4,  # zog's 2 hits, to wound (choppa S4 vs T4, 4+): miss, wound
    5,  # cato's save 3+ with -1 (S4): 4+, saved
    4,
    3,  # cato survives and breaks off 2D6": 7"
    # Multiple Combat around varro, duel 1: snagga (charging) against varro
    5,
    1,  # snagga's Attack dice: a Fumble
    6,
    6,
    3,  # varro's Attack dice (chainsword + bolt pistol: +1 die): one Critical Hit
    2,  # varro parries snagga's 5: the re-roll (2) stands
    5,  # varro's first of 6 hits, to wound (chainsword S4 vs T4, 4+); 6+ -1 = no save; slain
    # duel 2: gorg (charging, +1 Attack die as the second duel) against varro
    6,
    4,
    3,
    2,  # gorg's Attack dice
    4,
    2,
    1,  # varro's Attack dice: a Fumble
    3,  # varro parries gorg's 6: re-rolled 3
    4,  # gorg's 1 hit, to wound (choppa S5 vs T4, 3+)
    2,  # varro's save 3+ with -2 (S5): 5+, failed; slain
]


def _initial(setup: Wh40kSetup) -> Wh40kState:
    return initial_state(setup)


GAME_SYSTEM = GameSystem(
    id=RULESET_ID,
    game="wh40k",
    version="1.0",
    title="Warhammer 40,000 2nd edition: Hand-to-Hand Combat",
    rulebook=Rulebook(title="Warhammer 40,000 Rulebook (2nd edition, 1993)"),
    rulings=RULINGS,
    setup_type=Wh40kSetup,
    command_types=COMMAND_TYPES,
    event_types=EVENT_TYPES,
    state_type=Wh40kState,
    initial_state=_initial,
    evolve=evolve,
    procedure=procedure,
    narrate=narrate,
    describe_state=describe_state,
    demo=demo,
    validate_setup=validate_setup,
)

__all__ = ["GAME_SYSTEM", "BreakOff", "Charge", "EndTurn", "Fight", "FollowUp", "demo"]
