"""Close combat attacks outside the normal sequence of the battle (version 1.1): Close Combat's
opening, "certain skills, gang tactics and the Mounted condition will also allow fighters to
make a close combat attack outside of the normal sequence of the battle", and "Whenever a
fighter makes a close combat attack ... this sequence is followed". Worked examples with listed
dice."""

from __future__ import annotations

import pytest
from necro_helpers import Gang, fighter, of, one, run, setup

from blowbyblow.domain.core import RuleViolation, SetupError
from blowbyblow.domain.necromunda import events as ev
from blowbyblow.domain.necromunda.commands import GrantedAttack
from blowbyblow.domain.necromunda.legal import command_from_option, legal_commands
from blowbyblow.domain.necromunda.projection import view
from blowbyblow.domain.necromunda.setup import NecromundaSetup, validate_setup
from blowbyblow.domain.necromunda.state import OUT_OF_ACTION, initial_state


def duel(**a: object) -> NecromundaSetup:
    """a (gang g, with tactic "Ambush") and b, engaged and facing each other."""
    s = setup([fighter("a", "g", vision=["b"], **a), fighter("b", "e", vision=["a"])], [("a", "b")])
    s.gangs[0] = Gang(id="g", tactics=["Ambush"])
    return s


@pytest.mark.parametrize(
    ("granted_by", "given", "source"),
    [
        ("Counter-attack", {"skills": ["Counter-attack"]}, "skill"),
        ("Ambush", {}, "gang tactic"),
        ("Mounted", {"mounted": True}, "Mounted"),
    ],
)
def test_a_skill_a_tactic_or_the_mounted_condition_grants_an_attack(
    granted_by: str, given: dict[str, object], source: str
) -> None:
    """The attack follows the sequence: steps 1 to 6, Reaction attacks (7), step 8."""
    # a: hit 4, wound 5, Injury dice 3 (Serious Injury); b cannot react; step 8: Coup de Grace
    played = run(duel(**given), [GrantedAttack(attacker="a", granted_by=granted_by)], [4, 5, 3])
    granted = one(played, ev.AttackGranted)
    assert (granted.fighter, granted.granted_by, granted.source) == ("a", granted_by, source)
    assert granted.rule == "N23 CC Outside the Sequence"
    assert one(played, ev.FightDeclared).kind == "granted attack"
    assert one(played, ev.HitRolled).hit
    assert one(played, ev.CoupDeGrace).target == "b"
    assert played.state.fighters["b"].status == OUT_OF_ACTION


def test_the_target_reacts_to_a_granted_attack() -> None:
    # a misses (2); b makes Reaction attacks: hit 1 (a natural 1 misses)
    played = run(
        duel(skills=["Counter-attack"]),
        [GrantedAttack(attacker="a", granted_by="Counter-attack")],
        [2, 1],
    )
    assert one(played, ev.ReactionAttacksBegun).reactors == ["b"]
    assert [h.attacker for h in of(played, ev.HitRolled)] == ["a", "b"]


def test_only_what_the_fighter_has_grants_it() -> None:
    with pytest.raises(RuleViolation, match=r"no skill, gang tactic or condition 'Mounted'") as e:
        run(duel(skills=["Counter-attack"]), [GrantedAttack(attacker="a", granted_by="Mounted")])
    assert "it has: Counter-attack, Ambush" in str(e.value)
    bare = setup([fighter("a", "g", vision=["b"]), fighter("b", "e")], [("a", "b")])
    with pytest.raises(RuleViolation, match="it has none"):
        run(bare, [GrantedAttack(attacker="a", granted_by="Ambush")])
    # and the sequence's own rules still hold: a Broken fighter must Run for Cover
    with pytest.raises(RuleViolation, match="Broken"):
        run(duel(broken=True), [GrantedAttack(attacker="a", granted_by="Ambush")])


def test_granted_attacks_are_offered_and_shown() -> None:
    state = initial_state(duel(skills=["Counter-attack"], mounted=True))
    offers = [o for o in legal_commands(state, {}) if o.type == "granted-attack"]
    assert [o.actor for o in offers] == ["a"]
    assert offers[0].options["granted_by"] == ("Counter-attack", "Ambush", "Mounted")
    assert command_from_option(offers[0], {"granted_by": "Mounted"}) == GrantedAttack(
        attacker="a", granted_by="Mounted", weapons=("knife",), targets=("b",)
    )
    (a,) = [u for u in view(state).units if u.id == "a"]
    assert "Mounted" in a.flags
    assert ("attacks outside the sequence", "Counter-attack, Ambush") in {
        (s.name, s.value) for s in a.stats
    }


def test_setup_checks_of_skills_and_tactics() -> None:
    for bad, why in (
        (duel(skills=["x", "x"]), "skills"),
        (duel(skills=["Mounted"]), "mounted = true"),
    ):
        with pytest.raises(SetupError, match=why):
            validate_setup(bad)
    s = duel()
    s.gangs[0] = Gang(id="g", tactics=["t", "t"])
    with pytest.raises(SetupError, match="tactics"):
        validate_setup(s)
