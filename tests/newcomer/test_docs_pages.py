"""The docs site's pages made from the code (docs/hooks/generate.py): every ruling, every field of
every scenario format, every event type, and the README as the home page with working links.
CI builds the whole site with `mkdocs build --strict`; these check what the pages say."""

from __future__ import annotations

import importlib.util
import re
from types import ModuleType
from typing import Any

import pytest

from blowbyblow.replay.engine.registry import game_systems

from bxbtest import RULESET_IDS
from newcomer_helpers import REPO

DOCS = REPO / "docs"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate", DOCS / "hooks" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PAGES: dict[str, str] = _generator().pages()


def test_generated_pages_are_made_not_committed() -> None:
    """A committed copy would shadow the page made at build time, and fall behind the code."""
    assert "index.md" in PAGES and "reference/rulings.md" in PAGES
    for path in PAGES:
        assert not (DOCS / path).exists(), path


def test_the_home_page_is_the_readme_with_its_docs_linked() -> None:
    home = PAGES["index.md"]
    readme = (REPO / "README.md").read_text()
    assert re.sub(r"\[(`docs/[^`]+`)\]\([^)]+\)", r"\1", home) == readme
    links = re.findall(r"\]\(([\w/-]+\.md)\)", home)
    assert "architecture.md" in links
    for link in links:
        assert (DOCS / link).is_file(), link


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells)


def test_the_rulings_page_has_every_ruling_with_its_default_choices_and_rule() -> None:
    page = PAGES["reference/rulings.md"]
    sections = {s.split("`")[1]: s for s in page.split("\n## ")[1:]}
    for system in game_systems().values():
        section = sections[system.id]
        assert section.startswith(f"`{system.id}` {system.version}: {system.title}\n")
        for r in system.rulings:
            choices = ", ".join(f"`{c}`" for c in r.choices)
            row = next(line for line in section.splitlines() if line.startswith(f"| `{r.name}` |"))
            assert row.startswith(_row([f"`{r.name}`", f"`{r.default}`", choices]))
            assert row.endswith(f"| {system.rulebook.cite(r.rule)} |")


def _fields(schema: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (name, field)
        for name, node in schema["$defs"].items()
        for field in node.get("properties", {})
    ]


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_each_scenario_format_page_has_every_field_action_and_event(ruleset_id: str) -> None:
    system = game_systems()[ruleset_id]
    page = PAGES[f"reference/scenario-{ruleset_id}.md"]
    sections = re.split(r"^### ", page, flags=re.M)
    for schema in (system.setup_schema(), system.command_schema()):
        for struct, field in _fields(schema):
            section = next(s for s in sections if re.match(rf"(`type = \S+` \()?{struct}\b", s))
            assert f"| `{field}` |" in section, (struct, field)
    for event in system.event_types:
        assert f"| `{event.__name__}` |" in page
