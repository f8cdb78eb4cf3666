"""The rulebook the ``asl`` system cites, and its rulings: each cites an ASL Rulebook section and
says why it is a ruling, in words."""

from __future__ import annotations

import re

import pytest

from blowbyblow.domain.asl import rulings
from blowbyblow.domain.asl.rulebook import RULEBOOK
from blowbyblow.domain.core import RuleEvent
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play

RULESET = get_game_system("asl")


@pytest.mark.parametrize(
    ("rule", "words"),
    [
        ("A11.4", "A11.4 Ambush (chapter A, Close Combat)"),
        ("A11.622", "A11.622 Close Defense Weapon System (chapter A, Close Combat)"),
        ("A11.34", "A11.34, part of A11.3 Sequential CC (chapter A, Close Combat)"),
        ("A20.22", "A20.22 (chapter A, Prisoners)"),
        ("A20.221", "A20.221 (chapter A, Prisoners)"),
        ("C13.7", "C13.7 ATMM (chapter C)"),
        ("A.9", "A.9 Random Selection (chapter A, introduction)"),
        ("A7.302", "A7.302 Casualty Reduction (chapter A)"),
        ("A11.4/A10.7", "A11.4 Ambush (chapter A, Close Combat) and A10.7 (chapter A)"),
        ("other", "other"),
    ],
)
def test_references_read_as_chapter_and_section(rule: str, words: str) -> None:
    assert RULEBOOK.section(rule) == words


def test_cite_names_the_published_book() -> None:
    assert RULEBOOK.title == "ASL Rulebook (2nd edition)"
    assert (
        RULEBOOK.cite("A11.4")
        == "ASL Rulebook (2nd edition), A11.4 Ambush (chapter A, Close Combat)"
    )
    assert RULESET.rulebook is RULEBOOK


def test_every_rule_the_demo_cites_reads_as_a_rulebook_section() -> None:
    rules = {e.rule for e in play(RULESET.demo()).events if isinstance(e, RuleEvent)}
    assert rules >= {"A11.4", "A11.11", "A11.15", "A7.302"}
    for rule in rules:
        assert re.fullmatch(r"A\d*\.\d+ .*\(chapter A.*\)", RULEBOOK.section(rule)), rule


UNCONFIRMED = {
    "ambush-threshold",
    "ambush-concealed-drm",
    "ambush-drm-count",
    "odds-above-10",
    "hand-to-hand",
    "sw-loss-dr",
    "atmm-check",
    "prisoner-attacks",
    "withdrawal-cx",
}


def test_rulings_cite_a_section_and_say_why() -> None:
    names = {r.name for r in rulings.RULINGS}
    assert names > UNCONFIRMED
    for r in rulings.RULINGS:
        assert not r.name.startswith("asl."), r.name
        assert RULEBOOK.section(r.rule) != r.rule, r.name  # a rulebook section, read in words
        assert r.note, r.name
        assert ("unconfirmed" in r.note.lower()) == (r.name in UNCONFIRMED), r.name
        for text in (r.summary, r.note, r.rule):
            assert not re.search(r"FACTS|seed|shared/|\[[US]\]", text), (r.name, text)
    assert {r.name: r.rule for r in rulings.RULINGS}["atmm-check"] == "C13.7"
