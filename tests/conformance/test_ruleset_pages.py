"""Each shipped game system's page in docs/rulesets/ keeps step with its code: it names the
system's version and every ruling, and no entry is left "still a fixed reading" (a choice the
engine makes that a judge cannot change): each is a ruling, or quotes the words that leave no
other reading."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.replay.engine.registry import game_systems

PAGES = Path(__file__).resolve().parents[2] / "docs" / "rulesets"
SHIPPED = sorted(p.stem for p in PAGES.glob("*.md"))


def system(ruleset: str) -> AnyGameSystem:
    return game_systems()[ruleset]


def test_every_shipped_system_has_a_page() -> None:
    assert SHIPPED == ["asl", "gangfight", "necromunda-2023", "necromunda-legacy", "wh40k-2e"]


@pytest.mark.parametrize("ruleset", SHIPPED)
def test_the_page_names_the_version_and_every_ruling(ruleset: str) -> None:
    page = (PAGES / f"{ruleset}.md").read_text()
    s = system(ruleset)
    assert re.search(rf"[Vv]ersion {re.escape(s.version)}\b", page), s.version
    missing = [r.name for r in s.rulings if f"`{r.name}`" not in page]
    assert missing == [], f"rulings not in docs/rulesets/{ruleset}.md: {missing}"


@pytest.mark.parametrize("ruleset", SHIPPED)
def test_no_reading_is_left_fixed(ruleset: str) -> None:
    page = (PAGES / f"{ruleset}.md").read_text()
    left = [
        line for line in page.splitlines() if re.search(r"still (a )?fixed reading", line, re.I)
    ]
    assert left == []
