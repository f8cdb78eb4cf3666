"""What version 1.1 changed in how the commands of 1.0 are adjudicated, each a ruling with
``since="1.1"`` whose ``before`` value gives 1.0's reading back: a Broken fighter's Coup de Grace,
the older rules' Coup de Grace inside the vision arc, and their Reaction attacks "steps 1 to 5"
against "steps 1-6". Worked examples with listed dice."""

from __future__ import annotations

import pytest
from necro_helpers import CoupDeGraceAction, Fight, fighter, of, one, run, setup

from blowbyblow.domain.core import ChoiceMade, RuleViolation
from blowbyblow.domain.necromunda import events as ev
from blowbyblow.domain.necromunda.legal import legal_commands
from blowbyblow.domain.necromunda.state import OUT_OF_ACTION, SERIOUSLY_INJURED, initial_state
from blowbyblow.replay.engine.registry import get_game_system

BOTH = ("necromunda-2023", "necromunda-legacy")
LEGACY = "necromunda-legacy"


@pytest.mark.parametrize("ruleset", BOTH)
def test_a_broken_fighter_makes_no_coup_de_grace(ruleset: str) -> None:
    """Broken fighters (Running for Cover): a Broken fighter must Run for Cover whenever it is
    activated; it may not Fight or Charge, and (since 1.1) it may not make a Coup de Grace
    (Simple) action either. Ruling broken-coup-de-grace, as-1.0: the action was accepted."""
    s = setup(
        [
            fighter("k", "g", broken=True, vision=["b"]),
            fighter("b", "e", status=SERIOUSLY_INJURED),
        ],
        [("k", "b")],
    )
    cdg = CoupDeGraceAction(attacker="k", target="b")
    with pytest.raises(RuleViolation, match="Broken and must Run for Cover") as refused:
        run(s, [cdg], [], ruleset=ruleset)
    assert refused.value.rule.endswith(" Broken")
    old = run(s, [cdg], [], ruleset=ruleset, rulings={"broken-coup-de-grace": "as-1.0"})
    assert old.state.fighters["b"].status == OUT_OF_ACTION
    # it is never offered
    assert not [o for o in legal_commands(initial_state(s), {}) if o.actor == "k"]


def test_the_older_coup_de_grace_needs_the_target_in_the_vision_arc() -> None:
    """Rules before 2023, Actions: Coup de Grace (Simple): the fighter chooses a Seriously
    Injured enemy within 1" and inside its vision arc, and that enemy goes Out of Action.
    Ruling coup-de-grace-vision-arc, as-1.0: the arc was not checked."""
    s = setup(
        [fighter("a", "g", vision=[]), fighter("b", "e", status=SERIOUSLY_INJURED)],
        [("a", "b")],
    )
    cdg = CoupDeGraceAction(attacker="a", target="b")
    with pytest.raises(RuleViolation, match="not inside a's vision arc"):
        run(s, [cdg], [], ruleset=LEGACY)
    old = run(s, [cdg], [], ruleset=LEGACY, rulings={"coup-de-grace-vision-arc": "as-1.0"})
    assert old.state.fighters["b"].status == OUT_OF_ACTION
    seen = setup(
        [fighter("a", "g", vision=["b"]), fighter("b", "e", status=SERIOUSLY_INJURED)],
        [("a", "b")],
    )
    assert run(seen, [cdg], [], ruleset=LEGACY).state.fighters["b"].status == OUT_OF_ACTION
    # 2023 names no vision arc for its Coup de Grace
    assert run(s, [cdg], []).state.fighters["b"].status == OUT_OF_ACTION
    # what is offered follows the ruling in force
    legacy = get_game_system(LEGACY)
    rulings = legacy.resolve_rulings({})
    state = initial_state(s)
    assert not [o for o in legal_commands(state, rulings) if o.type == "coup-de-grace"]
    rulings["coup-de-grace-vision-arc"] = "as-1.0"
    assert [o for o in legal_commands(state, rulings) if o.type == "coup-de-grace"]


def test_the_older_free_coup_de_grace_at_step_8_needs_the_arc_too() -> None:
    """Step 8 offers 'a free Coup de Grace (Simple) action against a Seriously Injured fighter
    in B2B': the same action, so the same vision arc. c, Seriously Injured behind a, is not
    offered; only consolidation is."""
    s = setup(
        [
            fighter("a", "g", vision=["b"]),
            fighter("b", "e", vision=["a"]),
            fighter("c", "e", status=SERIOUSLY_INJURED),
        ],
        [("a", "b"), ("a", "c")],
    )
    # a hits b (5), wounds (6), Injury dice 6: Out of Action. a is no longer Engaged.
    played = run(s, [Fight(attacker="a", targets=("b",))], [5, 6, 6], ruleset=LEGACY)
    asked = next(c for c in of(played, ChoiceMade) if c.key == "c1/step8")
    assert asked.options == ("consolidate", "none")
    assert of(played, ev.CoupDeGrace) == []
    old = run(
        s,
        [Fight(attacker="a", targets=("b",))],
        [5, 6, 6],
        ruleset=LEGACY,
        rulings={"coup-de-grace-vision-arc": "as-1.0"},
    )
    assert one(old, ev.CoupDeGrace).target == "c"


def test_reaction_attacks_steps_1_to_5_or_1_to_6() -> None:
    """Rules before 2023: the list of steps reads "7. Reaction Attacks (steps 1 to 5)", the
    step itself "each of them can make Reaction attacks, following steps 1-6". Ruling
    reaction-attack-steps: steps-1-6 (default, version 1.0) resolves their hits; steps-1-5
    rolls them and resolves none."""
    s = setup([fighter("a", "g", vision=["b"]), fighter("b", "e", vision=["a"])], [("a", "b")])
    # a misses (2); b reacts: hit 5, wound 6, Injury dice 6 under steps 1-6
    cmd = Fight(attacker="a", targets=("b",))
    full = run(s, [cmd], [2, 5, 6, 6], ruleset=LEGACY)
    assert full.state.fighters["a"].status == OUT_OF_ACTION
    short = run(s, [cmd], [2, 5], ruleset=LEGACY, rulings={"reaction-attack-steps": "steps-1-5"})
    hit = of(short, ev.HitRolled)[-1]
    assert (hit.attacker, hit.hit) == ("b", True)
    discarded = one(short, ev.HitDiscarded)
    assert "steps 1 to 5" in discarded.reason and discarded.rule == "N17 CC 7"
    assert of(short, ev.WoundRolled) == []
    assert short.state.fighters["a"].status != OUT_OF_ACTION
