"""The rooms' import rules (docs/architecture.md), checked over every module's imports and calls.

Each rule reads the source's syntax tree: the imports a module makes when it runs (those only
for the type checker, under ``if TYPE_CHECKING:``, are left out) and the store writes it calls.
Every test here fails when a module breaks its room's rule; the last ones show it does, on a
made-up module."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOPS = ("domain", "projections", "replay", "cli", "web")
STDLIB = set(sys.stdlib_module_names) | {"__future__"}

# What "adjudicates" means: running rule procedures through the driver.
ADJUDICATING = {
    ("blowbyblow.replay.engine.driver", "Table"),
    ("blowbyblow.replay.engine.driver", "adjudicate_commands"),
    ("blowbyblow.replay.engine.script", "adjudicate_all"),
    ("blowbyblow.replay.engine.script", "play"),
}
# What "writes" means: a call that adds records to a store.
WRITES = {"append", "import_events", "seal"}


@dataclass(frozen=True)
class Module:
    name: str  # blowbyblow.replay.store.log
    path: Path
    imports: frozenset[str]  # modules imported at run time (absolute)
    names: frozenset[tuple[str, str]]  # (module, name) imported with from-imports
    writes: frozenset[str]  # store writes called: "store.append", …


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node, leaving out the bodies of ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _type_checking(node):
            yield from (n for child in node.orelse for n in [child, *_walk(child)])
            continue
        yield node
        yield from _walk(node)


def _absolute(module: str, level: int, package: str) -> str:
    if level == 0:
        return module
    base = package.split(".")
    base = base[: len(base) - level + 1]
    return ".".join([*base, module] if module else base)


def read_module(path: Path, name: str) -> Module:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    imports: set[str] = set()
    names: set[tuple[str, str]] = set()
    writes: set[str] = set()
    for node in _walk(tree):
        if isinstance(node, ast.Import):
            imports.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node.module or "", node.level, package)
            imports.add(module)
            for alias in node.names:
                names.add((module, alias.name))
                imports.add(f"{module}.{alias.name}")  # a submodule imported by name
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in WRITES
        ):
            receiver = ast.unparse(node.func.value)
            if re.search(r"(^|\.)store$", receiver.lower()):
                writes.add(f"{receiver}.{node.func.attr}")
    return Module(name, path, frozenset(imports), frozenset(names), frozenset(writes))


def modules(top: str, sub: str = "") -> list[Module]:
    folder = ROOT / top / sub
    found = []
    for path in sorted(folder.rglob("*.py")):
        relative = path.relative_to(ROOT).with_suffix("")
        parts = [p for p in relative.parts if p != "__init__"]
        found.append(read_module(path, ".".join(["blowbyblow", *parts])))
    return found


def _ours(m: Module) -> set[str]:
    return {i for i in m.imports if i == "blowbyblow" or i.startswith("blowbyblow.")}


def _third_party(m: Module) -> set[str]:
    return {i.split(".")[0] for i in m.imports if i.split(".")[0] not in STDLIB} - {"blowbyblow"}


def _outside(m: Module, allowed: tuple[str, ...]) -> set[str]:
    return {i for i in _ours(m) if not any(i == a or i.startswith(a + ".") for a in allowed)}


def adjudicates(m: Module) -> bool:
    return bool(m.names & ADJUDICATING)


def test_every_top_folder_has_modules() -> None:
    for top in TOPS:
        assert modules(top), top
    for room in ("engine", "store", "evidence", "odds", "battles"):
        assert modules("replay", room), room


def domain_rule(m: Module) -> list[str]:
    """The domain imports only the domain, msgspec and the standard library."""
    bad = sorted(_outside(m, ("blowbyblow.domain",)))
    bad += sorted(_third_party(m) - {"msgspec"})
    return bad


def engine_rule(m: Module) -> list[str]:
    """The engine imports only the domain, the folds over it (projections) and itself;
    structlog when a line is logged."""
    bad = sorted(
        _outside(m, ("blowbyblow.domain", "blowbyblow.projections", "blowbyblow.replay.engine"))
    )
    bad += sorted(_third_party(m) - {"msgspec", "structlog"})
    return bad


def projections_rule(m: Module) -> list[str]:
    """The folds import only the domain (and each other)."""
    bad = sorted(_outside(m, ("blowbyblow.domain", "blowbyblow.projections")))
    bad += sorted(_third_party(m) - {"msgspec"})
    return bad


def store_rule(m: Module) -> list[str]:
    """The store never runs a rule procedure, nor reaches up into the rooms built on it."""
    bad = [f"{mod}.{name}" for mod, name in sorted(m.names & ADJUDICATING)]
    bad += sorted(
        i
        for i in _ours(m)
        if i.startswith(
            ("blowbyblow.replay.battles", "blowbyblow.replay.evidence", "blowbyblow.replay.odds")
        )
        or i.startswith(("blowbyblow.cli", "blowbyblow.web"))
    )
    return bad


def evidence_rule(m: Module) -> list[str]:
    """Evidence never imports the odds, nor the battles room, nor a front end."""
    return sorted(
        i
        for i in _ours(m)
        if i.startswith(
            (
                "blowbyblow.replay.odds",
                "blowbyblow.replay.battles",
                "blowbyblow.cli",
                "blowbyblow.web",
            )
        )
    )


def odds_rule(m: Module) -> list[str]:
    """Odds never import the evidence, nor the battles room, nor a front end; they write nothing."""
    bad = sorted(
        i
        for i in _ours(m)
        if i.startswith(
            (
                "blowbyblow.replay.evidence",
                "blowbyblow.replay.battles",
                "blowbyblow.cli",
                "blowbyblow.web",
            )
        )
    )
    return bad + sorted(m.writes)


def writer_rule(m: Module) -> list[str]:
    """Only the battles room both adjudicates and writes."""
    if adjudicates(m) and m.writes:
        return [f"adjudicates ({sorted(m.names & ADJUDICATING)}) and writes {sorted(m.writes)}"]
    return []


def front_end_rule(m: Module) -> list[str]:
    """A front end neither runs the driver nor writes to the store: it goes through the door."""
    bad = [f"{mod}.{name}" for mod, name in sorted(m.names & ADJUDICATING)]
    bad += sorted(i for i in _ours(m) if i.startswith("blowbyblow.replay.engine.driver"))
    return bad + sorted(m.writes)


RULES = [
    ("domain", "", domain_rule),
    ("projections", "", projections_rule),
    ("replay", "engine", engine_rule),
    ("replay", "store", store_rule),
    ("replay", "evidence", evidence_rule),
    ("replay", "odds", odds_rule),
    ("cli", "", front_end_rule),
    ("web", "", front_end_rule),
]


@pytest.mark.parametrize(("top", "room", "rule"), RULES, ids=[f"{t}/{r}" for t, r, _ in RULES])
def test_each_room_keeps_its_rule(top: str, room: str, rule: object) -> None:
    assert callable(rule)
    broken = {m.name: found for m in modules(top, room) if (found := rule(m))}
    assert not broken, f"{rule.__doc__}\n{broken}"


def test_only_the_battles_room_both_adjudicates_and_writes() -> None:
    rooms = [m for top in TOPS for m in modules(top)]
    both = {m.name: writer_rule(m) for m in rooms if writer_rule(m)}
    assert all(name.startswith("blowbyblow.replay.battles.") for name in both), both
    # ... and it does: the door adjudicates and writes
    door = read_module(ROOT / "replay/battles/battle.py", "blowbyblow.replay.battles.battle")
    assert adjudicates(door) and door.writes


def test_one_place_plays_a_command() -> None:
    """Commands are adjudicated and appended in one room, the door's: ``Battle`` (a live
    command; a scenario's commands through ``record``, which it calls)."""
    playing = [
        m.name
        for top in TOPS
        for m in modules(top)
        if ("blowbyblow.replay.engine.driver", "Table") in m.names and m.writes
    ]
    assert playing and all(name.startswith("blowbyblow.replay.battles.") for name in playing)


# --- the rules catch what they are for -------------------------------------------------------


def _made_up(tmp_path: Path, name: str, source: str) -> Module:
    path = tmp_path / "m.py"
    path.write_text(source, encoding="utf-8")
    return read_module(path, name)


def test_a_front_end_that_builds_a_table_or_appends_is_caught(tmp_path: Path) -> None:
    builds = _made_up(
        tmp_path,
        "blowbyblow.web.sneaky",
        "from blowbyblow.replay.engine.driver import Table\nTable\n",
    )
    assert front_end_rule(builds)
    appends = _made_up(
        tmp_path,
        "blowbyblow.cli.sneaky",
        "def f(store, b, e):\n    return store.append(b, 'x', 0, e)\n",
    )
    assert front_end_rule(appends) == ["store.append"]
    honest = _made_up(
        tmp_path,
        "blowbyblow.cli.honest",
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from blowbyblow.replay.engine.driver import Table\n"
        "from blowbyblow.replay.battles.battle import Battle\n",
    )
    assert front_end_rule(honest) == []


def test_a_room_importing_one_it_must_not_is_caught(tmp_path: Path) -> None:
    domain = _made_up(tmp_path, "blowbyblow.domain.x", "import blowbyblow.replay.engine.codec\n")
    assert domain_rule(domain) == ["blowbyblow.replay.engine.codec"]
    engine = _made_up(tmp_path, "blowbyblow.replay.engine.x", "import sqlite3\nimport psycopg\n")
    assert engine_rule(engine) == ["psycopg"]
    evidence = _made_up(tmp_path, "blowbyblow.replay.evidence.x", "from ..odds import chance\n")
    assert evidence_rule(evidence) == ["blowbyblow.replay.odds", "blowbyblow.replay.odds.chance"]
    store = _made_up(
        tmp_path,
        "blowbyblow.replay.store.x",
        "def f():\n    from blowbyblow.replay.engine.script import adjudicate_all\n",
    )
    assert store_rule(store) == ["blowbyblow.replay.engine.script.adjudicate_all"]
    writer = _made_up(
        tmp_path,
        "blowbyblow.replay.evidence.x",
        "from blowbyblow.replay.engine.driver import adjudicate_commands\n"
        "def f(self):\n    self.store.import_events(1, [])\n",
    )
    assert writer_rule(writer)


MAX_LINES = 700


def test_no_module_is_over_700_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for top in TOPS
        for p in (ROOT / top).rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"split these by idea: {long}"
