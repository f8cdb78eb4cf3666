"""The Necromunda charges' branches that meet since the thirteenth sitting, each by a claim
about the rules, and what would go wrong if a claim said more than the rules do.

- Flesh Wounds of a fighter no attack left in the command can hit (``odds.unread`` with
  ``Struck``): once the attacker's hits are resolved, only the Reaction attacks (each at an
  enemy of its maker) and step 8's Coup de Grace (at a Seriously Injured fighter) are left.
- A Hit roll's natural, total and note only recorded (``Recorded``) while the older rules'
  Ammo check for a pistol is rolled between the roll and its events.
- The wounds of such a fighter, and of one Out of Action (fourteenth sitting): the outcome
  shows them (wounds lost), so a branch that meets a node takes them from its own state
  (``sums.settled``), and a way that misses the target only by them is kept (``sums.missed``).
- The older rules' Firepower dice and Ammo check of a pistol, explored once (fifteenth sitting:
  ``OddsRules.unread_rolls``): they only mark the pistol out of ammo, read no more in the
  command by its fighter, who has chosen its weapons."""

from __future__ import annotations

import dataclasses
from typing import Any, cast

import msgspec
import pytest
from test_sharing import DEMOS, GRAPH_BUDGET, _plain, _prepared

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.domain.necromunda.combat import NerveLog
from blowbyblow.domain.necromunda.odds import Done, unread
from blowbyblow.domain.necromunda.state import OUT_OF_ACTION, SERIOUSLY_INJURED
from blowbyblow.replay.odds import sharing
from blowbyblow.replay.odds.answers import Margins, Weights
from blowbyblow.replay.odds.chance import Explorer
from blowbyblow.replay.odds.outcomes import Outcome
from blowbyblow.replay.odds.sharing import Sharer


def _demo(name: str) -> tuple[Any, Any, Any, Any]:
    [(_, sc, number)] = [d for d in DEMOS if d[0] == name]
    return _prepared(sc, number)


def _brawl(count: str, brak: str | None = None) -> tuple[Any, Any]:
    """The 2023 charge's state with Krug, Vex, Lia and Zia at 1 of ``count`` (Flesh Wounds or
    wounds), Lia Seriously Injured, Zia of a third gang, and Brak at status ``brak``."""
    measure, cmd, _, _ = _demo("necromunda-2023#1")
    fighters = dict(cmd.state.fighters)
    for fid in ("krug", "vex", "lia", "zia"):
        fighters[fid] = msgspec.structs.replace(fighters[fid], **{count: 1})
    fighters["lia"] = msgspec.structs.replace(fighters["lia"], status=SERIOUSLY_INJURED)
    fighters["zia"] = msgspec.structs.replace(fighters["zia"], gang="cawdor")
    if brak is not None:
        fighters["brak"] = msgspec.structs.replace(fighters["brak"], status=brak, **{count: 1})
    return measure, msgspec.structs.replace(cmd.state, fighters=fighters)


def test_flesh_wounds_are_unread_where_no_attack_left_can_hit() -> None:
    """Krug's charge, his hits resolved, Vex and Lia (Escher) about to react: Vex, Standing,
    is hit by nobody else in the command (the reactors' targets are their enemies, Krug's
    side; the Coup de Grace only a Seriously Injured fighter), so her Flesh Wounds are
    written alike; Krug's are kept (both react at him), as are a Seriously Injured Escher's
    (a Coup de Grace reads them) and those of a fighter of a third gang (a reactor may
    choose it). Before the hits are resolved (no reactors noted) every one is kept. The
    outcome shows none of them (only the wounds lost, written alike too: next test)."""
    measure, state = _brawl("flesh_wounds")

    read = unread(state, Done(frozenset({"krug"}), ("vex", "lia"))).fighters
    assert read["vex"].flesh_wounds == 0
    assert [read[f].flesh_wounds for f in ("krug", "lia", "zia")] == [1, 1, 1]
    assert unread(state, Done(frozenset({"krug"}))) == state
    alike = unread(state, Done(frozenset({"krug"}), ("vex",)))
    shown = [u._replace(wounds_lost=0) for u in measure.final(alike)]
    assert shown == [u._replace(wounds_lost=0) for u in measure.final(state)]
    # nobody reacts: only a Seriously Injured fighter can still be hit (the Coup de Grace)
    none = unread(state, Done(frozenset({"krug"}), ())).fighters
    assert [none[f].flesh_wounds for f in ("krug", "vex", "lia", "zia")] == [0, 0, 1, 0]


def test_wounds_are_unread_where_no_attack_left_can_hit_and_out_of_action() -> None:
    """The same fighters' wounds are written alike (Vex's once she and Lia react at Krug), and
    an Out of Action fighter's (a hit on it is lost unread, N23 CC 6); Krug's, a Seriously
    Injured fighter's and a third gang's are kept. The outcome shows them (wounds lost): the
    graph takes them from each branch's own state (next tests)."""
    measure, state = _brawl("wounds", brak=OUT_OF_ACTION)

    read = unread(state, Done(frozenset({"krug"}), ("vex", "lia"))).fighters
    assert [read[f].wounds for f in ("vex", "brak")] == [0, 0]
    assert [read[f].wounds for f in ("krug", "lia", "zia")] == [1, 1, 1]
    before = unread(state, Done(frozenset({"krug"}))).fighters
    assert [before[f].wounds for f in ("krug", "vex", "lia", "zia", "brak")] == [1, 1, 1, 1, 0]
    alike = unread(state, Done(frozenset({"krug"}), ("vex",)))
    assert measure.final(alike) != measure.final(state)  # wounds lost: shown


@pytest.mark.parametrize("name", ["necromunda-2023#2", "necromunda-legacy#2"])
def test_every_outcome_watched_for_is_the_trees(name: str) -> None:
    """The fights, each of their outcomes in turn as the one watched for (what happened):
    its probability is the tree's, where a node explored from a branch whose wounds lost miss
    the target is met by one whose wounds lost are the target's (and the other way round).
    Without the ways that miss the target only by wounds lost, 42 of the 2023 fight's 110
    outcomes get another probability."""
    measure, cmd, group, _ = _demo(name)
    tree = Explorer(cmd, budget=GRAPH_BUDGET, group=group, counts=False).explore().dist
    outcomes = cast(list[Outcome], list(tree))
    weights = Weights(outcomes, [tree[o] for o in outcomes], exact=True)
    for target in outcomes:
        expected = Margins.of_joint(measure, weights, target).happened
        assert (
            Sharer(cmd, measure, budget=GRAPH_BUDGET, group=group, target=target).margins().happened
            == expected
        ), target


@pytest.mark.parametrize("name", ["necromunda-2023#1", "necromunda-legacy#1"])
def test_the_charges_answers_are_the_whole_states(name: str) -> None:
    """Both charges, every claim on: the answer of the graph that writes the whole state
    (``unread=False``) and every recorded value by value (``recorded=False``), fraction for
    fraction, in fewer runs than the first and no more than the second."""
    measure, cmd, group, target = _demo(name)
    kw: dict[str, Any] = {"budget": 4 * GRAPH_BUDGET, "group": group, "target": target}
    alike = Sharer(cmd, measure, **kw)
    whole = Sharer(cmd, measure, unread=False, **kw)
    by_value = Sharer(cmd, measure, recorded=False, **kw)
    answer = _plain(alike.margins())
    assert _plain(whole.margins()) == answer
    assert _plain(by_value.margins()) == answer
    assert alike.runs < whole.runs
    assert alike.runs <= by_value.runs
    if name == "necromunda-legacy#1":
        # Recorded values part nodes only at the older rules' Ammo check (none in 2023), which
        # is explored once (``unread_rolls``): they save runs where its every face is explored.
        every = _with_rolls_unread(measure, ())
        with_record, by_number = Sharer(cmd, every, **kw), Sharer(cmd, every, recorded=False, **kw)
        assert _plain(with_record.margins()) == _plain(by_number.margins()) == answer
        assert alike.runs < with_record.runs < by_number.runs
    unwatched = Sharer(cmd, measure, **{**kw, "target": None})
    assert _plain(unwatched.margins())[:2] == answer[:2]
    assert unwatched.runs == alike.runs


def test_a_node_met_with_other_wounds_lost_takes_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above fails if a node met again kept the wounds lost of the branch
    that explored it (Vex's, written alike once she is hit by no attack left)."""
    measure, cmd, group, target = _demo("necromunda-2023#1")
    whole = Sharer(cmd, measure, budget=GRAPH_BUDGET, group=group, target=target, unread=False)
    expected = _plain(whole.margins())
    monkeypatch.setattr(sharing.Sharer, "_settled", lambda self, value, explored, here: value)
    kept = Sharer(cmd, measure, budget=GRAPH_BUDGET, group=group, target=target)
    assert _plain(kept.margins()) != expected


def test_claiming_wounds_a_later_step_changes_unread_raises() -> None:
    """Krug's wounds claimed unread once Krug's hits are resolved (Vex's and Lia's Reaction
    attacks take them): the graph finds a node's wounds lost changed below it and says so."""
    measure, cmd, group, target = _demo("necromunda-2023#1")

    def krugs_wounds_too(state: Any, done: Done | None) -> Any:
        state = unread(state, done)
        if done is None or not done.reactors:
            return state
        fighters = dict(state.fighters)
        fighters["krug"] = msgspec.structs.replace(fighters["krug"], wounds=0)
        return msgspec.structs.replace(state, fighters=fighters)

    odds = dataclasses.replace(measure.system.odds, unread=krugs_wounds_too)
    wrong = dataclasses.replace(measure, system=dataclasses.replace(measure.system, odds=odds))
    with pytest.raises(BlowByBlowError, match="wounds lost, which a later step changed") as e:
        Sharer(cmd, wrong, budget=GRAPH_BUDGET, group=group, target=target).margins()
    # one line, as every refusal (``bxb odds`` says a BlowByBlowError as its message)
    assert "\n" not in str(e.value)
    assert str(e.value).startswith("the game system's odds claims are false here")


def test_claiming_the_attackers_side_unread_too_changes_the_answer() -> None:
    """The comparison above can fail: claimed as if nobody reacted (every fighter but a
    Seriously Injured one hit by no attack left once Krug's hits are resolved), Krug's Flesh
    Wounds, which Vex's and Lia's Wound rolls read as his Toughness, merge branches that go
    on otherwise, and the 2023 charge's answer changes."""
    measure, cmd, group, target = _demo("necromunda-2023#1")

    def as_if_nobody_reacted(state: Any, done: Done | None) -> Any:
        if done is not None and done.reactors is not None:
            done = Done(done.chose, ())
        alike = unread(state, done)
        # their wounds kept (claimed too, the graph would raise: the next test)
        fighters = {
            fid: msgspec.structs.replace(f, wounds=state.fighters[fid].wounds)
            for fid, f in alike.fighters.items()
        }
        return msgspec.structs.replace(alike, fighters=fighters)

    odds = dataclasses.replace(measure.system.odds, unread=as_if_nobody_reacted)
    wrong = dataclasses.replace(measure, system=dataclasses.replace(measure.system, odds=odds))
    claimed = Sharer(cmd, wrong, budget=GRAPH_BUDGET, group=group, target=target)
    whole = Sharer(cmd, measure, budget=GRAPH_BUDGET, group=group, target=target, unread=False)
    assert _plain(claimed.margins()) != _plain(whole.margins())


def _fight_with_lia_wounded(effect: str) -> tuple[Any, Any, Any]:
    """The 2023 fight (Krug's axe at Lia) under ruling ``coup-de-grace-effect`` at ``effect``,
    Lia with a Flesh Wound already: one more and a Coup de Grace's Injury dice take her Out of
    Action where her first would not."""
    [(_, sc, number)] = [d for d in DEMOS if d[0] == "necromunda-2023#2"]
    sc = msgspec.structs.replace(sc, rulings={**sc.rulings, "coup-de-grace-effect": effect})
    measure, cmd, group, _ = _prepared(sc, number)
    fighters = dict(cmd.state.fighters)
    fighters["lia"] = msgspec.structs.replace(fighters["lia"], flesh_wounds=1)
    state = msgspec.structs.replace(cmd.state, fighters=fighters)
    return measure, dataclasses.replace(cmd, state=state), group


def test_a_seriously_injured_fighters_flesh_wounds_are_read_only_by_injury_dice() -> None:
    """A Seriously Injured fighter no reactor can hit is hit only by step 8's Coup de Grace
    (N23 / N17 CC 8), which reads nothing of it but its status where it takes it Out of
    Action at once (ruling ``coup-de-grace-effect``, the default): its Flesh Wounds and
    wounds are written alike then, and kept where the Coup de Grace rolls Injury dice. Both
    answers are the whole state's; claimed under ``injury-dice`` too, the answer changes."""
    _, cmd, _ = _fight_with_lia_wounded("out-of-action")
    fighters = dict(cmd.state.fighters)
    fighters["lia"] = msgspec.structs.replace(fighters["lia"], status=SERIOUSLY_INJURED)
    state = msgspec.structs.replace(cmd.state, fighters=fighters)
    assert unread(state, Done(frozenset(), (), injures=False)).fighters["lia"].flesh_wounds == 0
    assert unread(state, Done(frozenset(), (), injures=True)).fighters["lia"].flesh_wounds == 1

    for effect in ("out-of-action", "injury-dice"):
        measure, cmd, group = _fight_with_lia_wounded(effect)
        whole = _plain(
            Sharer(cmd, measure, budget=GRAPH_BUDGET, group=group, unread=False).margins()
        )
        assert _plain(Sharer(cmd, measure, budget=GRAPH_BUDGET, group=group).margins()) == whole

    def as_if_out_at_once(state: Any, done: Done | None) -> Any:
        return unread(state, None if done is None else done._replace(injures=False))

    odds = dataclasses.replace(measure.system.odds, unread=as_if_out_at_once)
    wrong = dataclasses.replace(measure, system=dataclasses.replace(measure.system, odds=odds))
    assert _plain(Sharer(cmd, wrong, budget=GRAPH_BUDGET, group=group).margins()) != whole


def _with_rolls_unread(measure: Any, patterns: tuple[str, ...]) -> Any:
    """``measure`` with the game system's ``unread_rolls`` claim made of ``patterns``."""
    odds = dataclasses.replace(measure.system.odds, unread_rolls=patterns)
    return dataclasses.replace(measure, system=dataclasses.replace(measure.system, odds=odds))


def _trees_answer(measure: Any, cmd: Any, group: Any, target: Any) -> Any:
    """The command's answer as the tree gives it (every face of every roll explored)."""
    tree = Explorer(cmd, budget=4 * GRAPH_BUDGET, group=group, counts=False).explore().dist
    outcomes = cast(list[Outcome], list(tree))
    weights = Weights(outcomes, [tree[o] for o in outcomes], exact=True)
    return _plain(Margins.of_joint(measure, weights, target))


def _legacy_fight(face: str, ammo: int | None = None) -> tuple[Any, Any, Any, Any]:
    """The older fight (Krug's axe and stub gun at Lia: the stub gun's Firepower dice, and an
    Ammo check on the ammo symbol) under ruling ``firepower-ammo-face`` at ``face``, the stub
    gun's Ammo value at ``ammo`` (None: the demo's 4+)."""
    [(_, sc, number)] = [d for d in DEMOS if d[0] == "necromunda-legacy#2"]
    sc = msgspec.structs.replace(sc, rulings={**sc.rulings, "firepower-ammo-face": face})
    measure, cmd, group, target = _prepared(sc, number)
    if ammo is not None:
        fighters = dict(cmd.state.fighters)
        krug = fighters["krug"]
        weapons = tuple(
            msgspec.structs.replace(w, ammo=ammo) if w.id == "stub-gun" else w for w in krug.weapons
        )
        fighters["krug"] = msgspec.structs.replace(krug, weapons=weapons)
        state = msgspec.structs.replace(cmd.state, fighters=fighters)
        cmd = dataclasses.replace(cmd, state=state)
    return measure, cmd, group, target


@pytest.mark.parametrize(("face", "ammo"), [("6", None), ("1", None), ("1", 6)])
def test_a_pistols_firepower_and_ammo_check_are_explored_once(face: str, ammo: int | None) -> None:
    """The older rules' pistol in close combat rolls its Firepower dice, and an Ammo check on
    the ammo symbol, only to mark it out of ammo (N17 CC Pistols at Close Quarters), which its
    fighter, having chosen its weapons for the command (step 2), reads no more in it; the
    outcome shows neither (``OddsRules.unread_rolls``). Explored once each, by the first face
    (with the ammo symbol on a 1: the Ammo check rolled, failed at 6+, the stub gun out of
    ammo in that branch alone), the answer is the tree's, which explores every face, and the
    whole state's, in fewer runs than with every face explored."""
    measure, cmd, group, target = _legacy_fight(face, ammo)
    expected = _trees_answer(measure, cmd, group, target)
    kw: dict[str, Any] = {"budget": GRAPH_BUDGET, "group": group, "target": target}
    once = Sharer(cmd, measure, **kw)
    assert _plain(once.margins()) == expected
    assert _plain(Sharer(cmd, measure, unread=False, **kw).margins()) == expected
    every = Sharer(cmd, _with_rolls_unread(measure, ()), **kw)
    assert _plain(every.margins()) == expected
    assert once.runs < every.runs


def test_claiming_a_roll_read_later_unread_changes_the_answer() -> None:
    """The comparison above can fail: the same claim made of the Nerve tests, whose result
    (Broken) a later Reaction attack reads and the outcome shows, gives the 2023 fight
    another answer than the tree's."""
    [(_, sc, number)] = [d for d in DEMOS if d[0] == "necromunda-2023#2"]
    measure, cmd, group, target = _prepared(sc, number)
    expected = _trees_answer(measure, cmd, group, target)
    kw: dict[str, Any] = {"budget": GRAPH_BUDGET, "group": group, "target": target}
    assert _plain(Sharer(cmd, measure, **kw).margins()) == expected
    wrong = _with_rolls_unread(measure, ("nerve/*", "*/nerve/*"))
    assert _plain(Sharer(cmd, wrong, **kw).margins()) != expected


def test_the_yaq_note_of_a_fighter_out_of_action_is_let_go(monkeypatch: pytest.MonkeyPatch) -> None:
    """The older rules' YAQ reads who became Seriously Injured in the activation only for the
    target of the free Coup de Grace, which is Seriously Injured (N17 CC 8 YAQ): a fighter
    taken Out of Action otherwise is read there no more, and its note is let go
    (``NerveLog.out_of_action``). The older charge's branches that differ only in it meet: the
    same answer as with every note kept, in fewer runs. (Let go for the Coup de Grace's own
    target too, the YAQ would not skip: tests/necromunda's YAQ test.)"""
    measure, cmd, group, target = _demo("necromunda-legacy#1")
    kw: dict[str, Any] = {"budget": 4 * GRAPH_BUDGET, "group": group, "target": target}
    let_go = Sharer(cmd, measure, **kw)
    answer = _plain(let_go.margins())
    monkeypatch.setattr(NerveLog, "out_of_action", lambda self, fighter: None)
    kept = Sharer(cmd, measure, **kw)
    assert _plain(kept.margins()) == answer
    assert let_go.runs < kept.runs
