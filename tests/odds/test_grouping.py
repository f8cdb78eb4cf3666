"""What the exploration groups, and that grouping never changes an exact answer.

Equivalent faces (the traced ``Die``): the same distribution as running every face plainly, in
fewer runs. Order-insensitive rolls (the systems' claims): the same distribution of the state
after the command as exploring every ordering; and a false claim is caught."""

from __future__ import annotations

from collections.abc import Callable, Generator, Hashable
from fractions import Fraction
from typing import Any

import msgspec
import pytest
from odds_helpers import (
    GANGFIGHT,
    NECROMUNDA,
    PARRIED,
    WH40K,
    asl,
    explorer,
    parried,
    scenario,
    situation,
)

from blowbyblow.domain.core import BlowByBlowError, Step
from blowbyblow.domain.system import AnyScenario
from blowbyblow.replay.engine.driver import Adjudication
from blowbyblow.replay.odds.chance import (
    Die,
    Follow,
    RollNode,
    Subtree,
    Watched,
    canonical,
    count_faces,
    faces_of,
    ways_of,
)
from blowbyblow.replay.odds.explore import Situation
from blowbyblow.replay.odds.outcomes import Measure


def measured(at: Situation) -> Callable[[Adjudication], Hashable]:
    m = Measure(system=at.system, before=at.system.view(at.state))
    return lambda adj: m(adj.events, adj.state)


def whole_state(adj: Adjudication) -> Hashable:
    """The state after the command, every field of it, in canonical JSON."""
    return msgspec.json.encode(
        adj.state, enc_hook=lambda x: x.value if isinstance(x, Die) else x, order="sorted"
    )


NECRO_TWO_DICE = (
    NECROMUNDA.replace("a = 1", "a = 2")
    + """
[[fighters]]
id = "zia"
gang = "escher"
"""
)
SMALL_POOLS = GANGFIGHT.replace("att = 3", "att = 2").replace("arm = 4", "arm = 2")
# Varro breaks off from Gorg, who cannot wound him (S 1 against T 10): Attack dice, then 2D6".
BREAK_OFF = (
    WH40K.replace('type = "fight"\nmodel = "gorg"', 'type = "breakoff"\nmodel = "varro"')
    .replace("s = 4\nt = 4\ni = 3", "s = 1\nt = 4\ni = 3")
    .replace("s = 4\nt = 4\ni = 4", "s = 4\nt = 10\ni = 4")
    + '\n[[actions]]\ntype = "fight"\nmodel = "varro"\n'
)


def _necro_with_nerve() -> AnyScenario:
    """Zia is within 3" of Vex: when Vex goes down, she takes a Nerve test (2D6)."""
    return scenario(NECRO_TWO_DICE, within_3=[["vex", "zia"]])


TRACED_CASES: dict[str, tuple[Callable[[], AnyScenario], int, tuple[str, ...]]] = {
    "asl, open ground": (lambda: asl("open"), 1, ()),
    "asl, Ambush drs first": (lambda: asl("building"), 1, ()),
    "necromunda, one Attack dice": (lambda: scenario(NECROMUNDA), 1, ()),
    "wh40k-2e, a combat round": (lambda: scenario(WH40K), 1, ("RoundWon", "Stalemate")),
    "gangfight, small pools": (lambda: scenario(SMALL_POOLS), 1, ()),
}


@pytest.mark.parametrize("case", sorted(TRACED_CASES))
def test_grouping_equivalent_faces_changes_nothing_but_the_runs(case: str) -> None:
    make, number, until = TRACED_CASES[case]
    at = situation(make(), number)
    # Every face of a roll explored (no ``counts``): what the traced dice group, and only that.
    traced = explorer(at, measured(at), until=until, counts=False)
    plain = explorer(at, measured(at), until=until, traced=False, counts=False)
    assert traced.explore().dist == plain.explore().dist
    assert traced.runs < plain.runs


CLAIMS: dict[str, tuple[Callable[[], AnyScenario], int, set[str]]] = {
    "necromunda hit rolls and Nerve tests": (
        _necro_with_nerve,
        1,
        {"hit/knife/vex", "nerve/zia/vex/out", "nerve/zia/vex/prone"},
    ),
    "wh40k-2e Attack dice": (lambda: scenario(WH40K), 1, {"gorg-v-varro/attack/gorg"}),
    "wh40k-2e breaking off": (
        lambda: scenario(BREAK_OFF),
        2,
        {"breakoff/varro", "varro-v-gorg/attack/gorg"},
    ),
    "gangfight dice pools": (lambda: scenario(SMALL_POOLS), 1, {"fight/hit", "fight/armour"}),
}


@pytest.mark.parametrize("case", sorted(CLAIMS))
def test_an_order_insensitive_claim_holds_for_the_whole_state(case: str) -> None:
    """Exploring the claimed rolls as multisets gives the same distribution of the state after
    the command (every field) as exploring every ordering of their dice."""
    make, number, keys = CLAIMS[case]
    at = situation(make(), number)
    # Every face read (no ``counts``), so that only the order is grouped.
    grouped = explorer(at, whole_state, budget=20000, counts=False)
    ordered = explorer(at, whole_state, budget=20000, group=(), counts=False)
    assert grouped.explore().dist == ordered.explore().dist
    assert grouped.grouped_keys >= keys
    assert grouped.runs < ordered.runs


def test_a_false_claim_is_caught() -> None:
    """A CC DR is not order-insensitive: its colored die alone decides whether an eliminated
    unit's Support Weapon is lost too (A11.13). Claimed anyway, the odds change."""
    text = asl("open")
    units = [
        msgspec.structs.replace(u, sws=["LMG"]) if u.id == "r" else u for u in text.setup.units
    ]
    sc = msgspec.structs.replace(text, setup=msgspec.structs.replace(text.setup, units=units))
    at = situation(sc)
    honest = explorer(at, measured(at)).explore().dist
    claimed = explorer(at, measured(at), group=("cc/*",)).explore().dist
    assert honest != claimed


def test_multisets_carry_their_multinomial_weights() -> None:
    """3D6 as multisets: 56 outcomes, their weights the number of orderings over 216."""
    faces = list(faces_of(RollNode(key="k", n=3, sides=6, purpose=""), grouped=True))
    assert len(faces) == 56
    assert sum(w for _, w in faces) == 1
    weights = dict(faces)
    assert weights[(1, 1, 1)] * 216 == 1
    assert weights[(1, 1, 2)] * 216 == 3
    assert weights[(1, 2, 3)] * 216 == 6


# Saves read only as reaching the save less the AP (Vex's 2+ against a knife at AP -1, Krug's
# 2+ against unarmed Reaction attacks: a natural 1 fails below it already), Hit rolls with
# natural 6s that always hit.
NECRO_SAVES = (
    NECROMUNDA.replace("ws = 4\na = 1", "ws = 4\na = 2\nsave = 2")
    .replace(
        'status = "Standing & Engaged"\n\n[[actions]]',
        'status = "Standing & Engaged"\nsave = 2\nws = 5\n\n[[actions]]',
    )
    .replace(
        '{ id = "knife", traits = ["Melee"] }', '{ id = "knife", ap = -1, traits = ["Melee"] }'
    )
)

COUNTED: dict[str, Callable[[], AnyScenario]] = {
    "gangfight pools of 3 and 4": lambda: scenario(GANGFIGHT),
    "gangfight small pools": lambda: scenario(SMALL_POOLS),
    "necromunda Injury dice": lambda: scenario(NECROMUNDA),
    "necromunda Injury dice, two Attacks": lambda: scenario(NECRO_TWO_DICE),
    "necromunda saves and natural sixes": lambda: scenario(
        NECRO_SAVES, rulings={"hit-natural-six": "always-hits"}
    ),
}


@pytest.mark.parametrize("case", sorted(COUNTED))
def test_a_roll_read_by_counts_gives_every_face_s_answer(case: str) -> None:
    """Rolls that say what the rules read of them (``Roll.counts``: a Gangfight pool, how many
    meet the TN and how many are 6s; a Necromunda Injury dice, its result): explored once per
    count, the state after the command is distributed as when every face is explored, in fewer
    runs."""
    at = situation(COUNTED[case](), 1)
    counted = explorer(at, whole_state, budget=20000)
    every = explorer(at, whole_state, budget=20000, counts=False)
    assert counted.explore().dist == every.explore().dist
    assert counted.runs < every.runs


def test_a_false_counts_claim_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool claimed to be read only by its 6s (a 4 and a 5 told apart from a 1 by nothing)
    changes the odds: the Veteran's hits at 4+ are miscounted."""
    from blowbyblow.domain import core
    from blowbyblow.domain.gangfight import dice_pool

    at = situation(scenario(GANGFIGHT), 1)
    honest = explorer(at, whole_state).explore().dist

    def successes_only(
        key: str, n: int, sides: int, purpose: str, counts: tuple[int, ...]
    ) -> Generator[Step, Any, tuple[int, ...]]:
        return core.roll(key, n, sides, purpose, counts=(6,))

    monkeypatch.setattr(dice_pool, "roll", successes_only)
    claimed = explorer(at, whole_state).explore().dist
    assert honest != claimed


def test_counted_faces_carry_their_weights() -> None:
    """4D6 read by how many show 4+ and how many 6s: 15 outcomes, not 1,296; each weighs the
    ordered faces it stands for (one 6, one 4-5 and two 1-3: 4!/(1!1!2!) x 1 x 2 x 3^2 = 216);
    a face as rolled stands as its class's lowest face, sorted."""
    node = RollNode(key="k", n=4, sides=6, purpose="", counts=(4, 6))
    ways = dict(ways_of(node, grouped=False))
    assert len(ways) == count_faces(node, grouped=False) == 15
    assert sum(ways.values()) == 6**4
    assert ways[(1, 1, 4, 6)] == 216
    assert ways[(6, 6, 6, 6)] == 1 and ways[(1, 1, 1, 1)] == 81
    assert canonical(node, False, (5, 2, 6, 3)) == (1, 1, 4, 6)
    assert next(faces_of(node, grouped=False)) == ((1, 1, 1, 1), Fraction(81, 1296))


def test_a_die_records_what_the_rules_ask_of_it() -> None:
    facts: list = []  # type: ignore[type-arg]
    d = Die(4, ("d", 0, 0), facts)
    assert d + 1 >= 5 and not d == 1  # noqa: SIM201 - the comparison itself is under test
    assert [f for f, _ in facts] == [
        ("<=", ("c", 5), ("+", ("d", 0, 0), ("c", 1))),
        ("==", ("d", 0, 0), ("c", 1)),
    ]
    assert [t for _, t in facts] == [True, False]
    facts.clear()
    assert "FFSSSO"[d - 1] == "S" and f"{d}" == "4" and len({d}) == 1
    # an index, a string and a hash each pin the value: only a 4 may share this subtree
    assert [f for f, _ in facts] == [
        ("==", ("-", ("d", 0, 0), ("c", 1)), ("c", 3)),
        ("==", ("d", 0, 0), ("c", 4)),
        ("==", ("d", 0, 0), ("c", 4)),
    ]
    with pytest.raises(TypeError):
        _ = d + 0.5  # a number a fact cannot hold: the exploration falls back to plain dice


def test_an_error_of_the_rules_on_some_path_is_not_swallowed() -> None:
    at = situation(scenario(NECROMUNDA))
    calls = {"n": 0}

    def leaf(adj: Adjudication) -> Hashable:
        calls["n"] += 1
        if calls["n"] == 3:
            raise BlowByBlowError("the third outcome cannot be measured")
        return len(adj.events)

    with pytest.raises(BlowByBlowError, match="third outcome"):
        explorer(at, leaf).explore()


def test_following_a_path_notes_every_node_on_it_and_reuses_what_is_known() -> None:
    """Exploring from the root along a path notes the children of each node on the path, and
    exploring it again from the bottom up, reusing each subtree below, costs about one more run
    per node than exploring it once."""
    at = situation(scenario(NECRO_TWO_DICE), 1)
    first = explorer(at, measured(at))
    top = first.explore()
    # two hits (Krug's Attack dice, read by counts: each die shows its class's lowest face, and
    # a hit is a 3 at WS 3+ here), then the first face of every later roll
    path = first.run([(3, 3)]).answers
    deep = len(path)
    assert deep >= 4
    watched = Watched()
    along = explorer(at, measured(at))
    assert along.explore((), Follow(path=path, watched=watched)).dist == top.dist
    assert sorted(watched.children) == list(range(deep))
    bottom_up = explorer(at, measured(at))
    known: dict[int, Subtree] = {}
    for depth in range(deep - 1, -1, -1):
        known[depth] = bottom_up.explore(path[:depth], Follow(path=path, known=known))
    assert known[0].dist == top.dist
    assert bottom_up.runs <= first.runs - 1 + deep


def test_runs_that_stop_at_their_first_new_roll_find_the_same_odds() -> None:
    """The other way to walk the tree (each run stops at its first roll past its path, one run
    per node instead of one per leaf) gives the same distribution, in more runs."""
    at = situation(scenario(NECROMUNDA))
    to_leaf = explorer(at, measured(at))
    stopping = explorer(at, measured(at))
    stopping.to_leaf = False
    assert stopping.explore().dist == to_leaf.explore().dist
    assert stopping.runs > to_leaf.runs


# --- 40K Attack dice: read by their highest, their 1s and their 6s --------------------------------


@pytest.mark.parametrize("case", sorted(PARRIED))
def test_attack_dice_read_by_their_highest_give_every_face_s_answer(case: str) -> None:
    """A model's Attack dice say the rules read their highest (one more for each parry its
    opponent keeps) by their faces and the others only as 1s and 6s (``Roll.highest`` beside
    ``counts``): explored so, the round (parries, Fumbles, Critical Hits, the scores, who wins
    and by how many hits) comes out as when every face is explored, in fewer runs."""
    at = parried(case)
    until = ("HitsScored", "Stalemate")
    read = explorer(at, measured(at), until=until, budget=20000)
    every = explorer(at, measured(at), until=until, budget=20000, counts=False)
    assert read.explore().dist == every.explore().dist
    assert read.runs < every.runs


def test_attack_dice_claimed_read_by_their_highest_alone_when_parried_are_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Claimed read by their single highest although Varro's parry re-rolls it (the next
    highest then counts), Gorg's dice (1, 2, 5) and (1, 4, 5) would go on alike: the odds of
    the round change."""
    from blowbyblow.domain.wh40k import attack_dice

    at = parried("one parry")
    until = ("HitsScored", "Stalemate")
    honest = explorer(at, measured(at), until=until).explore().dist
    monkeypatch.setattr(attack_dice, "parries_against", lambda state, rnd, model: 0)
    claimed = explorer(at, measured(at), until=until).explore().dist
    assert honest != claimed


def test_dice_read_by_their_highest_carry_their_weights() -> None:
    """3D6 read by the highest, the 1s and the 6s: 19 outcomes, not 56 multisets; each weighs the
    ordered faces it stands for (a 5 highest, two dice of 2-5: 4^3 - 3^3 = 37 of 216); a face as
    rolled stands as its highest, the others as their class's lowest face, sorted. Read by the
    two highest (a parry): 37 outcomes."""
    node = RollNode(key="k", n=3, sides=6, purpose="", counts=(2, 6), highest=1)
    ways = dict(ways_of(node, grouped=False))
    assert len(ways) == count_faces(node, grouped=False) == 19
    assert sum(ways.values()) == 6**3
    assert ways[(2, 2, 5)] == 37
    assert ways[(1, 2, 6)] == 24  # a 1, a 2-5 and a 6 in any order: 3! x 4
    assert ways[(6, 6, 6)] == 1 and ways[(1, 1, 1)] == 1
    assert canonical(node, False, (5, 3, 4)) == (2, 2, 5)
    assert canonical(node, False, (6, 1, 4)) == (1, 2, 6)
    assert next(faces_of(node, grouped=False)) == ((1, 1, 1), Fraction(1, 216))
    parried = RollNode(key="k", n=3, sides=6, purpose="", counts=(2, 6), highest=2)
    assert count_faces(parried, grouped=False) == len(dict(ways_of(parried, False))) == 37
    assert canonical(parried, False, (5, 3, 4)) == (2, 4, 5)
    assert canonical(parried, False, (3, 3, 3)) == (2, 3, 3)
