"""The docs site's pages that come from the code, made afresh at every build (an MkDocs hook, see
mkdocs.yml): the home page (README.md), the rulings of every game system, and each system's
scenario format and recorded events from its JSON Schemas.

They are never committed: made from the code at each build, they cannot fall behind it, and no
change to a ruling or a setup field needs a docs commit of its own. To read them without a site:
``python docs/hooks/generate.py OUTDIR`` writes them as Markdown files."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Union

import msgspec

from blowbyblow.cli.newcomer import field_terms
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.replay.engine.registry import game_systems
from blowbyblow.replay.engine.scenario import CORE_KEYS

REPO = Path(__file__).resolve().parents[2]
GENERATED = "reference"  # the site's folder of generated pages


def _cell(text: str) -> str:
    """Text for a Markdown table cell."""
    return re.sub(r"\s+", " ", text.replace("|", "\\|").replace("``", "`")).strip()


def _table(head: Iterable[str], rows: Iterable[Iterable[str]]) -> list[str]:
    head = list(head)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def home_page(readme: str) -> str:
    """README.md as the site's home: its mentions of `docs/X.md` become links."""
    return re.sub(r"`docs/([\w/-]+\.md)`", r"[`docs/\1`](\1)", readme)


def rulings_page(systems: Mapping[str, AnyGameSystem]) -> str:
    lines = [
        "# Rulings",
        "",
        "Where a rules text is ambiguous, has variants or relies on a value nobody could confirm,",
        "the game system has a named *ruling*. The rulings in force are recorded when a battle",
        "starts; a scenario's `[rulings]` table or `bxb whatif --ruling NAME=VALUE` sets them.",
        "This page is generated from the code (`bxb rulesets --json` gives the same).",
    ]
    for system in systems.values():
        lines += ["", f"## `{system.id}` {system.version}: {system.title}", ""]
        if not system.rulings:
            lines.append("No rulings.")
            continue
        rows = []
        for r in system.rulings:
            why = f" Why a ruling: {r.note}" if r.note else ""
            since = f" Since {r.since}; before it: `{r.before}`." if r.since else ""
            rows.append(
                [
                    f"`{r.name}`",
                    f"`{r.default}`",
                    ", ".join(f"`{c}`" for c in r.choices),
                    r.summary + why + since,
                    system.rulebook.cite(r.rule),
                ]
            )
        lines += _table(["ruling", "default", "choices", "what it decides", "rule"], rows)
    return "\n".join(lines) + "\n"


def _structs(schema: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    for name, node in schema.get("$defs", {}).items():
        tag = node.get("properties", {}).get("type", {}).get("enum")
        title = f'`type = "{tag[0]}"` ({name})' if tag else name
        lines += ["", f"### {title}", ""]
        if node.get("description"):
            lines += [_cell(node["description"]), ""]
        required = set(node.get("required", ()))
        rows = []
        for field, sub in node.get("properties", {}).items():
            rows.append([f"`{field}`", *field_terms(sub, field in required)])
        lines += _table(["field", "type", "required or default"], rows)
    return lines


def system_page(system: AnyGameSystem) -> str:
    """A game system's scenario format and recorded events, from its JSON Schemas."""
    setup = system.setup_schema()
    commands = system.command_schema()
    events = msgspec.json.schema(Union[tuple(system.event_types)])  # noqa: UP007 - built at run time
    top = setup["$ref"].rsplit("/", 1)[-1]
    lines = [
        f"# Scenario format: `{system.id}`",
        "",
        f"{system.title}, version {system.version}; rules: {system.rulebook.title}.",
        "Generated from the code: the",
        "JSON Schemas below are the ones `bxb record` checks a scenario file against.",
        f"`bxb new --ruleset {system.id}` writes a commented template of this format.",
        "",
        "## Scenario file",
        "",
        "The keys every scenario has: "
        + ", ".join(f"`{k}`" for k in CORE_KEYS)
        + " (see [Scenario files](../scenarios.md), and `bxb new`). Every other",
        f"top-level key is a field of the setup, `{top}`; each `[[actions]]` table is one",
        "of the commands, chosen by its `type`.",
        "",
        "## Setup",
        *_structs(setup),
        "",
        "## Actions",
        *_structs(commands),
        "",
        "## Events recorded",
        "",
        "Besides the engine's own (the battle's start, each command issued, dice rolled, answers",
        "given), a battle of this system records these events; see",
        "[the store and the record format](../store.md).",
        "",
        *_table(
            ["event", "fields"],
            (
                [f"`{name}`", ", ".join(f"`{f}`" for f in node.get("properties", {}))]
                for name, node in events.get("$defs", {}).items()
            ),
        ),
        "",
        "## JSON Schemas",
        "",
        "The setup:",
        "",
        "```json",
        json.dumps(setup, indent=2),
        "```",
        "",
        "The actions:",
        "",
        "```json",
        json.dumps(commands, indent=2),
        "```",
    ]
    return "\n".join(lines) + "\n"


def pages() -> dict[str, str]:
    """Every generated page: its path in the site's sources -> its Markdown."""
    systems = game_systems()
    made = {
        "index.md": home_page((REPO / "README.md").read_text(encoding="utf-8")),
        f"{GENERATED}/rulings.md": rulings_page(systems),
    }
    for system in systems.values():
        made[f"{GENERATED}/scenario-{system.id}.md"] = system_page(system)
    return made


def on_files(files: Any, config: Any) -> Any:
    """MkDocs hook: add the generated pages to the site, written nowhere in the repository."""
    from mkdocs.structure.files import File

    for path, text in pages().items():
        files.append(File.generated(config, path, content=text))
    return files


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "build/generated-docs")
    for path, text in pages().items():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_text(text, encoding="utf-8")
        print(out / path)
