"""What version 1.4 of wh40k-2e adds: the readings 1.3 fixed, made rulings, each from the
chapter's words: whom the charge bonus applies against (charge-bonus-against), whether a Broken
model may charge (broken-charge), whether a model with no Weapon Skill value in base contact is a
"Hand-to-Hand Combat opponent" (no-ws-opponents). Battles recorded by 1.3
(``fixtures/make_1_3_records.py``) verify byte for byte; what-ifs under the other readings
diverge; the refusals write nothing."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from wh40k_helpers import model, of, one, run, setup

from blowbyblow.domain.system import Scenario
from blowbyblow.domain.wh40k.commands import BreakOff, Charge, EndTurn, Fight, FollowUp
from blowbyblow.domain.wh40k.events import (
    BaseContactLeft,
    Charged,
    CombatScoreCalculated,
    FollowUpAllowed,
    FollowUpMove,
    RoundWon,
    Stalemate,
)
from blowbyblow.domain.wh40k.legal import legal_commands
from blowbyblow.domain.wh40k.rulings import RULINGS
from blowbyblow.domain.wh40k.system import GAME_SYSTEM
from blowbyblow.replay.battles.record import record
from blowbyblow.replay.battles.whatif import what_if
from blowbyblow.replay.store.log import BattleStore

from bxbtest import diverges, reads_as_recorded, refused_whole

FIXTURES = Path(__file__).resolve().parent / "fixtures"
NEW = {"charge-bonus-against", "broken-charge", "no-ws-opponents"}


def test_version_1_4_reads_every_earlier_version() -> None:
    assert (GAME_SYSTEM.version, GAME_SYSTEM.reads_versions) == (
        "1.4",
        ("1.0", "1.1", "1.2", "1.3"),
    )
    assert {r.name for r in RULINGS if r.since == "1.4"} == NEW
    in_force = GAME_SYSTEM.rulings_in_force("1.3", {r.name: r.default for r in RULINGS})
    assert in_force["charge-bonus-against"] == "charged-model"  # recorded values are kept
    old = {r.name: r.default for r in RULINGS if r.name not in NEW}
    filled = GAME_SYSTEM.rulings_in_force("1.3", old)
    assert {n: filled[n] for n in NEW} == {
        "charge-bonus-against": "any-opponent",
        "broken-charge": "refused",
        "no-ws-opponents": "count",
    }


# --- charge-bonus-against ---------------------------------------------------------------------

CHARGE_THEN_FOLLOW_UP = setup(
    model("a", "red"), model("b", "blue"), model("c", "blue"), first_player="red"
)
COMMANDS: list[Any] = [
    Charge(model="a", target="b"),
    Fight(model="a"),
    FollowUp(model="a", engage=("c",)),
    Fight(model="a"),
]


@pytest.mark.parametrize(("ruling", "score_against_c"), [("charged-model", 7), ("any-opponent", 8)])
def test_the_charge_bonus_against_a_model_engaged_by_a_follow_up_move(
    ruling: str, score_against_c: int
) -> None:
    """Follow-Up Moves: "This move can be used to engage another model (or multiple models) in
    Hand-to-Hand Combat - but does not apply the Combat Score Modifier for charging." a charges
    b: 6 + WS 4 + 1 for charging = 11 against b's 2 + 4; five hits, the first wound (5) slays b.
    a follows up into c and fights it this phase (follow-up-fights = this-phase): a's 3 + 4,
    with the charge bonus only under any-opponent (1.3's reading), against c's 4 + 4.
    charged-model: 7 against 8, c wins one hit (a's wound roll 2 fails); any-opponent: 8 all,
    equal Initiative, a stalemate."""
    dice = [6, 2, 5, 3, 4] + ([2] if ruling == "charged-model" else [])
    played = run(
        CHARGE_THEN_FOLLOW_UP,
        COMMANDS,
        dice,
        rulings={"follow-up-fights": "this-phase", "charge-bonus-against": ruling},
    )
    a_scores = [e.score for e in of(played, CombatScoreCalculated) if e.model == "a"]
    assert a_scores == [11, score_against_c]
    if ruling == "charged-model":
        assert one(played, RoundWon, winner="c").hits == 1
    else:
        assert len(of(played, Stalemate)) == 1


# --- broken-charge ----------------------------------------------------------------------------

BREAK_AWAY = setup(
    model("a", "red"),
    model("b", "blue", squad="lost"),
    model("c", "red"),
    contacts=[("a", "b")],
    first_player="red",
)
# b breaks off (WS 0): a's 1 (a Fumble: b +1) + 4 = 5 against b's 6 + 0 + 1 = 7: b wins two hits
# (wound rolls 1, 1: none), survives and escapes 2D6 (3, 4), Broken; blue's turn: b charges c.
BREAK_DICE = [1, 6, 1, 1, 3, 4]
BREAK_COMMANDS: list[Any] = [
    BreakOff(model="b"),
    Fight(model="a"),
    EndTurn(),
    Charge(model="b", target="c"),
]


def test_a_broken_model_may_not_charge_by_default_and_nothing_is_written() -> None:
    """Breaking Off: "The retreating model and its squad are automatically Broken and may not
    attempt to Rally until the following turn"; what else Broken forbids is outside the
    chapter (ruling broken-charge, default refused): b's charge is refused, nothing is written,
    and it is not offered."""
    scenario = Scenario(
        ruleset="wh40k-2e",
        label="refused",
        setup=BREAK_AWAY,
        commands=BREAK_COMMANDS,
        dice=BREAK_DICE,
    )
    assert "Broken and may not charge" in str(refused_whole(scenario))
    played = run(BREAK_AWAY, BREAK_COMMANDS[:3], BREAK_DICE)
    assert played.state.models["b"].broken
    offered = [o for o in legal_commands(played.state) if o.type == "charge"]
    assert "b" not in [o.actor for o in offered]
    allowed = legal_commands(played.state, {"broken-charge": "allowed"})
    assert "b" in [o.actor for o in allowed if o.type == "charge"]


def test_a_broken_model_charges_when_allowed_and_a_what_if_refuses_it() -> None:
    """Under broken-charge = allowed the Broken b charges c; the same battle under the default
    stops at that charge."""
    store = BattleStore(":memory:")
    scenario = Scenario(
        ruleset="wh40k-2e",
        label="allowed",
        setup=BREAK_AWAY,
        commands=BREAK_COMMANDS,
        rulings={"broken-charge": "allowed"},
        dice=BREAK_DICE,
    )
    recorded = record(store, scenario, quiet=True)
    charged = [e.event for e in recorded.events if isinstance(e.event, Charged)]
    assert [e.model for e in charged] == ["b"]
    refused = what_if(store.read(recorded.battle), {"broken-charge": "refused"})
    assert refused.stopped


# --- no-ws-opponents --------------------------------------------------------------------------

BESIDE_A_WALKER = setup(
    model("a", "red"),
    model("b", "blue"),
    model("v", "blue", ws="-"),
    contacts=[("a", "b"), ("a", "v")],
    first_player="red",
)


@pytest.mark.parametrize(("ruling", "follows_up"), [("count", False), ("ignored", True)])
def test_a_model_still_touching_one_with_no_weapon_skill(ruling: str, follows_up: bool) -> None:
    """Follow-Up Moves: "If a model has killed all of its Hand-to-Hand Combat opponents, it may
    immediately make a Follow-Up Move"; Who Fights: only "models with a Weapon Skill value ...
    fight in Hand-to-Hand Combat". a slays b (6 + 4 against 2 + 4, the first wound 5) and
    still touches v, which has no Weapon Skill value. count (1.3): v is an opponent not
    killed, no Follow-Up Move; ignored: a may follow up, and its move leaves v."""
    played = run(
        BESIDE_A_WALKER, [Fight(model="a")], [6, 2, 5], rulings={"no-ws-opponents": ruling}
    )
    allowed = of(played, FollowUpAllowed)
    assert len(allowed) == int(follows_up)
    if not follows_up:
        return
    assert allowed[0].killed == ("b",)
    moved = run(
        BESIDE_A_WALKER,
        [Fight(model="a"), FollowUp(model="a", inches=Decimal(2))],
        [6, 2, 5],
        rulings={"no-ws-opponents": ruling},
    )
    assert one(moved, BaseContactLeft).left == ("v",)
    assert one(moved, FollowUpMove).engaged == ()
    assert moved.state.contacts == ()


def test_a_follow_up_may_stay_with_the_model_with_no_weapon_skill() -> None:
    """Under ignored, a Follow-Up Move "in any direction" that engages v again keeps it."""
    moved = run(
        BESIDE_A_WALKER,
        [Fight(model="a"), FollowUp(model="a", inches=Decimal(1), engage=("v",))],
        [6, 2, 5],
        rulings={"no-ws-opponents": "ignored"},
    )
    assert of(moved, BaseContactLeft) == []
    assert moved.state.contacts == (("a", "v"),)


# --- records of 1.3 ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "ruling", "other"),
    [
        ("charge-bonus-after-follow-up", "charge-bonus-against", "charged-model"),
        ("no-ws-opponent-left", "no-ws-opponents", "ignored"),
    ],
)
def test_a_battle_of_1_3_verifies_under_1_4_and_the_other_reading_changes_it(
    name: str, ruling: str, other: str
) -> None:
    """Battles recorded by 1.3, each on a reading 1.4 made a ruling: the ruling takes 1.3's
    reading for them, so they re-adjudicate byte for byte; a what-if under the other reading
    goes otherwise."""
    before = {r.name: r.before for r in RULINGS if r.since == "1.4"}
    events = reads_as_recorded(FIXTURES / f"wh40k-2e-1.3-{name}.jsonl", "1.3", before)
    assert diverges(events, {ruling: other})
